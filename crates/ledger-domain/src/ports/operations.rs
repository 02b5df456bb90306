//! What operators read and run: the audit trail, the soft-delete purge, the `/system`
//! figures and the storage's liveness.

use std::future::Future;

use time::OffsetDateTime;

use crate::events::{Deletion, Event};

use super::{Page, PageRequest, StoreResult, Tenant};

/// What a purge removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PurgeReport {
    pub accounts: u64,
    pub transactions: u64,
    pub entries: u64,
    pub api_keys: u64,
    pub taxes: u64,
    pub categories: u64,
    pub contacts: u64,
    pub documents: u64,
    pub deletions: u64,
    pub idempotency_records: u64,
    pub exchange_rates: u64,
    /// Attachment rows (their bytes went at the delete).
    pub attachments: u64,
    /// Reconciliations (their statement lines go with them).
    pub reconciliations: u64,
}

/// The soft-delete audit trail and its purge (spec 3.6).
pub trait Deletions: Send + Sync + 'static {
    /// The first kind of reference, in the order of
    /// [`crate::references::used_by`], that keeps `resource` `id` of the tenant from
    /// being deleted; `None` when nothing references it. (Deletes check again, under
    /// lock, when they are applied.)
    fn first_reference(
        &self,
        tenant: &Tenant,
        resource: crate::error::Resource,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<crate::error::UsedBy>>> + Send;

    /// The tenant's deletion records, newest first.
    fn list_deletions(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Deletion>>> + Send;

    /// The deletion records made by key `key_id` in mode `livemode`, in the organizations
    /// whose path starts with `path_prefix` (the key's reach), newest first.
    fn list_deletions_by_key(
        &self,
        key_id: &str,
        livemode: bool,
        path_prefix: &str,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Deletion>>> + Send;

    /// Service-wide maintenance, in one transaction: hard-deletes the soft-deleted
    /// accounts, transactions (with their entries), API keys, taxes, categories and contacts whose
    /// `recoverable_until` is at or before `now`, the deletion records past it, and the
    /// idempotency records created before `idempotency_before`. An account that ledger
    /// entries still reference is kept (it can never have been deleted legitimately).
    ///
    /// # Errors
    /// `Internal` on storage failure; nothing is removed then.
    fn purge_expired(
        &self,
        now: OffsetDateTime,
        idempotency_before: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<PurgeReport>> + Send;
}

/// Event figures of an organization tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventStats {
    pub total_events: i64,
    pub events_since: i64,
    /// Event type and count, by type name.
    pub events_by_type: Vec<(String, i64)>,
    /// The newest events, newest first.
    pub recent_events: Vec<Event>,
}

/// Queue figures, service-wide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobStats {
    pub queued: i64,
    pub completed_since: i64,
    pub failed_since: i64,
}

/// Connection pool figures, summed over the store's pools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Connections the pools may open.
    pub max_size: u64,
    /// Connections checked out now.
    pub in_use: u64,
    /// Callers waiting for a connection.
    pub waiting: u64,
}

/// Figures for `/system` (spec 2.12).
pub trait Monitoring: Send + Sync + 'static {
    /// Events of mode `livemode` in the organizations whose path starts with
    /// `path_prefix`: totals, those created at or after `since`, counts by type and the
    /// `recent` newest.
    fn event_stats(
        &self,
        path_prefix: &str,
        livemode: bool,
        since: OffsetDateTime,
        recent: i64,
    ) -> impl Future<Output = StoreResult<EventStats>> + Send;

    /// Jobs queued now, and completed / failed at or after `since`, across all tenants.
    fn job_stats(
        &self,
        since: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<JobStats>> + Send;

    /// The connection pools' state now.
    fn pool_stats(&self) -> PoolStats;
}

/// The audit trail.
pub trait Events: Send + Sync + 'static {
    /// Events of one entity in the tenant, oldest first.
    fn list_events(
        &self,
        tenant: &Tenant,
        entity_type: &str,
        entity_id: &str,
    ) -> impl Future<Output = StoreResult<Vec<Event>>> + Send;
}

/// Liveness of the storage.
pub trait Health: Send + Sync + 'static {
    /// Whether the database answers a trivial query.
    fn ping(&self) -> impl Future<Output = bool> + Send;
}

/// Overall state of the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemStatus {
    Healthy,
    Degraded,
}

impl SystemStatus {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Healthy => "healthy",
            Self::Degraded => "degraded",
        }
    }
}

/// The system information record.
#[derive(Debug, Clone)]
pub struct SystemInfo {
    pub version: &'static str,
    pub status: SystemStatus,
    pub uptime: std::time::Duration,
    pub timestamp: time::OffsetDateTime,
    /// Whether the database answered.
    pub database_up: bool,
    pub events: EventStats,
    pub pool: PoolStats,
    pub jobs: JobStats,
    /// Queue workers configured in this process.
    pub workers: usize,
}
