//! Journal transactions: synchronous validation, then a queued job (DECISIONS 4).

use crate::error::ErrorCode;
use std::collections::HashMap;

use time::OffsetDateTime;

use crate::accounts::{Account, EntryType};
use crate::error::{DomainError, DomainResult, Resource};
use crate::ids::{IdKind, new_id, parse_id};
use crate::jobs::{Job, JobCommand, JobStatus, TransactionDraft};
use crate::money::{Currency, parse_positive_units};
use crate::ports::{CreditCharge, IdempotencyRecord, Page, PageRequest, Store, Written};
use crate::transactions::{
    EntryLine, Transaction, TransactionAction, TransactionStatus, check_balanced,
};

use super::accounts::{check_postable, not_found};
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

    /// Validates entries against the tenant's accounts: they exist and accept postings;
    /// each line is in its account's currency, its amount fits that currency, and every
    /// currency balances (see [`check_balanced`]). Answers the transaction's currency
    /// (`currency`, else the organization's base currency when a line uses it, else the
    /// first line's) with the lines.
    pub(super) async fn validate_entries(
        &self,
        access: &Access,
        currency: Option<&str>,
        entries: &[EntryInput],
    ) -> DomainResult<(String, Vec<EntryLine>)> {
        if entries.is_empty() {
            return Err(DomainError::missing_field("entries"));
        }
        if entries.len() > 500 {
            return Err(DomainError::invalid_field(
                "entries",
                "at most 500 entries per transaction",
            ));
        }
        let mut parsed = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let account_id = crate::ids::parse_reference(
                IdKind::Account,
                Resource::Account,
                &format!("entries[{i}].account_id"),
                &e.account_id,
            )?;
            let entry_type = EntryType::parse(&e.entry_type).ok_or_else(|| {
                DomainError::invalid_field(
                    format!("entries[{i}].entry_type"),
                    "must be 'debit' or 'credit'",
                )
            })?;
            parsed.push((account_id, entry_type));
        }
        let found = self
            .accounts_by_id(access, parsed.iter().map(|(id, _)| id))
            .await?;
        let mut accounts = Vec::with_capacity(parsed.len());
        for (i, (account_id, _)) in parsed.iter().enumerate() {
            let account = found.get(account_id).ok_or_else(|| {
                DomainError::reference_not_found(
                    format!("entries[{i}].account_id"),
                    Resource::Account,
                    account_id,
                )
            })?;
            check_postable(account, &account.currency, "transaction")?;
            accounts.push(account);
        }
        let currency = match currency {
            Some(code) => code.to_owned(),
            None => {
                let base = &access.organization.base_currency;
                if accounts.iter().any(|a| &a.currency == base) {
                    base.clone()
                } else {
                    accounts[0].currency.clone()
                }
            }
        };
        let mut lines = Vec::with_capacity(entries.len());
        for (i, ((e, (account_id, entry_type)), account)) in
            entries.iter().zip(parsed).zip(accounts).enumerate()
        {
            let code = account.currency.as_str();
            let decimals = Currency::from_code(code).map_or(2, |c| c.decimals());
            // More places than the account's currency has is invalid input (400).
            let amount = parse_positive_units(&e.amount, decimals)
                .map_err(|err| err.refusal(format!("entries[{i}].amount"), code))?;
            lines.push(EntryLine {
                account_id,
                entry_type,
                amount,
                description: e.description.clone(),
                currency: (code != currency).then(|| code.to_owned()),
            });
        }
        check_balanced(&lines, &currency)?;
        Ok((currency, lines))
    }

    /// The live accounts of the tenant among `ids`, by id (copies read moments ago will
    /// do: a write re-checks its accounts under lock).
    pub(super) async fn accounts_by_id<'a>(
        &self,
        access: &Access,
        ids: impl Iterator<Item = &'a String>,
    ) -> DomainResult<HashMap<String, Account>> {
        let mut ids: Vec<String> = ids.cloned().collect();
        ids.sort();
        ids.dedup();
        let (mut accounts, missing) = self.account_cache.get(&access.tenant, &ids);
        if !missing.is_empty() {
            let read = self.store.get_accounts(&access.tenant, &missing).await?;
            self.account_cache.put(&access.tenant, &read);
            accounts.extend(read);
        }
        Ok(accounts.into_iter().map(|a| (a.id.clone(), a)).collect())
    }

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
    pub(super) async fn create_command(
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
    pub(super) async fn apply_create_now(
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

    /// Validates changes to a pending transaction and queues them.
    ///
    /// # Errors
    /// `resource_not_found`, `transaction_reconciled`, `transaction_not_pending`,
    /// `period_locked` (its current or new date in a closed period), entry validation
    /// errors.
    pub(crate) async fn update_transaction(
        &self,
        access: &Access,
        id: &str,
        changes: TransactionChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_transaction(access, id).await?;
        self.check_not_reconciled(&access.tenant, &current.id)
            .await?;
        TransactionAction::Update.check(current.status)?;
        self.check_period_open(&access.tenant, &update_dates(&current, changes.date))
            .await?;
        let description = changes
            .description
            .as_deref()
            .map(check_description)
            .transpose()?;
        let entries = match &changes.entries {
            Some(entries) => Some(
                self.validate_entries(access, Some(&current.currency), entries)
                    .await?
                    .1,
            ),
            None => None,
        };
        let contact_id = match changes.contact_id.as_deref().map(str::trim) {
            Some(id) if !id.is_empty() => Some(self.check_contact_ref(access, id).await?),
            _ => None,
        };
        let category_id = match changes.category_id.as_deref().map(str::trim) {
            Some(id) if !id.is_empty() => Some(self.check_category_ref(access, id).await?),
            _ => None,
        };
        let command = JobCommand::UpdateTransaction {
            transaction_id: current.id,
            description,
            date: changes.date,
            entries,
            metadata: changes.metadata,
            contact_id,
            category_id,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues the posting of a pending transaction.
    ///
    /// # Errors
    /// `resource_not_found`, `transaction_not_pending`, `period_locked`, `account_inactive`.
    pub(crate) async fn post_transaction(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_transaction(access, id).await?;
        TransactionAction::Post.check(current.status)?;
        self.check_period_open(
            &access.tenant,
            &[Dated::at("the transaction", current.date)],
        )
        .await?;
        self.enqueue(
            access,
            JobCommand::PostTransaction {
                transaction_id: current.id,
            },
            options,
        )
        .await
    }

    /// Queues the reversal of a posted transaction.
    ///
    /// # Errors
    /// `missing_field` on `reason`, `resource_not_found`, `transaction_reconciled`,
    /// `transaction_not_posted`,
    /// `period_locked` (the original or the reversal, dated now, in a closed period).
    pub(crate) async fn reverse_transaction(
        &self,
        access: &Access,
        id: &str,
        reason: Option<String>,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let reason = reason
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty())
            .ok_or_else(|| DomainError::missing_field("reason"))?;
        let current = self.get_transaction(access, id).await?;
        self.check_not_reconciled(&access.tenant, &current.id)
            .await?;
        TransactionAction::Reverse.check(current.status)?;
        self.check_not_document_posting(access, &current).await?;
        self.check_period_open(&access.tenant, &reversal_dates(&current, self.now()))
            .await?;
        let command = JobCommand::ReverseTransaction {
            transaction_id: current.id,
            mirror_id: new_id(IdKind::Transaction),
            reason,
        };
        self.enqueue(access, command, options).await
    }

    /// Refuses to reverse the posting of a live invoice or bill on its own: the document
    /// would no longer match the books. Voiding the document reverses it.
    async fn check_not_document_posting(
        &self,
        access: &Access,
        txn: &Transaction,
    ) -> DomainResult<()> {
        let source = txn
            .metadata
            .get("source")
            .and_then(serde_json::Value::as_str);
        let kind = match source {
            Some("invoice") => crate::documents::DocumentKind::Invoice,
            Some("bill") => crate::documents::DocumentKind::Bill,
            _ => return Ok(()),
        };
        let Some(doc_id) = txn
            .metadata
            .get(format!("{}_id", kind.as_str()))
            .and_then(serde_json::Value::as_str)
        else {
            return Ok(());
        };
        match self
            .store
            .get_document(&access.tenant, kind, doc_id)
            .await?
        {
            Some(doc) => Err(DomainError::rule(
                ErrorCode::ResourceInUse,
                format!(
                    "transaction {} posts {} {}; void the {} instead",
                    txn.id,
                    kind.as_str(),
                    doc.number,
                    kind.as_str()
                ),
            )),
            None => Ok(()),
        }
    }

    /// Queues the soft delete of a pending transaction.
    ///
    /// # Errors
    /// `resource_not_found`, `transaction_reconciled`, `transaction_not_pending`.
    pub(crate) async fn delete_transaction(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_transaction(access, id).await?;
        self.check_not_reconciled(&access.tenant, &current.id)
            .await?;
        TransactionAction::Delete.check(current.status)?;
        self.enqueue(
            access,
            JobCommand::DeleteTransaction {
                transaction_id: current.id,
            },
            options,
        )
        .await
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
