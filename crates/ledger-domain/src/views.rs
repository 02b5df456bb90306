//! The canonical JSON form of each resource (REST shapes, snake_case, amounts as decimal
//! strings at the currency's scale). REST answers with it, MCP relays it, and audit events
//! store it as `after_state`, so it is defined once, here.
//!
//! The views are grouped by resource family in the submodules and re-exported here, so
//! every view is `views::name`.

mod accounts;
mod catalog;
mod documents;
mod operations;
mod organizations;
mod reconciliations;

// The values every view writes the same way are defined with their types, below the
// views (and re-exported here for the interfaces).
pub use crate::dates::{iso_date as date, opt_timestamp, timestamp};
pub use crate::events::view as event;
pub use crate::money::{amount, decimals_of};

pub use accounts::{account, balance, batch, journal, transaction};
pub use catalog::{category, contact, contact_summary, conversion, currency, exchange_rate, tax};
pub use documents::{attachment, document, payment, quantity, status_change};
pub use operations::{deleted, deletion, job_envelope, system_info};
pub use organizations::{
    api_key, billing, organization, organization_transfer, setting, transfer_stats,
};
pub use reconciliations::{reconciliation, statement_line};
