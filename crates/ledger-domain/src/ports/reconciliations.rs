//! Bank reconciliations of a tenant: synchronous writes (each with its event and
//! credits), the reads of reconciliations with their matches and statement lines, and
//! the journal entries a reconciliation may match.

use std::future::Future;

use time::Date;

use crate::events::Deletion;
use crate::reconciliation::{
    JournalEntry, Reconciliation, ReconciliationChange, ReconciliationStatus, StatementLine,
};

use super::{Audit, Page, PageRequest, StoreResult, Tenant, Written};

/// Filters of the reconciliation list.
#[derive(Debug, Clone, Default)]
pub struct ReconciliationFilter {
    pub account_id: Option<String>,
    pub status: Option<ReconciliationStatus>,
}

/// Which counted entries of one account to read.
#[derive(Debug, Clone, Default)]
pub struct EntryFilter {
    pub account_id: String,
    /// Only these entry ids.
    pub entry_ids: Option<Vec<String>>,
    /// Transaction dates within `[from, until]` (days, either bound open).
    pub from: Option<Date>,
    pub until: Option<Date>,
    /// Only entries no live reconciliation matched.
    pub unmatched_only: bool,
}

/// Reconciliations (spec 2.9, 4.11).
pub trait Reconciliations: Send + Sync + 'static {
    /// Inserts an open reconciliation and its event, taking the credits; a used
    /// `idempotency` key of the tenant is replayed instead.
    ///
    /// # Errors
    /// `Taken(OpenReconciliation)` when the account has a live open reconciliation;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn insert_reconciliation(
        &self,
        reconciliation: Reconciliation,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Reconciliation>>> + Send;

    /// Applies `change` to a live open reconciliation: saves its header fields
    /// (dates, closing balance, status, completed_at, updated_at), inserts and removes
    /// matches and inserts statement lines, with its event and credits, all or nothing.
    ///
    /// # Errors
    /// `Missing` when the reconciliation is not live in its tenant;
    /// `StatusChanged` when it is no longer open; `Taken(MatchedEntry)` when a
    /// new match's entry is matched in a live reconciliation already;
    /// `Taken(MatchedStatementLine)` when a new match's statement line is matched;
    /// `CreditsShort`. Nothing is written then.
    fn save_reconciliation(
        &self,
        change: ReconciliationChange,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;

    /// Soft-deletes a live open reconciliation with its deletion record and event, and
    /// removes its matches (their entries may be matched again).
    ///
    /// # Errors
    /// `Missing`, `StatusChanged`, `CreditsShort`.
    fn delete_reconciliation(
        &self,
        reconciliation_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;

    /// A live reconciliation of the tenant with its matches.
    fn get_reconciliation(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Reconciliation>>> + Send;

    /// The tenant's live reconciliations matching `filter`, latest end date first (then
    /// by id), each with its matches.
    fn list_reconciliations(
        &self,
        tenant: &Tenant,
        filter: &ReconciliationFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Reconciliation>>> + Send;

    /// The statement lines of a reconciliation, by line number.
    fn statement_lines(
        &self,
        tenant: &Tenant,
        reconciliation_id: &str,
    ) -> impl Future<Output = StoreResult<Vec<StatementLine>>> + Send;

    /// The counted entries (of posted or reversed live transactions) of the tenant
    /// matching `filter`, by date then entry id, each with the live reconciliation that
    /// matched it.
    fn journal_entries(
        &self,
        tenant: &Tenant,
        filter: &EntryFilter,
    ) -> impl Future<Output = StoreResult<Vec<JournalEntry>>> + Send;

    /// The id of a completed live reconciliation that matched an entry of the
    /// transaction, if any (such a transaction is locked).
    fn reconciliation_locking(
        &self,
        tenant: &Tenant,
        transaction_id: &str,
    ) -> impl Future<Output = StoreResult<Option<String>>> + Send;
}
