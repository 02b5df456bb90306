//! Journal transactions: the balance rule and the transaction state machine.
//!
//! Invariant: a transaction that reaches storage has at least one debit and one credit
//! entry, every amount is positive, and the debits equal the credits to the unit.

use crate::error::ErrorCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::accounts::EntryType;
use crate::error::DomainError;
use crate::money::format_units;

/// Where a transaction is in its life (DECISIONS 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransactionStatus {
    Pending,
    Posted,
    Reversed,
}

impl TransactionStatus {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Posted => "posted",
            Self::Reversed => "reversed",
        }
    }

    /// Parses a stored status.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Pending, Self::Posted, Self::Reversed]
            .into_iter()
            .find(|s| s.as_str() == text)
    }

    /// Whether the entries of a transaction in this status count in balances and reports.
    /// A reversed original still counts: its posted mirror cancels it.
    pub fn counts_in_balances(self) -> bool {
        matches!(self, Self::Posted | Self::Reversed)
    }
}

/// A move of the transaction state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionAction {
    Update,
    Post,
    Reverse,
    Delete,
}

impl TransactionAction {
    /// The status a transaction must be in for this move.
    pub fn required_status(self) -> TransactionStatus {
        match self {
            Self::Update | Self::Post | Self::Delete => TransactionStatus::Pending,
            Self::Reverse => TransactionStatus::Posted,
        }
    }

    /// The status after the move (`None` for a delete, which removes it from reads).
    pub fn next_status(self) -> Option<TransactionStatus> {
        match self {
            Self::Update => Some(TransactionStatus::Pending),
            Self::Post => Some(TransactionStatus::Posted),
            Self::Reverse => Some(TransactionStatus::Reversed),
            Self::Delete => None,
        }
    }

    /// Checks the move against the current status.
    ///
    /// # Errors
    /// `transaction_not_pending` or `transaction_not_posted` when the status does not allow it.
    pub fn check(self, current: TransactionStatus) -> Result<(), DomainError> {
        if current == self.required_status() {
            return Ok(());
        }
        Err(match self.required_status() {
            TransactionStatus::Posted => DomainError::rule(
                ErrorCode::TransactionNotPosted,
                format!(
                    "only posted transactions can be reversed; this one is {}",
                    current.as_str()
                ),
            ),
            _ => DomainError::rule(
                ErrorCode::TransactionNotPending,
                format!(
                    "only pending transactions can be changed; this one is {}",
                    current.as_str()
                ),
            ),
        })
    }
}

/// One validated ledger entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryLine {
    pub account_id: String,
    pub entry_type: EntryType,
    /// Units of the line's currency: the transaction's, or `currency` when set.
    pub amount: i64,
    pub description: Option<String>,
    /// The line's currency (its account's) when it differs from the transaction's;
    /// `None` for a line in the transaction's currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
}

impl EntryLine {
    /// The line's currency, given the transaction's.
    pub fn currency_in<'a>(&'a self, transaction_currency: &'a str) -> &'a str {
        self.currency.as_deref().unwrap_or(transaction_currency)
    }
}

/// A stored transaction with its entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Transaction {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub description: String,
    pub date: OffsetDateTime,
    pub status: TransactionStatus,
    pub currency: String,
    pub amount: i64,
    pub reference: Option<String>,
    pub reversal_of: Option<String>,
    pub reversed_by: Option<String>,
    pub reversal_reason: Option<String>,
    /// The contact the transaction is with, if any.
    pub contact_id: Option<String>,
    /// The category of the transaction, if any.
    pub category_id: Option<String>,
    /// What wrote it when it is not a plain journal entry: `transfer`, `invoice`, `bill`.
    pub source: Option<String>,
    pub metadata: serde_json::Value,
    pub entries: Vec<StoredEntry>,
    pub posted_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// An entry as stored, with its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    pub id: String,
    pub line: EntryLine,
}

/// Checks that entries balance in every currency they use and returns the transaction
/// amount (the debit total in `currency`, the transaction's).
///
/// A line without its own currency is in `currency`. Each currency balances on its own
/// (debits equal credits to the unit); a cross-currency posting goes through an exchange
/// account in each currency (see [`crate::transfers`]).
///
/// # Errors
/// `invalid_field` on `entries` when there are fewer than two entries (the documents'
/// `minItems`); `unbalanced_transaction` with the currency, both totals and the
/// difference, formatted at that currency's decimals, when debits and credits of a
/// currency differ (one-sided entries among them: a business rule, 422);
/// `inconsistent_fields` when entries with zero amounts leave no debit or no credit;
/// `currency_mismatch` when no line is in `currency`.
pub fn check_balanced(entries: &[EntryLine], currency: &str) -> Result<i64, DomainError> {
    if entries.len() < 2 {
        return Err(DomainError::invalid_field(
            "entries",
            "a transaction needs at least two entries, a debit and a credit",
        ));
    }
    let totals = totals_by_currency(entries, currency)?;
    for (code, (debits, credits)) in &totals {
        if debits != credits {
            let decimals = decimals_of(code);
            return Err(DomainError::Unbalanced {
                currency: code.clone(),
                total_debits: format_units(*debits, decimals),
                total_credits: format_units(*credits, decimals),
                difference: format_units((debits - credits).abs(), decimals),
            });
        }
    }
    // Amounts are positive, so one-sided entries are unbalanced above; this holds the
    // rule for any caller that lets a zero amount through.
    let has_debit = entries.iter().any(|e| e.entry_type == EntryType::Debit);
    let has_credit = entries.iter().any(|e| e.entry_type == EntryType::Credit);
    if !has_debit || !has_credit {
        return Err(DomainError::inconsistent(
            "entries",
            "a transaction needs at least one debit entry and one credit entry",
        ));
    }
    totals
        .iter()
        .find(|(code, _)| code == currency)
        .map(|(_, (debits, _))| *debits)
        .ok_or_else(|| {
            DomainError::rule(
                ErrorCode::CurrencyMismatch,
                format!("the transaction is in {currency} but none of its entries is"),
            )
        })
}

/// A currency's code with its debit and credit totals.
pub type CurrencyTotals = (String, (i64, i64));

/// Debit and credit totals per currency, in the order the currencies first appear.
///
/// # Errors
/// `invalid_field` on `entries` when a total overflows.
pub fn totals_by_currency(
    entries: &[EntryLine],
    currency: &str,
) -> Result<Vec<CurrencyTotals>, DomainError> {
    let mut totals: Vec<CurrencyTotals> = Vec::new();
    for entry in entries {
        let code = entry.currency_in(currency);
        let index = match totals.iter().position(|(c, _)| c == code) {
            Some(i) => i,
            None => {
                totals.push((code.to_owned(), (0, 0)));
                totals.len() - 1
            }
        };
        let (debits, credits) = &mut totals[index].1;
        let side = match entry.entry_type {
            EntryType::Debit => debits,
            EntryType::Credit => credits,
        };
        *side = side
            .checked_add(entry.amount)
            .ok_or_else(|| DomainError::invalid_field("entries", "the entry total is too large"))?;
    }
    Ok(totals)
}

/// The rates a cross-currency transaction implies: for each other currency, its debit
/// total per unit of the transaction's (`"0.9"` when 100 USD moved as 90 EUR), to 10
/// significant decimals, half away from zero. Empty for a single-currency transaction.
pub fn implied_rates(entries: &[EntryLine], currency: &str) -> Vec<(String, String)> {
    let Ok(totals) = totals_by_currency(entries, currency) else {
        return Vec::new();
    };
    let Some(base) = totals
        .iter()
        .find(|(c, _)| c == currency)
        .map(|(_, (d, _))| *d)
        .filter(|d| *d > 0)
    else {
        return Vec::new();
    };
    totals
        .iter()
        .filter(|(c, _)| c != currency)
        .map(|(c, (debits, _))| (c.clone(), crate::money::ratio(*debits, base)))
        .collect()
}

/// Decimals of a currency code (2 when unknown).
fn decimals_of(code: &str) -> u32 {
    crate::money::Currency::from_code(code).map_or(2, |c| c.decimals())
}

/// The entries of the mirror transaction that reverses `entries`: every side swapped.
pub fn mirror_entries(entries: &[EntryLine]) -> Vec<EntryLine> {
    entries
        .iter()
        .map(|e| EntryLine {
            entry_type: e.entry_type.opposite(),
            ..e.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(account: &str, side: EntryType, amount: i64) -> EntryLine {
        EntryLine {
            account_id: account.into(),
            entry_type: side,
            amount,
            description: None,
            currency: None,
        }
    }

    fn foreign(account: &str, side: EntryType, amount: i64, currency: &str) -> EntryLine {
        EntryLine {
            currency: Some(currency.into()),
            ..line(account, side, amount)
        }
    }

    #[test]
    fn each_currency_balances_on_its_own() {
        // 100 USD leave cash for the exchange account; 90 EUR leave it for the EUR bank.
        let entries = [
            line("cash", EntryType::Credit, 1_000_000),
            line("fx_usd", EntryType::Debit, 1_000_000),
            foreign("fx_eur", EntryType::Credit, 900_000, "EUR"),
            foreign("bank_eur", EntryType::Debit, 900_000, "EUR"),
        ];
        assert_eq!(check_balanced(&entries, "USD"), Ok(1_000_000));
        assert_eq!(
            implied_rates(&entries, "USD"),
            vec![("EUR".to_owned(), "0.9".to_owned())]
        );
        // Debits equal credits overall, but not within each currency.
        let crossed = [
            line("cash", EntryType::Credit, 1_000_000),
            foreign("bank_eur", EntryType::Debit, 1_000_000, "EUR"),
        ];
        let err = check_balanced(&crossed, "USD").unwrap_err();
        assert_eq!(err.code(), "unbalanced_transaction");
        assert_eq!(err.details().unwrap()["currency"], "USD");
        // A JPY difference is shown without decimals.
        let yen = [
            foreign("a", EntryType::Debit, 1_000_000, "JPY"),
            foreign("b", EntryType::Credit, 990_000, "JPY"),
            line("c", EntryType::Debit, 10),
            line("d", EntryType::Credit, 10),
        ];
        assert_eq!(
            check_balanced(&yen, "USD").unwrap_err(),
            DomainError::Unbalanced {
                currency: "JPY".into(),
                total_debits: "100".into(),
                total_credits: "99".into(),
                difference: "1".into(),
            }
        );
        // A transaction in USD needs a line in USD.
        let euros = [
            foreign("a", EntryType::Debit, 10, "EUR"),
            foreign("b", EntryType::Credit, 10, "EUR"),
        ];
        assert_eq!(
            check_balanced(&euros, "USD").unwrap_err().code(),
            "currency_mismatch"
        );
    }

    #[test]
    fn balanced_entries_give_their_total() {
        let entries = [
            line("a", EntryType::Debit, 100),
            line("b", EntryType::Credit, 60),
            line("c", EntryType::Credit, 40),
        ];
        assert_eq!(check_balanced(&entries, "USD"), Ok(100));
    }

    #[test]
    fn unbalanced_entries_state_both_totals() {
        let entries = [
            line("a", EntryType::Debit, 1_000_000),
            line("b", EntryType::Credit, 900_000),
        ];
        let err = check_balanced(&entries, "USD").unwrap_err();
        assert_eq!(err.code(), "unbalanced_transaction");
        assert_eq!(
            err,
            DomainError::Unbalanced {
                currency: "USD".into(),
                total_debits: "100.00".into(),
                total_credits: "90.00".into(),
                difference: "10.00".into()
            }
        );
    }

    #[test]
    fn one_sided_entries_are_refused() {
        let entries = [
            line("a", EntryType::Debit, 100),
            line("b", EntryType::Debit, 100),
        ];
        assert_eq!(
            check_balanced(&entries, "USD").unwrap_err(),
            DomainError::Unbalanced {
                currency: "USD".into(),
                total_debits: "0.02".into(),
                total_credits: "0.00".into(),
                difference: "0.02".into()
            }
        );
        let zeros = [
            line("a", EntryType::Debit, 0),
            line("b", EntryType::Debit, 0),
        ];
        assert_eq!(
            check_balanced(&zeros, "USD").unwrap_err().code(),
            "inconsistent_fields"
        );
        assert_eq!(
            check_balanced(&[], "USD").unwrap_err().code(),
            "invalid_field"
        );
    }

    #[test]
    fn state_machine_moves() {
        use TransactionAction::*;
        use TransactionStatus::*;
        assert!(Post.check(Pending).is_ok());
        assert_eq!(
            Post.check(Posted).unwrap_err().code(),
            "transaction_not_pending"
        );
        assert_eq!(
            Update.check(Reversed).unwrap_err().code(),
            "transaction_not_pending"
        );
        assert_eq!(
            Delete.check(Posted).unwrap_err().code(),
            "transaction_not_pending"
        );
        assert!(Reverse.check(Posted).is_ok());
        assert_eq!(
            Reverse.check(Pending).unwrap_err().code(),
            "transaction_not_posted"
        );
        assert_eq!(Reverse.next_status(), Some(Reversed));
    }

    #[test]
    fn mirror_swaps_every_side() {
        let entries = [
            line("a", EntryType::Debit, 5),
            line("b", EntryType::Credit, 5),
        ];
        let mirror = mirror_entries(&entries);
        assert_eq!(mirror[0].entry_type, EntryType::Credit);
        assert_eq!(mirror[1].entry_type, EntryType::Debit);
        assert_eq!(check_balanced(&mirror, "USD"), Ok(5));
    }
}
