//! The canonical JSON form of each resource (REST shapes, snake_case, amounts as decimal
//! strings at the currency's scale). REST answers with it, MCP relays it, and audit events
//! store it as `after_state`, so it is defined once, here.
//!
//! Each view is a typed struct (`views::TaxView`) that serializes to that form and
//! derives the JSON Schema the OpenAPI document and the MCP tools' output schemas
//! describe it with, so what is documented is what is sent; `views::tax` is the same
//! view as a JSON value, for the services, the events and MCP. The views are grouped by
//! resource family in the submodules and re-exported here.

mod accounts;
mod automation;
mod catalog;
mod documents;
mod list;
mod operations;
mod organizations;
mod reconciliations;
mod reports;

// The values every view writes the same way are defined with their types, below the
// views (and re-exported here for the interfaces).
pub use crate::dates::{iso_date as date, opt_timestamp, timestamp};
pub use crate::events::view as event;
pub use crate::money::{amount, decimals_of};

pub use crate::wire::json;
pub use accounts::*;
pub use automation::*;
pub use catalog::*;
pub use documents::*;
pub use list::List;
pub use operations::*;
pub use organizations::*;
pub use reconciliations::*;
pub use reports::*;
