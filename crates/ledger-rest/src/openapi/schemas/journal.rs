//! The books: accounts with their balances and history, transactions, transfers and
//! the reports over them.

#![expect(dead_code, reason = "documentation types: described, never built")]

use serde_json::Value;
use utoipa::ToSchema;

use super::list_of;

/// `{debit, credit, net}` of an account, decimal strings in its currency.
#[derive(ToSchema)]
pub(crate) struct Balance {
    #[schema(example = "150.00")]
    debit: String,
    #[schema(example = "25.00")]
    credit: String,
    /// The balance in the account's normal direction.
    #[schema(example = "125.00")]
    net: String,
}

/// An account of the chart of accounts.
#[derive(ToSchema)]
#[schema(example = json!({
    "id": "acc_01JD0000000000000000000000",
    "object": "account",
    "organization_id": "org_01JD0000000000000000000000",
    "livemode": false,
    "name": "Cash",
    "code": "1000",
    "type": "asset",
    "subtype": "cash",
    "currency": "USD",
    "description": null,
    "is_active": true,
    "status": "active",
    "parent_id": null,
    "is_system": false,
    "metadata": {},
    "created_at": "2026-11-25T12:00:00Z",
    "updated_at": "2026-11-25T12:00:00Z",
    "balance": {"debit": "0.00", "credit": "0.00", "net": "0.00"}
}))]
pub(crate) struct Account {
    id: String,
    #[schema(example = "account")]
    object: String,
    organization_id: String,
    livemode: bool,
    name: String,
    code: String,
    /// `asset`, `liability`, `equity`, `revenue` or `expense`.
    #[schema(rename = "type")]
    account_type: String,
    subtype: Option<String>,
    currency: String,
    description: Option<String>,
    is_active: bool,
    status: String,
    parent_id: Option<String>,
    is_system: bool,
    metadata: Option<Value>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// Present on a single account.
    balance: Option<Balance>,
    /// The ids of the direct children on this page (`include_hierarchy=true`).
    children: Option<Vec<String>>,
}

/// An account's balance at a date, optionally converted.
#[derive(ToSchema)]
pub(crate) struct AccountBalance {
    account_id: String,
    #[schema(example = "account_balance")]
    object: String,
    #[schema(format = DateTime)]
    as_of: String,
    balance: Balance,
    currency: String,
    /// With `?currency=`: the balance at that day's rate, with `currency`, `rate` and
    /// `rate_date`.
    converted: Option<Value>,
}

/// One row of an account's history.
#[derive(ToSchema)]
pub(crate) struct AccountHistoryRow {
    transaction_id: String,
    #[schema(format = DateTime)]
    date: String,
    description: Option<String>,
    debit: String,
    credit: String,
    /// The running balance after this row.
    balance: String,
}

/// An account's history: its postings with a running balance.
#[derive(ToSchema)]
pub(crate) struct AccountHistory {
    account_id: String,
    transactions: Vec<AccountHistoryRow>,
    has_more: bool,
    total_count: i64,
}

/// One journal entry line.
#[derive(ToSchema)]
pub(crate) struct Entry {
    id: String,
    account_id: String,
    /// `debit` or `credit`.
    entry_type: String,
    amount: String,
    currency: String,
    description: Option<String>,
}

/// A journal transaction with its entries.
#[derive(ToSchema)]
#[schema(example = json!({
    "id": "txn_01JD0000000000000000000000",
    "object": "transaction",
    "organization_id": "org_01JD0000000000000000000000",
    "livemode": false,
    "description": "Office supplies",
    "date": "2026-11-25T00:00:00Z",
    "status": "posted",
    "amount": "42.00",
    "currency": "USD",
    "exchange_rates": {},
    "reference": null,
    "reversal_of": null,
    "reversed_by": null,
    "reversal_reason": null,
    "contact_id": null,
    "category_id": null,
    "entries": [
        {"id": "ent_01JD0000000000000000000001", "account_id": "acc_01JD0000000000000000000001", "entry_type": "debit", "amount": "42.00", "currency": "USD", "description": null},
        {"id": "ent_01JD0000000000000000000002", "account_id": "acc_01JD0000000000000000000002", "entry_type": "credit", "amount": "42.00", "currency": "USD", "description": null}
    ],
    "metadata": {},
    "posted_at": "2026-11-25T12:00:00Z",
    "created_at": "2026-11-25T12:00:00Z",
    "updated_at": "2026-11-25T12:00:00Z"
}))]
pub(crate) struct Transaction {
    id: String,
    #[schema(example = "transaction")]
    object: String,
    organization_id: String,
    livemode: bool,
    description: Option<String>,
    #[schema(format = DateTime)]
    date: String,
    /// `draft`, `posted`, `reversed` or `void`.
    status: String,
    amount: String,
    currency: String,
    /// The implied rate of each foreign currency of the entries.
    exchange_rates: Option<Value>,
    reference: Option<String>,
    reversal_of: Option<String>,
    reversed_by: Option<String>,
    reversal_reason: Option<String>,
    contact_id: Option<String>,
    category_id: Option<String>,
    entries: Vec<Entry>,
    metadata: Option<Value>,
    posted_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// Transactions written together.
#[derive(ToSchema)]
pub(crate) struct TransactionBatch {
    id: String,
    #[schema(example = "transaction_batch")]
    object: String,
    count: i64,
    transactions: Vec<Transaction>,
}

/// A transfer between two accounts (a two-entry transaction).
#[derive(ToSchema)]
pub(crate) struct Transfer {
    id: String,
    #[schema(example = "transfer")]
    object: String,
    organization_id: String,
    livemode: bool,
    from_account_id: String,
    to_account_id: String,
    amount: String,
    currency: String,
    to_amount: String,
    to_currency: String,
    exchange_rate: Option<String>,
    #[schema(format = DateTime)]
    date: String,
    description: Option<String>,
    reference: Option<String>,
    status: String,
    transaction_id: String,
    reversed_by: Option<String>,
    reversal_reason: Option<String>,
    metadata: Option<Value>,
    posted_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A financial report (trial balance, balance sheet or income statement).
#[derive(ToSchema)]
pub(crate) struct Report {
    /// `trial_balance`, `balance_sheet` or `income_statement`.
    object: Option<String>,
    currency: Option<String>,
}

list_of! {
    AccountList => Account,
    TransactionList => Transaction,
    TransferList => Transfer,
}
