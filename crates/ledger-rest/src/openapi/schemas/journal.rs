//! The books: accounts with their balances and history, transactions and transfers; the
//! views the handlers serialize.

use ledger_domain::views;

pub(crate) type Account = views::AccountView<'static>;
pub(crate) type AccountList = views::List<views::AccountView<'static>>;
pub(crate) type AccountBalance = views::AccountBalanceView<'static>;
pub(crate) type AccountHistory = views::AccountHistoryView<'static>;
pub(crate) type Transaction = views::TransactionView<'static>;
pub(crate) type TransactionList = views::List<views::TransactionView<'static>>;
pub(crate) type TransactionBatch = views::TransactionBatchView<'static>;
pub(crate) type Transfer = views::TransferView<'static>;
pub(crate) type TransferList = views::List<views::TransferView<'static>>;
