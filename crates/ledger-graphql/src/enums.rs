//! The enums of spec 2 and 3.2, in GraphQL's SCREAMING_CASE, with their domain
//! counterparts.

use juniper::GraphQLEnum;
use ledger_domain::accounts;
use ledger_domain::contacts;
use ledger_domain::transactions;

/// Kind of account (spec 2.3); it fixes the side on which the balance is positive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum AccountType {
    Asset,
    Liability,
    Equity,
    Revenue,
    Expense,
}

impl From<accounts::AccountType> for AccountType {
    fn from(t: accounts::AccountType) -> Self {
        match t {
            accounts::AccountType::Asset => Self::Asset,
            accounts::AccountType::Liability => Self::Liability,
            accounts::AccountType::Equity => Self::Equity,
            accounts::AccountType::Revenue => Self::Revenue,
            accounts::AccountType::Expense => Self::Expense,
        }
    }
}

impl AccountType {
    /// The domain's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Asset => "asset",
            Self::Liability => "liability",
            Self::Equity => "equity",
            Self::Revenue => "revenue",
            Self::Expense => "expense",
        }
    }
}

/// Whether an account accepts postings (spec 2.3; suspended: readable, refuses postings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum AccountStatus {
    Active,
    Inactive,
    Suspended,
}

impl From<accounts::AccountStatus> for AccountStatus {
    fn from(s: accounts::AccountStatus) -> Self {
        match s {
            accounts::AccountStatus::Active => Self::Active,
            accounts::AccountStatus::Inactive => Self::Inactive,
            accounts::AccountStatus::Suspended => Self::Suspended,
        }
    }
}

impl AccountStatus {
    /// The domain's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Inactive => "inactive",
            Self::Suspended => "suspended",
        }
    }
}

/// Side of a ledger entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum EntryType {
    Debit,
    Credit,
}

impl From<accounts::EntryType> for EntryType {
    fn from(t: accounts::EntryType) -> Self {
        match t {
            accounts::EntryType::Debit => Self::Debit,
            accounts::EntryType::Credit => Self::Credit,
        }
    }
}

/// State of a transaction (spec 3.2): pending, then posted, then possibly reversed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum TransactionStatus {
    Pending,
    Posted,
    Reversed,
}

impl TransactionStatus {
    /// The domain's status.
    pub fn domain(self) -> transactions::TransactionStatus {
        match self {
            Self::Pending => transactions::TransactionStatus::Pending,
            Self::Posted => transactions::TransactionStatus::Posted,
            Self::Reversed => transactions::TransactionStatus::Reversed,
        }
    }
}

impl From<transactions::TransactionStatus> for TransactionStatus {
    fn from(s: transactions::TransactionStatus) -> Self {
        match s {
            transactions::TransactionStatus::Pending => Self::Pending,
            transactions::TransactionStatus::Posted => Self::Posted,
            transactions::TransactionStatus::Reversed => Self::Reversed,
        }
    }
}

/// Kind of contact (spec 2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, GraphQLEnum)]
pub enum ContactType {
    Customer,
    Vendor,
    Employee,
    Other,
}

impl From<contacts::ContactType> for ContactType {
    fn from(t: contacts::ContactType) -> Self {
        match t {
            contacts::ContactType::Customer => Self::Customer,
            contacts::ContactType::Vendor => Self::Vendor,
            contacts::ContactType::Employee => Self::Employee,
            contacts::ContactType::Other => Self::Other,
        }
    }
}

impl ContactType {
    /// The domain's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Customer => "customer",
            Self::Vendor => "vendor",
            Self::Employee => "employee",
            Self::Other => "other",
        }
    }
}
