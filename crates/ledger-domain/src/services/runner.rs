//! Running queued jobs: decide the effect from the command and the current state, then
//! let the store apply it atomically with the job's completion (DECISIONS 4).
//!
//! A precondition that no longer holds (the transaction was posted meanwhile) fails the
//! job and refunds it; a storage failure retries with backoff up to `MAX_ATTEMPTS`.

use serde_json::Value;

use crate::error::{DomainError, DomainResult};
use crate::events::Event;
use crate::ids::{IdKind, new_id};
use crate::jobs::{Job, JobCommand, MAX_ATTEMPTS, TransactionDraft, retry_delay};
use crate::ports::{Effect, Store, StoreError, Tenant};
use crate::transactions::{
    EntryLine, StoredEntry, Transaction, TransactionAction, TransactionStatus, check_balanced,
    mirror_entries,
};
use crate::views;

use super::accounts::not_found;
use super::transactions::{reversal_dates, update_dates};
use super::{Dated, Ledger};

/// How often a job is decided again at once before it waits for a retry.
const MAX_REDECISIONS: u32 = 8;

/// What became of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    Completed(Value),
    Failed(Value),
    /// A storage failure; the job runs again later.
    Retrying,
    /// Another worker took the job over (its lease had expired); nothing was done here.
    Lost,
}

pub(super) struct Decision {
    pub(super) effect: Effect,
    pub(super) events: Vec<Event>,
    pub(super) result: Value,
}

impl<S: Store> Ledger<S> {
    async fn current_transaction(&self, tenant: &Tenant, id: &str) -> DomainResult<Transaction> {
        self.store
            .get_transaction(tenant, id)
            .await?
            .ok_or_else(|| not_found("transaction", id))
    }

    /// The event `transaction.<verb>` of `job`'s change to the transaction `id`: the
    /// transaction `before` (none for a new one) and the view `after` (none for a
    /// deletion).
    pub(super) fn transaction_event(
        &self,
        job: &Job,
        verb: &str,
        id: &str,
        before: Option<&Transaction>,
        after: Option<Value>,
    ) -> Event {
        let event_type = format!("transaction.{verb}");
        let before = before.map(views::transaction);
        self.event(job, &event_type, "transaction", id, before, after)
    }

    fn stored(lines: &[EntryLine]) -> Vec<StoredEntry> {
        lines
            .iter()
            .map(|line| StoredEntry {
                id: new_id(IdKind::Entry),
                line: line.clone(),
            })
            .collect()
    }

    /// The new transaction a create job writes, with its events and result. Accounts
    /// are checked again under lock when the store applies it.
    pub(super) fn create_decision(
        &self,
        job: &Job,
        transaction_id: &str,
        draft: &TransactionDraft,
        auto_post: bool,
    ) -> DomainResult<Decision> {
        let now = self.now();
        let amount = check_balanced(&draft.entries, &draft.currency)?;
        let txn = Transaction {
            id: transaction_id.to_owned(),
            organization_id: job.organization_id.clone(),
            livemode: job.livemode,
            description: draft.description.clone(),
            date: draft.date,
            status: if auto_post {
                TransactionStatus::Posted
            } else {
                TransactionStatus::Pending
            },
            currency: draft.currency.clone(),
            amount,
            reference: draft.reference.clone(),
            reversal_of: None,
            reversed_by: None,
            reversal_reason: None,
            contact_id: draft.contact_id.clone(),
            category_id: draft.category_id.clone(),
            source: draft.source.clone(),
            metadata: draft.metadata.clone(),
            entries: Self::stored(&draft.entries),
            posted_at: auto_post.then_some(now),
            created_at: now,
            updated_at: now,
        };
        let result = views::journal(&txn);
        let mut events =
            vec![self.transaction_event(job, "created", &txn.id, None, Some(result.clone()))];
        if auto_post {
            events.push(self.transaction_event(job, "posted", &txn.id, None, Some(result.clone())));
        }
        Ok(Decision {
            effect: Effect::InsertTransaction(txn),
            events,
            result,
        })
    }

    async fn decide(&self, job: &Job) -> DomainResult<Decision> {
        let tenant = Tenant {
            organization_id: job.organization_id.clone(),
            livemode: job.livemode,
        };
        let now = self.now();
        match &job.command {
            JobCommand::CreateTransaction {
                transaction_id,
                draft,
                auto_post,
            } => {
                if *auto_post {
                    self.recheck_period_open(&tenant, &[Dated::at("the transaction", draft.date)])
                        .await?;
                }
                self.create_decision(job, transaction_id, draft, *auto_post)
            }
            JobCommand::CreateTransactionBatch { batch_id, items } => {
                let dates: Vec<Dated> = items
                    .iter()
                    .filter(|item| item.auto_post)
                    .map(|item| Dated::at("a transaction of the batch", item.draft.date))
                    .collect();
                self.recheck_period_open(&tenant, &dates).await?;
                let mut transactions = Vec::with_capacity(items.len());
                let mut events = Vec::with_capacity(items.len());
                let mut results = Vec::with_capacity(items.len());
                for item in items {
                    let decision = self.create_decision(
                        job,
                        &item.transaction_id,
                        &item.draft,
                        item.auto_post,
                    )?;
                    let Effect::InsertTransaction(txn) = decision.effect else {
                        return Err(DomainError::Internal(
                            "a create decided something else than an insert".into(),
                        ));
                    };
                    transactions.push(txn);
                    events.extend(decision.events);
                    results.push(decision.result);
                }
                Ok(Decision {
                    effect: Effect::InsertTransactions(transactions),
                    events,
                    result: views::batch(batch_id, results),
                })
            }
            JobCommand::UpdateTransaction {
                transaction_id,
                description,
                date,
                entries,
                metadata,
                contact_id,
                category_id,
            } => {
                let before = self.current_transaction(&tenant, transaction_id).await?;
                // A reconciliation completed after the write was accepted still locks it.
                self.check_not_reconciled(&tenant, &before.id).await?;
                TransactionAction::Update.check(before.status)?;
                self.recheck_period_open(&tenant, &update_dates(&before, *date))
                    .await?;
                let mut txn = before.clone();
                if let Some(d) = description {
                    txn.description = d.clone();
                }
                if let Some(d) = date {
                    txn.date = *d;
                }
                if let Some(lines) = entries {
                    txn.amount = check_balanced(lines, &txn.currency)?;
                    txn.entries = Self::stored(lines);
                }
                if let Some(m) = metadata {
                    txn.metadata = m.clone();
                }
                if let Some(c) = contact_id {
                    txn.contact_id = Some(c.clone());
                }
                if let Some(c) = category_id {
                    txn.category_id = Some(c.clone());
                }
                txn.updated_at = now;
                let result = views::journal(&txn);
                let events = vec![self.transaction_event(
                    job,
                    "updated",
                    &txn.id,
                    Some(&before),
                    Some(result.clone()),
                )];
                Ok(Decision {
                    effect: Effect::ReplaceTransaction(txn),
                    events,
                    result,
                })
            }
            JobCommand::PostTransaction { transaction_id } => {
                let before = self.current_transaction(&tenant, transaction_id).await?;
                TransactionAction::Post.check(before.status)?;
                self.recheck_period_open(&tenant, &[Dated::at("the transaction", before.date)])
                    .await?;
                let mut txn = before.clone();
                txn.status = TransactionStatus::Posted;
                txn.posted_at = Some(now);
                txn.updated_at = now;
                let result = views::journal(&txn);
                let events = vec![self.transaction_event(
                    job,
                    "posted",
                    &txn.id,
                    Some(&before),
                    Some(result.clone()),
                )];
                Ok(Decision {
                    effect: Effect::PostTransaction {
                        transaction_id: txn.id.clone(),
                        posted_at: now,
                    },
                    events,
                    result,
                })
            }
            JobCommand::ReverseTransaction {
                transaction_id,
                mirror_id,
                reason,
            } => {
                let before = self.current_transaction(&tenant, transaction_id).await?;
                // A reconciliation completed after the write was accepted still locks it.
                self.check_not_reconciled(&tenant, &before.id).await?;
                TransactionAction::Reverse.check(before.status)?;
                self.recheck_period_open(&tenant, &reversal_dates(&before, now))
                    .await?;
                let lines: Vec<EntryLine> = before.entries.iter().map(|e| e.line.clone()).collect();
                let mirror = Transaction {
                    id: mirror_id.clone(),
                    description: format!("Reversal of {}: {reason}", before.description),
                    date: now,
                    status: TransactionStatus::Posted,
                    reversal_of: Some(before.id.clone()),
                    reversed_by: None,
                    reversal_reason: Some(reason.clone()),
                    source: None,
                    entries: Self::stored(&mirror_entries(&lines)),
                    posted_at: Some(now),
                    created_at: now,
                    updated_at: now,
                    ..before.clone()
                };
                let mut txn = before.clone();
                txn.status = TransactionStatus::Reversed;
                txn.reversed_by = Some(mirror.id.clone());
                txn.reversal_reason = Some(reason.clone());
                txn.updated_at = now;
                let result = views::journal(&txn);
                let mirror_json = views::transaction(&mirror);
                let events = vec![
                    self.transaction_event(
                        job,
                        "reversed",
                        &txn.id,
                        Some(&before),
                        Some(result.clone()),
                    ),
                    self.transaction_event(
                        job,
                        "created",
                        &mirror.id,
                        None,
                        Some(mirror_json.clone()),
                    ),
                    self.transaction_event(job, "posted", &mirror.id, None, Some(mirror_json)),
                ];
                Ok(Decision {
                    effect: Effect::ReverseTransaction {
                        transaction_id: txn.id.clone(),
                        reason: reason.clone(),
                        mirror,
                    },
                    events,
                    result,
                })
            }
            JobCommand::DeleteTransaction { transaction_id } => {
                let before = self.current_transaction(&tenant, transaction_id).await?;
                // A reconciliation completed after the write was accepted still locks it.
                self.check_not_reconciled(&tenant, &before.id).await?;
                TransactionAction::Delete.check(before.status)?;
                let deletion =
                    self.soft_deletion(job, "transaction", &before.id, &before.description);
                let result = views::deleted("transaction", &before.id, deletion.recoverable_until);
                let events =
                    vec![self.transaction_event(job, "deleted", &before.id, Some(&before), None)];
                Ok(Decision {
                    effect: Effect::DeleteTransaction {
                        transaction_id: before.id.clone(),
                        deletion,
                    },
                    events,
                    result,
                })
            }
            JobCommand::CreateContact { .. }
            | JobCommand::UpdateContact { .. }
            | JobCommand::DeleteContact { .. } => self.contact_decision(job, &tenant).await,
            JobCommand::CreateDocument { .. }
            | JobCommand::UpdateDocument { .. }
            | JobCommand::DeleteDocument { .. }
            | JobCommand::IssueDocument { .. }
            | JobCommand::RecordPayment { .. }
            | JobCommand::VoidDocument { .. } => self.document_decision(job, &tenant).await,
            JobCommand::DeleteAccount { account_id } => {
                let before = self
                    .store
                    .get_account(&tenant, account_id)
                    .await?
                    .ok_or_else(|| not_found("account", account_id))?;
                let deletion = self.soft_deletion(job, "account", &before.id, &before.name);
                let result = views::deleted("account", &before.id, deletion.recoverable_until);
                let events = vec![self.event(
                    job,
                    "account.deleted",
                    "account",
                    &before.id,
                    Some(views::account(&before, None)),
                    None,
                )];
                Ok(Decision {
                    effect: Effect::DeleteAccount {
                        account_id: before.id.clone(),
                        deletion,
                    },
                    events,
                    result,
                })
            }
        }
    }

    /// Runs a job this process has claimed, to completion, failure or a scheduled retry.
    ///
    /// # Errors
    /// Only when even recording the failure or the retry fails (the lease then expires and
    /// another worker takes the job again).
    pub async fn run_claimed(&self, job: &Job) -> DomainResult<RunOutcome> {
        let outcome = self.run_claimed_once(job).await?;
        self.activity.ran(&outcome);
        Ok(outcome)
    }

    async fn run_claimed_once(&self, job: &Job) -> DomainResult<RunOutcome> {
        let mut redecisions = 0;
        let error = loop {
            let decision = match self.decide(job).await {
                Ok(decision) => decision,
                Err(e) => break e,
            };
            let result = decision.result.clone();
            match self
                .store
                .apply_job(
                    job,
                    decision.effect,
                    decision.events,
                    decision.result,
                    self.now(),
                )
                .await
            {
                Ok(()) => {
                    if let JobCommand::DeleteAccount { account_id } = &job.command {
                        let tenant = Tenant {
                            organization_id: job.organization_id.clone(),
                            livemode: job.livemode,
                        };
                        self.forget_account(&tenant, account_id);
                    }
                    return Ok(RunOutcome::Completed(result));
                }
                Err(StoreError::ClaimLost { .. }) => return Ok(RunOutcome::Lost),
                // The state the decision read changed before it was applied: decide again
                // from the new state (a few times, then retry later like a storage error).
                Err(e @ StoreError::Changed { .. }) => {
                    redecisions += 1;
                    if redecisions >= MAX_REDECISIONS {
                        break DomainError::Internal(e.to_string());
                    }
                }
                Err(e) => break e.into(),
            }
        };
        let stored = error.to_stored();
        if error.is_transient() && job.attempts < MAX_ATTEMPTS {
            tracing::warn!(job_id = %job.id, attempts = job.attempts, error = %error_detail(&error), "job failed transiently; retrying");
            self.store
                .retry_job(job, stored, self.now() + retry_delay(job.attempts))
                .await?;
            return Ok(RunOutcome::Retrying);
        }
        if error.is_transient() {
            tracing::error!(job_id = %job.id, error = %error_detail(&error), "job failed for good after its last attempt");
        }
        self.store.fail_job(job, stored.clone(), self.now()).await?;
        Ok(RunOutcome::Failed(stored))
    }

    /// Claims the job `id` if no one has and runs it; `None` when it was not runnable.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn run_now(&self, id: &str) -> DomainResult<Option<RunOutcome>> {
        match self
            .store
            .claim_job(id, self.now(), self.config.job_lease)
            .await?
        {
            Some(job) => self.run_claimed(&job).await.map(Some),
            None => Ok(None),
        }
    }

    /// Claims and runs up to `limit` runnable jobs; returns how many were claimed.
    ///
    /// # Errors
    /// Storage failures while claiming.
    pub async fn run_batch(&self, limit: i64) -> DomainResult<usize> {
        let jobs = self
            .store
            .claim_jobs(limit, self.now(), self.config.job_lease)
            .await?;
        for job in &jobs {
            if let Err(e) = self.run_claimed(job).await {
                tracing::error!(job_id = %job.id, error = %error_detail(&e), "could not record a job's outcome");
            }
        }
        Ok(jobs.len())
    }
}

fn error_detail(error: &DomainError) -> String {
    match error {
        DomainError::Internal(cause) => cause.clone(),
        other => other.to_string(),
    }
}
