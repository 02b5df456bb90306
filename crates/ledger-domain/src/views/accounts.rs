//! Accounts and transactions: the account with its balance, the transaction with its
//! entries and implied exchange rates, and what a journal write answers.

use serde_json::{Value, json};

use crate::accounts::{Account, Totals};
use crate::transactions::Transaction;

use super::{amount, opt_timestamp, timestamp};

/// The account object; `totals` fills `balance` when known.
pub fn account(a: &Account, totals: Option<Totals>) -> Value {
    let mut v = json!({
        "id": a.id,
        "object": "account",
        "organization_id": a.organization_id,
        "livemode": a.livemode,
        "name": a.name,
        "code": a.code,
        "type": a.account_type.as_str(),
        "subtype": a.subtype,
        "currency": a.currency,
        "description": a.description,
        "is_active": a.status.accepts_postings(),
        "status": a.status.as_str(),
        "parent_id": a.parent_id,
        "is_system": a.is_system,
        "metadata": a.metadata,
        "created_at": timestamp(a.created_at),
        "updated_at": timestamp(a.updated_at),
    });
    if let Some(t) = totals {
        v["balance"] = balance(a, t);
    }
    v
}

/// `{debit, credit, net}` of an account, net in its normal direction.
pub fn balance(a: &Account, t: Totals) -> Value {
    json!({
        "debit": amount(t.debit, &a.currency),
        "credit": amount(t.credit, &a.currency),
        "net": amount(a.account_type.net(t.debit, t.credit), &a.currency),
    })
}

/// The transaction object with its entries.
pub fn transaction(t: &Transaction) -> Value {
    let entries: Vec<Value> = t
        .entries
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "account_id": e.line.account_id,
                "entry_type": e.line.entry_type.as_str(),
                "amount": amount(e.line.amount, e.line.currency_in(&t.currency)),
                "currency": e.line.currency_in(&t.currency),
                "description": e.line.description,
            })
        })
        .collect();
    let lines: Vec<crate::transactions::EntryLine> =
        t.entries.iter().map(|e| e.line.clone()).collect();
    let rates: serde_json::Map<String, Value> =
        crate::transactions::implied_rates(&lines, &t.currency)
            .into_iter()
            .map(|(code, rate)| (code, Value::String(rate)))
            .collect();
    json!({
        "id": t.id,
        "object": "transaction",
        "organization_id": t.organization_id,
        "livemode": t.livemode,
        "description": t.description,
        "date": timestamp(t.date),
        "status": t.status.as_str(),
        "amount": amount(t.amount, &t.currency),
        "currency": t.currency,
        "exchange_rates": rates,
        "reference": t.reference,
        "reversal_of": t.reversal_of,
        "reversed_by": t.reversed_by,
        "reversal_reason": t.reversal_reason,
        "contact_id": t.contact_id,
        "category_id": t.category_id,
        "entries": entries,
        "metadata": t.metadata,
        "posted_at": opt_timestamp(t.posted_at),
        "created_at": timestamp(t.created_at),
        "updated_at": timestamp(t.updated_at),
    })
}

/// What a job on a transaction answers: the transfer it records, else the transaction.
pub fn journal(t: &Transaction) -> Value {
    crate::transfers::view(t).unwrap_or_else(|| transaction(t))
}

/// A batch of transactions written together: its id and each transaction, in order.
pub fn batch(id: &str, transactions: Vec<Value>) -> Value {
    json!({
        "id": id,
        "object": "transaction_batch",
        "count": transactions.len(),
        "transactions": transactions,
    })
}
