//! Black-box HTTP suites. Each scenario runs on SQLite and on PostgreSQL.

mod accounts;
mod auth;
mod balances;
mod batch;
mod categories;
mod concurrency;
mod contacts;
mod documents;
mod errors;
mod graphql;
mod harness;
mod keys;
mod limits;
mod mcp;
mod mcp_sdk;
mod period_locks;
mod pipeline;
mod reports;
mod settings;
mod system;
mod taxes;
mod transactions;
mod transfers;
mod transport;
