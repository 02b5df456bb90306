//! The queue of writes and the decided effects a job applies.

use std::future::Future;

use time::OffsetDateTime;

use crate::contacts::Contact;
use crate::documents::{Document, DocumentStatus, Payment, StatusChange};
use crate::events::{Deletion, Event};
use crate::jobs::Job;
use crate::transactions::Transaction;

use super::{CreditCharge, IdempotencyRecord, StoreResult, Tenant, Written};

/// A write that is decided and applied at once (`Prefer: wait`): a job recorded already
/// `completed`, with the new transaction it created, its events, its credits and its
/// idempotency record.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedWrite {
    pub job: Job,
    pub charge: Option<CreditCharge>,
    pub idempotency: Option<IdempotencyRecord>,
    pub transaction: Transaction,
    pub events: Vec<Event>,
}

/// A decided change to the journal, applied by [`Jobs::apply_job`] with its precondition.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Insert a new transaction (pending or posted) with its entries.
    InsertTransaction(Transaction),
    /// Insert several new transactions with their entries, all or none (a batch).
    InsertTransactions(Vec<Transaction>),
    /// Replace description, date, metadata and entries. Precondition: still `pending`.
    ReplaceTransaction(Transaction),
    /// Set `posted` and `posted_at`. Precondition: still `pending`.
    PostTransaction {
        transaction_id: String,
        posted_at: OffsetDateTime,
    },
    /// Mark `reversed` with `reversed_by` and the reason, and insert the posted mirror.
    /// Precondition: still `posted`.
    ReverseTransaction {
        transaction_id: String,
        reason: String,
        mirror: Transaction,
    },
    /// Soft-delete. Precondition: still `pending`.
    DeleteTransaction {
        transaction_id: String,
        deletion: Deletion,
    },
    /// Soft-delete. Precondition: no ledger entry references the account.
    DeleteAccount {
        account_id: String,
        deletion: Deletion,
    },
    /// Insert a new contact. A live contact of the tenant with the same reference fails
    /// it with `Taken` on `reference`.
    InsertContact(Contact),
    /// Replace a contact's editable fields. Precondition: still live; the reference stays
    /// unique (`Taken`).
    ReplaceContact(Contact),
    /// Soft-delete. Precondition: still live and no live transaction references it
    /// (`InUse`).
    DeleteContact {
        contact_id: String,
        deletion: Deletion,
    },
    /// A change to an invoice or a bill.
    Document(DocumentEffect),
}

/// A decided change to an invoice or a bill (see [`Effect::Document`]).
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentEffect {
    /// Insert a new draft with its first history row. A sequence number taken meanwhile
    /// fails it with `StatusChanged` / `Changed` (the job is then decided again).
    Insert {
        document: Document,
        history: StatusChange,
    },
    /// Replace a draft's contact, dates, currency, items, taxes, totals and notes.
    /// Precondition: still a live draft (`StatusChanged` / `Changed` otherwise).
    Replace(Document),
    /// Soft-delete. Precondition: still a live draft (`StatusChanged` / `Changed` otherwise).
    Delete {
        document_id: String,
        deletion: Deletion,
    },
    /// A status change with its accounting effect (see [`DocumentTransition`]).
    Transition(Box<DocumentTransition>),
}

/// Move to `document.status` with `document.amount_paid` and `posting_id`.
/// Precondition: the stored status and amount paid are still `expected_status` and
/// `expected_paid` (`StatusChanged` / `Changed` otherwise). With it, in the same database
/// transaction: the posted transaction (accounts checked under lock like any posting),
/// the reversal of the original posting, the payment, the history row.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentTransition {
    pub document: Document,
    pub expected_status: DocumentStatus,
    pub expected_paid: i64,
    pub posting: Option<Transaction>,
    pub reversal: Option<Reversal>,
    pub payment: Option<Payment>,
    pub history: StatusChange,
}

/// The reversal of a posted transaction by its mirror.
#[derive(Debug, Clone, PartialEq)]
pub struct Reversal {
    pub transaction_id: String,
    pub reason: String,
    pub mirror: Transaction,
}

/// The queue of writes.
pub trait Jobs: Send + Sync + 'static {
    /// Takes the credits (refusing when a live pool is short), inserts the job and the
    /// idempotency record, all in one transaction.
    ///
    /// # Errors
    /// `CreditsShort` when a live pool has fewer than the charge; nothing is written.
    fn enqueue(
        &self,
        job: Job,
        charge: Option<CreditCharge>,
        idempotency: Option<IdempotencyRecord>,
    ) -> impl Future<Output = StoreResult<Written<Job>>> + Send;

    /// Records a write decided and applied at once, in one database transaction: the
    /// idempotency record, the credits, the completed job, the transaction with its
    /// entries and the events. The adapter may commit several concurrent calls together
    /// (group commit); each call still succeeds or fails on its own.
    ///
    /// # Errors
    /// `CreditsShort` when a live pool is short; `Inactive` or
    /// `InUse` when an account of the transaction is no longer active or live.
    /// Nothing of a refused write is stored. `Written::Replay` when the key was used.
    fn record_applied(
        &self,
        write: AppliedWrite,
    ) -> impl Future<Output = StoreResult<Written<Job>>> + Send;

    /// A job of the tenant.
    fn get_job(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Job>>> + Send;

    /// Claims up to `limit` runnable jobs (queued with `run_at <= now`, or processing with
    /// an expired lease): status `processing`, attempts + 1, `locked_until = now + lease`.
    /// Concurrent callers never claim the same job (SKIP LOCKED on PostgreSQL).
    fn claim_jobs(
        &self,
        limit: i64,
        now: OffsetDateTime,
        lease: time::Duration,
    ) -> impl Future<Output = StoreResult<Vec<Job>>> + Send;

    /// Claims one job by id, as [`Jobs::claim_jobs`] would, if it is runnable now.
    fn claim_job(
        &self,
        id: &str,
        now: OffsetDateTime,
        lease: time::Duration,
    ) -> impl Future<Output = StoreResult<Option<Job>>> + Send;

    /// In one transaction: marks the claimed job completed with `result` (only if it is
    /// still `processing` with the same `attempts`), applies the effect after checking its
    /// precondition, and inserts the events.
    ///
    /// # Errors
    /// `StatusChanged` / `InUse` when the
    /// effect's precondition fails, `ClaimLost` when the claim was lost;
    /// nothing is written then.
    fn apply_job(
        &self,
        job: &Job,
        effect: Effect,
        events: Vec<Event>,
        result: serde_json::Value,
        now: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;

    /// Ends a claimed job `failed` with `error`, refunding its credits to the live pool.
    fn fail_job(
        &self,
        job: &Job,
        error: serde_json::Value,
        now: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;

    /// Puts a claimed job back in the queue to run again at `run_at`.
    fn retry_job(
        &self,
        job: &Job,
        error: serde_json::Value,
        run_at: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;
}
