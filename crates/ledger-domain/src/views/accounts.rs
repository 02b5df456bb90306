//! Accounts and transactions: the account with its balance and history, the transaction
//! with its entries and implied exchange rates, the transfer a transaction records, and
//! what a journal write answers.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::accounts::{Account, AccountType, Totals};
use crate::exchange::AppliedRate;
use crate::ports::HistoryView;
use crate::transactions::{StoredEntry, Transaction};

use super::{amount, json, timestamp};

/// `{debit, credit, net}` of an account, decimal strings in its currency.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Balance)]
pub struct BalanceView {
    #[schema(example = "150.00")]
    debit: String,
    #[schema(example = "25.00")]
    credit: String,
    /// The balance in the account's normal direction.
    #[schema(example = "125.00")]
    net: String,
}

impl BalanceView {
    /// The balance of `a` from its totals.
    pub fn of(a: &Account, t: Totals) -> Self {
        Self::in_currency(a.account_type, t, &a.currency)
    }

    /// Totals of an account of type `account_type`, shown in `currency`.
    fn in_currency(account_type: AccountType, t: Totals, currency: &str) -> Self {
        Self {
            debit: amount(t.debit, currency),
            credit: amount(t.credit, currency),
            net: amount(account_type.net(t.debit, t.credit), currency),
        }
    }
}

/// An account of the chart of accounts.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Account, example = json!({
    "id": "acc_01JD0000000000000000000000",
    "object": "account",
    "organization_id": "org_01JD0000000000000000000000",
    "livemode": false,
    "name": "Cash",
    "code": "1000",
    "type": "asset",
    "account_type": "asset",
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
pub struct AccountView<'a> {
    id: &'a str,
    #[schema(example = "account")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    name: &'a str,
    code: &'a str,
    /// `asset`, `liability`, `equity`, `revenue` or `expense`.
    #[serde(rename = "type")]
    kind: &'static str,
    /// The same as `type`, under the name a create or update takes it.
    account_type: &'static str,
    subtype: Option<&'a str>,
    currency: &'a str,
    description: Option<&'a str>,
    /// Whether entries may be posted to it (`status` is `active`).
    is_active: bool,
    /// `active`, `inactive` or `suspended`.
    status: &'static str,
    parent_id: Option<&'a str>,
    is_system: bool,
    metadata: &'a Value,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// Present on a single account; absent in lists.
    #[serde(skip_serializing_if = "Option::is_none")]
    balance: Option<BalanceView>,
    /// The ids of the direct children on this page (`include_hierarchy=true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<Vec<&'a str>>,
}

impl<'a> AccountView<'a> {
    /// The account object; `totals` fills `balance` when known.
    pub fn of(a: &'a Account, totals: Option<Totals>) -> Self {
        Self {
            id: &a.id,
            object: "account",
            organization_id: &a.organization_id,
            livemode: a.livemode,
            name: &a.name,
            code: &a.code,
            kind: a.account_type.as_str(),
            account_type: a.account_type.as_str(),
            subtype: a.subtype.as_deref(),
            currency: &a.currency,
            description: a.description.as_deref(),
            is_active: a.status.accepts_postings(),
            status: a.status.as_str(),
            parent_id: a.parent_id.as_deref(),
            is_system: a.is_system,
            metadata: &a.metadata,
            created_at: timestamp(a.created_at),
            updated_at: timestamp(a.updated_at),
            balance: totals.map(|t| BalanceView::of(a, t)),
            children: None,
        }
    }

    /// The same account listing the ids of its direct children.
    #[must_use]
    pub fn with_children(self, children: Vec<&'a str>) -> Self {
        Self {
            children: Some(children),
            ..self
        }
    }
}

/// The account object; `totals` fills `balance` when known.
pub fn account(a: &Account, totals: Option<Totals>) -> Value {
    json(&AccountView::of(a, totals))
}

/// `{debit, credit, net}` of an account, net in its normal direction.
pub fn balance(a: &Account, t: Totals) -> Value {
    json(&BalanceView::of(a, t))
}

/// An account's balance converted to another currency at one day's rate.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ConvertedBalance)]
pub struct ConvertedBalanceView<'a> {
    #[schema(example = "138.00")]
    debit: String,
    #[schema(example = "23.00")]
    credit: String,
    /// The balance in the account's normal direction.
    #[schema(example = "115.00")]
    net: String,
    /// The currency converted to.
    #[schema(example = "EUR")]
    currency: String,
    /// Units of `currency` per unit of the account's currency.
    #[schema(example = "0.92")]
    rate: &'a str,
    /// The effective date of the rate used.
    #[schema(format = Date)]
    rate_date: String,
}

impl<'a> ConvertedBalanceView<'a> {
    /// Totals of an account of type `account_type`, already converted at `rate`.
    pub fn of(account_type: AccountType, converted: Totals, rate: &'a AppliedRate) -> Self {
        let currency = rate.to_currency.code();
        let BalanceView { debit, credit, net } =
            BalanceView::in_currency(account_type, converted, &currency);
        Self {
            debit,
            credit,
            net,
            currency,
            rate: &rate.rate,
            rate_date: rate.effective_date.to_string(),
        }
    }
}

/// An account's balance at a date, optionally converted.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = AccountBalance)]
pub struct AccountBalanceView<'a> {
    account_id: &'a str,
    #[schema(example = "account_balance")]
    object: &'static str,
    /// The end of the day asked for (`?as_of=`), else now.
    #[schema(format = DateTime)]
    as_of: String,
    balance: BalanceView,
    /// The account's currency.
    currency: &'a str,
    /// With `?currency=`: the balance at that day's rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    converted: Option<ConvertedBalanceView<'a>>,
}

impl<'a> AccountBalanceView<'a> {
    /// The balance of `a` from its totals at `as_of`.
    pub fn of(a: &'a Account, totals: Totals, as_of: OffsetDateTime) -> Self {
        Self {
            account_id: &a.id,
            object: "account_balance",
            as_of: timestamp(as_of),
            balance: BalanceView::of(a, totals),
            currency: &a.currency,
            converted: None,
        }
    }

    /// The same balance with its conversion.
    #[must_use]
    pub fn with_converted(self, converted: ConvertedBalanceView<'a>) -> Self {
        Self {
            converted: Some(converted),
            ..self
        }
    }
}

/// One row of an account's history: a transaction's postings to the account.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = AccountHistoryRow)]
pub struct AccountHistoryRowView<'a> {
    transaction_id: &'a str,
    #[schema(format = DateTime)]
    date: String,
    /// The transaction's description.
    description: &'a str,
    #[schema(example = "42.00")]
    debit: String,
    #[schema(example = "0.00")]
    credit: String,
    /// The running balance after this row, in the account's normal direction.
    #[schema(example = "125.00")]
    balance: String,
}

/// An account's history: its postings with a running balance.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = AccountHistory)]
pub struct AccountHistoryView<'a> {
    account_id: &'a str,
    /// The page of rows, in date order.
    transactions: Vec<AccountHistoryRowView<'a>>,
    has_more: bool,
    total_count: i64,
}

impl<'a> AccountHistoryView<'a> {
    /// The page of history `h`, amounts in the account's currency.
    pub fn of(h: &'a HistoryView) -> Self {
        let currency = &h.account.currency;
        let transactions = h
            .rows
            .iter()
            .map(|(row, balance)| AccountHistoryRowView {
                transaction_id: &row.transaction_id,
                date: timestamp(row.date),
                description: &row.description,
                debit: amount(row.debit, currency),
                credit: amount(row.credit, currency),
                balance: amount(*balance, currency),
            })
            .collect();
        Self {
            account_id: &h.account.id,
            transactions,
            has_more: h.has_more,
            total_count: h.total_count,
        }
    }
}

/// One journal entry line.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Entry)]
pub struct EntryView<'a> {
    id: &'a str,
    account_id: &'a str,
    /// `debit` or `credit`.
    entry_type: &'static str,
    #[schema(example = "42.00")]
    amount: String,
    /// The line's currency: the transaction's, or its account's when that differs.
    currency: &'a str,
    description: Option<&'a str>,
}

impl<'a> EntryView<'a> {
    /// Entry `e` of a transaction in `transaction_currency`.
    pub fn of(e: &'a StoredEntry, transaction_currency: &'a str) -> Self {
        let currency = e.line.currency_in(transaction_currency);
        Self {
            id: &e.id,
            account_id: &e.line.account_id,
            entry_type: e.line.entry_type.as_str(),
            amount: amount(e.line.amount, currency),
            currency,
            description: e.line.description.as_deref(),
        }
    }
}

/// A journal transaction with its entries.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Transaction, example = json!({
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
pub struct TransactionView<'a> {
    id: &'a str,
    #[schema(example = "transaction")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    description: &'a str,
    #[schema(format = DateTime)]
    date: String,
    /// `pending`, `posted` or `reversed`.
    status: &'static str,
    /// The debit total in the transaction's currency.
    #[schema(example = "42.00")]
    amount: String,
    currency: &'a str,
    /// The implied rate of each foreign currency of the entries: units of it per unit
    /// of the transaction's currency, by currency code.
    exchange_rates: BTreeMap<String, String>,
    reference: Option<&'a str>,
    reversal_of: Option<&'a str>,
    reversed_by: Option<&'a str>,
    reversal_reason: Option<&'a str>,
    contact_id: Option<&'a str>,
    category_id: Option<&'a str>,
    entries: Vec<EntryView<'a>>,
    metadata: &'a Value,
    #[schema(format = DateTime)]
    posted_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// `true` on the answer of a dry run (`dry_run`: validated, nothing written);
    /// absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
}

impl<'a> TransactionView<'a> {
    /// The transaction object with its entries.
    pub fn of(t: &'a Transaction) -> Self {
        let lines: Vec<crate::transactions::EntryLine> =
            t.entries.iter().map(|e| e.line.clone()).collect();
        Self {
            id: &t.id,
            object: "transaction",
            organization_id: &t.organization_id,
            livemode: t.livemode,
            description: &t.description,
            date: timestamp(t.date),
            status: t.status.as_str(),
            amount: amount(t.amount, &t.currency),
            currency: &t.currency,
            exchange_rates: crate::transactions::implied_rates(&lines, &t.currency)
                .into_iter()
                .collect(),
            reference: t.reference.as_deref(),
            reversal_of: t.reversal_of.as_deref(),
            reversed_by: t.reversed_by.as_deref(),
            reversal_reason: t.reversal_reason.as_deref(),
            contact_id: t.contact_id.as_deref(),
            category_id: t.category_id.as_deref(),
            entries: t
                .entries
                .iter()
                .map(|e| EntryView::of(e, &t.currency))
                .collect(),
            metadata: &t.metadata,
            posted_at: t.posted_at.map(timestamp),
            created_at: timestamp(t.created_at),
            updated_at: timestamp(t.updated_at),
            dry_run: false,
        }
    }

    /// The same transaction as a dry run answers it.
    #[must_use]
    pub fn as_dry_run(self) -> Self {
        Self {
            dry_run: true,
            ..self
        }
    }
}

/// The transaction object with its entries.
pub fn transaction(t: &Transaction) -> Value {
    json(&TransactionView::of(t))
}

/// A transfer between two accounts: a transaction written by `transfer`, read back from
/// its first line (the source) and its last (the destination).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Transfer)]
pub struct TransferView<'a> {
    /// The id of the transaction that records it.
    id: &'a str,
    #[schema(example = "transfer")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    from_account_id: &'a str,
    to_account_id: &'a str,
    /// What left the source account, in its currency.
    #[schema(example = "100.00")]
    amount: String,
    currency: &'a str,
    /// What reached the destination account, in its currency.
    #[schema(example = "92.00")]
    to_amount: String,
    to_currency: &'a str,
    /// `to_amount / amount` (`"1"` within one currency).
    #[schema(example = "0.92")]
    exchange_rate: String,
    #[schema(format = DateTime)]
    date: String,
    description: &'a str,
    reference: Option<&'a str>,
    /// `pending`, `posted` or `reversed`.
    status: &'static str,
    transaction_id: &'a str,
    reversed_by: Option<&'a str>,
    reversal_reason: Option<&'a str>,
    metadata: &'a Value,
    #[schema(format = DateTime)]
    posted_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

impl<'a> TransferView<'a> {
    /// The transfer `t` records, or `None` when it is not one.
    pub fn of(t: &'a Transaction) -> Option<Self> {
        if t.source.as_deref() != Some(crate::transfers::SOURCE) {
            return None;
        }
        let from = &t.entries.first()?.line;
        let to = &t.entries.last()?.line;
        let from_currency = from.currency_in(&t.currency);
        let to_currency = to.currency_in(&t.currency);
        Some(Self {
            id: &t.id,
            object: "transfer",
            organization_id: &t.organization_id,
            livemode: t.livemode,
            from_account_id: &from.account_id,
            to_account_id: &to.account_id,
            amount: amount(from.amount, from_currency),
            currency: from_currency,
            to_amount: amount(to.amount, to_currency),
            to_currency,
            exchange_rate: crate::money::ratio(to.amount, from.amount),
            date: timestamp(t.date),
            description: &t.description,
            reference: t.reference.as_deref(),
            status: t.status.as_str(),
            transaction_id: &t.id,
            reversed_by: t.reversed_by.as_deref(),
            reversal_reason: t.reversal_reason.as_deref(),
            metadata: &t.metadata,
            posted_at: t.posted_at.map(timestamp),
            created_at: timestamp(t.created_at),
            updated_at: timestamp(t.updated_at),
        })
    }
}

/// What a transaction is shown as: the transfer it records, else the transaction.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum JournalView<'a> {
    /// A transaction written by `transfer`.
    Transfer(TransferView<'a>),
    /// Any other transaction.
    Transaction(TransactionView<'a>),
}

impl<'a> JournalView<'a> {
    /// The transfer `t` records, else the transaction.
    pub fn of(t: &'a Transaction) -> Self {
        TransferView::of(t)
            .map_or_else(|| Self::Transaction(TransactionView::of(t)), Self::Transfer)
    }
}

/// What a job on a transaction answers: the transfer it records, else the transaction.
pub fn journal(t: &Transaction) -> Value {
    json(&JournalView::of(t))
}

/// Transactions written together (a batch, or a revaluation and its reversal).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = TransactionBatch)]
pub struct TransactionBatchView<'a> {
    id: &'a str,
    #[schema(example = "transaction_batch")]
    object: &'static str,
    /// How many transactions were written.
    count: usize,
    /// Each transaction, in the order given.
    #[schema(value_type = Vec<TransactionView<'static>>)]
    transactions: Vec<Value>,
}

/// A batch of transactions written together: its id and each transaction, in order
/// (as [`journal`] shows them).
pub fn batch(id: &str, transactions: Vec<Value>) -> Value {
    json(&TransactionBatchView {
        id,
        object: "transaction_batch",
        count: transactions.len(),
        transactions,
    })
}
