//! Journal transactions: synchronous validation, then a queued job (DECISIONS 4).
//!
//! Validating a transaction's entries is in [`entries`], creating one in [`create`], and
//! changing, posting, reversing and deleting one in [`changes`]; the queued jobs they
//! make, and what they are charged, are here.

mod changes;
mod create;
mod entries;

use time::OffsetDateTime;

use crate::error::{DomainError, DomainResult};
use crate::events::Event;
use crate::ids::{IdKind, new_id};
use crate::jobs::{Job, JobCommand, JobStatus};
use crate::ports::{Audit, CreditCharge, IdempotencyRecord, Page, PageRequest, Store, Written};
use crate::transactions::{Transaction, TransactionStatus};

use super::accounts::tenant_reads;
use super::{Access, Dated, Ledger};

/// One entry as a client sent it; `amount` is the decimal text.
#[derive(Debug, Clone)]
pub struct EntryInput {
    pub account_id: String,
    pub entry_type: String,
    pub amount: String,
    pub description: Option<String>,
}

/// A new transaction as a client sent it.
#[derive(Debug, Clone)]
pub struct NewTransactionInput {
    pub description: String,
    pub date: Option<OffsetDateTime>,
    pub currency: Option<String>,
    pub reference: Option<String>,
    pub entries: Vec<EntryInput>,
    pub metadata: Option<serde_json::Value>,
    pub auto_post: bool,
    /// A contact of the tenant the transaction is with.
    pub contact_id: Option<String>,
    /// A category of the tenant.
    pub category_id: Option<String>,
}

/// Changes to a pending transaction; `None` keeps the value.
#[derive(Debug, Clone, Default)]
pub struct TransactionChanges {
    pub description: Option<String>,
    pub date: Option<OffsetDateTime>,
    pub entries: Option<Vec<EntryInput>>,
    pub metadata: Option<serde_json::Value>,
    pub contact_id: Option<String>,
    pub category_id: Option<String>,
}

/// How the pipeline ([`Ledger::submit`]) hands a write to its service method.
#[derive(Debug, Clone)]
pub(crate) struct WriteOptions {
    /// The idempotency record to store with the write (a job's `job_id` is filled in here).
    pub idempotency: Option<IdempotencyRecord>,
    /// The write's price, from the cost table.
    pub credits: i64,
}

/// The idempotency record of a synchronous write, carrying the answer it replays: the
/// answer is known before the write, and stored in the same database transaction.
pub(crate) fn with_result(
    record: Option<IdempotencyRecord>,
    answer: &serde_json::Value,
) -> Option<IdempotencyRecord> {
    record.map(|mut r| {
        r.result = Some(answer.clone());
        r
    })
}

fn check_description(text: &str) -> DomainResult<String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(DomainError::missing_field("description"));
    }
    if text.chars().count() > 1000 {
        return Err(DomainError::invalid_field(
            "description",
            "must be at most 1000 characters",
        ));
    }
    Ok(text.to_owned())
}

/// What an update of `current` touches: its current date and the new one.
pub(super) fn update_dates(current: &Transaction, new_date: Option<OffsetDateTime>) -> Vec<Dated> {
    let mut dates = vec![Dated::at("the transaction", current.date)];
    if let Some(date) = new_date {
        dates.push(Dated::at("the new date", date));
    }
    dates
}

/// What reversing `original` at `now` touches: the original, and its mirror dated `now`.
pub(super) fn reversal_dates(original: &Transaction, now: OffsetDateTime) -> [Dated; 2] {
    [
        Dated::at("the transaction", original.date),
        Dated::at("the reversal", now),
    ]
}

impl<S: Store> Ledger<S> {
    /// A new queued job of the caller.
    fn new_job(&self, access: &Access, command: JobCommand, now: time::OffsetDateTime) -> Job {
        Job {
            id: new_id(IdKind::Request),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            api_key_id: access.key_id.clone(),
            command,
            status: JobStatus::Queued,
            attempts: 0,
            credit_cost: 0,
            credit_pool_id: access.pool_id(),
            result: None,
            error: None,
            run_at: now,
            locked_until: None,
            created_at: now,
            updated_at: now,
            completed_at: None,
        }
    }

    /// `credits` from the caller's pool.
    pub(super) fn charge(&self, access: &Access, credits: i64) -> CreditCharge {
        CreditCharge {
            pool_id: access.pool_id(),
            livemode: access.tenant.livemode,
            credits,
        }
    }

    /// The audit of a synchronous write of the caller: its `event`, the key's record
    /// carrying `answer` (the view a replay returns as it was), and the write's credits
    /// from the caller's pool.
    pub(super) fn audit(
        &self,
        access: &Access,
        options: WriteOptions,
        event: Event,
        answer: &serde_json::Value,
    ) -> Audit {
        Audit {
            event,
            idempotency: with_result(options.idempotency, answer),
            charge: Some(self.charge(access, options.credits)),
        }
    }

    /// The audit of a synchronous write creating `entity_type` `id` that answers `view`:
    /// the event `<entity_type>.created`, the view its after state.
    pub(super) fn created_audit(
        &self,
        access: &Access,
        options: WriteOptions,
        entity_type: &str,
        id: &str,
        view: &serde_json::Value,
    ) -> Audit {
        let event_type = format!("{entity_type}.created");
        let event = self.event(
            access,
            &event_type,
            entity_type,
            id,
            None,
            Some(view.clone()),
        );
        self.audit(access, options, event, view)
    }

    /// The audit of a synchronous write updating `entity_type` `id` from `before` to the
    /// answer `view`: the event `<entity_type>.updated`.
    pub(super) fn updated_audit(
        &self,
        access: &Access,
        options: WriteOptions,
        entity_type: &str,
        id: &str,
        before: serde_json::Value,
        view: &serde_json::Value,
    ) -> Audit {
        let event_type = format!("{entity_type}.updated");
        let after = Some(view.clone());
        let event = self.event(access, &event_type, entity_type, id, Some(before), after);
        self.audit(access, options, event, view)
    }

    /// Accepts a job: takes its credits and stores it with the idempotency record.
    pub(super) async fn enqueue(
        &self,
        access: &Access,
        command: JobCommand,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let mut job = self.new_job(access, command, self.now());
        job.credit_cost = options.credits;
        let idempotency = options.idempotency.map(|mut r| {
            r.job_id = Some(job.id.clone());
            r
        });
        let charge = self.charge(access, options.credits);
        Ok(self.store.enqueue(job, Some(charge), idempotency).await?)
    }

    tenant_reads! {
        /// Reads a transaction of the tenant.
        ///
        /// # Errors
        /// `resource_not_found`.
        pub fn get_transaction(id) -> Transaction: Transaction, "transaction", get_transaction;
    }

    /// Lists transactions, newest first.
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn list_transactions(
        &self,
        access: &Access,
        status: Option<TransactionStatus>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> DomainResult<Page<Transaction>> {
        Ok(self
            .store
            .list_transactions(&access.tenant, status, from, until, page)
            .await?)
    }

    tenant_reads! {
        /// A queued request of the tenant.
        ///
        /// # Errors
        /// `resource_not_found`.
        pub fn get_job(id) -> Job: Request, "request", get_job;
    }
}
