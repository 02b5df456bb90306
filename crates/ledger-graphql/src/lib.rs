//! `ledger-graphql`: the GraphQL interface (spec 4.12) with Juniper.
//!
//! Resolvers call the same use-case services as REST ([`Ledger`]): the same
//! authentication, permissions, tenant scope, credits and events. Nothing here holds a
//! business rule; errors leave through [`errors::field_error`] only (spec 7.2 codes).
//!
//! Protection: documents deeper than [`GraphqlLimits::max_depth`] or with more fields
//! than [`GraphqlLimits::max_complexity`] (fragments counted once per spread) are refused
//! before execution; balances of sibling accounts load in one store query.
//!
//! [`Ledger`]: ledger_domain::services::Ledger

pub mod context;
pub mod credits;
pub mod documents;
pub mod enums;
pub mod errors;
pub mod exchange;
mod http;
pub mod mutation;
pub mod nodes;
pub mod organization;
pub mod ownership;
pub mod query;
pub mod reconciliations;
pub mod recurring;
pub mod reports;
pub mod scalars;
pub mod transfers;
pub mod webhooks;

use std::marker::PhantomData;

use actix_web::web;
use juniper::{EmptySubscription, RootNode};
use ledger_domain::ports::Store;

pub use context::Ctx;
pub use mutation::Mutation;
pub use query::Query;

/// The schema over a store.
pub type Schema<St> = RootNode<Query<St>, Mutation<St>, EmptySubscription<Ctx<St>>>;

/// Document limits (configurable in `crates/server`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphqlLimits {
    /// Deepest nesting of selection sets (and fragments, input values, list types).
    pub max_depth: usize,
    /// Most fields in one operation, each fragment's fields counted once per spread.
    pub max_complexity: usize,
}

impl Default for GraphqlLimits {
    fn default() -> Self {
        Self {
            max_depth: 20,
            max_complexity: 1000,
        }
    }
}

/// Builds the schema with `limits`.
pub fn schema<St: Store>(limits: GraphqlLimits) -> Schema<St> {
    RootNode::new(
        Query(PhantomData),
        Mutation(PhantomData),
        EmptySubscription::new(),
    )
    .limit_depth(limits.max_depth)
    .limit_fields(limits.max_complexity)
}

/// The schema in SDL (what `cargo xtask graphql-schema` writes to `docs/schema.graphql`).
pub fn sdl<St: Store>() -> String {
    schema::<St>(GraphqlLimits::default()).as_sdl()
}

/// Registers `POST /graphql` (GraphiQL at `GET /graphql/playground` is
/// `ledger-playground`'s). The REST
/// [`ledger_http::AppState`] must be registered as app data too (authentication, rate
/// limits and the job waker are shared).
pub fn configure<St: Store>(cfg: &mut web::ServiceConfig, schema: web::Data<Schema<St>>) {
    cfg.app_data(schema)
        .route("/graphql", web::post().to(http::graphql::<St>));
}
