//! The chart of accounts: account types, their normal side, statuses and the default chart.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::error::DomainError;
use crate::ids::names;

/// The five account types of double-entry bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountType {
    Asset,
    Liability,
    Equity,
    Revenue,
    Expense,
}

/// The side of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryType {
    Debit,
    Credit,
}

impl EntryType {
    /// `debit` or `credit`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debit => "debit",
            Self::Credit => "credit",
        }
    }

    /// Parses `debit`/`credit` in any case.
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "debit" => Some(Self::Debit),
            "credit" => Some(Self::Credit),
            _ => None,
        }
    }

    /// The other side.
    pub fn opposite(self) -> Self {
        match self {
            Self::Debit => Self::Credit,
            Self::Credit => Self::Debit,
        }
    }
}

names!(
    AccountType,
    loose,
    {
        Asset => "asset",
        Liability => "liability",
        Equity => "equity",
        Revenue => "revenue",
        Expense => "expense",
    }
);

impl AccountType {
    /// The side on which a balance of this type is positive (DECISIONS 8).
    pub fn normal_side(self) -> EntryType {
        match self {
            Self::Asset | Self::Expense => EntryType::Debit,
            Self::Liability | Self::Equity | Self::Revenue => EntryType::Credit,
        }
    }

    /// The balance in this type's normal direction from debit and credit totals.
    pub fn net(self, debit: i64, credit: i64) -> i64 {
        match self.normal_side() {
            EntryType::Debit => debit - credit,
            EntryType::Credit => credit - debit,
        }
    }
}

/// An account's status: `active`, `inactive` (is_active false) or `suspended`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountStatus {
    Active,
    Inactive,
    Suspended,
}

names!(
    AccountStatus,
    loose,
    {
        Active => "active",
        Inactive => "inactive",
        Suspended => "suspended",
    }
);

impl AccountStatus {
    /// Whether entries may be posted to an account in this status.
    pub fn accepts_postings(self) -> bool {
        matches!(self, Self::Active)
    }
}

/// An account of the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Account {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub code: String,
    pub name: String,
    pub account_type: AccountType,
    pub subtype: Option<String>,
    pub currency: String,
    pub description: Option<String>,
    pub status: AccountStatus,
    pub parent_id: Option<String>,
    pub is_system: bool,
    pub metadata: serde_json::Value,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// Debit and credit totals of an account (stored units).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub debit: i64,
    pub credit: i64,
}

impl Totals {
    /// Adds one entry.
    pub fn add(&mut self, side: EntryType, units: i64) {
        match side {
            EntryType::Debit => self.debit += units,
            EntryType::Credit => self.credit += units,
        }
    }
}

/// Checks an account code: a numeric string of 1 to 20 digits.
///
/// # Errors
/// `invalid_field` on `code` otherwise.
pub fn validate_code(code: &str) -> Result<(), DomainError> {
    if code.is_empty() || code.len() > 20 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DomainError::invalid_field(
            "code",
            "must be a numeric string of 1 to 20 digits",
        ));
    }
    Ok(())
}

/// One account of the default chart.
#[derive(Debug, Clone, Copy)]
pub struct ChartEntry {
    pub code: &'static str,
    pub name: &'static str,
    pub account_type: AccountType,
    pub subtype: &'static str,
}

/// The system accounts every new organization starts with (DECISIONS 3).
pub const DEFAULT_CHART: [ChartEntry; 7] = [
    ChartEntry {
        code: "1000",
        name: "Cash",
        account_type: AccountType::Asset,
        subtype: "cash",
    },
    ChartEntry {
        code: "1100",
        name: "Accounts Receivable",
        account_type: AccountType::Asset,
        subtype: "accounts_receivable",
    },
    ChartEntry {
        code: "2000",
        name: "Accounts Payable",
        account_type: AccountType::Liability,
        subtype: "accounts_payable",
    },
    ChartEntry {
        code: "2100",
        name: "Sales Tax Payable",
        account_type: AccountType::Liability,
        subtype: "sales_tax_payable",
    },
    ChartEntry {
        code: "3000",
        name: "Retained Earnings",
        account_type: AccountType::Equity,
        subtype: "retained_earnings",
    },
    ChartEntry {
        code: "4000",
        name: "Sales",
        account_type: AccountType::Revenue,
        subtype: "sales",
    },
    ChartEntry {
        code: "5000",
        name: "General Expenses",
        account_type: AccountType::Expense,
        subtype: "general_expense",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_sides_follow_the_accounting_equation() {
        assert_eq!(AccountType::Asset.net(100, 30), 70);
        assert_eq!(AccountType::Expense.net(100, 30), 70);
        assert_eq!(AccountType::Liability.net(30, 100), 70);
        assert_eq!(AccountType::Equity.net(30, 100), 70);
        assert_eq!(AccountType::Revenue.net(30, 100), 70);
    }

    #[test]
    fn codes_are_numeric() {
        assert!(validate_code("1000").is_ok());
        assert!(validate_code("10a0").is_err());
        assert!(validate_code("").is_err());
    }

    #[test]
    fn parse_is_case_insensitive() {
        assert_eq!(AccountType::parse("ASSET"), Some(AccountType::Asset));
        assert_eq!(AccountType::parse("expense"), Some(AccountType::Expense));
        assert_eq!(AccountType::parse(" Revenue "), Some(AccountType::Revenue));
        assert_eq!(AccountType::parse("cash"), None);
        assert_eq!(EntryType::parse("Credit"), Some(EntryType::Credit));
    }
}
