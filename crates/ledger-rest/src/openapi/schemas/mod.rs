//! Documentation types of the REST answers: each mirrors one renderer of
//! `ledger_domain::views` (or a handler's own `json!`), field for field, so the OpenAPI
//! document describes what the handlers send. They are never built: the handlers render
//! JSON values, and the schema test of the document checks these shapes against real
//! answers (schemathesis in CI).
//!
//! One module per family of resources; each declares its lists with [`list_of`].

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

macro_rules! list_of {
    ($($name:ident => $item:ty),* $(,)?) => {$(
        /// One page of a list: `data`, whether more follow, and the total.
        #[derive(ToSchema)]
        pub(crate) struct $name {
            #[schema(example = "list")]
            object: String,
            data: Vec<$item>,
            has_more: bool,
            total_count: i64,
        }
    )*};
}
pub(crate) use list_of;
