//! Bank reconciliation (spec 2.9, 4.11; DECISIONS 7): a statement period of one account
//! with the bank's closing balance, the journal entries the bank has cleared, and the
//! difference still to explain.
//!
//! Invariants kept here and by the service:
//! - the cleared balance is the opening balance (the closing balance of the account's
//!   previous completed reconciliation, else zero) plus the matched entries, in the
//!   account type's normal direction (DECISIONS 8); the difference is the closing
//!   balance minus the cleared balance, computed on every read, never stored;
//! - an entry is matched in at most one live reconciliation, a statement line to at
//!   most one entry;
//! - an account has at most one open reconciliation; only an open one changes;
//! - a completed reconciliation had a zero difference, and locks the transactions of its
//!   entries: they can no longer be updated, reversed or deleted.
//!
//! Amounts of matches, entries and statement lines are stored units with the bank's
//! sign: positive is money into the account, which is a debit to it.

pub mod matcher;
pub mod statement;

use time::{Date, OffsetDateTime};

use crate::accounts::{AccountType, EntryType};
use crate::error::{DomainError, ErrorCode};

/// `reconciliation_not_open`: reconciliation `id` is completed and can no longer change.
pub fn not_open(id: &str) -> DomainError {
    DomainError::Reported {
        code: ErrorCode::ReconciliationNotOpen,
        message: format!("reconciliation {id} is completed and can no longer change"),
        details: Some(serde_json::json!({ "status": "completed" })),
    }
}

/// Where a reconciliation is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReconciliationStatus {
    Open,
    Completed,
}

impl ReconciliationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Completed => "completed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "open" => Some(Self::Open),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }
}

/// A journal entry the bank cleared, as matched (a copy: posted entries never change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconciledEntry {
    pub entry_id: String,
    pub transaction_id: String,
    /// The transaction's date (UTC day).
    pub date: Date,
    /// Debit-positive stored units.
    pub amount: i64,
    pub description: String,
    /// The statement line it was matched to, when matched from a statement.
    pub statement_line_id: Option<String>,
    pub matched_at: OffsetDateTime,
}

/// A reconciliation of one account over a statement period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconciliation {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub account_id: String,
    /// The account's type and currency when the reconciliation was created.
    pub account_type: AccountType,
    pub currency: String,
    pub start_date: Date,
    pub end_date: Date,
    /// Normal-direction stored units.
    pub opening_balance: i64,
    pub closing_balance: i64,
    pub status: ReconciliationStatus,
    pub completed_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    /// Ordered by date, then entry id.
    pub matches: Vec<ReconciledEntry>,
}

impl Reconciliation {
    /// `amount` (debit-positive) in the account type's normal direction.
    pub fn normal(&self, amount: i64) -> i64 {
        match self.account_type.normal_side() {
            EntryType::Debit => amount,
            EntryType::Credit => -amount,
        }
    }

    /// The opening balance plus the matched entries (normal direction).
    pub fn cleared_balance(&self) -> i64 {
        self.matches.iter().fold(self.opening_balance, |sum, m| {
            sum.saturating_add(self.normal(m.amount))
        })
    }

    /// The closing balance minus the cleared balance.
    pub fn difference(&self) -> i64 {
        self.closing_balance.saturating_sub(self.cleared_balance())
    }

    /// How the reconciliation is named in deletion records.
    pub fn label(&self) -> String {
        format!(
            "{} to {}",
            crate::dates::iso_date(self.start_date),
            crate::dates::iso_date(self.end_date)
        )
    }
}

/// A line of an imported bank statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementLine {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub reconciliation_id: String,
    /// 1-based, in import order across the reconciliation's imports.
    pub line_number: i32,
    pub date: Date,
    /// The bank's sign (positive: money in), stored units.
    pub amount: i64,
    pub description: String,
    pub reference: Option<String>,
    pub created_at: OffsetDateTime,
}

/// A counted journal entry of an account (of a posted or reversed transaction), as the
/// reconciliation sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    pub entry_id: String,
    pub transaction_id: String,
    pub account_id: String,
    /// The transaction's date (UTC day).
    pub date: Date,
    /// Debit-positive stored units.
    pub amount: i64,
    /// The transaction's description (and the entry's, when it has one).
    pub description: String,
    /// Unused today (entries carry no reference of their own); kept for the matcher.
    pub reference: Option<String>,
    pub transaction_reference: Option<String>,
    /// The live reconciliation that matched it, if any.
    pub reconciliation_id: Option<String>,
}

/// Debit-positive units of an entry.
pub fn signed(entry_type: EntryType, amount: i64) -> i64 {
    match entry_type {
        EntryType::Debit => amount,
        EntryType::Credit => -amount,
    }
}

/// A change of a reconciliation, written atomically with its event.
#[derive(Debug, Clone, PartialEq)]
pub struct ReconciliationChange {
    /// The reconciliation as it becomes (header fields and status; `matches` ignored).
    pub reconciliation: Reconciliation,
    /// Its `updated_at` when the change was decided: a reconciliation changed meanwhile
    /// refuses the change (`concurrent_update`), so a completion never counts matches it
    /// did not see.
    pub expected_updated_at: OffsetDateTime,
    /// Entries to match.
    pub add: Vec<ReconciledEntry>,
    /// Entry ids to unmatch.
    pub remove: Vec<String>,
    /// Statement lines to insert.
    pub lines: Vec<StatementLine>,
}

#[cfg(test)]
mod tests {
    use time::macros::{date, datetime};

    use super::*;

    fn rec(account_type: AccountType, amounts: &[i64]) -> Reconciliation {
        let at = datetime!(2026-02-01 00:00 UTC);
        Reconciliation {
            id: "rec_1".into(),
            organization_id: "org_1".into(),
            livemode: false,
            account_id: "act_1".into(),
            account_type,
            currency: "USD".into(),
            start_date: date!(2026 - 01 - 01),
            end_date: date!(2026 - 01 - 31),
            opening_balance: 1_000_000,
            closing_balance: 1_500_000,
            status: ReconciliationStatus::Open,
            completed_at: None,
            created_at: at,
            updated_at: at,
            matches: amounts
                .iter()
                .enumerate()
                .map(|(i, a)| ReconciledEntry {
                    entry_id: format!("ent_{i}"),
                    transaction_id: format!("txn_{i}"),
                    date: date!(2026 - 01 - 10),
                    amount: *a,
                    description: String::new(),
                    statement_line_id: None,
                    matched_at: at,
                })
                .collect(),
        }
    }

    #[test]
    fn the_difference_is_closing_minus_opening_plus_matches() {
        let bank = rec(AccountType::Asset, &[700_000, -200_000]);
        assert_eq!(bank.cleared_balance(), 1_500_000);
        assert_eq!(bank.difference(), 0);
        let open = rec(AccountType::Asset, &[700_000]);
        assert_eq!(open.difference(), -200_000);
        // A credit card (liability): a charge is a credit, and raises the balance owed.
        let card = rec(AccountType::Liability, &[-700_000, 200_000]);
        assert_eq!(card.cleared_balance(), 1_500_000);
        assert_eq!(card.difference(), 0);
    }

    #[test]
    fn statuses_round_trip() {
        for s in [ReconciliationStatus::Open, ReconciliationStatus::Completed] {
            assert_eq!(ReconciliationStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(ReconciliationStatus::parse("done"), None);
        assert_eq!(signed(EntryType::Credit, 5), -5);
    }
}
