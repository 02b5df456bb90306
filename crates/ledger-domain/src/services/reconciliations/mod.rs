//! Bank reconciliation (spec 2.9, 4.11; DECISIONS 7): create, read, list, change and
//! delete a reconciliation while it is open, match and unmatch posted journal entries,
//! import a bank statement (CSV or OFX) with proposed matches, accept a proposal, book an
//! unmatched statement line as a new transaction, and complete a reconciliation whose
//! difference is zero, which locks the transactions of its entries.
//!
//! Every write is synchronous and costs [`super::WRITE_CREDITS`] through the one write
//! pipeline; reads are free. The rules are in [`crate::reconciliation`].
//!
//! The reconciliation's own writes are in [`lifecycle`]; matching entries and the proposals
//! for statement lines in [`matching`]; reading a statement file in [`statements`]; and
//! acting on one statement line in [`lines`].

mod lifecycle;
mod lines;
mod matching;
mod statements;

use serde_json::{Value, json};
use time::Date;

use crate::error::{DomainError, DomainResult, ErrorCode, Resource};
use crate::ids::IdKind;
use crate::money::parse_units;
use crate::ports::{Audit, Page, PageRequest, ReconciliationFilter, Store, Tenant, Written};
use crate::reconciliation::statement::Column;
use crate::reconciliation::{
    ReconciledEntry, Reconciliation, ReconciliationChange, ReconciliationStatus, StatementLine,
};
use crate::views;

use super::accounts::tenant_reads;
use super::{Access, Ledger, WriteOptions, with_result};

/// A new reconciliation as a client gave it.
#[derive(Debug, Clone, Default)]
pub struct NewReconciliationInput {
    pub account_id: String,
    /// `YYYY-MM-DD`.
    pub start_date: String,
    pub end_date: String,
    /// The statement's closing balance, decimal text, in the account type's normal
    /// direction.
    pub closing_balance: String,
}

/// Changes to an open reconciliation; `None` and empty lists keep what is there.
#[derive(Debug, Clone, Default)]
pub struct ReconciliationChanges {
    pub start_date: Option<String>,
    pub end_date: Option<String>,
    pub closing_balance: Option<String>,
    /// Journal entries (`ent_...`) of the account to mark cleared.
    pub match_entry_ids: Vec<String>,
    /// Matched entries to clear again.
    pub unmatch_entry_ids: Vec<String>,
}

/// How a CSV statement is read, as a client gave it (every member optional).
#[derive(Debug, Clone, Default)]
pub struct StatementMappingInput {
    pub date: Option<Column>,
    pub amount: Option<Column>,
    pub debit: Option<Column>,
    pub credit: Option<Column>,
    pub description: Option<Column>,
    pub reference: Option<Column>,
    pub date_format: Option<String>,
    pub has_header: Option<bool>,
    pub delimiter: Option<String>,
    pub decimal_separator: Option<String>,
}

/// A statement import.
#[derive(Debug, Clone, Default)]
pub struct StatementImportInput {
    /// The file's text.
    pub content: String,
    /// `csv`, `ofx` or `qfx`; sniffed from the content when absent.
    pub format: Option<String>,
    pub mapping: Option<StatementMappingInput>,
}

/// Booking an unmatched statement line as a new posted transaction.
#[derive(Debug, Clone, Default)]
pub struct StatementTransactionInput {
    /// The other side of the booking (an expense, revenue, ... account).
    pub counter_account_id: String,
    /// Defaults to the line's description.
    pub description: Option<String>,
}

fn check_balance(text: &str, currency: &str) -> DomainResult<i64> {
    let decimals = views::decimals_of(currency);
    // The account's currency decides the places (400 past them, as for a transaction's
    // lines).
    parse_units(text, decimals).map_err(|e| e.refusal("closing_balance", currency))
}

/// An end before its start is invalid request data (400), not a business rule.
fn check_period(start: Date, end: Date) -> DomainResult<()> {
    if end < start {
        return Err(DomainError::invalid_field(
            "end_date",
            "must be on or after start_date",
        ));
    }
    Ok(())
}

fn check_open(r: &Reconciliation) -> DomainResult<()> {
    match r.status {
        ReconciliationStatus::Open => Ok(()),
        ReconciliationStatus::Completed => Err(crate::reconciliation::not_open(&r.id)),
    }
}

impl<S: Store> Ledger<S> {
    tenant_reads! {
        /// Reads a reconciliation of the tenant with its matches.
        ///
        /// # Errors
        /// `resource_not_found` when it does not exist in the tenant or is deleted.
        pub fn get_reconciliation(id) -> Reconciliation:
            Reconciliation, "reconciliation", get_reconciliation;
    }

    /// Lists the tenant's reconciliations, latest end date first, optionally of one
    /// account or status.
    ///
    /// # Errors
    /// `invalid_field` on `account_id` or `status`.
    pub async fn list_reconciliations(
        &self,
        access: &Access,
        account_id: Option<&str>,
        status: Option<&str>,
        page: PageRequest,
    ) -> DomainResult<Page<Reconciliation>> {
        let filter = ReconciliationFilter {
            account_id: account_id
                .map(|a| {
                    crate::ids::parse_reference(IdKind::Account, Resource::Account, "account_id", a)
                })
                .transpose()?,
            status: status
                .map(|s| {
                    ReconciliationStatus::parse(s).ok_or_else(|| {
                        DomainError::invalid_field("status", "must be 'open' or 'completed'")
                    })
                })
                .transpose()?,
        };
        // A filter naming an account of no one's books here is refused, not answered
        // with an empty page (the same words as a body reference).
        if let Some(account_id) = &filter.account_id
            && self
                .store
                .get_account(&access.tenant, account_id)
                .await?
                .is_none()
        {
            return Err(DomainError::reference_not_found(
                "account_id",
                Resource::Account,
                account_id,
            ));
        }
        Ok(self
            .store
            .list_reconciliations(&access.tenant, &filter, page)
            .await?)
    }

    /// Refuses to change a transaction whose entries a completed reconciliation matched.
    ///
    /// # Errors
    /// `transaction_reconciled`; storage failures.
    pub(crate) async fn check_not_reconciled(
        &self,
        tenant: &Tenant,
        transaction_id: &str,
    ) -> DomainResult<()> {
        match self
            .store
            .reconciliation_locking(tenant, transaction_id)
            .await?
        {
            None => Ok(()),
            Some(reconciliation_id) => Err(DomainError::Reported {
                code: ErrorCode::TransactionReconciled,
                message: format!(
                    "transaction {transaction_id} is reconciled in completed reconciliation {reconciliation_id}; it can no longer be updated, reversed or deleted"
                ),
                details: Some(json!({ "reconciliation_id": reconciliation_id })),
            }),
        }
    }

    /// Writes a change of `before` into `record` (header), with its event; answers
    /// `answer` when given, else the reconciliation's view after the change.
    #[expect(
        clippy::too_many_arguments,
        reason = "one private helper for every change"
    )]
    async fn save(
        &self,
        access: &Access,
        before: Reconciliation,
        mut record: Reconciliation,
        add: Vec<ReconciledEntry>,
        remove: Vec<String>,
        lines: Vec<StatementLine>,
        event_type: &str,
        options: WriteOptions,
        answer: Option<Value>,
    ) -> DomainResult<Written<Value>> {
        record.matches.retain(|m| !remove.contains(&m.entry_id));
        record.matches.extend(add.iter().cloned());
        record
            .matches
            .sort_by(|a, b| (a.date, &a.entry_id).cmp(&(b.date, &b.entry_id)));
        let view = views::reconciliation(&record);
        let event = self.event(
            access,
            event_type,
            "reconciliation",
            &record.id,
            Some(views::reconciliation(&before)),
            Some(view.clone()),
        );
        let answer = answer.unwrap_or(view);
        let expected_updated_at = before.updated_at;
        let charge = (options.credits > 0).then(|| self.charge(access, options.credits));
        let written = self
            .store
            .save_reconciliation(
                ReconciliationChange {
                    reconciliation: record,
                    expected_updated_at,
                    add,
                    remove,
                    lines,
                },
                Audit {
                    event,
                    idempotency: with_result(options.idempotency, &answer),
                    charge,
                },
            )
            .await?;
        Ok(written.map(|()| answer))
    }
}
