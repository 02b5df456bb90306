//! Acting on one statement line of an open reconciliation: matching it to a journal
//! entry (the proposed one by default), or booking it as a new posted transaction whose
//! entry on the account is matched to it.

use serde_json::{Value, json};
use time::{Date, Time};

use crate::accounts::EntryType;
use crate::error::{DomainError, DomainResult, ErrorCode, Resource};
use crate::ids::{IdKind, parse_id};
use crate::jobs::Job;
use crate::money::format_units;
use crate::ports::{Store, Written};
use crate::reconciliation::{ReconciledEntry, Reconciliation, StatementLine};
use crate::views;

use crate::services::accounts::not_found;
use crate::services::{Access, EntryInput, Ledger, NewTransactionInput, WriteOptions};

use super::{StatementTransactionInput, check_open};

/// Midnight UTC of a day (a statement line's booking time).
fn midnight(date: Date) -> time::OffsetDateTime {
    date.with_time(Time::MIDNIGHT).assume_utc()
}

impl<S: Store> Ledger<S> {
    /// A statement line of the reconciliation that no entry is matched to yet.
    async fn open_line(
        &self,
        access: &Access,
        r: &Reconciliation,
        line_id: &str,
    ) -> DomainResult<StatementLine> {
        let parsed = parse_id(IdKind::StatementLine, line_id)
            .ok_or_else(|| not_found("statement_line", line_id))?;
        let line = self
            .store
            .statement_lines(&access.tenant, &r.id)
            .await?
            .into_iter()
            .find(|l| l.id == parsed)
            .ok_or_else(|| not_found("statement_line", line_id))?;
        if r.matches
            .iter()
            .any(|m| m.statement_line_id.as_deref() == Some(line.id.as_str()))
        {
            return Err(DomainError::rule(
                ErrorCode::StatementLineAlreadyMatched,
                format!("statement line {} is already matched", line.id),
            ));
        }
        Ok(line)
    }

    /// Matches a statement line to `entry_id`, or to the entry proposed for it
    /// (synchronous write, one credit). Answers the line.
    ///
    /// # Errors
    /// `resource_not_found` (reconciliation or line), `reconciliation_not_open`,
    /// `statement_line_already_matched`, `inconsistent_fields` on `entry_id` when nothing
    /// is proposed or the entry has another amount, `reference_not_found` on `entry_id`
    /// (not an entry of the account), `entry_already_matched`, `insufficient_credits`.
    pub(crate) async fn accept_statement_line(
        &self,
        access: &Access,
        id: &str,
        line_id: &str,
        entry_id: Option<String>,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let line = self.open_line(access, &before, line_id).await?;
        let entry_id = match entry_id.filter(|e| !e.trim().is_empty()) {
            Some(e) => e,
            None => self
                .proposals(&access.tenant, &before, &[&line])
                .await?
                .into_iter()
                .next()
                .map(|p| p.entry_id)
                .ok_or_else(|| {
                    DomainError::inconsistent(
                        "entry_id",
                        "no journal entry is proposed for this line; give entry_id, or create a transaction from the line",
                    )
                })?,
        };
        let add = self
            .entries_to_match(access, &before, &[entry_id], "entry_id", Some(&line))
            .await?;
        let mut record = before.clone();
        record.updated_at = self.now();
        let answer = views::statement_line(&line, &record.currency, add.first(), None);
        self.save(
            access,
            before,
            record,
            add,
            Vec::new(),
            Vec::new(),
            "reconciliation.updated",
            options,
            Some(answer),
        )
        .await
    }

    /// Books an unmatched statement line as a new posted transaction between the
    /// reconciliation's account and `counter_account_id`, through the journal's own
    /// create (its validation, events and period lock), then matches its entry on the
    /// account to the line. The write's credit pays for the transaction; the match is
    /// free. Answers the line with the transaction.
    ///
    /// # Errors
    /// As [`Ledger::accept_statement_line`] for the reconciliation and line;
    /// `missing_field`/`invalid_field` on `counter_account_id`, `invalid_field` on
    /// `line` for a zero amount, the transaction's own refusals (`account_inactive`,
    /// `currency_mismatch`, `period_locked`), `insufficient_credits`.
    pub(crate) async fn create_statement_transaction(
        &self,
        access: &Access,
        id: &str,
        line_id: &str,
        input: StatementTransactionInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let line = self.open_line(access, &before, line_id).await?;
        if input.counter_account_id.trim().is_empty() {
            return Err(DomainError::missing_field("counter_account_id"));
        }
        if line.amount == 0 {
            return Err(DomainError::inconsistent(
                "line",
                "a statement line of zero books no transaction",
            ));
        }
        let counter = crate::ids::parse_reference(
            IdKind::Account,
            Resource::Account,
            "counter_account_id",
            &input.counter_account_id,
        )?;
        if counter == before.account_id {
            return Err(DomainError::inconsistent(
                "counter_account_id",
                "must be another account than the one reconciled",
            ));
        }
        let transaction = statement_transaction(&before, &line, counter, input.description);
        let (transaction_id, job) = self
            .book_statement_line(access, transaction, options.credits)
            .await?;
        let m = self
            .statement_match(access, &before, &line, &transaction_id)
            .await?;
        let mut answer = views::statement_line(&line, &before.currency, Some(&m), None);
        answer["transaction"] = job.result.clone().unwrap_or(Value::Null);
        let mut record = before.clone();
        record.updated_at = m.matched_at;
        self.save(
            access,
            before,
            record,
            vec![m],
            Vec::new(),
            Vec::new(),
            "reconciliation.updated",
            WriteOptions {
                idempotency: options.idempotency,
                credits: 0,
            },
            Some(answer),
        )
        .await
    }

    /// Creates and posts the transaction of a statement line at once, through the
    /// journal's own create (its validation, events and period lock), paying `credits`;
    /// answers its id and its completed job. A refusal of the counter entry is worded on
    /// `counter_account_id`.
    async fn book_statement_line(
        &self,
        access: &Access,
        transaction: NewTransactionInput,
        credits: i64,
    ) -> DomainResult<(String, Job)> {
        let (command, draft, auto_post) = self
            .create_command(access, transaction, None)
            .await
            .map_err(|e| match e {
                DomainError::Validation {
                    code,
                    field: Some(f),
                    message,
                } if f.starts_with("entries[1]") => DomainError::Validation {
                    code,
                    field: Some("counter_account_id".into()),
                    message: message.replacen(&f, "counter_account_id", 1),
                },
                other => other,
            })?;
        let transaction_id = command.resource().1.to_owned();
        let job = self
            .apply_create_now(
                access,
                command,
                draft,
                auto_post,
                WriteOptions {
                    idempotency: None,
                    credits,
                },
            )
            .await?;
        let job = match job {
            Written::Done(job) => job,
            Written::Replay(_) => {
                return Err(DomainError::Internal(
                    "a statement transaction without a key was replayed".into(),
                ));
            }
        };
        Ok((transaction_id, job))
    }

    /// The match of `line` to the entry on the reconciled account of the transaction
    /// `transaction_id` just booked from it.
    async fn statement_match(
        &self,
        access: &Access,
        before: &Reconciliation,
        line: &StatementLine,
        transaction_id: &str,
    ) -> DomainResult<ReconciledEntry> {
        let posted = self
            .store
            .get_transaction(&access.tenant, transaction_id)
            .await?
            .ok_or_else(|| {
                DomainError::Internal(format!("transaction {transaction_id} vanished"))
            })?;
        let entry = posted
            .entries
            .iter()
            .find(|e| e.line.account_id == before.account_id)
            .ok_or_else(|| {
                DomainError::Internal("the new transaction has no entry on the account".into())
            })?;
        let now = self.now();
        Ok(ReconciledEntry {
            entry_id: entry.id.clone(),
            transaction_id: posted.id.clone(),
            date: line.date,
            amount: line.amount,
            description: posted.description.clone(),
            statement_line_id: Some(line.id.clone()),
            matched_at: now,
        })
    }
}

/// The posted transaction that books `line` between the reconciliation's account and
/// `counter`, described as given, else as the line.
fn statement_transaction(
    before: &Reconciliation,
    line: &StatementLine,
    counter: String,
    description: Option<String>,
) -> NewTransactionInput {
    let amount = format_units(line.amount.abs(), views::decimals_of(&before.currency));
    let (bank_side, counter_side) = if line.amount > 0 {
        (EntryType::Debit, EntryType::Credit)
    } else {
        (EntryType::Credit, EntryType::Debit)
    };
    let description = description
        .map(|d| d.trim().to_owned())
        .filter(|d| !d.is_empty())
        .or_else(|| Some(line.description.trim().to_owned()).filter(|d| !d.is_empty()))
        .unwrap_or_else(|| format!("Bank statement line {}", line.line_number));
    NewTransactionInput {
        description,
        date: Some(midnight(line.date)),
        currency: None,
        reference: line.reference.clone(),
        entries: vec![
            EntryInput {
                account_id: before.account_id.clone(),
                entry_type: bank_side.as_str().to_owned(),
                amount: amount.clone(),
                description: None,
            },
            EntryInput {
                account_id: counter,
                entry_type: counter_side.as_str().to_owned(),
                amount,
                description: None,
            },
        ],
        metadata: Some(json!({
            "reconciliation_id": before.id,
            "statement_line_id": line.id,
        })),
        auto_post: true,
        contact_id: None,
        category_id: None,
    }
}
