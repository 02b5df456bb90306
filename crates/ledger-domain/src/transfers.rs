//! Account-to-account transfers (DECISIONS 10): a transaction written by `transfer`.
//!
//! A transfer between accounts of one currency is two lines: credit the source, debit
//! the destination. Between currencies every currency still balances on its own (the
//! journal's rule), so the money passes through the organization's exchange account of
//! each currency (the trading-account method):
//!
//! | line | account | side | amount |
//! |---|---|---|---|
//! | 0 | source (USD) | credit | `amount` USD |
//! | 1 | exchange USD | debit | `amount` USD |
//! | 2 | exchange EUR | credit | `to_amount` EUR |
//! | 3 | destination (EUR) | debit | `to_amount` EUR |
//!
//! The exchange accounts are system equity accounts created on first use; what they hold
//! together, valued in one currency, is the exchange result not yet realised. The rate
//! used is `to_amount / amount`, and the transfer is read back from its lines: the first
//! is the source, the last the destination.

use crate::accounts::EntryType;

/// The `source` of a transfer's transaction.
pub const SOURCE: &str = "transfer";

/// The subtype of the exchange accounts.
pub const EXCHANGE_SUBTYPE: &str = "currency_exchange";

/// Code of the exchange account of a currency: `39` and the ISO 4217 numeric code
/// (`39978` for EUR), so each currency has its own and the codes sort with equity.
pub fn exchange_account_code(currency: &crate::money::Currency) -> String {
    format!("39{:03}", currency.numeric())
}

/// Name of the exchange account of a currency.
pub fn exchange_account_name(currency: &str) -> String {
    format!("Currency Exchange {currency}")
}

/// The lines of a transfer as (account, side, units): two in one currency, four through
/// the exchange accounts (`exchange` = the source currency's, the destination's) between
/// currencies.
pub fn lines(
    from_id: &str,
    to_id: &str,
    amount: i64,
    to_amount: i64,
    exchange: Option<(&str, &str)>,
) -> Vec<(String, EntryType, i64)> {
    match exchange {
        None => vec![
            (from_id.to_owned(), EntryType::Credit, amount),
            (to_id.to_owned(), EntryType::Debit, amount),
        ],
        Some((exchange_from, exchange_to)) => vec![
            (from_id.to_owned(), EntryType::Credit, amount),
            (exchange_from.to_owned(), EntryType::Debit, amount),
            (exchange_to.to_owned(), EntryType::Credit, to_amount),
            (to_id.to_owned(), EntryType::Debit, to_amount),
        ],
    }
}
