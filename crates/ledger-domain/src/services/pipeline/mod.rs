//! The one write pipeline: every write of every interface enters through
//! [`Ledger::submit`], which owns the lifecycle the interfaces used to copy.
//!
//! 1. The `Idempotency-Key`, if any, is looked up within [`IDEMPOTENCY_WINDOW`]; a key
//!    used with another request is refused (`idempotency_key_reused`), a key used with
//!    the same request answers the first outcome again (the queued job as it stands, or
//!    the stored rendered result of a synchronous write).
//! 2. The write is priced from the one cost table, [`price`], by operation and
//!    [`Channel`]; the credits are taken in the same database transaction as the write,
//!    so a refused write costs nothing.
//! 3. The service method validates it synchronously and enqueues it (queued writes) or
//!    writes it (synchronous ones); a waited transaction create is decided and applied at
//!    once (group commit).
//! 4. When the caller waits, a queued job is started in a task of its own (a caller that
//!    goes away cannot cancel it half-way) and awaited until it ends or the wait runs out.
//!
//! Interfaces only translate their input into a [`Write`] and render the [`Submitted`]
//! outcome.
//!
//! The writes are in [`write`]; handing each to its service method in [`dispatch`];
//! replays and the wait for a queued job in [`settle`].

mod dispatch;
mod settle;
mod write;

use std::time::Duration;

use serde_json::Value;

use crate::documents::DocumentKind;
use crate::error::{DomainError, DomainResult};
use crate::jobs::Job;
use crate::ports::{IdempotencyRecord, Store, Written};

use super::transactions::WriteOptions;
use super::{Access, Ledger};

pub use write::Write;

/// The interface a request came through. MCP tools are REST requests made in-process,
/// so they are priced as REST (spec 4.13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    Rest,
    GraphQl,
}

/// What a priced request does (the rows of the cost table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    AccountCreate,
    AccountUpdate,
    AccountDelete,
    TransactionCreate,
    TransactionUpdate,
    TransactionPost,
    TransactionReverse,
    TransactionDelete,
    ContactCreate,
    ContactUpdate,
    ContactDelete,
    TaxCreate,
    TaxUpdate,
    TaxDelete,
    CategoryCreate,
    CategoryUpdate,
    CategoryDelete,
    DocumentCreate(DocumentKind),
    DocumentUpdate(DocumentKind),
    DocumentDelete(DocumentKind),
    DocumentIssue(DocumentKind),
    DocumentPayment(DocumentKind),
    DocumentVoid(DocumentKind),
    /// A trial balance, balance sheet or income statement.
    Report,
    TransferCreate,
    TransferPost,
    TransferReverse,
    /// A batch of this many transaction creates, priced as that many creates.
    TransactionBatch(usize),
    /// A currency revaluation (its posting and its reversal).
    Revaluation,
    ExchangeRateCreate,
    ExchangeRateUpdate,
    ExchangeRateDelete,
    OrganizationTransferInitiate,
    OrganizationTransferAccept,
    OrganizationTransferReject,
    OrganizationTransferCancel,
    AttachmentCreate,
    AttachmentDelete,
    RecurringScheduleCreate,
    RecurringScheduleUpdate,
    RecurringScheduleDelete,
    WebhookEndpointCreate,
    WebhookEndpointUpdate,
    WebhookEndpointDelete,
    WebhookSecretRotate,
    WebhookDeliveryReplay,
    ReconciliationCreate,
    ReconciliationUpdate,
    ReconciliationDelete,
    ReconciliationComplete,
    StatementImport,
    StatementLineAccept,
    /// Booking a statement line as a transaction (priced as the transaction it posts).
    StatementLineTransaction,
}

/// Credits of one write, and of the reads that cost anything.
pub const WRITE_CREDITS: i64 = 1;

/// The cost table (spec 8 and 4.12): every REST write costs one credit and REST reads
/// nothing; GraphQL charges its own table for transaction creates (2), invoice and bill
/// creates (5), payments (2) and each report field (5).
pub fn price(operation: Operation, channel: Channel) -> i64 {
    match (channel, operation) {
        (Channel::GraphQl, Operation::TransactionCreate)
        | (Channel::GraphQl, Operation::DocumentPayment(_)) => 2,
        (Channel::GraphQl, Operation::DocumentCreate(_)) => 5,
        (Channel::GraphQl, Operation::Report) => 5,
        (Channel::Rest, Operation::Report) => 0,
        (_, Operation::TransactionBatch(n)) => {
            price(Operation::TransactionCreate, channel).saturating_mul(n as i64)
        }
        _ => WRITE_CREDITS,
    }
}

/// An `Idempotency-Key` and the fingerprint of the request that carried it (the
/// interface's hash of what makes two requests the same: for REST, method, path and body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey {
    pub key: String,
    pub request_hash: String,
}

/// How a write is submitted.
#[derive(Debug, Clone)]
pub struct Submission {
    pub idempotency: Option<IdempotencyKey>,
    pub channel: Channel,
    /// How long the caller waits for a queued write to end; zero answers at once.
    pub wait: Duration,
}

impl Submission {
    /// A submission through `channel` that waits up to `wait`, without a key.
    pub fn new(channel: Channel, wait: Duration) -> Self {
        Self {
            idempotency: None,
            channel,
            wait,
        }
    }
}

/// The longest a caller may wait for a queued write (DECISIONS 4: `Prefer: wait` up to 30 s).
pub const MAX_WAIT: Duration = Duration::from_secs(30);

/// What a submitted write answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A queued write's job as it stands: final when the caller waited and it ended in
    /// time (its `result` or `error`), else still queued or processing.
    Queued(Box<Job>),
    /// A synchronous write's rendered result (the resource's view).
    Done(Value),
}

/// A submitted write's outcome, and whether it is the replay of an earlier request with
/// the same `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq)]
pub struct Submitted {
    pub outcome: Outcome,
    pub replayed: bool,
}

impl Submitted {
    /// The finished resource: a completed job's result or a synchronous write's view. A
    /// failed job answers its stored error; a job still running after the wait answers
    /// an internal error naming it (for interfaces that cannot answer "accepted").
    ///
    /// # Errors
    /// The failed job's refusal, or `internal_error` while it is still running.
    pub fn into_result(self) -> DomainResult<Value> {
        match self.outcome {
            Outcome::Done(view) => Ok(view),
            Outcome::Queued(job) => match (job.status, job.result, job.error) {
                (crate::jobs::JobStatus::Completed, Some(result), _) => Ok(result),
                (crate::jobs::JobStatus::Failed, _, Some(error)) => {
                    Err(DomainError::from_stored(&error))
                }
                _ => Err(DomainError::Internal(format!(
                    "request {} is still running; read the resource later",
                    job.id
                ))),
            },
        }
    }
}

/// A write that [`Ledger::write_synchronously`] wrote, or a queued one it handed back.
enum Synchronous {
    Written(Written<Value>),
    Queued(Box<(Write, WriteOptions)>),
}

impl<S: Store> Ledger<S> {
    /// Submits a write (see the module documentation for the steps).
    ///
    /// # Errors
    /// The write's validation or business-rule refusal, `insufficient_credits`,
    /// `idempotency_key_reused`; nothing is written or charged then.
    pub async fn submit(
        &self,
        access: &Access,
        write: Write,
        submission: Submission,
    ) -> DomainResult<Submitted> {
        let credits = price(write.operation(), submission.channel);
        let submitted = self.submit_once(access, write, submission).await?;
        if !submitted.replayed {
            self.activity.charged(access.tenant.livemode, credits);
        }
        Ok(submitted)
    }

    async fn submit_once(
        &self,
        access: &Access,
        write: Write,
        submission: Submission,
    ) -> DomainResult<Submitted> {
        let now = self.now();
        let wait = submission.wait.min(MAX_WAIT);
        let record = submission.idempotency.map(|k| IdempotencyRecord {
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            key: k.key,
            request_hash: k.request_hash,
            job_id: None,
            result: None,
            created_at: now,
        });
        if let Some(record) = &record
            && let Some(first) = self
                .store
                .find_idempotency(&access.tenant, &record.key, record.stale_before())
                .await?
        {
            return self.replay(access, record, first, wait).await;
        }
        let options = WriteOptions {
            idempotency: record.clone(),
            credits: price(write.operation(), submission.channel),
        };
        let (write, options) = match self.write_synchronously(access, write, options).await? {
            Synchronous::Written(view) => {
                return self.settle_view(access, record.as_ref(), wait, view).await;
            }
            Synchronous::Queued(queued) => *queued,
        };
        let written = self.write_queued(access, write, options, wait).await?;
        match written {
            Written::Done(job) => Ok(Submitted {
                outcome: Outcome::Queued(Box::new(self.settle(job, true, wait).await?)),
                replayed: false,
            }),
            Written::Replay(first) => {
                self.replay_lost_race(access, record.as_ref(), first, wait)
                    .await
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_table_differs_by_interface_where_the_spec_says() {
        let invoice = DocumentKind::Invoice;
        assert_eq!(price(Operation::TransactionCreate, Channel::Rest), 1);
        assert_eq!(price(Operation::TransactionCreate, Channel::GraphQl), 2);
        assert_eq!(
            price(
                Operation::DocumentCreate(DocumentKind::Bill),
                Channel::GraphQl
            ),
            5
        );
        assert_eq!(
            price(Operation::DocumentPayment(invoice), Channel::GraphQl),
            2
        );
        assert_eq!(price(Operation::DocumentPayment(invoice), Channel::Rest), 1);
        assert_eq!(price(Operation::Report, Channel::Rest), 0);
        assert_eq!(price(Operation::Report, Channel::GraphQl), 5);
        assert_eq!(price(Operation::ContactDelete, Channel::GraphQl), 1);
        assert_eq!(price(Operation::TransactionBatch(3), Channel::Rest), 3);
        assert_eq!(price(Operation::TransactionBatch(3), Channel::GraphQl), 6);
        assert_eq!(price(Operation::ExchangeRateCreate, Channel::Rest), 1);
        assert_eq!(price(Operation::ExchangeRateDelete, Channel::GraphQl), 1);
        // Spec 8: "document uploads 1".
        assert_eq!(price(Operation::AttachmentCreate, Channel::Rest), 1);
        assert_eq!(price(Operation::AttachmentDelete, Channel::Rest), 1);
    }

    #[test]
    fn the_window_is_the_domains() {
        assert_eq!(crate::ports::IDEMPOTENCY_WINDOW, time::Duration::hours(24));
    }
}
