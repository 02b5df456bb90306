//! Documents in a foreign currency: an invoice or bill whose currency (its contact's) is
//! not the organization's base currency.
//!
//! The base currency is the functional currency, as in QuickBooks Online and Xero:
//! revenue, expenses and taxes are booked in it, at the rate of the issue date, while
//! the receivable or payable stays in the document's currency, on a control account of
//! that currency. Every currency of a posting balances on its own, so the two sides meet
//! in the exchange accounts (the trading-account method of [`crate::transfers`]). Issuing
//! an invoice of 100.00 EUR for Sales at 1.10 USD/EUR:
//!
//! | account | side | amount |
//! |---|---|---|
//! | Accounts Receivable EUR | debit | 100.00 EUR |
//! | Currency Exchange EUR | credit | 100.00 EUR |
//! | Currency Exchange USD | debit | 110.00 USD |
//! | Sales | credit | 110.00 USD |
//!
//! Each payment settles part of the receivable at the rate of its own date. What the
//! money is worth then, less what the settled part was booked at, is the realised gain
//! (a loss when negative): posted in the same transaction, Dr the base exchange account /
//! Cr "Realised Currency Gains" (the other way for a loss), so the exchange accounts keep
//! only what is still open and the income statement shows what was realised.

use crate::accounts::EntryType;
use crate::money::{Currency, SCALE};
use crate::transactions::EntryLine;

use super::DocumentKind;

/// The subtype of the receivable control accounts of foreign currencies.
pub const FOREIGN_RECEIVABLE_SUBTYPE: &str = "accounts_receivable_foreign";
/// The subtype of the payable control accounts of foreign currencies.
pub const FOREIGN_PAYABLE_SUBTYPE: &str = "accounts_payable_foreign";
/// Code of the realised currency gains account (a revenue account: losses debit it).
pub const REALISED_GAINS_CODE: &str = "4960";
/// The subtype of the realised currency gains account.
pub const REALISED_GAINS_SUBTYPE: &str = "realised_currency_gains";

/// Code of the receivable (invoice) or payable (bill) account of a foreign currency:
/// the base control account's first two digits and the ISO 4217 numeric code (`11978`
/// receivables in EUR, `20978` payables in EUR).
pub fn control_account_code(kind: DocumentKind, currency: &Currency) -> String {
    match kind {
        DocumentKind::Invoice => format!("11{:03}", currency.numeric()),
        DocumentKind::Bill => format!("20{:03}", currency.numeric()),
    }
}

/// Name of the control account of a foreign currency.
pub fn control_account_name(kind: DocumentKind, currency: &str) -> String {
    match kind {
        DocumentKind::Invoice => format!("Accounts Receivable {currency}"),
        DocumentKind::Bill => format!("Accounts Payable {currency}"),
    }
}

/// The subtype of a foreign control account of `kind`.
pub fn control_subtype(kind: DocumentKind) -> &'static str {
    match kind {
        DocumentKind::Invoice => FOREIGN_RECEIVABLE_SUBTYPE,
        DocumentKind::Bill => FOREIGN_PAYABLE_SUBTYPE,
    }
}

/// The accounts between a foreign document's currency and the base currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    pub base_currency: String,
    /// The exchange account of the document's currency.
    pub document_side: String,
    /// The exchange account of the base currency.
    pub base_side: String,
}

fn base_line(account: &str, side: EntryType, amount: i64, base: &str) -> EntryLine {
    EntryLine {
        account_id: account.to_owned(),
        entry_type: side,
        amount,
        description: None,
        currency: Some(base.to_owned()),
    }
}

fn document_line(account: &str, side: EntryType, amount: i64) -> EntryLine {
    EntryLine {
        account_id: account.to_owned(),
        entry_type: side,
        amount,
        description: None,
        currency: None,
    }
}

fn opposite(side: EntryType) -> EntryType {
    match side {
        EntryType::Debit => EntryType::Credit,
        EntryType::Credit => EntryType::Debit,
    }
}

/// The issuing posting of a foreign document, from its one-currency shape (as
/// [`super::issue_entries`] builds it with the foreign control account): the control
/// line stays in the document's currency, every other line is converted into the base
/// currency with `convert` (each rounded to the base's minor unit), and the exchange
/// accounts take the two sides: the document side the control amount, the base side the
/// sum of the converted lines. Lines that convert to nothing are left out. `None` when a
/// conversion overflows.
pub fn issue_in_base(
    lines: Vec<EntryLine>,
    control: &str,
    exchange: &Exchange,
    convert: impl Fn(i64) -> Option<i64>,
) -> Option<Vec<EntryLine>> {
    let mut out = Vec::with_capacity(lines.len() + 2);
    let mut converted = Vec::with_capacity(lines.len());
    let mut base_total: i64 = 0;
    for line in lines {
        if line.account_id == control {
            out.push(document_line(
                &exchange.document_side,
                opposite(line.entry_type),
                line.amount,
            ));
            out.insert(0, line);
            continue;
        }
        let amount = convert(line.amount)?;
        if amount == 0 {
            continue;
        }
        base_total = base_total.checked_add(amount)?;
        converted.push(base_line(
            &line.account_id,
            line.entry_type,
            amount,
            &exchange.base_currency,
        ));
    }
    let control_side = out.first()?.entry_type;
    if base_total != 0 {
        out.push(base_line(
            &exchange.base_side,
            control_side,
            base_total,
            &exchange.base_currency,
        ));
    }
    out.extend(converted);
    Some(out)
}

/// What the issuing posting booked the whole document at in the base currency: the net
/// of its base-currency lines on the base exchange account, on the control's side.
pub fn booked_in_base(kind: DocumentKind, lines: &[EntryLine], exchange: &Exchange) -> i64 {
    let control_side = match kind {
        DocumentKind::Invoice => EntryType::Debit,
        DocumentKind::Bill => EntryType::Credit,
    };
    lines
        .iter()
        .filter(|l| {
            l.account_id == exchange.base_side
                && l.currency.as_deref() == Some(exchange.base_currency.as_str())
        })
        .map(|l| {
            if l.entry_type == control_side {
                l.amount
            } else {
                -l.amount
            }
        })
        .sum()
}

/// `value * part / whole`, rounded half away from zero to `step` stored units.
fn share(value: i64, part: i64, whole: i64, step: i64) -> Option<i64> {
    if whole == 0 {
        return Some(0);
    }
    let n = i128::from(value) * i128::from(part);
    let d = i128::from(whole) * i128::from(step);
    let q = n / d;
    let r = n % d;
    let q = if 2 * r.abs() >= d.abs() {
        q + if (n < 0) == (d < 0) { 1 } else { -1 }
    } else {
        q
    };
    i64::try_from(q * i128::from(step)).ok()
}

/// What a payment of `amount` settles of the booked value: the booked value's share of
/// what is paid after it less its share of what was paid before, each rounded to the
/// base's minor unit, so the payments that settle a document in full settle exactly what
/// it was booked at. All amounts in stored units; `total` and the payments in the
/// document's currency, `booked` in the base currency.
pub fn settled_share(
    booked: i64,
    total: i64,
    paid_before: i64,
    amount: i64,
    base_decimals: u32,
) -> Option<i64> {
    let step = 10_i64.pow(SCALE - base_decimals.min(SCALE));
    let after = share(booked, paid_before.checked_add(amount)?, total, step)?;
    let before = share(booked, paid_before, total, step)?;
    after.checked_sub(before)
}

/// The realised gain (negative: loss) of a payment worth `settled_at_rate` in the base
/// currency at its date, that settles what was booked at `booked_share`: an invoice
/// gains when the money received is worth more, a bill when the money paid is worth less.
pub fn realised_gain(kind: DocumentKind, booked_share: i64, settled_at_rate: i64) -> i64 {
    match kind {
        DocumentKind::Invoice => settled_at_rate - booked_share,
        DocumentKind::Bill => booked_share - settled_at_rate,
    }
}

/// Where a foreign document's payment takes or puts the money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoneyAccount {
    /// An account in the document's currency: the payment moves no currency.
    InDocumentCurrency(String),
    /// An account in the base currency, with the payment's value in it at the payment
    /// date's rate: the money passes through the exchange accounts.
    InBase { account_id: String, value: i64 },
}

/// The posting of a foreign document's payment of `amount` (document currency): the
/// settlement of the control account, through the exchange accounts when the money is in
/// the base currency, and the realised `gain` between the base exchange account and the
/// realised gains account (`gains_account`), all in one balanced transaction.
pub fn payment_in_base(
    kind: DocumentKind,
    amount: i64,
    money: &MoneyAccount,
    control: &str,
    exchange: &Exchange,
    gain: i64,
    gains_account: &str,
) -> Vec<EntryLine> {
    let base = exchange.base_currency.as_str();
    // Invoice: money in (debit), receivable settled (credit). Bill: the other way.
    let (money_side, control_side) = match kind {
        DocumentKind::Invoice => (EntryType::Debit, EntryType::Credit),
        DocumentKind::Bill => (EntryType::Credit, EntryType::Debit),
    };
    let mut lines = Vec::with_capacity(6);
    match money {
        MoneyAccount::InDocumentCurrency(account) => {
            lines.push(document_line(account, money_side, amount));
        }
        MoneyAccount::InBase { account_id, value } => {
            lines.push(base_line(account_id, money_side, *value, base));
            lines.push(base_line(
                &exchange.base_side,
                opposite(money_side),
                *value,
                base,
            ));
            lines.push(document_line(&exchange.document_side, money_side, amount));
        }
    }
    lines.push(document_line(control, control_side, amount));
    if gain != 0 {
        let (debit, credit) = if gain > 0 {
            (exchange.base_side.as_str(), gains_account)
        } else {
            (gains_account, exchange.base_side.as_str())
        };
        lines.push(base_line(debit, EntryType::Debit, gain.abs(), base));
        lines.push(base_line(credit, EntryType::Credit, gain.abs(), base));
    }
    lines.retain(|l| l.amount != 0);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transactions::check_balanced;

    fn exchange() -> Exchange {
        Exchange {
            base_currency: "USD".into(),
            document_side: "act_xeur".into(),
            base_side: "act_xusd".into(),
        }
    }

    fn line(account: &str, side: EntryType, amount: i64) -> EntryLine {
        document_line(account, side, amount)
    }

    #[test]
    fn an_invoice_is_booked_in_base_through_the_exchange_accounts() {
        // 100.00 EUR of sales and 8.25 EUR of tax, at 1.1 USD per EUR.
        let lines = vec![
            line("act_areur", EntryType::Debit, 1_082_500),
            line("act_sales", EntryType::Credit, 1_000_000),
            line("act_tax", EntryType::Credit, 82_500),
        ];
        let convert = |u: i64| crate::exchange::convert_units(u, "1.1", 2);
        let out = issue_in_base(lines, "act_areur", &exchange(), convert).unwrap();
        check_balanced(&out, "EUR").unwrap();
        assert_eq!(out[0].account_id, "act_areur");
        assert_eq!(out[0].currency, None);
        let sales = out.iter().find(|l| l.account_id == "act_sales").unwrap();
        assert_eq!(
            (sales.amount, sales.currency.as_deref()),
            (1_100_000, Some("USD"))
        );
        let tax = out.iter().find(|l| l.account_id == "act_tax").unwrap();
        // 8.25 * 1.1 = 9.075 -> 9.08 (half away from zero)
        assert_eq!(tax.amount, 90_800);
        assert_eq!(
            booked_in_base(DocumentKind::Invoice, &out, &exchange()),
            1_190_800
        );
    }

    #[test]
    fn a_bill_books_its_expenses_in_base() {
        let lines = vec![
            line("act_rent", EntryType::Debit, 500_000),
            line("act_apeur", EntryType::Credit, 500_000),
        ];
        let convert = |u: i64| crate::exchange::convert_units(u, "1.2", 2);
        let out = issue_in_base(lines, "act_apeur", &exchange(), convert).unwrap();
        check_balanced(&out, "EUR").unwrap();
        assert_eq!(
            booked_in_base(DocumentKind::Bill, &out, &exchange()),
            600_000
        );
    }

    #[test]
    fn payments_in_full_settle_exactly_what_was_booked() {
        // Booked 110.01 USD for 100.00 EUR, paid in three uneven parts.
        let (booked, total) = (1_100_100, 1_000_000);
        let parts = [333_300, 333_300, 333_400];
        let mut paid = 0;
        let mut settled = 0;
        for part in parts {
            settled += settled_share(booked, total, paid, part, 2).unwrap();
            paid += part;
        }
        assert_eq!(settled, booked);
        // JPY has no minor unit: shares are whole yen.
        let s = settled_share(1_234_560_000, 1_000_000, 0, 333_300, 0).unwrap();
        assert_eq!(s % 10_000, 0);
    }

    #[test]
    fn gains_and_losses_have_the_right_sign() {
        assert_eq!(realised_gain(DocumentKind::Invoice, 110, 115), 5);
        assert_eq!(realised_gain(DocumentKind::Invoice, 110, 105), -5);
        assert_eq!(realised_gain(DocumentKind::Bill, 110, 115), -5);
        assert_eq!(realised_gain(DocumentKind::Bill, 110, 105), 5);
    }

    #[test]
    fn a_payment_balances_in_each_currency_with_its_gain() {
        let x = exchange();
        for money in [
            MoneyAccount::InDocumentCurrency("act_bankeur".into()),
            MoneyAccount::InBase {
                account_id: "act_bankusd".into(),
                value: 1_150_000,
            },
        ] {
            for kind in [DocumentKind::Invoice, DocumentKind::Bill] {
                for gain in [50_000, -50_000, 0] {
                    let lines =
                        payment_in_base(kind, 1_000_000, &money, "act_ctl", &x, gain, "act_gain");
                    check_balanced(&lines, "EUR").unwrap();
                    let g: i64 = lines
                        .iter()
                        .filter(|l| l.account_id == "act_gain")
                        .map(|l| match l.entry_type {
                            EntryType::Credit => l.amount,
                            EntryType::Debit => -l.amount,
                        })
                        .sum();
                    assert_eq!(g, gain);
                }
            }
        }
    }
}
