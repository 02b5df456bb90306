//! Invoices and bills (spec 2.8, 3.3, 4.10; DECISIONS 5): one document model for both.
//!
//! A document is a dated list of priced, taxed lines owed by a customer (invoice) or to a
//! vendor (bill). Its amounts are computed here, exactly: each line's amount is
//! `quantity x unit_price` rounded half away from zero to the currency's minor unit, its
//! taxes come from [`crate::tax::line_tax`], and the totals are sums of those rounded
//! figures. Every status change with an accounting effect carries a balanced posting built
//! here ([`issue_entries`], [`payment_entries`]), so the books follow the documents.

use crate::error::ErrorCode;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use time::{Date, OffsetDateTime};

use crate::accounts::EntryType;
use crate::contacts::ContactType;
use crate::error::DomainError;
use crate::ids::IdKind;
use crate::money::{SCALE, UNITS_PER_WHOLE};
use crate::tax::{AppliedRate, Tax, TaxError, line_tax};
use crate::transactions::EntryLine;

/// Invoice (money owed to the organization) or bill (money it owes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentKind {
    Invoice,
    Bill,
}

impl DocumentKind {
    /// The resource name (`invoice`, `bill`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Invoice => "invoice",
            Self::Bill => "bill",
        }
    }

    /// Parses a stored kind.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Invoice, Self::Bill]
            .into_iter()
            .find(|k| k.as_str() == text)
    }

    /// The prefix of the document's id.
    pub fn id_kind(self) -> IdKind {
        match self {
            Self::Invoice => IdKind::Invoice,
            Self::Bill => IdKind::Bill,
        }
    }

    /// The number prefix used when the organization has not set one.
    pub fn default_prefix(self) -> &'static str {
        match self {
            Self::Invoice => "INV-",
            Self::Bill => "BILL-",
        }
    }

    /// The setting that overrides [`DocumentKind::default_prefix`].
    pub fn prefix_setting(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_number_prefix",
            Self::Bill => "bill_number_prefix",
        }
    }

    /// The status a document takes when it is issued (invoice sent, bill approved).
    pub fn issued_status(self) -> DocumentStatus {
        match self {
            Self::Invoice => DocumentStatus::Sent,
            Self::Bill => DocumentStatus::Open,
        }
    }

    /// The verb of issuing, for events and messages (`sent`, `approved`).
    pub fn issue_verb(self) -> &'static str {
        match self {
            Self::Invoice => "sent",
            Self::Bill => "approved",
        }
    }

    /// Whether a contact of `contact_type` may be the document's party: customers (or
    /// `other`) for invoices, vendors (or `other`) for bills.
    pub fn accepts(self, contact_type: ContactType) -> bool {
        matches!(
            (self, contact_type),
            (Self::Invoice, ContactType::Customer)
                | (Self::Bill, ContactType::Vendor)
                | (_, ContactType::Other)
        )
    }

    /// The name of the date field (`invoice_date`, `bill_date`).
    pub fn date_field(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_date",
            Self::Bill => "bill_date",
        }
    }

    /// The name of the number field (`invoice_number`, `bill_number`).
    pub fn number_field(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_number",
            Self::Bill => "bill_number",
        }
    }

    /// The code refusing a change to a document that is no longer a draft.
    pub fn not_draft_code(self) -> crate::error::ErrorCode {
        match self {
            Self::Invoice => crate::error::ErrorCode::InvoiceNotDraft,
            Self::Bill => crate::error::ErrorCode::InvalidStateTransition,
        }
    }
}

/// Where a document is in its life. `overdue` is not stored: see [`Document::display_status`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentStatus {
    Draft,
    /// An invoice sent to the customer (posted).
    Sent,
    /// A bill approved for payment (posted).
    Open,
    PartiallyPaid,
    Paid,
    Void,
}

impl DocumentStatus {
    const ALL: [Self; 6] = [
        Self::Draft,
        Self::Sent,
        Self::Open,
        Self::PartiallyPaid,
        Self::Paid,
        Self::Void,
    ];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Sent => "sent",
            Self::Open => "open",
            Self::PartiallyPaid => "partially_paid",
            Self::Paid => "paid",
            Self::Void => "void",
        }
    }

    /// Parses a stored status.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// The stored statuses a document of `kind` can have (a list filter accepts these;
    /// `overdue` is read, not stored): invoices are `sent`, bills `open` once posted.
    pub const fn of_kind(kind: DocumentKind) -> &'static [&'static str] {
        match kind {
            DocumentKind::Invoice => &["draft", "sent", "partially_paid", "paid", "void"],
            DocumentKind::Bill => &["draft", "open", "partially_paid", "paid", "void"],
        }
    }

    /// Parses a list filter's status for documents of `kind`.
    ///
    /// # Errors
    /// `invalid_field` on `status` naming the statuses of the kind.
    pub fn parse_filter(kind: DocumentKind, text: &str) -> Result<Self, crate::DomainError> {
        let text = text.trim();
        Self::of_kind(kind)
            .contains(&text)
            .then(|| Self::parse(text))
            .flatten()
            .ok_or_else(|| {
                crate::DomainError::invalid_field(
                    "status",
                    format!("must be one of {}", Self::of_kind(kind).join(", ")),
                )
            })
    }

    /// Whether the document is posted and still awaits payment.
    pub fn awaits_payment(self) -> bool {
        matches!(self, Self::Sent | Self::Open | Self::PartiallyPaid)
    }
}

/// One priced line of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentItem {
    pub description: String,
    /// Units of 1/10 000 (four decimals), positive.
    pub quantity: i64,
    /// Stored money units per unit of quantity, not negative.
    pub unit_price: i64,
    /// The client's catalog reference, kept as given.
    pub item_id: Option<String>,
    /// The revenue (invoice) or expense/asset (bill) account the line posts to.
    pub account_id: String,
    /// Taxes applied in this order (a compound one applies to the price plus those before).
    pub tax_ids: Vec<String>,
    /// The category the line is booked under, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category_id: Option<String>,
    /// `quantity x unit_price`, rounded to the minor unit.
    pub amount: i64,
    /// The line's taxes.
    pub tax_amount: i64,
}

impl DocumentItem {
    /// Amount plus taxes.
    pub fn line_total(&self) -> i64 {
        self.amount + self.tax_amount
    }
}

/// One tax's total over a document's lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxLine {
    pub tax_id: String,
    pub name: String,
    /// Percent in units of 1/10 000.
    pub rate: i64,
    pub amount: i64,
}

/// An invoice or a bill.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub kind: DocumentKind,
    /// Position in the tenant's gap-free sequence of this kind (1, 2, ...).
    pub sequence: i64,
    /// `prefix + sequence`, zero-padded: `INV-000001`.
    pub number: String,
    pub contact_id: String,
    pub issue_date: Date,
    pub due_date: Date,
    pub currency: String,
    pub status: DocumentStatus,
    pub items: Vec<DocumentItem>,
    pub taxes: Vec<TaxLine>,
    pub subtotal: i64,
    pub tax_amount: i64,
    pub total: i64,
    pub amount_paid: i64,
    pub notes: Option<String>,
    /// The posted transaction of issuing it.
    pub posting_id: Option<String>,
    pub created_by: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl Document {
    /// What is still owed.
    pub fn balance_due(&self) -> i64 {
        match self.status {
            DocumentStatus::Void => 0,
            _ => self.total - self.amount_paid,
        }
    }

    /// The status shown to clients: `overdue` when the due date is before `today` and a
    /// posted document still has a balance due.
    pub fn display_status(&self, today: Date) -> &'static str {
        if self.status.awaits_payment() && self.due_date < today && self.balance_due() > 0 {
            "overdue"
        } else {
            self.status.as_str()
        }
    }
}

/// A payment recorded against a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub document_id: String,
    pub kind: DocumentKind,
    pub amount: i64,
    pub currency: String,
    pub payment_date: Date,
    pub payment_method: String,
    pub reference: Option<String>,
    pub notes: Option<String>,
    /// The bank or cash account the money went into (invoice) or out of (bill).
    pub account_id: String,
    /// The posted transaction of the payment.
    pub transaction_id: String,
    pub created_by: String,
    pub created_at: OffsetDateTime,
}

/// One row of a document's status history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    pub id: String,
    pub organization_id: String,
    pub document_id: String,
    pub status: DocumentStatus,
    pub changed_at: OffsetDateTime,
    pub api_key_id: String,
    pub note: Option<String>,
}

/// `a x b / 10^SCALE` rounded half away from zero to the minor unit of `decimals`.
///
/// # Errors
/// `invalid_field` on `field` when the product leaves the `i64` range.
pub fn line_amount(
    quantity: i64,
    unit_price: i64,
    decimals: u32,
    field: &str,
) -> Result<i64, DomainError> {
    let minor = 10i128.pow(SCALE - decimals.min(SCALE));
    let product = i128::from(quantity) * i128::from(unit_price);
    let d = i128::from(UNITS_PER_WHOLE) * minor;
    let q = product / d;
    let r = product % d;
    let rounded = if 2 * r.abs() >= d {
        q + product.signum()
    } else {
        q
    };
    i64::try_from(rounded * minor)
        .map_err(|_| DomainError::invalid_field(field, "the line amount is too large"))
}

/// Prices `items` in place (amount and taxes per line) and returns the per-tax totals,
/// in order of first use. `taxes` holds every tax the items name.
///
/// # Errors
/// `invalid_field` when an amount leaves the `i64` range or a tax is missing.
pub fn price_items(
    items: &mut [DocumentItem],
    taxes: &HashMap<String, Tax>,
    decimals: u32,
) -> Result<Vec<TaxLine>, DomainError> {
    let mut summary: Vec<TaxLine> = Vec::new();
    for (i, item) in items.iter_mut().enumerate() {
        item.amount = line_amount(
            item.quantity,
            item.unit_price,
            decimals,
            &format!("items[{i}]"),
        )?;
        let mut rates = Vec::with_capacity(item.tax_ids.len());
        for id in &item.tax_ids {
            let tax = taxes.get(id).ok_or_else(|| {
                DomainError::invalid_field(format!("items[{i}].tax_ids"), format!("no tax '{id}'"))
            })?;
            rates.push(AppliedRate {
                rate: tax.rate,
                is_compound: tax.is_compound,
            });
        }
        let line = line_tax(item.amount, &rates, decimals).map_err(|TaxError::TooLarge| {
            DomainError::invalid_field(format!("items[{i}]"), "the tax amount is too large")
        })?;
        item.tax_amount = line.total;
        for (id, amount) in item.tax_ids.iter().zip(line.amounts) {
            match summary.iter_mut().find(|t| &t.tax_id == id) {
                Some(t) => t.amount += amount,
                None => {
                    let tax = &taxes[id];
                    summary.push(TaxLine {
                        tax_id: id.clone(),
                        name: tax.name.clone(),
                        rate: tax.rate,
                        amount,
                    });
                }
            }
        }
    }
    Ok(summary)
}

/// Subtotal, tax and total of priced items.
///
/// # Errors
/// `invalid_field` on `items` when a sum leaves the `i64` range.
pub fn totals(items: &[DocumentItem]) -> Result<(i64, i64, i64), DomainError> {
    let too_large = || DomainError::invalid_field("items", "the document total is too large");
    let mut subtotal: i64 = 0;
    let mut tax: i64 = 0;
    for item in items {
        subtotal = subtotal.checked_add(item.amount).ok_or_else(too_large)?;
        tax = tax.checked_add(item.tax_amount).ok_or_else(too_large)?;
    }
    let total = subtotal.checked_add(tax).ok_or_else(too_large)?;
    Ok((subtotal, tax, total))
}

/// The accounts a document posts to besides its items' accounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostingAccounts {
    /// Accounts Receivable (invoice) or Accounts Payable (bill).
    pub control: String,
    /// Where invoice taxes are credited (Sales Tax Payable) or bill taxes debited
    /// (a recoverable-tax account). `None` for a bill: its taxes add to each line's
    /// expense account.
    pub tax: Option<String>,
}

fn push_line(lines: &mut Vec<EntryLine>, account: &str, side: EntryType, amount: i64) {
    if amount == 0 {
        return;
    }
    match lines
        .iter_mut()
        .find(|l| l.account_id == account && l.entry_type == side)
    {
        Some(line) => line.amount += amount,
        None => lines.push(EntryLine {
            account_id: account.to_owned(),
            entry_type: side,
            amount,
            description: None,
        }),
    }
}

/// The balanced posting of issuing a document. Invoice: Dr receivable (total), Cr each
/// line's revenue account (amount), Cr sales tax payable (tax). Bill: Dr each line's
/// account (amount, plus its tax when no recoverable-tax account is set), Dr the
/// recoverable-tax account (tax) when set, Cr payable (total). Lines on the same account
/// and side are merged.
pub fn issue_entries(doc: &Document, accounts: &PostingAccounts) -> Vec<EntryLine> {
    let (item_side, control_side) = match doc.kind {
        DocumentKind::Invoice => (EntryType::Credit, EntryType::Debit),
        DocumentKind::Bill => (EntryType::Debit, EntryType::Credit),
    };
    let mut lines = Vec::new();
    push_line(&mut lines, &accounts.control, control_side, doc.total);
    for item in &doc.items {
        match &accounts.tax {
            Some(_) => push_line(&mut lines, &item.account_id, item_side, item.amount),
            None => push_line(&mut lines, &item.account_id, item_side, item.line_total()),
        }
    }
    if let Some(tax_account) = &accounts.tax {
        push_line(&mut lines, tax_account, item_side, doc.tax_amount);
    }
    lines
}

/// The posting of a payment: invoice Dr deposit / Cr receivable; bill Dr payable / Cr the
/// paying account.
pub fn payment_entries(
    kind: DocumentKind,
    amount: i64,
    money_account: &str,
    control: &str,
) -> Vec<EntryLine> {
    let (debit, credit) = match kind {
        DocumentKind::Invoice => (money_account, control),
        DocumentKind::Bill => (control, money_account),
    };
    let mut lines = Vec::new();
    push_line(&mut lines, debit, EntryType::Debit, amount);
    push_line(&mut lines, credit, EntryType::Credit, amount);
    lines
}

/// The status after a payment of `amount` (already checked against the balance due).
pub fn status_after_payment(doc: &Document, amount: i64) -> DocumentStatus {
    if doc.amount_paid + amount >= doc.total {
        DocumentStatus::Paid
    } else {
        DocumentStatus::PartiallyPaid
    }
}

/// Checks that a payment of `amount` may be recorded on `doc`.
///
/// # Errors
/// `invalid_state_transition` unless the document is posted and unpaid; `overpayment` above
/// the balance due.
pub fn check_payment(doc: &Document, amount: i64, decimals: u32) -> Result<(), DomainError> {
    if !doc.status.awaits_payment() {
        let why = match doc.status {
            DocumentStatus::Draft => format!(
                "{} {} is a draft; {} it before recording a payment",
                doc.kind.as_str(),
                doc.number,
                match doc.kind {
                    DocumentKind::Invoice => "send",
                    DocumentKind::Bill => "approve",
                }
            ),
            other => format!(
                "{} {} is {} and takes no payment",
                doc.kind.as_str(),
                doc.number,
                other.as_str()
            ),
        };
        return Err(DomainError::rule(ErrorCode::InvalidStateTransition, why));
    }
    if amount > doc.balance_due() {
        return Err(DomainError::rule(
            ErrorCode::Overpayment,
            format!(
                "the payment of {} exceeds the balance due of {}",
                crate::money::format_units(amount, decimals),
                crate::money::format_units(doc.balance_due(), decimals)
            ),
        ));
    }
    Ok(())
}

/// Checks that `doc` may be voided: a draft, or posted without payments.
///
/// # Errors
/// `invalid_state_transition` otherwise.
pub fn check_void(doc: &Document) -> Result<(), DomainError> {
    let ok = doc.status == DocumentStatus::Draft
        || (doc.status.awaits_payment() && doc.amount_paid == 0);
    if ok {
        Ok(())
    } else {
        Err(DomainError::rule(
            ErrorCode::InvalidStateTransition,
            format!(
                "{} {} is {}{}; only a draft or an unpaid {} can be voided",
                doc.kind.as_str(),
                doc.number,
                doc.status.as_str(),
                if doc.amount_paid > 0 {
                    " with payments"
                } else {
                    ""
                },
                doc.kind.as_str()
            ),
        ))
    }
}

/// Checks that `doc` is a draft (update, delete, issue).
///
/// # Errors
/// `invoice_not_draft` (invoices) or `invalid_state_transition` (bills).
pub fn check_draft(doc: &Document, action: &str) -> Result<(), DomainError> {
    if doc.status == DocumentStatus::Draft {
        Ok(())
    } else {
        Err(DomainError::rule(
            doc.kind.not_draft_code(),
            format!(
                "{} {} is {}; only a draft can be {action}",
                doc.kind.as_str(),
                doc.number,
                doc.status.as_str()
            ),
        ))
    }
}

/// The document number for `sequence`: `prefix` + the sequence zero-padded to six digits.
pub fn format_number(prefix: &str, sequence: i64) -> String {
    format!("{prefix}{sequence:06}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::parse_units;
    use crate::tax::{TaxType, parse_rate};
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
            check_balanced(&lines, 2).expect("balanced"),
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
        assert_eq!(check_balanced(&with, 2).expect("balanced"), units("120.00"));
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
            prop_assert_eq!(check_balanced(&entries, 2).expect("balanced"), d.total);
            let tax_sum: i64 = d.taxes.iter().map(|t| t.amount).sum();
            prop_assert_eq!(tax_sum, d.tax_amount);
        }
    }
}
