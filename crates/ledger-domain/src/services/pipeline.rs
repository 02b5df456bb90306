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

use std::time::Duration;

use serde_json::Value;

use crate::contacts::ContactChanges;
use crate::documents::DocumentKind;
use crate::error::{DomainError, DomainResult};
use crate::jobs::Job;
use crate::ports::{IdempotencyRecord, Store, Tenant, Written};

use super::transactions::WriteOptions;
use super::{
    Access, AccountChanges, CategoryChanges, DocumentInput, Ledger, NewAccountInput,
    NewCategoryInput, NewContactInput, NewTaxInput, NewTransactionInput, PaymentInput, TaxChanges,
    TransactionChanges, TransferInput,
};
use super::{
    ExchangeRateChanges, NewAttachmentInput, NewExchangeRateInput, NewReconciliationInput,
    NewWebhookEndpointInput, OrganizationTransferInput, ReconciliationChanges,
    RecurringScheduleInput, StatementImportInput, StatementTransactionInput,
    WebhookEndpointChanges,
};

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

/// A write as a client asked for it, before validation.
#[derive(Debug, Clone)]
pub enum Write {
    CreateAccount(NewAccountInput),
    UpdateAccount {
        id: String,
        changes: AccountChanges,
    },
    DeleteAccount {
        id: String,
    },
    CreateTransaction(NewTransactionInput),
    UpdateTransaction {
        id: String,
        changes: TransactionChanges,
    },
    PostTransaction {
        id: String,
    },
    ReverseTransaction {
        id: String,
        reason: Option<String>,
    },
    DeleteTransaction {
        id: String,
    },
    CreateContact(NewContactInput),
    UpdateContact {
        id: String,
        changes: ContactChanges,
    },
    DeleteContact {
        id: String,
    },
    CreateTax(NewTaxInput),
    UpdateTax {
        id: String,
        changes: TaxChanges,
    },
    DeleteTax {
        id: String,
    },
    CreateCategory(NewCategoryInput),
    UpdateCategory {
        id: String,
        changes: CategoryChanges,
    },
    DeleteCategory {
        id: String,
    },
    CreateDocument {
        kind: DocumentKind,
        input: DocumentInput,
    },
    UpdateDocument {
        kind: DocumentKind,
        id: String,
        input: DocumentInput,
    },
    DeleteDocument {
        kind: DocumentKind,
        id: String,
    },
    /// Send an invoice or approve a bill.
    IssueDocument {
        kind: DocumentKind,
        id: String,
    },
    RecordPayment {
        kind: DocumentKind,
        id: String,
        payment: PaymentInput,
    },
    VoidDocument {
        kind: DocumentKind,
        id: String,
    },
    CreateTransfer(TransferInput),
    /// Several transaction creates, all or none.
    CreateTransactionBatch(Vec<NewTransactionInput>),
    /// Revalue the open currency positions at the end of a date (default today).
    Revalue {
        date: Option<time::Date>,
    },
    PostTransfer {
        id: String,
    },
    ReverseTransfer {
        id: String,
        reason: Option<String>,
    },
    CreateExchangeRate(NewExchangeRateInput),
    UpdateExchangeRate {
        id: String,
        changes: ExchangeRateChanges,
    },
    DeleteExchangeRate {
        id: String,
    },
    /// Initiate the ownership transfer of the access's organization.
    InitiateOrganizationTransfer(OrganizationTransferInput),
    /// Accept a transfer with `relationship` (`owned` or `linked`; required).
    AcceptOrganizationTransfer {
        id: String,
        relationship: Option<String>,
    },
    RejectOrganizationTransfer {
        id: String,
    },
    CancelOrganizationTransfer {
        id: String,
    },
    /// Upload an attachment (synchronous: the bytes and the row are written at once).
    CreateAttachment(NewAttachmentInput),
    DeleteAttachment {
        id: String,
    },
    CreateRecurringSchedule(RecurringScheduleInput),
    /// Change a schedule, pause (`status: paused`) or resume (`status: active`) it.
    UpdateRecurringSchedule {
        id: String,
        input: RecurringScheduleInput,
    },
    DeleteRecurringSchedule {
        id: String,
    },
    CreateWebhookEndpoint(NewWebhookEndpointInput),
    UpdateWebhookEndpoint {
        id: String,
        changes: WebhookEndpointChanges,
    },
    DeleteWebhookEndpoint {
        id: String,
    },
    RotateWebhookSecret {
        id: String,
    },
    /// Send a delivered or given-up delivery again.
    ReplayWebhookDelivery {
        endpoint_id: String,
        delivery_id: String,
    },
    CreateReconciliation(NewReconciliationInput),
    /// Change an open reconciliation's period or closing balance, match and unmatch.
    UpdateReconciliation {
        id: String,
        changes: ReconciliationChanges,
    },
    DeleteReconciliation {
        id: String,
    },
    CompleteReconciliation {
        id: String,
    },
    ImportStatement {
        id: String,
        input: StatementImportInput,
    },
    /// Match a statement line to `entry_id`, or to the entry proposed for it.
    AcceptStatementLine {
        id: String,
        line_id: String,
        entry_id: Option<String>,
    },
    CreateStatementTransaction {
        id: String,
        line_id: String,
        input: StatementTransactionInput,
    },
}

impl Write {
    /// The row of the cost table this write is priced by.
    pub fn operation(&self) -> Operation {
        match self {
            Self::CreateAccount(_) => Operation::AccountCreate,
            Self::UpdateAccount { .. } => Operation::AccountUpdate,
            Self::DeleteAccount { .. } => Operation::AccountDelete,
            Self::CreateTransaction(_) => Operation::TransactionCreate,
            Self::UpdateTransaction { .. } => Operation::TransactionUpdate,
            Self::PostTransaction { .. } => Operation::TransactionPost,
            Self::ReverseTransaction { .. } => Operation::TransactionReverse,
            Self::DeleteTransaction { .. } => Operation::TransactionDelete,
            Self::CreateContact(_) => Operation::ContactCreate,
            Self::UpdateContact { .. } => Operation::ContactUpdate,
            Self::DeleteContact { .. } => Operation::ContactDelete,
            Self::CreateTax(_) => Operation::TaxCreate,
            Self::UpdateTax { .. } => Operation::TaxUpdate,
            Self::DeleteTax { .. } => Operation::TaxDelete,
            Self::CreateCategory(_) => Operation::CategoryCreate,
            Self::UpdateCategory { .. } => Operation::CategoryUpdate,
            Self::DeleteCategory { .. } => Operation::CategoryDelete,
            Self::CreateDocument { kind, .. } => Operation::DocumentCreate(*kind),
            Self::UpdateDocument { kind, .. } => Operation::DocumentUpdate(*kind),
            Self::DeleteDocument { kind, .. } => Operation::DocumentDelete(*kind),
            Self::IssueDocument { kind, .. } => Operation::DocumentIssue(*kind),
            Self::RecordPayment { kind, .. } => Operation::DocumentPayment(*kind),
            Self::VoidDocument { kind, .. } => Operation::DocumentVoid(*kind),
            Self::CreateTransfer(_) => Operation::TransferCreate,
            Self::CreateTransactionBatch(items) => Operation::TransactionBatch(items.len()),
            Self::Revalue { .. } => Operation::Revaluation,
            Self::PostTransfer { .. } => Operation::TransferPost,
            Self::ReverseTransfer { .. } => Operation::TransferReverse,
            Self::CreateExchangeRate(_) => Operation::ExchangeRateCreate,
            Self::UpdateExchangeRate { .. } => Operation::ExchangeRateUpdate,
            Self::DeleteExchangeRate { .. } => Operation::ExchangeRateDelete,
            Self::InitiateOrganizationTransfer(_) => Operation::OrganizationTransferInitiate,
            Self::AcceptOrganizationTransfer { .. } => Operation::OrganizationTransferAccept,
            Self::RejectOrganizationTransfer { .. } => Operation::OrganizationTransferReject,
            Self::CancelOrganizationTransfer { .. } => Operation::OrganizationTransferCancel,
            Self::CreateAttachment(_) => Operation::AttachmentCreate,
            Self::DeleteAttachment { .. } => Operation::AttachmentDelete,
            Self::CreateRecurringSchedule(_) => Operation::RecurringScheduleCreate,
            Self::UpdateRecurringSchedule { .. } => Operation::RecurringScheduleUpdate,
            Self::DeleteRecurringSchedule { .. } => Operation::RecurringScheduleDelete,
            Self::CreateWebhookEndpoint(_) => Operation::WebhookEndpointCreate,
            Self::UpdateWebhookEndpoint { .. } => Operation::WebhookEndpointUpdate,
            Self::DeleteWebhookEndpoint { .. } => Operation::WebhookEndpointDelete,
            Self::RotateWebhookSecret { .. } => Operation::WebhookSecretRotate,
            Self::ReplayWebhookDelivery { .. } => Operation::WebhookDeliveryReplay,
            Self::CreateReconciliation(_) => Operation::ReconciliationCreate,
            Self::UpdateReconciliation { .. } => Operation::ReconciliationUpdate,
            Self::DeleteReconciliation { .. } => Operation::ReconciliationDelete,
            Self::CompleteReconciliation { .. } => Operation::ReconciliationComplete,
            Self::ImportStatement { .. } => Operation::StatementImport,
            Self::AcceptStatementLine { .. } => Operation::StatementLineAccept,
            Self::CreateStatementTransaction { .. } => Operation::StatementLineTransaction,
        }
    }
}

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
        let written = match write {
            Write::CreateTransaction(input) => {
                // A caller that waits gets the write decided and applied at once, in one
                // database transaction grouped with concurrent ones.
                if self.config.run_inline && !wait.is_zero() {
                    self.create_transaction_now(access, input, options).await?
                } else {
                    self.create_transaction(access, input, options).await?
                }
            }
            Write::UpdateTransaction { id, changes } => {
                self.update_transaction(access, &id, changes, options)
                    .await?
            }
            Write::PostTransaction { id } => self.post_transaction(access, &id, options).await?,
            Write::ReverseTransaction { id, reason } => {
                self.reverse_transaction(access, &id, reason, options)
                    .await?
            }
            Write::DeleteTransaction { id } => {
                self.delete_transaction(access, &id, options).await?
            }
            Write::DeleteAccount { id } => self.delete_account(access, &id, options).await?,
            Write::CreateContact(input) => self.create_contact(access, input, options).await?,
            Write::UpdateContact { id, changes } => {
                self.update_contact(access, &id, changes, options).await?
            }
            Write::DeleteContact { id } => self.delete_contact(access, &id, options).await?,
            Write::CreateDocument { kind, input } => {
                self.create_document(access, kind, input, options).await?
            }
            Write::UpdateDocument { kind, id, input } => {
                self.update_document(access, kind, &id, input, options)
                    .await?
            }
            Write::DeleteDocument { kind, id } => {
                self.delete_document(access, kind, &id, options).await?
            }
            Write::IssueDocument { kind, id } => {
                self.issue_document(access, kind, &id, options).await?
            }
            Write::RecordPayment { kind, id, payment } => {
                self.record_payment(access, kind, &id, payment, options)
                    .await?
            }
            Write::VoidDocument { kind, id } => {
                self.void_document(access, kind, &id, options).await?
            }
            Write::CreateTransfer(input) => {
                let now = self.config.run_inline && !wait.is_zero();
                self.create_transfer(access, input, options, now).await?
            }
            Write::Revalue { date } => self.revalue(access, date, options).await?,
            Write::CreateTransactionBatch(inputs) => {
                self.create_transaction_batch(access, inputs, options)
                    .await?
            }
            Write::PostTransfer { id } => {
                let transfer = self.get_transfer(access, &id).await?;
                self.post_transaction(access, &transfer.id, options).await?
            }
            Write::ReverseTransfer { id, reason } => {
                let transfer = self.get_transfer(access, &id).await?;
                self.reverse_transaction(access, &transfer.id, reason, options)
                    .await?
            }
            Write::CreateAccount(_)
            | Write::UpdateAccount { .. }
            | Write::CreateTax(_)
            | Write::UpdateTax { .. }
            | Write::DeleteTax { .. }
            | Write::CreateCategory(_)
            | Write::UpdateCategory { .. }
            | Write::DeleteCategory { .. }
            | Write::CreateExchangeRate(_)
            | Write::UpdateExchangeRate { .. }
            | Write::DeleteExchangeRate { .. }
            | Write::InitiateOrganizationTransfer(_)
            | Write::AcceptOrganizationTransfer { .. }
            | Write::RejectOrganizationTransfer { .. }
            | Write::CancelOrganizationTransfer { .. }
            | Write::CreateAttachment(_)
            | Write::DeleteAttachment { .. }
            | Write::CreateRecurringSchedule(_)
            | Write::UpdateRecurringSchedule { .. }
            | Write::DeleteRecurringSchedule { .. }
            | Write::CreateWebhookEndpoint(_)
            | Write::UpdateWebhookEndpoint { .. }
            | Write::DeleteWebhookEndpoint { .. }
            | Write::RotateWebhookSecret { .. }
            | Write::ReplayWebhookDelivery { .. }
            | Write::CreateReconciliation(_)
            | Write::UpdateReconciliation { .. }
            | Write::DeleteReconciliation { .. }
            | Write::CompleteReconciliation { .. }
            | Write::ImportStatement { .. }
            | Write::AcceptStatementLine { .. }
            | Write::CreateStatementTransaction { .. } => {
                return Err(DomainError::Internal(
                    "a synchronous write reached the queue".into(),
                ));
            }
        };
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

    /// Writes a synchronous write at once, answering its view; hands a queued write back.
    async fn write_synchronously(
        &self,
        access: &Access,
        write: Write,
        options: WriteOptions,
    ) -> DomainResult<Synchronous> {
        Ok(Synchronous::Written(match write {
            Write::CreateAccount(input) => self
                .create_account(access, input, options)
                .await?
                .map(|account| crate::views::account(&account, Some(Default::default()))),
            Write::UpdateAccount { id, changes } => {
                self.update_account(access, &id, changes, options).await?
            }
            Write::CreateTax(input) => self
                .create_tax(access, input, options)
                .await?
                .map(|tax| crate::views::tax(&tax)),
            Write::UpdateTax { id, changes } => {
                self.update_tax(access, &id, changes, options).await?
            }
            Write::DeleteTax { id } => self.delete_tax(access, &id, options).await?,
            // A new category has no children yet.
            Write::CreateCategory(input) => self
                .create_category(access, input, options)
                .await?
                .map(|category| crate::views::category(&category, Some(&[]))),
            Write::UpdateCategory { id, changes } => {
                self.update_category(access, &id, changes, options).await?
            }
            Write::DeleteCategory { id } => self.delete_category(access, &id, options).await?,
            Write::CreateExchangeRate(input) => self
                .create_exchange_rate(access, input, options)
                .await?
                .map(|rate| crate::views::exchange_rate(&rate)),
            Write::UpdateExchangeRate { id, changes } => {
                self.update_exchange_rate(access, &id, changes, options)
                    .await?
            }
            Write::DeleteExchangeRate { id } => {
                self.delete_exchange_rate(access, &id, options).await?
            }
            Write::InitiateOrganizationTransfer(input) => {
                self.initiate_transfer(access, input, options).await?
            }
            Write::AcceptOrganizationTransfer { id, relationship } => {
                self.accept_transfer(access, &id, relationship, options)
                    .await?
            }
            Write::RejectOrganizationTransfer { id } => {
                self.reject_transfer(access, &id, options).await?
            }
            Write::CancelOrganizationTransfer { id } => {
                self.cancel_transfer(access, &id, options).await?
            }
            Write::CreateAttachment(input) => {
                self.create_attachment(access, input, options).await?
            }
            Write::DeleteAttachment { id } => self.delete_attachment(access, &id, options).await?,
            Write::CreateRecurringSchedule(input) => {
                self.create_recurring_schedule(access, input, options)
                    .await?
            }
            Write::UpdateRecurringSchedule { id, input } => {
                self.update_recurring_schedule(access, &id, input, options)
                    .await?
            }
            Write::DeleteRecurringSchedule { id } => {
                self.delete_recurring_schedule(access, &id, options).await?
            }
            Write::CreateWebhookEndpoint(input) => {
                self.create_webhook_endpoint(access, input, options).await?
            }
            Write::UpdateWebhookEndpoint { id, changes } => {
                self.update_webhook_endpoint(access, &id, changes, options)
                    .await?
            }
            Write::DeleteWebhookEndpoint { id } => {
                self.delete_webhook_endpoint(access, &id, options).await?
            }
            Write::RotateWebhookSecret { id } => {
                self.rotate_webhook_secret(access, &id, options).await?
            }
            Write::ReplayWebhookDelivery {
                endpoint_id,
                delivery_id,
            } => {
                self.replay_webhook_delivery(access, &endpoint_id, &delivery_id, options)
                    .await?
            }
            Write::CreateReconciliation(input) => {
                self.create_reconciliation(access, input, options).await?
            }
            Write::UpdateReconciliation { id, changes } => {
                self.update_reconciliation(access, &id, changes, options)
                    .await?
            }
            Write::DeleteReconciliation { id } => {
                self.delete_reconciliation(access, &id, options).await?
            }
            Write::CompleteReconciliation { id } => {
                self.complete_reconciliation(access, &id, options).await?
            }
            Write::ImportStatement { id, input } => {
                self.import_statement(access, &id, input, options).await?
            }
            Write::AcceptStatementLine {
                id,
                line_id,
                entry_id,
            } => {
                self.accept_statement_line(access, &id, &line_id, entry_id, options)
                    .await?
            }
            Write::CreateStatementTransaction { id, line_id, input } => {
                self.create_statement_transaction(access, &id, &line_id, input, options)
                    .await?
            }
            queued => return Ok(Synchronous::Queued(Box::new((queued, options)))),
        }))
    }

    /// Answers a synchronous write: its view, or the replay of the request that won the
    /// race for the same key.
    async fn settle_view(
        &self,
        access: &Access,
        record: Option<&IdempotencyRecord>,
        wait: Duration,
        written: Written<Value>,
    ) -> DomainResult<Submitted> {
        match written {
            Written::Done(view) => Ok(Submitted {
                outcome: Outcome::Done(view),
                replayed: false,
            }),
            Written::Replay(first) => self.replay_lost_race(access, record, first, wait).await,
        }
    }

    /// Answers a write that lost the race for its key: a concurrent request with the same
    /// key committed first.
    async fn replay_lost_race(
        &self,
        access: &Access,
        record: Option<&IdempotencyRecord>,
        first: IdempotencyRecord,
        wait: Duration,
    ) -> DomainResult<Submitted> {
        match record {
            Some(record) => self.replay(access, record, first, wait).await,
            None => Err(DomainError::Internal(
                "a replay without an idempotency key".into(),
            )),
        }
    }

    /// The first outcome of a key used before: refused when the request differs.
    async fn replay(
        &self,
        access: &Access,
        record: &IdempotencyRecord,
        first: IdempotencyRecord,
        wait: Duration,
    ) -> DomainResult<Submitted> {
        if first.request_hash != record.request_hash {
            return Err(DomainError::IdempotencyKeyReused);
        }
        let outcome = match (first.job_id, first.result) {
            (Some(job_id), _) => {
                let job = self.get_job(access, &job_id).await?;
                Outcome::Queued(Box::new(self.settle(job, false, wait).await?))
            }
            (None, Some(result)) => Outcome::Done(result),
            (None, None) => {
                return Err(DomainError::Internal(format!(
                    "idempotency record '{}' holds no outcome",
                    first.key
                )));
            }
        };
        Ok(Submitted {
            outcome,
            replayed: true,
        })
    }

    /// Starts a job just accepted (`fresh`) and waits up to `wait` for it to end.
    async fn settle(&self, job: Job, fresh: bool, wait: Duration) -> DomainResult<Job> {
        if job.status.is_final() {
            return Ok(job);
        }
        let started = std::time::Instant::now();
        let mut run = None;
        if fresh {
            if self.config.run_inline {
                let ledger = self.clone();
                let id = job.id.clone();
                run = Some(self.runtime.spawn(Box::pin(async move {
                    if let Err(e) = ledger.run_now(&id).await {
                        tracing::warn!(job_id = %id, error = %e, "running a job at once failed; a worker will take it");
                    }
                })));
            } else {
                self.runtime.wake_workers();
            }
        }
        if wait.is_zero() {
            return Ok(job);
        }
        if let Some(run) = run {
            self.runtime.timeout(wait, run).await;
        }
        let tenant = Tenant {
            organization_id: job.organization_id.clone(),
            livemode: job.livemode,
        };
        let mut pause = Duration::from_millis(5);
        let mut current = job;
        loop {
            if let Some(found) = self.store.get_job(&tenant, &current.id).await? {
                current = found;
            }
            let elapsed = started.elapsed();
            if current.status.is_final() || elapsed >= wait {
                return Ok(current);
            }
            self.runtime.sleep(pause.min(wait - elapsed)).await;
            pause = (pause * 2).min(Duration::from_millis(200));
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
