//! The reconciliation tables' row structs and their conversions to and from the
//! domain's reconciliations, matches, statement lines and journal entries.

use diesel::prelude::*;
use ledger_domain::StoreError;
use ledger_domain::accounts::AccountType;
use ledger_domain::ports::StoreResult;
use ledger_domain::reconciliation::{
    JournalEntry, ReconciledEntry, Reconciliation, ReconciliationStatus, StatementLine, signed,
};
use time::{Date, PrimitiveDateTime};

use crate::rows::{from_db, to_db};
use crate::schema::{ledger_entries, reconciliation_matches, reconciliations, statement_lines};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = reconciliations, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(super) struct ReconciliationRow {
    pub(super) organization_id: String,
    pub(super) livemode: bool,
    pub(super) id: String,
    pub(super) account_id: String,
    pub(super) account_type: String,
    pub(super) currency: String,
    pub(super) start_date: Date,
    pub(super) end_date: Date,
    pub(super) opening_balance: i64,
    pub(super) closing_balance: i64,
    pub(super) status: String,
    pub(super) completed_at: Option<PrimitiveDateTime>,
    pub(super) created_at: PrimitiveDateTime,
    pub(super) updated_at: PrimitiveDateTime,
}

impl From<&Reconciliation> for ReconciliationRow {
    fn from(r: &Reconciliation) -> Self {
        Self {
            organization_id: r.organization_id.clone(),
            livemode: r.livemode,
            id: r.id.clone(),
            account_id: r.account_id.clone(),
            account_type: r.account_type.as_str().to_owned(),
            currency: r.currency.clone(),
            start_date: r.start_date,
            end_date: r.end_date,
            opening_balance: r.opening_balance,
            closing_balance: r.closing_balance,
            status: r.status.as_str().to_owned(),
            completed_at: r.completed_at.map(to_db),
            created_at: to_db(r.created_at),
            updated_at: to_db(r.updated_at),
        }
    }
}

impl ReconciliationRow {
    pub(super) fn into_domain(self, matches: Vec<ReconciledEntry>) -> StoreResult<Reconciliation> {
        let account_type = AccountType::parse(&self.account_type).ok_or_else(|| {
            StoreError::Internal(format!(
                "reconciliation {} has account type '{}'",
                self.id, self.account_type
            ))
        })?;
        let status = ReconciliationStatus::parse(&self.status).ok_or_else(|| {
            StoreError::Internal(format!(
                "reconciliation {} has status '{}'",
                self.id, self.status
            ))
        })?;
        Ok(Reconciliation {
            id: self.id,
            organization_id: self.organization_id,
            livemode: self.livemode,
            account_id: self.account_id,
            account_type,
            currency: self.currency,
            start_date: self.start_date,
            end_date: self.end_date,
            opening_balance: self.opening_balance,
            closing_balance: self.closing_balance,
            status,
            completed_at: self.completed_at.map(from_db),
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
            matches,
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = reconciliation_matches, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(super) struct MatchRow {
    pub(super) organization_id: String,
    pub(super) livemode: bool,
    pub(super) entry_id: String,
    pub(super) reconciliation_id: String,
    pub(super) transaction_id: String,
    pub(super) date: Date,
    pub(super) amount: i64,
    pub(super) description: String,
    pub(super) statement_line_id: Option<String>,
    pub(super) matched_at: PrimitiveDateTime,
}

impl MatchRow {
    pub(super) fn of(r: &Reconciliation, m: &ReconciledEntry) -> Self {
        Self {
            organization_id: r.organization_id.clone(),
            livemode: r.livemode,
            entry_id: m.entry_id.clone(),
            reconciliation_id: r.id.clone(),
            transaction_id: m.transaction_id.clone(),
            date: m.date,
            amount: m.amount,
            description: m.description.clone(),
            statement_line_id: m.statement_line_id.clone(),
            matched_at: to_db(m.matched_at),
        }
    }
}

impl From<MatchRow> for ReconciledEntry {
    fn from(m: MatchRow) -> Self {
        Self {
            entry_id: m.entry_id,
            transaction_id: m.transaction_id,
            date: m.date,
            amount: m.amount,
            description: m.description,
            statement_line_id: m.statement_line_id,
            matched_at: from_db(m.matched_at),
        }
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = statement_lines, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(super) struct LineRow {
    pub(super) organization_id: String,
    pub(super) livemode: bool,
    pub(super) id: String,
    pub(super) reconciliation_id: String,
    pub(super) line_number: i32,
    pub(super) date: Date,
    pub(super) amount: i64,
    pub(super) description: String,
    pub(super) reference: Option<String>,
    pub(super) created_at: PrimitiveDateTime,
}

impl From<&StatementLine> for LineRow {
    fn from(l: &StatementLine) -> Self {
        Self {
            organization_id: l.organization_id.clone(),
            livemode: l.livemode,
            id: l.id.clone(),
            reconciliation_id: l.reconciliation_id.clone(),
            line_number: l.line_number,
            date: l.date,
            amount: l.amount,
            description: l.description.clone(),
            reference: l.reference.clone(),
            created_at: to_db(l.created_at),
        }
    }
}

impl From<LineRow> for StatementLine {
    fn from(l: LineRow) -> Self {
        Self {
            id: l.id,
            organization_id: l.organization_id,
            livemode: l.livemode,
            reconciliation_id: l.reconciliation_id,
            line_number: l.line_number,
            date: l.date,
            amount: l.amount,
            description: l.description,
            reference: l.reference,
            created_at: from_db(l.created_at),
        }
    }
}

/// An entry row as the reconciliation reads it.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = ledger_entries, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
pub(super) struct EntryRow {
    pub(super) id: String,
    pub(super) transaction_id: String,
    pub(super) account_id: String,
    pub(super) entry_type: String,
    pub(super) amount: i64,
    pub(super) description: Option<String>,
    pub(super) date: PrimitiveDateTime,
}

/// A transaction as a journal entry shows it: id, description and reference.
pub(super) type TxnRow = (String, String, Option<String>);

/// The journal entries of `entries` (in their order), each with its transaction's
/// description and reference and the reconciliation matching it (`matched`: entry id,
/// reconciliation id); an entry whose transaction is not among `txns` (deleted) is left
/// out, and so is a matched one when `unmatched_only`.
pub(super) fn journal_of(
    entries: Vec<EntryRow>,
    txns: &[TxnRow],
    matched: &[(String, String)],
    unmatched_only: bool,
) -> StoreResult<Vec<JournalEntry>> {
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        let Some((_, description, reference)) =
            txns.iter().find(|(id, _, _)| *id == e.transaction_id)
        else {
            continue;
        };
        let reconciliation_id = matched
            .iter()
            .find(|(entry, _)| *entry == e.id)
            .map(|(_, r)| r.clone());
        if unmatched_only && reconciliation_id.is_some() {
            continue;
        }
        let entry_type =
            ledger_domain::accounts::EntryType::parse(&e.entry_type).ok_or_else(|| {
                StoreError::Internal(format!("entry {} has type '{}'", e.id, e.entry_type))
            })?;
        out.push(JournalEntry {
            entry_id: e.id,
            transaction_id: e.transaction_id,
            account_id: e.account_id,
            date: e.date.date(),
            amount: signed(entry_type, e.amount),
            description: match e.description {
                Some(d) if !d.is_empty() && &d != description => format!("{description} {d}"),
                _ => description.clone(),
            },
            reference: None,
            transaction_reference: reference.clone(),
            reconciliation_id,
        });
    }
    Ok(out)
}
