use std::collections::HashMap;

use super::*;
use crate::accounts::EntryType;
use crate::money::parse_units;
use crate::tax::{Tax, TaxType, parse_rate};
use crate::transactions::check_balanced;
use proptest::prelude::*;

fn units(text: &str) -> i64 {
    parse_units(text, 4).expect("amount")
}

fn tax(id: &str, rate: &str, is_compound: bool) -> Tax {
    Tax {
        id: id.into(),
        organization_id: "org_1".into(),
        livemode: false,
        name: format!("tax {rate}"),
        description: None,
        rate: parse_rate(rate).expect("rate"),
        tax_type: TaxType::SalesTax,
        is_compound,
        is_active: true,
        created_at: OffsetDateTime::UNIX_EPOCH,
        updated_at: OffsetDateTime::UNIX_EPOCH,
    }
}

fn item(quantity: &str, price: &str, account: &str, taxes: &[&str]) -> DocumentItem {
    DocumentItem {
        description: "work".into(),
        quantity: units(quantity),
        unit_price: units(price),
        item_id: None,
        account_id: account.into(),
        tax_ids: taxes.iter().map(|t| (*t).to_owned()).collect(),
        category_id: None,
        amount: 0,
        tax_amount: 0,
    }
}

fn doc(kind: DocumentKind, items: Vec<DocumentItem>, taxes: &HashMap<String, Tax>) -> Document {
    let mut items = items;
    let tax_lines = price_items(&mut items, taxes, 2).expect("priced");
    let (subtotal, tax_amount, total) = totals(&items).expect("totals");
    Document {
        id: "inv_1".into(),
        organization_id: "org_1".into(),
        livemode: false,
        kind,
        sequence: 1,
        number: format_number("INV-", 1),
        contact_id: "con_1".into(),
        issue_date: time::macros::date!(2026 - 01 - 01),
        due_date: time::macros::date!(2026 - 01 - 31),
        currency: "USD".into(),
        status: DocumentStatus::Draft,
        items,
        taxes: tax_lines,
        subtotal,
        tax_amount,
        total,
        amount_paid: 0,
        notes: None,
        posting_id: None,
        created_by: "key_1".into(),
        created_at: OffsetDateTime::UNIX_EPOCH,
        updated_at: OffsetDateTime::UNIX_EPOCH,
    }
}

#[test]
fn line_amounts_round_half_away_from_zero() {
    let cases = [
        ("1", "100.00", 2, "100.00"),
        ("1.5", "19.99", 2, "29.99"), // 29.985 -> 29.99
        ("0.3333", "10.00", 2, "3.33"),
        ("2.5", "0.01", 2, "0.03"), // 0.025 -> 0.03
        ("3", "1000", 0, "3000"),
        ("0.5", "1", 0, "1"), // 0.5 JPY -> 1
    ];
    for (q, p, decimals, want) in cases {
        assert_eq!(
            line_amount(units(q), units(p), decimals, "x").expect("amount"),
            units(want),
            "{q} x {p}"
        );
    }
}

#[test]
fn spec_tax_examples_hold_on_a_document() {
    let taxes: HashMap<String, Tax> = [
        ("tax_a".to_owned(), tax("tax_a", "8", false)),
        ("tax_b".to_owned(), tax("tax_b", "5", true)),
        ("tax_c".to_owned(), tax("tax_c", "8.25", false)),
    ]
    .into();
    let d = doc(
        DocumentKind::Invoice,
        vec![
            item("1", "100.00", "act_sales", &["tax_a", "tax_b"]),
            item("1", "100.00", "act_sales", &["tax_c"]),
        ],
        &taxes,
    );
    assert_eq!(d.subtotal, units("200.00"));
    assert_eq!(d.tax_amount, units("21.65")); // 8.00 + 5.40 + 8.25
    assert_eq!(d.total, units("221.65"));
    assert_eq!(d.taxes.len(), 3);
    assert_eq!(d.taxes[1].amount, units("5.40"));
}

#[test]
fn invoice_posting_is_balanced_and_splits_tax() {
    let taxes: HashMap<String, Tax> = [("tax_a".to_owned(), tax("tax_a", "10", false))].into();
    let d = doc(
        DocumentKind::Invoice,
        vec![
            item("2", "50.00", "act_sales", &["tax_a"]),
            item("1", "30.00", "act_services", &[]),
        ],
        &taxes,
    );
    let accounts = PostingAccounts {
        control: "act_ar".into(),
        tax: Some("act_stp".into()),
    };
    let lines = issue_entries(&d, &accounts);
    assert_eq!(
        check_balanced(&lines, "USD").expect("balanced"),
        units("140.00")
    );
    let find = |a: &str| lines.iter().find(|l| l.account_id == a).expect(a).clone();
    assert_eq!(find("act_ar").entry_type, EntryType::Debit);
    assert_eq!(find("act_sales").amount, units("100.00"));
    assert_eq!(find("act_stp").amount, units("10.00"));
}

#[test]
fn bill_tax_goes_to_expense_without_a_recoverable_account() {
    let taxes: HashMap<String, Tax> = [("tax_a".to_owned(), tax("tax_a", "20", false))].into();
    let d = doc(
        DocumentKind::Bill,
        vec![item("1", "100.00", "act_rent", &["tax_a"])],
        &taxes,
    );
    let without = issue_entries(
        &d,
        &PostingAccounts {
            control: "act_ap".into(),
            tax: None,
        },
    );
    assert_eq!(without.len(), 2);
    assert_eq!(without[1].amount, units("120.00"));
    assert_eq!(without[1].entry_type, EntryType::Debit);
    let with = issue_entries(
        &d,
        &PostingAccounts {
            control: "act_ap".into(),
            tax: Some("act_vat".into()),
        },
    );
    assert_eq!(with.len(), 3);
    assert_eq!(
        check_balanced(&with, "USD").expect("balanced"),
        units("120.00")
    );
}

#[test]
fn payments_move_the_status_and_refuse_too_much() {
    let taxes = HashMap::new();
    let mut d = doc(
        DocumentKind::Invoice,
        vec![item("1", "100.00", "act_sales", &[])],
        &taxes,
    );
    assert_eq!(
        check_payment(&d, units("10"), 2).map_err(|e| e.code().as_str()),
        Err("invalid_state_transition")
    );
    d.status = DocumentStatus::Sent;
    assert_eq!(
        status_after_payment(&d, units("40")),
        DocumentStatus::PartiallyPaid
    );
    d.amount_paid = units("40");
    assert_eq!(
        check_payment(&d, units("60.01"), 2).map_err(|e| e.code().as_str()),
        Err("overpayment")
    );
    assert!(check_payment(&d, units("60"), 2).is_ok());
    assert_eq!(status_after_payment(&d, units("60")), DocumentStatus::Paid);
    assert_eq!(
        check_void(&d).map_err(|e| e.code().as_str()),
        Err("invalid_state_transition")
    );
    let lines = payment_entries(DocumentKind::Bill, units("5"), "act_cash", "act_ap");
    assert_eq!(lines[0].account_id, "act_ap");
    assert_eq!(lines[0].entry_type, EntryType::Debit);
}

#[test]
fn overdue_is_derived() {
    let mut d = doc(
        DocumentKind::Invoice,
        vec![item("1", "1.00", "act_sales", &[])],
        &HashMap::new(),
    );
    let after = time::macros::date!(2026 - 02 - 01);
    assert_eq!(d.display_status(after), "draft");
    d.status = DocumentStatus::Sent;
    assert_eq!(d.display_status(after), "overdue");
    assert_eq!(
        d.display_status(time::macros::date!(2026 - 01 - 31)),
        "sent"
    );
    d.amount_paid = d.total;
    d.status = DocumentStatus::Paid;
    assert_eq!(d.display_status(after), "paid");
}

proptest! {
    /// Whatever the lines and taxes, the posting of issuing balances, and the control
    /// account carries exactly the total.
    #[test]
    fn issue_postings_always_balance(
        lines in proptest::collection::vec((1i64..100_000, 0i64..10_000_000, 0usize..4, any::<bool>()), 1..12),
        recoverable in any::<bool>(),
        bill in any::<bool>(),
    ) {
        let taxes: HashMap<String, Tax> = [
            ("tax_a".to_owned(), tax("tax_a", "7.25", false)),
            ("tax_b".to_owned(), tax("tax_b", "5", true)),
            ("tax_c".to_owned(), tax("tax_c", "19.5", false)),
        ].into();
        let names = ["tax_a", "tax_b", "tax_c"];
        let items: Vec<DocumentItem> = lines.iter().map(|&(q, p, n, second)| DocumentItem {
            description: "x".into(),
            quantity: q * 100,
            unit_price: p * 100,
            item_id: None,
            account_id: if second { "act_one".into() } else { "act_two".into() },
            tax_ids: names[..n.min(3)].iter().map(|s| (*s).to_owned()).collect(),
            category_id: None,
            amount: 0,
            tax_amount: 0,
        }).collect();
        let kind = if bill { DocumentKind::Bill } else { DocumentKind::Invoice };
        let d = doc(kind, items, &taxes);
        prop_assume!(d.total > 0);
        let accounts = PostingAccounts {
            control: "act_ctl".into(),
            tax: (recoverable || !bill).then(|| "act_tax".to_owned()),
        };
        let entries = issue_entries(&d, &accounts);
        prop_assert_eq!(check_balanced(&entries, "USD").expect("balanced"), d.total);
        let tax_sum: i64 = d.taxes.iter().map(|t| t.amount).sum();
        prop_assert_eq!(tax_sum, d.tax_amount);
    }
}
