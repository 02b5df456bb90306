//! `ledger-rest`: the actix-web REST interface (spec section 4).
//!
//! Handlers parse and check the request, build one write for the domain's pipeline or
//! call one [`Ledger`](ledger_domain::services::Ledger) read, and render the answer; they
//! hold no business rule. Errors leave through
//! [`ledger_http::error::ApiError`] only. [`client::RestClient`] serves these routes
//! in-process (MCP tool calls are REST requests).

pub mod client;
mod openapi;
mod queued;
mod routes;

use actix_web::web;
use ledger_domain::ports::Store;
// The shared HTTP edge, under the names the routes use.
use ledger_http::{AppState, auth, error, html, input};

pub use routes::RouteEntry;

/// Registers every route on `cfg`.
pub fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    routes::configure::<S>(cfg);
}

/// Every REST path with its methods, exactly as [`configure`] registers them.
pub fn route_table<S: Store>() -> Vec<RouteEntry> {
    routes::table::<S>()
}

/// The OpenAPI 3.1 document of the REST API, as generated from the code (served at
/// `/openapi.json` with the server's own URLs).
pub fn openapi_document() -> serde_json::Value {
    openapi::to_json(openapi::document())
}

/// [`openapi_document`] pretty-printed with a final newline, as `cargo xtask openapi`
/// writes it to `docs/openapi.json`.
pub fn openapi_text() -> String {
    let mut text = serde_json::to_string_pretty(&openapi_document()).unwrap_or_default();
    text.push('\n');
    text
}
