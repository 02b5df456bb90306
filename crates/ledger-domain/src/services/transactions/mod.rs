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
use crate::ids::{IdKind, new_id, parse_id};
use crate::jobs::{Job, JobCommand, JobStatus};
use crate::ports::{Audit, CreditCharge, IdempotencyRecord, Page, PageRequest, Store, Written};
use crate::transactions::{Transaction, TransactionStatus};

use super::accounts::not_found;
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

    /// Reads a transaction of the tenant.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn get_transaction(&self, access: &Access, id: &str) -> DomainResult<Transaction> {
        let Some(parsed) = parse_id(IdKind::Transaction, id) else {
            return Err(not_found("transaction", id));
        };
        self.store
            .get_transaction(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| not_found("transaction", id))
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

    /// A queued request of the tenant.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn get_job(&self, access: &Access, id: &str) -> DomainResult<Job> {
        let Some(parsed) = parse_id(IdKind::Request, id) else {
            return Err(not_found("request", id));
        };
        self.store
            .get_job(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| not_found("request", id))
    }
}
