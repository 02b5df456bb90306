//! The books: accounts with their balances and history, transactions, transfers and
//! the reports over them; the views the handlers serialize.

#![expect(dead_code, reason = "documentation types: described, never built")]

use ledger_domain::views;
use utoipa::ToSchema;

pub(crate) type Account = views::AccountView<'static>;
pub(crate) type AccountList = views::List<views::AccountView<'static>>;
pub(crate) type AccountBalance = views::AccountBalanceView<'static>;
pub(crate) type AccountHistory = views::AccountHistoryView<'static>;
pub(crate) type Transaction = views::TransactionView<'static>;
pub(crate) type TransactionList = views::List<views::TransactionView<'static>>;
pub(crate) type TransactionBatch = views::TransactionBatchView<'static>;
pub(crate) type Transfer = views::TransferView<'static>;
pub(crate) type TransferList = views::List<views::TransferView<'static>>;

/// A financial report (trial balance, balance sheet or income statement).
#[derive(ToSchema)]
pub(crate) struct Report {
    /// `trial_balance`, `balance_sheet` or `income_statement`.
    object: Option<String>,
    currency: Option<String>,
}
