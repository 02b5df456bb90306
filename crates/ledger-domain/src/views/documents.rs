//! Invoices and bills (items, taxes, totals, payments and status history) and the
//! attachments of any resource.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::attachments::Attachment;
use crate::documents::{Document, DocumentItem, DocumentKind, Payment, StatusChange, TaxLine};
use crate::money::format_units;
use crate::tax::format_rate;

use super::{amount, date, json, timestamp};

/// A quantity (four stored decimals) without trailing zeros: `2`, `1.5`.
pub fn quantity(units: i64) -> String {
    let text = format_units(units, 4);
    match text.split_once('.') {
        Some((whole, frac)) => {
            let frac = frac.trim_end_matches('0');
            if frac.is_empty() {
                whole.to_owned()
            } else {
                format!("{whole}.{frac}")
            }
        }
        None => text,
    }
}

/// One line of an invoice or a bill; amounts at the document currency's minor unit.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = DocumentLine)]
pub struct DocumentLineView<'a> {
    description: &'a str,
    /// Without trailing zeros (`2`, `1.5`).
    #[schema(example = "1.5")]
    quantity: String,
    #[schema(example = "100.00")]
    unit_price: String,
    /// The client's catalog reference, kept as given.
    item_id: Option<&'a str>,
    /// The revenue (invoice) or expense (bill) account the line posts to.
    account_id: &'a str,
    /// The taxes applied, in order (a compound one applies to the price plus those
    /// before it).
    tax_ids: &'a [String],
    category_id: Option<&'a str>,
    /// `quantity x unit_price`, rounded to the minor unit.
    #[schema(example = "150.00")]
    amount: String,
    #[schema(example = "12.38")]
    tax_amount: String,
    /// `amount + tax_amount`.
    #[schema(example = "162.38")]
    line_total: String,
}

impl<'a> DocumentLineView<'a> {
    /// The line `i` of a document in `currency`.
    pub fn of(i: &'a DocumentItem, currency: &str) -> Self {
        Self {
            description: &i.description,
            quantity: quantity(i.quantity),
            unit_price: amount(i.unit_price, currency),
            item_id: i.item_id.as_deref(),
            account_id: &i.account_id,
            tax_ids: &i.tax_ids,
            category_id: i.category_id.as_deref(),
            amount: amount(i.amount, currency),
            tax_amount: amount(i.tax_amount, currency),
            line_total: amount(i.line_total(), currency),
        }
    }
}

/// One tax's total over a document's lines.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = DocumentTax)]
pub struct DocumentTaxView<'a> {
    tax_id: &'a str,
    name: &'a str,
    /// A percentage with four decimals (`"8.2500"`).
    #[schema(example = "8.2500")]
    rate: String,
    #[schema(example = "12.38")]
    amount: String,
}

impl<'a> DocumentTaxView<'a> {
    /// The tax total `t` of a document in `currency`.
    pub fn of(t: &'a TaxLine, currency: &str) -> Self {
        Self {
            tax_id: &t.tax_id,
            name: &t.name,
            rate: format_rate(t.rate),
            amount: amount(t.amount, currency),
        }
    }
}

/// An invoice or a bill with its items, taxes, totals and payments (spec 2.8): `object`
/// says which, and names the number and issue date (`invoice_number`/`invoice_date` or
/// `bill_number`/`bill_date`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Document)]
pub struct DocumentView<'a> {
    id: &'a str,
    /// `invoice` or `bill`.
    #[schema(example = "invoice")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    contact_id: &'a str,
    /// An invoice's number (`INV-000001`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, example = "INV-000001")]
    invoice_number: Option<&'a str>,
    /// An invoice's issue date.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, format = Date)]
    invoice_date: Option<String>,
    /// A bill's number (`BILL-000001`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, example = "BILL-000001")]
    bill_number: Option<&'a str>,
    /// A bill's issue date.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, format = Date)]
    bill_date: Option<String>,
    #[schema(format = Date)]
    due_date: String,
    #[schema(example = "USD")]
    currency: &'a str,
    /// The stored status, or `overdue` when the due date has passed with a balance due.
    status: &'static str,
    items: Vec<DocumentLineView<'a>>,
    taxes: Vec<DocumentTaxView<'a>>,
    #[schema(example = "150.00")]
    subtotal: String,
    #[schema(example = "12.38")]
    tax_amount: String,
    #[schema(example = "162.38")]
    total: String,
    #[schema(example = "0.00")]
    amount_paid: String,
    #[schema(example = "162.38")]
    balance_due: String,
    notes: Option<&'a str>,
    /// The posted transaction of issuing it (sending an invoice, approving a bill).
    posting_transaction_id: Option<&'a str>,
    payments: Vec<PaymentView<'a>>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

impl<'a> DocumentView<'a> {
    /// The document `d` with its `payments`; `status` reads `overdue` when the due date is
    /// before `today` with a balance due.
    pub fn of(d: &'a Document, payments: &'a [Payment], today: time::Date) -> Self {
        let money = |units: i64| amount(units, &d.currency);
        let (invoice, bill) = match d.kind {
            DocumentKind::Invoice => (Some(d), None),
            DocumentKind::Bill => (None, Some(d)),
        };
        Self {
            id: &d.id,
            object: d.kind.as_str(),
            organization_id: &d.organization_id,
            livemode: d.livemode,
            contact_id: &d.contact_id,
            invoice_number: invoice.map(|d| d.number.as_str()),
            invoice_date: invoice.map(|d| date(d.issue_date)),
            bill_number: bill.map(|d| d.number.as_str()),
            bill_date: bill.map(|d| date(d.issue_date)),
            due_date: date(d.due_date),
            currency: &d.currency,
            status: d.display_status(today),
            items: d
                .items
                .iter()
                .map(|i| DocumentLineView::of(i, &d.currency))
                .collect(),
            taxes: d
                .taxes
                .iter()
                .map(|t| DocumentTaxView::of(t, &d.currency))
                .collect(),
            subtotal: money(d.subtotal),
            tax_amount: money(d.tax_amount),
            total: money(d.total),
            amount_paid: money(d.amount_paid),
            balance_due: money(d.balance_due()),
            notes: d.notes.as_deref(),
            posting_transaction_id: d.posting_id.as_deref(),
            payments: payments.iter().map(PaymentView::of).collect(),
            created_at: timestamp(d.created_at),
            updated_at: timestamp(d.updated_at),
        }
    }
}

/// An invoice or a bill with its items, taxes, totals and payments (spec 2.8). `status`
/// reads `overdue` when the due date is before `today` with a balance due.
pub fn document(d: &Document, payments: &[Payment], today: time::Date) -> Value {
    json(&DocumentView::of(d, payments, today))
}

/// A payment of an invoice or a bill (spec 2.8): `invoice_id` or `bill_id` names it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Payment)]
pub struct PaymentView<'a> {
    id: &'a str,
    #[schema(example = "payment")]
    object: &'static str,
    #[schema(example = "100.00")]
    amount: String,
    #[schema(example = "USD")]
    currency: &'a str,
    #[schema(format = Date)]
    payment_date: String,
    payment_method: &'a str,
    reference: Option<&'a str>,
    notes: Option<&'a str>,
    /// The bank or cash account the money went into (invoice) or out of (bill).
    account_id: &'a str,
    /// The posted transaction of the payment.
    transaction_id: &'a str,
    /// The invoice paid, on an invoice's payment.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    invoice_id: Option<&'a str>,
    /// The bill paid, on a bill's payment.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    bill_id: Option<&'a str>,
    #[schema(format = DateTime)]
    created_at: String,
}

impl<'a> PaymentView<'a> {
    /// The payment object.
    pub fn of(p: &'a Payment) -> Self {
        let document = Some(p.document_id.as_str());
        let (invoice_id, bill_id) = match p.kind {
            DocumentKind::Invoice => (document, None),
            DocumentKind::Bill => (None, document),
        };
        Self {
            id: &p.id,
            object: "payment",
            amount: amount(p.amount, &p.currency),
            currency: &p.currency,
            payment_date: date(p.payment_date),
            payment_method: &p.payment_method,
            reference: p.reference.as_deref(),
            notes: p.notes.as_deref(),
            account_id: &p.account_id,
            transaction_id: &p.transaction_id,
            invoice_id,
            bill_id,
            created_at: timestamp(p.created_at),
        }
    }
}

/// A payment on an invoice or a bill (spec 2.8).
pub fn payment(p: &Payment) -> Value {
    json(&PaymentView::of(p))
}

/// A row of a document's status history (DECISIONS 10).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = StatusChange)]
pub struct StatusChangeView<'a> {
    /// The status the document entered.
    status: &'static str,
    #[schema(format = DateTime)]
    changed_at: String,
    /// The API key that made the change.
    api_key_id: &'a str,
    note: Option<&'a str>,
}

impl<'a> StatusChangeView<'a> {
    /// The status change object.
    pub fn of(c: &'a StatusChange) -> Self {
        Self {
            status: c.status.as_str(),
            changed_at: timestamp(c.changed_at),
            api_key_id: &c.api_key_id,
            note: c.note.as_deref(),
        }
    }
}

/// A row of a document's status history (DECISIONS 10).
pub fn status_change(c: &StatusChange) -> Value {
    json(&StatusChangeView::of(c))
}

/// A file attached to a transaction, an invoice or a bill: its metadata, with the path
/// of its bytes (the storage key stays private).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Attachment)]
pub struct AttachmentView<'a> {
    id: &'a str,
    #[schema(example = "attachment")]
    object: &'static str,
    /// `transaction`, `invoice` or `bill`.
    owner_type: &'static str,
    owner_id: &'a str,
    file_name: &'a str,
    /// Sniffed from the bytes.
    #[schema(example = "application/pdf")]
    content_type: &'a str,
    /// In bytes.
    size: i64,
    /// Lowercase hex SHA-256 of the bytes.
    sha256: &'a str,
    /// The path of the bytes (`GET` it to download the file).
    download_url: String,
    /// The API key that uploaded it.
    created_by: &'a str,
    #[schema(format = DateTime)]
    created_at: String,
    livemode: bool,
}

impl<'a> AttachmentView<'a> {
    /// The attachment's metadata.
    pub fn of(a: &'a Attachment) -> Self {
        Self {
            id: &a.id,
            object: "attachment",
            owner_type: a.owner_type.as_str(),
            owner_id: &a.owner_id,
            file_name: &a.file_name,
            content_type: &a.content_type,
            size: a.size_bytes,
            sha256: &a.sha256,
            download_url: format!(
                "/organizations/{}/attachments/{}/content",
                a.organization_id, a.id
            ),
            created_by: &a.created_by,
            created_at: timestamp(a.created_at),
            livemode: a.livemode,
        }
    }
}

/// An attachment's metadata; `download_url` is the path of its bytes (the storage key
/// stays private).
pub fn attachment(a: &Attachment) -> Value {
    json(&AttachmentView::of(a))
}
