//! Port traits: what the domain needs from storage and the outside world.
//!
//! Each method is one atomic use of storage; transactions are the adapter's business.
//! Every tenant method takes a [`Tenant`] and must filter on both its organization and
//! its mode: a row of another organization or of the other mode does not exist for it.
//!
//! Error policy: a port returns [`StoreResult`], whose error is a [`StoreError`] fact
//! (missing, vanished, taken, status changed, in use, ...). `DomainError` is built in this
//! crate only, above the ports: the facts are worded once, in `facts.rs`.
//!
//! This module holds what every port shares (tenancy, paging, the clock, the runtime and
//! the [`Store`] that gathers the ports); the storage ports live in one submodule per
//! group, all re-exported here.

mod attachments;
mod catalog;
mod credits;
mod documents;
mod exchange;
mod facts;
mod jobs;
mod journal;
mod oauth;
mod operations;
mod organizations;
mod reconciliations;
mod recurring;
mod webhooks;
mod writes;
mod x402;

use std::future::Future;

use time::OffsetDateTime;

use crate::error::DomainError;

pub use attachments::{Attachments, Blobs, NoBlobs};
pub use catalog::{Categories, CategoryFilter, TaxFilter, Taxes};
pub use credits::{
    CheckoutRequest, CheckoutSession, Credits, DevPayments, NoPayments, PaymentConfirmation,
    PaymentProvider,
};
pub use documents::{Contacts, DocumentFilter, Documents};
pub use exchange::{ExchangeRateFilter, ExchangeRates};
pub use facts::{State, StoreError, Taken};
pub use jobs::{AppliedWrite, DocumentEffect, DocumentTransition, Effect, Jobs, Reversal};
pub use journal::{AccountFilter, Accounts, HistoryPage, HistoryRow, HistoryView, Journal};
pub use oauth::{IssuedKey, Mail, Mailer, NoMailer, NoTokens, OAuthStore, Rotation, TokenSource};
pub use operations::{
    Deletions, EventStats, Events, Health, JobStats, Monitoring, PoolStats, PurgeReport,
    SystemInfo, SystemStatus,
};
pub use organizations::{
    ApiKeys, NewOrganization, OrganizationTransfers, Organizations, Setting, Settings,
    TransferFilter,
};
pub use reconciliations::{EntryFilter, ReconciliationFilter, Reconciliations};
pub use recurring::RecurringSchedules;
pub use webhooks::{
    AttemptOutcome, NoWebhookTransport, OutgoingWebhook, WebhookTransport, Webhooks,
};
pub use writes::{
    Audit, CreditCharge, IDEMPOTENCY_WINDOW, IdempotencyRecord, IdempotencyRecords, Written,
};
pub use x402::{LocalFacilitator, X402Authorization, X402Facilitator, X402Payments};

/// Result of a port call: a store reports facts ([`StoreError`]), the domain words
/// refusals.
pub type StoreResult<T> = Result<T, StoreError>;

/// The organization and mode (live or test) a request works in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tenant {
    pub organization_id: String,
    pub livemode: bool,
}

/// A page of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Rows matching the filter, all pages together.
    pub total_count: i64,
}

/// Limit and offset, already validated (limit 1..=[`MAX_PAGE_SIZE`], offset >= 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: i64,
    pub offset: i64,
}

/// The largest page any list answers (spec 8).
pub const MAX_PAGE_SIZE: i64 = 100;

impl PageRequest {
    /// A page as a client asked for it: `limit` (else `default`) within
    /// 1..=[`MAX_PAGE_SIZE`], `offset` (else 0) not negative. Every interface pages
    /// through this one rule.
    ///
    /// # Errors
    /// `invalid_field` on `limit` or `offset`.
    pub fn bounded(
        limit: Option<i64>,
        offset: Option<i64>,
        default: i64,
    ) -> Result<Self, DomainError> {
        let limit = limit.unwrap_or(default);
        if !(1..=MAX_PAGE_SIZE).contains(&limit) {
            return Err(DomainError::invalid_field(
                "limit",
                format!("must be between 1 and {MAX_PAGE_SIZE}"),
            ));
        }
        let offset = offset.unwrap_or(0);
        if offset < 0 {
            return Err(DomainError::invalid_field("offset", "must not be negative"));
        }
        Ok(Self { limit, offset })
    }
}

/// The time source; injected so tests can replay.
pub trait Clock: Send + Sync + 'static {
    /// The current UTC time.
    fn now(&self) -> OffsetDateTime;
}

/// A boxed future, for the object-safe [`Runtime`] port.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The async runtime the services run on: background tasks, timers and the queue
/// workers' wake-up (tokio in production, injected like the clock).
pub trait Runtime: Send + Sync + 'static {
    /// Runs `task` on its own, so dropping the caller never cancels it. The returned
    /// future completes when the task has ended; dropping it leaves the task running.
    fn spawn(&self, task: BoxFuture<'static, ()>) -> BoxFuture<'static, ()>;

    /// Completes after `duration`.
    fn sleep(&self, duration: std::time::Duration) -> BoxFuture<'static, ()>;

    /// Awaits `future` for at most `duration`; `true` when it completed in time.
    fn timeout<'a>(
        &self,
        duration: std::time::Duration,
        future: BoxFuture<'a, ()>,
    ) -> BoxFuture<'a, bool>;

    /// Wakes a queue worker: new work is queued.
    fn wake_workers(&self);
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

/// Declares [`Store`], the one bound the services need, as the ports listed, and
/// implements it for every type that implements them all: the list is written once.
macro_rules! store_of {
    ($($port:ident),+ $(,)?) => {
        /// Everything the services need from one store.
        pub trait Store: $($port +)+ Clone {}

        impl<T> Store for T where T: $($port +)+ Clone {}
    };
}

store_of!(
    Organizations,
    ApiKeys,
    Accounts,
    Journal,
    Jobs,
    IdempotencyRecords,
    Events,
    Health,
    Settings,
    Deletions,
    Taxes,
    Categories,
    Monitoring,
    Contacts,
    Documents,
    ExchangeRates,
    OrganizationTransfers,
    Attachments,
    OAuthStore,
    RecurringSchedules,
    Webhooks,
    Reconciliations,
    Credits,
    X402Payments,
);
