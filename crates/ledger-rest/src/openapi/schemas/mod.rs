//! The names the `#[utoipa::path]` annotations give the REST answers: each is an alias of
//! the typed view in `ledger_domain::views` that the handler serializes (lists are
//! `views::List<Item>`), so the OpenAPI document describes what is sent; schemathesis
//! checks real answers against it in CI.
//!
//! One module per family of resources.

mod automation;
mod documents;
mod envelopes;
mod journal;
mod organizations;
mod reconciliations;
mod reference;
mod reports;
mod system;

pub(crate) use automation::*;
pub(crate) use documents::*;
pub(crate) use envelopes::*;
pub(crate) use journal::*;
pub(crate) use organizations::*;
pub(crate) use reconciliations::*;
pub(crate) use reference::*;
pub(crate) use reports::*;
pub(crate) use system::*;
