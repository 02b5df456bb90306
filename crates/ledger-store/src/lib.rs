//! `ledger-store`: the Diesel persistence adapter of the Ledger service.
//!
//! One query layer, two databases: PostgreSQL (production, deadpool of
//! `AsyncPgConnection`) and an embedded SQLite file (single writer, WAL readers). Every
//! query body is written once and compiled for both connection types (see the `db` module).
//! [`Db`] implements every port trait of `ledger_domain::ports`.
//!
//! Storage choices: money is `BIGINT` in units of 1/10000 (`ledger_domain::money`) and
//! sums exactly in SQL; timestamps are UTC `TIMESTAMP` at microsecond precision; JSON is
//! `TEXT`. Every tenant row carries `organization_id` and `livemode` and every tenant
//! query filters on both.
//!
//! Module layering, acyclic: a module uses only modules on its own line or below.
//!
//! ```text
//! accounts, balances, bench, categories, contacts,
//!   documents, journal, keys, maintenance, settings,
//!   taxes, testing, exchange_rates, ownership,
//!   attachments, blobs, blobs_s3,
//!   oauth, recurring,
//!   webhooks, reconciliations      the port implementations on `Db`; `LocalBlobs`, `S3Blobs`
//!   credit_pools                   the credit ledger, pools, purchases and the monthly reset
//!   x402                           used x402 authorizations; x402 purchases (credit_pools'
//!                                  completion)
//! jobs                             the queue: enqueue, claim, apply, fail, retry
//! group                            group commit of applied writes
//! apply, organizations             a job's effect; organizations, users, events
//! idempotency                      the `Idempotency-Key` guard and replay
//! credits                          taking credits inside a write transaction
//! rows                             row structs and their domain conversions
//! locks, references                row locks; "in use" checks
//! db                               pools, connections, the dispatch macros,
//!                                  transactions, error mapping
//! schema, tenancy, unnest,
//!   sqlite_thread                  leaves
//! ```

#[macro_use]
mod tenancy;
#[macro_use]
mod db;
#[macro_use]
mod idempotency;
mod accounts;
mod apply;
mod attachments;
mod balances;
#[cfg(feature = "bench")]
pub mod bench;
mod blobs;
mod blobs_s3;
mod categories;
mod chart_cache;
mod charts;
mod contacts;
#[macro_use]
mod credit_pools;
mod credits;
mod documents;
mod exchange_rates;
mod group;
mod jobs;
mod journal;
mod keys;
mod locks;
mod maintenance;
mod oauth;
mod organizations;
mod ownership;
mod reconciliations;
mod recurring;
mod references;
mod rows;
mod runtime;
mod schema;
mod settings;
mod sqlite_thread;
mod taxes;
#[cfg(feature = "test-support")]
pub mod testing;
mod unnest;
mod webhooks;
mod x402;

pub use balances::TotalsDifference;
pub use blobs::LocalBlobs;
pub use blobs_s3::{S3Blobs, S3Config};
pub use credit_pools::CreditDifference;
pub use db::{DEFAULT_PG_POOL, DEFAULT_SQLITE_READERS, Db, SetupError, default_pool_size};
pub use runtime::TokioRuntime;
