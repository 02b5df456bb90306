//! Black-box HTTP suites. Each scenario runs on SQLite and on PostgreSQL.

mod accounts;
mod auth;
mod balances;
mod categories;
mod concurrency;
mod contacts;
mod currencies;
mod documents;
mod errors;
mod exchange_rates;
mod graphql;
mod harness;
mod keys;
mod limits;
mod mcp;
mod mcp_currencies;
mod mcp_sdk;
mod period_locks;
mod pipeline;
mod reports;
mod settings;
mod system;
mod taxes;
mod transactions;
mod transport;
