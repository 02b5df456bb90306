//! Black-box HTTP suites. Each scenario runs on SQLite and on PostgreSQL.

mod accounts;
mod auth;
mod categories;
mod concurrency;
mod contacts;
mod errors;
mod harness;
mod keys;
mod limits;
mod reports;
mod settings;
mod system;
mod taxes;
mod transactions;
