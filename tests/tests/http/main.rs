//! Black-box HTTP suites. Each scenario runs on SQLite and on PostgreSQL.

mod accounts;
mod auth;
mod concurrency;
mod errors;
mod harness;
mod keys;
mod limits;
mod reports;
mod settings;
mod system;
mod transactions;
