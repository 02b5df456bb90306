//! The reports (trial balance, balance sheet, income statement): the views the handlers
//! serialize.

use ledger_domain::views;

pub(crate) type TrialBalance = views::TrialBalanceView<'static>;
pub(crate) type BalanceSheet = views::BalanceSheetView<'static>;
pub(crate) type IncomeStatement = views::IncomeStatementView<'static>;
