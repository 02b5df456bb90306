//! Reconciliations with their matches, and statement lines with what they are matched
//! (or proposed) to.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::reconciliation::matcher::Proposal;
use crate::reconciliation::statement::StatementFormat;
use crate::reconciliation::{ReconciledEntry, Reconciliation, StatementLine};

use super::{amount, date, json, timestamp};

/// A journal entry a reconciliation matched: the bank cleared it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ReconciliationMatch)]
pub struct ReconciliationMatchView<'a> {
    entry_id: &'a str,
    transaction_id: &'a str,
    /// The transaction's date.
    #[schema(format = Date)]
    date: String,
    /// With the bank's sign: positive is money into the account.
    #[schema(example = "75.50")]
    amount: String,
    description: &'a str,
    /// The statement line it was matched to, when matched from a statement.
    statement_line_id: Option<&'a str>,
    #[schema(format = DateTime)]
    matched_at: String,
}

impl<'a> ReconciliationMatchView<'a> {
    /// The match `m` of a reconciliation in `currency`.
    pub fn of(m: &'a ReconciledEntry, currency: &str) -> Self {
        Self {
            entry_id: &m.entry_id,
            transaction_id: &m.transaction_id,
            date: date(m.date),
            amount: amount(m.amount, currency),
            description: &m.description,
            statement_line_id: m.statement_line_id.as_deref(),
            matched_at: timestamp(m.matched_at),
        }
    }
}

/// A bank reconciliation of one account over a statement period; balances in the account
/// type's normal direction (DECISIONS 8), the difference computed on every read from the
/// matches.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Reconciliation)]
pub struct ReconciliationView<'a> {
    id: &'a str,
    #[schema(example = "reconciliation")]
    object: &'static str,
    organization_id: &'a str,
    account_id: &'a str,
    #[schema(example = "USD")]
    currency: &'a str,
    #[schema(format = Date)]
    start_date: String,
    #[schema(format = Date)]
    end_date: String,
    /// The closing balance of the account's previous completed reconciliation, else zero.
    #[schema(example = "1000.00")]
    opening_balance: String,
    /// The bank's closing balance.
    #[schema(example = "1250.00")]
    closing_balance: String,
    /// The opening balance plus the matched entries.
    #[schema(example = "1250.00")]
    cleared_balance: String,
    /// The closing balance minus the cleared balance (zero to complete).
    #[schema(example = "0.00")]
    difference: String,
    /// `open` or `completed`.
    status: &'static str,
    matched_count: usize,
    matches: Vec<ReconciliationMatchView<'a>>,
    #[schema(format = DateTime)]
    completed_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    livemode: bool,
}

impl<'a> ReconciliationView<'a> {
    /// The reconciliation object.
    pub fn of(r: &'a Reconciliation) -> Self {
        let money = |units: i64| amount(units, &r.currency);
        Self {
            id: &r.id,
            object: "reconciliation",
            organization_id: &r.organization_id,
            account_id: &r.account_id,
            currency: &r.currency,
            start_date: date(r.start_date),
            end_date: date(r.end_date),
            opening_balance: money(r.opening_balance),
            closing_balance: money(r.closing_balance),
            cleared_balance: money(r.cleared_balance()),
            difference: money(r.difference()),
            status: r.status.as_str(),
            matched_count: r.matches.len(),
            matches: r
                .matches
                .iter()
                .map(|m| ReconciliationMatchView::of(m, &r.currency))
                .collect(),
            completed_at: r.completed_at.map(timestamp),
            created_at: timestamp(r.created_at),
            updated_at: timestamp(r.updated_at),
            livemode: r.livemode,
        }
    }
}

/// A reconciliation (balances in the account type's normal direction, DECISIONS 8):
/// the difference is computed here, on every read, from the matches.
pub fn reconciliation(r: &Reconciliation) -> Value {
    json(&ReconciliationView::of(r))
}

/// The journal entry proposed as the match of an unmatched statement line.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = MatchProposal)]
pub struct MatchProposalView<'a> {
    entry_id: &'a str,
    transaction_id: &'a str,
    /// Between 0 and 1, two decimals.
    #[schema(example = "0.95")]
    confidence: String,
    /// Why, for a person.
    #[schema(example = "amount 75.50 equal; 2 days apart; reference 1001 equal")]
    reason: &'a str,
}

impl<'a> MatchProposalView<'a> {
    /// The proposal `p`.
    pub fn of(p: &'a Proposal) -> Self {
        Self {
            entry_id: &p.entry_id,
            transaction_id: &p.transaction_id,
            confidence: p.confidence_text(),
            reason: &p.reason,
        }
    }
}

/// A line of an imported bank statement, with the entry it is matched to or the match
/// proposed for it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = StatementLine)]
pub struct StatementLineView<'a> {
    id: &'a str,
    #[schema(example = "statement_line")]
    object: &'static str,
    reconciliation_id: &'a str,
    /// 1-based, in import order across the reconciliation's imports.
    line_number: i32,
    #[schema(format = Date)]
    date: String,
    /// The bank's sign: positive is money into the account.
    #[schema(example = "-75.50")]
    amount: String,
    description: &'a str,
    /// The bank's reference of the line.
    reference: Option<&'a str>,
    /// `matched` or `unmatched`.
    status: &'static str,
    matched_entry_id: Option<&'a str>,
    matched_transaction_id: Option<&'a str>,
    /// The proposed match of an unmatched line of an open reconciliation, if any.
    proposal: Option<MatchProposalView<'a>>,
}

impl<'a> StatementLineView<'a> {
    /// The line `l` of a reconciliation in `currency`, with the entry it is `matched` to
    /// or the `proposal` for it.
    pub fn of(
        l: &'a StatementLine,
        currency: &str,
        matched: Option<&'a ReconciledEntry>,
        proposal: Option<&'a Proposal>,
    ) -> Self {
        Self {
            id: &l.id,
            object: "statement_line",
            reconciliation_id: &l.reconciliation_id,
            line_number: l.line_number,
            date: date(l.date),
            amount: amount(l.amount, currency),
            description: &l.description,
            reference: l.reference.as_deref(),
            status: if matched.is_some() {
                "matched"
            } else {
                "unmatched"
            },
            matched_entry_id: matched.map(|m| m.entry_id.as_str()),
            matched_transaction_id: matched.map(|m| m.transaction_id.as_str()),
            proposal: proposal.map(MatchProposalView::of),
        }
    }
}

/// A statement line with what it is matched to, or the match proposed for it.
pub fn statement_line(
    l: &StatementLine,
    currency: &str,
    matched: Option<&ReconciledEntry>,
    proposal: Option<&Proposal>,
) -> Value {
    json(&StatementLineView::of(l, currency, matched, proposal))
}

/// The answer to a statement import: how many lines were added and skipped, and the
/// added lines with their proposed matches.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = StatementImport)]
pub struct StatementImportView<'a> {
    #[schema(example = "statement_import")]
    object: &'static str,
    reconciliation_id: &'a str,
    /// The format the statement was read in: `csv` or `ofx`.
    format: &'static str,
    /// The lines added.
    imported: usize,
    /// The lines skipped as imported already (the same bank reference, or for lines
    /// without one the same date, amount and description).
    skipped_duplicates: usize,
    /// The lines added, each with its proposed match.
    #[schema(value_type = Vec<StatementLineView<'static>>)]
    statement_lines: &'a [Value],
}

impl<'a> StatementImportView<'a> {
    /// The import into reconciliation `reconciliation_id` of a statement read as
    /// `format`, which added `statement_lines` and skipped `skipped_duplicates`.
    pub fn of(
        reconciliation_id: &'a str,
        format: StatementFormat,
        skipped_duplicates: usize,
        statement_lines: &'a [Value],
    ) -> Self {
        Self {
            object: "statement_import",
            reconciliation_id,
            format: format.as_str(),
            imported: statement_lines.len(),
            skipped_duplicates,
            statement_lines,
        }
    }
}
