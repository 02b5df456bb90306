//! The chart of accounts and the journal: account writes, balances, histories and
//! transactions.

use std::future::Future;

use time::OffsetDateTime;

use crate::accounts::{Account, AccountStatus, AccountType, Totals};
use crate::reports::ChartLine;
use crate::transactions::{Transaction, TransactionStatus};

use super::{Audit, Page, PageRequest, StoreResult, Tenant, Written};

/// Filters of the account list.
#[derive(Debug, Clone, Default)]
pub struct AccountFilter {
    pub account_type: Option<AccountType>,
    pub status: Option<AccountStatus>,
    /// Only the account with this code.
    pub code: Option<String>,
}

/// One row of an account's history, in date order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRow {
    pub transaction_id: String,
    pub date: OffsetDateTime,
    pub description: String,
    pub debit: i64,
    pub credit: i64,
}

/// A page of an account's history.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPage {
    pub rows: Vec<HistoryRow>,
    pub total_count: i64,
    /// Totals of every counted entry of the account ordered before the page's first row
    /// (earlier dates, or earlier rows skipped by the offset), to seed the running balance.
    pub before: Totals,
}

/// The chart of accounts.
pub trait Accounts: Send + Sync + 'static {
    /// Inserts an account and its event, taking the credits of `charge` in the same
    /// transaction.
    ///
    /// # Errors
    /// `Taken` on `code` when a live account of the tenant has the same code;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn insert_account(
        &self,
        account: Account,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Account>>> + Send;

    /// Saves changed fields of an account (name, description, status, parent, metadata,
    /// updated_at) and its event, taking the credits of `charge` in the same transaction;
    /// an `idempotency` key already used is replayed instead.
    ///
    /// # Errors
    /// `Missing` when the account is not live in its tenant;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn update_account(
        &self,
        account: Account,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Account>>> + Send;

    /// An account that is not deleted.
    fn get_account(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Account>>> + Send;

    /// The accounts among `ids` that exist and are not deleted.
    fn get_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
    ) -> impl Future<Output = StoreResult<Vec<Account>>> + Send;

    /// Accounts sorted by code.
    fn list_accounts(
        &self,
        tenant: &Tenant,
        filter: &AccountFilter,
        page: Option<PageRequest>,
    ) -> impl Future<Output = StoreResult<Page<Account>>> + Send;

    /// The tenant's chart (accounts not deleted, by code: unique among them) as reports
    /// read it: each account's identity, type and currency with the totals of its
    /// counted entries dated in `[from, until)` (either bound open; zero when it has
    /// none), as [`Accounts::account_totals`] reads them, all at one instant.
    fn chart_with_totals(
        &self,
        tenant: &Tenant,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> impl Future<Output = StoreResult<Vec<ChartLine>>> + Send;

    /// One account of the tenant (not deleted) with the running totals of all its
    /// counted entries (zero when it has none), in one read: what a balance reads.
    fn account_with_totals(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<(Account, Totals)>>> + Send;

    /// Debit and credit totals per account and UTC day of the counted entries of the
    /// accounts `ids` dated on days in `[from, until)` (either bound open), by account
    /// then day; days without entries are left out. Converting by posting date reads it.
    fn daily_totals(
        &self,
        tenant: &Tenant,
        ids: &[String],
        from: Option<time::Date>,
        until: Option<time::Date>,
    ) -> impl Future<Output = StoreResult<Vec<(String, time::Date, Totals)>>> + Send;

    /// Debit and credit totals per account of the counted entries (of posted and reversed
    /// transactions) dated in `[from, until)`; either bound may be open. Accounts without
    /// entries may be missing from the answer.
    fn account_totals(
        &self,
        tenant: &Tenant,
        account_id: Option<&str>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> impl Future<Output = StoreResult<Vec<(String, Totals)>>> + Send;

    /// Debit and credit totals of the counted entries of each account among `ids`, in
    /// one query whatever the number of ids (batched loading of balances). Accounts
    /// without entries may be missing from the answer.
    fn totals_of_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
    ) -> impl Future<Output = StoreResult<Vec<(String, Totals)>>> + Send;

    /// The first `limit` counted entries of each account among `ids`, ordered as
    /// [`Accounts::account_history`] orders them, in one query whatever the number of
    /// ids; each row names its account.
    fn first_history_of_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<(String, HistoryRow)>>> + Send;

    /// The counted entries of one account dated in `[from, until)`, by date then
    /// transaction id, one page.
    fn account_history(
        &self,
        tenant: &Tenant,
        account_id: &str,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<HistoryPage>> + Send;
}

/// The journal.
pub trait Journal: Send + Sync + 'static {
    /// A transaction that is not deleted, with its entries.
    fn get_transaction(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Transaction>>> + Send;

    /// Transactions dated in `[from, until)`, newest date first, with their entries.
    fn list_transactions(
        &self,
        tenant: &Tenant,
        status: Option<TransactionStatus>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Transaction>>> + Send;

    /// Transactions written by `source` (`transfer`), in `status` when given, newest date
    /// first, with their entries.
    fn list_transactions_from(
        &self,
        tenant: &Tenant,
        source: &str,
        status: Option<TransactionStatus>,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Transaction>>> + Send;
}

/// A page of history rows with running balances (in the account's normal direction).
#[derive(Debug, Clone)]
pub struct HistoryView {
    pub account: Account,
    pub rows: Vec<(HistoryRow, i64)>,
    pub total_count: i64,
    pub has_more: bool,
}
