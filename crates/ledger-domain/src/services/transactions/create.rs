//! Creating a transaction: validated into its create command, then queued, or decided
//! and written at once (the waited path), or only previewed (`dry_run`).

use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, new_id};
use crate::jobs::{Job, JobCommand, JobStatus, TransactionDraft};
use crate::money::Currency;
use crate::ports::{Store, Written};
use crate::transactions::Transaction;

use crate::services::{Access, Dated, Ledger};

use super::{NewTransactionInput, WriteOptions, check_description};

impl<S: Store> Ledger<S> {
    /// Validates a new transaction and queues its creation.
    ///
    /// # Errors
    /// Validation errors, `unbalanced_transaction`, `account_inactive`, `currency_mismatch`,
    /// `period_locked` (posted at once and dated in a closed period), `insufficient_credits`.
    pub(crate) async fn create_transaction(
        &self,
        access: &Access,
        input: NewTransactionInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let (command, _, _) = self.create_command(access, input, None).await?;
        self.enqueue(access, command, options).await
    }

    /// Validates a new transaction (written by `source`, when not a plain journal entry)
    /// into its create command.
    pub(in crate::services) async fn create_command(
        &self,
        access: &Access,
        input: NewTransactionInput,
        source: Option<&str>,
    ) -> DomainResult<(JobCommand, TransactionDraft, bool)> {
        let description = check_description(&input.description)?;
        let date = input
            .date
            .ok_or_else(|| DomainError::missing_field("date"))?;
        // A pending transaction posts nothing, so it may be dated in a closed period.
        if input.auto_post {
            self.check_period_open(&access.tenant, &[Dated::at("the transaction", date)])
                .await?;
        }
        let currency = match input
            .currency
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            None => None,
            Some(code) => Some(Currency::from_code(code).map(|c| c.code()).ok_or_else(|| {
                DomainError::invalid_field("currency", "must be an ISO 4217 currency code")
            })?),
        };
        let (currency, entries) = self
            .validate_entries(access, currency.as_deref(), &input.entries)
            .await?;
        let contact_id = match input.contact_id.as_deref().map(str::trim) {
            Some(id) if !id.is_empty() => Some(self.check_contact_ref(access, id).await?),
            _ => None,
        };
        let category_id = match input.category_id.as_deref().map(str::trim) {
            Some(id) if !id.is_empty() => Some(self.check_category_ref(access, id).await?),
            _ => None,
        };
        let draft = TransactionDraft {
            contact_id,
            category_id,
            description,
            date,
            currency,
            reference: input
                .reference
                .map(|r| r.trim().to_owned())
                .filter(|r| !r.is_empty()),
            entries,
            metadata: input.metadata.unwrap_or_else(|| serde_json::json!({})),
            source: source.map(str::to_owned),
        };
        let command = JobCommand::CreateTransaction {
            transaction_id: new_id(IdKind::Transaction),
            draft: draft.clone(),
            auto_post: input.auto_post,
        };
        Ok((command, draft, input.auto_post))
    }

    /// Validates a new transaction and writes it at once, recorded as a completed job
    /// (the waited path: one database transaction, grouped with concurrent ones).
    ///
    /// # Errors
    /// As [`Ledger::create_transaction`], plus `account_inactive` / `resource_in_use`
    /// when an account changed since validation; nothing is written then.
    pub(crate) async fn create_transaction_now(
        &self,
        access: &Access,
        input: NewTransactionInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let (command, draft, auto_post) = self.create_command(access, input, None).await?;
        self.apply_create_now(access, command, draft, auto_post, options)
            .await
    }

    /// Decides a validated create at once and writes it, recorded as a completed job.
    pub(in crate::services) async fn apply_create_now(
        &self,
        access: &Access,
        command: JobCommand,
        draft: TransactionDraft,
        auto_post: bool,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let now = self.now();
        let mut job = self.new_job(access, command, now);
        job.credit_cost = options.credits;
        let transaction_id = job.command.resource().1.to_owned();
        let decision = self.create_decision(&job, &transaction_id, &draft, auto_post)?;
        let crate::ports::Effect::InsertTransaction(transaction) = decision.effect else {
            return Err(DomainError::Internal(
                "a create decided something else than an insert".into(),
            ));
        };
        job.status = JobStatus::Completed;
        job.attempts = 1;
        job.result = Some(decision.result);
        job.completed_at = Some(now);
        let idempotency = options.idempotency.map(|mut r| {
            r.job_id = Some(job.id.clone());
            r
        });
        let write = crate::ports::AppliedWrite {
            charge: Some(self.charge(access, options.credits)),
            job,
            idempotency,
            transaction,
            events: decision.events,
        };
        Ok(self.store.record_applied(write).await?)
    }

    /// Validates a new transaction and answers what creating it would write, writing
    /// nothing and charging nothing (`dry_run`): the same checks as a create, the id it
    /// would have (never stored), its entries and status.
    ///
    /// # Errors
    /// As a create (validation errors, `unbalanced_transaction`, `account_inactive`,
    /// `currency_mismatch`, `period_locked`), never `insufficient_credits`.
    pub async fn preview_transaction(
        &self,
        access: &Access,
        input: NewTransactionInput,
    ) -> DomainResult<Transaction> {
        let (command, draft, auto_post) = self.create_command(access, input, None).await?;
        let job = self.new_job(access, command, self.now());
        let transaction_id = job.command.resource().1.to_owned();
        match self
            .create_decision(&job, &transaction_id, &draft, auto_post)?
            .effect
        {
            crate::ports::Effect::InsertTransaction(transaction) => Ok(transaction),
            _ => Err(DomainError::Internal(
                "a create decided something else than an insert".into(),
            )),
        }
    }
}
