//! Invoices and bills (items, taxes, totals, payments and status history) and the
//! attachments of any resource.

use serde_json::{Value, json};

use crate::documents::{Document, DocumentKind, Payment, StatusChange};
use crate::money::format_units;
use crate::tax::format_rate;

use super::{amount, date, timestamp};

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

/// An invoice or a bill with its items, taxes, totals and payments (spec 2.8). `status`
/// reads `overdue` when the due date is before `today` with a balance due.
pub fn document(d: &Document, payments: &[Payment], today: time::Date) -> Value {
    let money = |units: i64| amount(units, &d.currency);
    let items: Vec<Value> = d
        .items
        .iter()
        .map(|i| {
            json!({
                "description": i.description,
                "quantity": quantity(i.quantity),
                "unit_price": money(i.unit_price),
                "item_id": i.item_id,
                "account_id": i.account_id,
                "tax_ids": i.tax_ids,
                "category_id": i.category_id,
                "amount": money(i.amount),
                "tax_amount": money(i.tax_amount),
                "line_total": money(i.line_total()),
            })
        })
        .collect();
    let taxes: Vec<Value> = d
        .taxes
        .iter()
        .map(|t| {
            json!({
                "tax_id": t.tax_id,
                "name": t.name,
                "rate": format_rate(t.rate),
                "amount": money(t.amount),
            })
        })
        .collect();
    let (date_field, number_field) = (d.kind.date_field(), d.kind.number_field());
    let mut v = json!({
        "id": d.id,
        "object": d.kind.as_str(),
        "organization_id": d.organization_id,
        "livemode": d.livemode,
        "contact_id": d.contact_id,
        "due_date": date(d.due_date),
        "currency": d.currency,
        "status": d.display_status(today),
        "items": items,
        "taxes": taxes,
        "subtotal": money(d.subtotal),
        "tax_amount": money(d.tax_amount),
        "total": money(d.total),
        "amount_paid": money(d.amount_paid),
        "balance_due": money(d.balance_due()),
        "notes": d.notes,
        "posting_transaction_id": d.posting_id,
        "payments": payments.iter().map(payment).collect::<Vec<_>>(),
        "created_at": timestamp(d.created_at),
        "updated_at": timestamp(d.updated_at),
    });
    v[number_field] = json!(d.number);
    v[date_field] = json!(date(d.issue_date));
    v
}

/// A payment on an invoice or a bill (spec 2.8).
pub fn payment(p: &Payment) -> Value {
    let mut v = json!({
        "id": p.id,
        "object": "payment",
        "amount": amount(p.amount, &p.currency),
        "currency": p.currency,
        "payment_date": date(p.payment_date),
        "payment_method": p.payment_method,
        "reference": p.reference,
        "notes": p.notes,
        "account_id": p.account_id,
        "transaction_id": p.transaction_id,
        "created_at": timestamp(p.created_at),
    });
    let field = match p.kind {
        DocumentKind::Invoice => "invoice_id",
        DocumentKind::Bill => "bill_id",
    };
    v[field] = json!(p.document_id);
    v
}

/// A row of a document's status history (DECISIONS 10).
pub fn status_change(c: &StatusChange) -> Value {
    json!({
        "status": c.status.as_str(),
        "changed_at": timestamp(c.changed_at),
        "api_key_id": c.api_key_id,
        "note": c.note,
    })
}

/// An attachment's metadata; `download_url` is the path of its bytes (the storage key
/// stays private).
pub fn attachment(a: &crate::attachments::Attachment) -> Value {
    json!({
        "id": a.id,
        "object": "attachment",
        "owner_type": a.owner_type.as_str(),
        "owner_id": a.owner_id,
        "file_name": a.file_name,
        "content_type": a.content_type,
        "size": a.size_bytes,
        "sha256": a.sha256,
        "download_url": format!("/organizations/{}/attachments/{}/content", a.organization_id, a.id),
        "created_by": a.created_by,
        "created_at": timestamp(a.created_at),
        "livemode": a.livemode,
    })
}
