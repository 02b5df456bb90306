//! `ledger-domain`: the pure core of the Ledger service.
//!
//! Double-entry rules, state machines, exact money, report arithmetic, the port traits
//! the adapters implement and the use-case services that drive them. No I/O happens here
//! and no adapter crate is a dependency (CI checks it with `cargo tree`).

pub mod accounts;
pub mod attachments;
pub mod categories;
pub mod contacts;
pub mod credits;
pub mod dates;
pub mod documents;
pub mod error;
pub mod events;
pub mod exchange;
pub mod ids;
pub mod jobs;
#[cfg(any(test, feature = "test-support"))]
pub mod memory;
pub mod money;
pub mod oauth;
pub mod organizations;
pub mod ownership;
pub mod ports;
pub mod reconciliation;
pub mod recurring;
pub mod references;
pub mod reports;
pub mod services;
pub mod tax;
pub mod transactions;
pub mod transfers;
pub mod urls;
pub mod views;
pub mod webhooks;
pub mod wire;
pub mod x402;

pub use error::{DomainError, DomainResult, ErrorCode, ErrorKind, Resource, UsedBy};
pub use ports::{StoreError, StoreResult};
