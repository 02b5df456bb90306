//! `GET .../invoices/{id}/pdf` and `GET .../bills/{id}/pdf` (spec 4.10): the document as a
//! PDF, rendered by `ledger-pdf` from the formatted figures below. Reading costs no credits.

use actix_web::http::header::{ContentDisposition, DispositionParam, DispositionType};
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::DomainError;
use ledger_domain::contacts::Contact;
use ledger_domain::documents::{Document, DocumentKind};
use ledger_domain::organizations::{Organization, Scope};
use ledger_domain::ports::Store;
use ledger_domain::services::DocumentView;
use ledger_domain::views;
use ledger_pdf::{DocumentLine, DocumentPayment, InvoiceDocument, Party};

use super::State;
use super::documents::Kind;
use super::resource::resource_access;
use crate::error::ApiError;

pub(super) async fn pdf<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, K::PLURAL).await?;
    let view = state.ledger.document_view(&access, K::KIND, &id).await?;
    // The contact cannot be deleted while the document lives; if it is gone anyway, the
    // PDF still renders with its id.
    let contact = state
        .ledger
        .get_contact(&access, &view.document.contact_id)
        .await
        .ok();
    let today = state.ledger.now().date();
    let doc = pdf_document(&access.organization, contact.as_ref(), &view, today);
    let bytes = web::block(move || ledger_pdf::render(&doc))
        .await
        .map_err(|e| DomainError::Internal(format!("PDF task: {e}")))?
        .map_err(|e| DomainError::Internal(format!("PDF: {e}")))?;
    let filename = format!("{}.pdf", view.document.number);
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header(ContentDisposition {
            disposition: DispositionType::Inline,
            parameters: vec![DispositionParam::Filename(filename)],
        })
        .body(bytes))
}

/// `1234567.50` -> `1,234,567.50` (the sign and decimals kept).
fn grouped(amount: &str) -> String {
    let (sign, digits) = match amount.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", amount),
    };
    let (whole, frac) = match digits.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (digits, None),
    };
    let mut out = String::with_capacity(amount.len() + whole.len() / 3);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{out}.{f}"),
        None => format!("{sign}{out}"),
    }
}

/// `partially_paid` -> `Partially paid`.
fn status_label(status: &str) -> String {
    let text = status.replace('_', " ");
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

fn contact_party(contact: Option<&Contact>, fallback: &str) -> Party {
    let Some(c) = contact else {
        return Party {
            name: fallback.to_owned(),
            lines: Vec::new(),
        };
    };
    let f = &c.fields;
    let place: Vec<&str> = [f.city.as_deref(), f.state.as_deref(), f.zip_code.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let lines = [
        f.address.clone(),
        (!place.is_empty()).then(|| place.join(" ")),
        f.country.clone(),
        f.email.clone(),
        f.tax_number.as_ref().map(|t| format!("Tax ID: {t}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    Party {
        name: f.name.clone(),
        lines,
    }
}

/// The PDF's text for a document as of `today`.
fn pdf_document(
    organization: &Organization,
    contact: Option<&Contact>,
    view: &DocumentView,
    today: time::Date,
) -> InvoiceDocument {
    let d: &Document = &view.document;
    let money = |units: i64| grouped(&views::amount(units, &d.currency));
    let tax_label = |id: &str| {
        d.taxes
            .iter()
            .find(|t| t.tax_id == id)
            .map(|t| {
                format!(
                    "{} {}%",
                    t.name,
                    views::quantity(t.rate).trim_end_matches('.')
                )
            })
            .unwrap_or_default()
    };
    InvoiceDocument {
        title: match d.kind {
            DocumentKind::Invoice => "Invoice",
            DocumentKind::Bill => "Bill",
        }
        .to_owned(),
        number: d.number.clone(),
        status: status_label(d.display_status(today)),
        issuer: Party {
            name: organization.name.clone(),
            lines: Vec::new(),
        },
        recipient_label: match d.kind {
            DocumentKind::Invoice => "Bill to",
            DocumentKind::Bill => "Vendor",
        }
        .to_owned(),
        recipient: contact_party(contact, &d.contact_id),
        issue_date: views::date(d.issue_date),
        due_date: views::date(d.due_date),
        currency: d.currency.clone(),
        items: d
            .items
            .iter()
            .map(|i| DocumentLine {
                description: i.description.clone(),
                quantity: views::quantity(i.quantity),
                unit_price: money(i.unit_price),
                tax: i
                    .tax_ids
                    .iter()
                    .map(|t| tax_label(t))
                    .collect::<Vec<_>>()
                    .join(", "),
                line_total: money(i.line_total()),
            })
            .collect(),
        subtotal: money(d.subtotal),
        taxes: d
            .taxes
            .iter()
            .map(|t| (tax_label(&t.tax_id), money(t.amount)))
            .collect(),
        total: money(d.total),
        amount_paid: money(d.amount_paid),
        balance_due: money(d.balance_due()),
        payments: view
            .payments
            .iter()
            .map(|p| DocumentPayment {
                date: views::date(p.payment_date),
                method: p.payment_method.clone(),
                reference: p.reference.clone().unwrap_or_default(),
                amount: money(p.amount),
            })
            .collect(),
        notes: d.notes.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_grouped_by_thousands() {
        assert_eq!(grouped("0.00"), "0.00");
        assert_eq!(grouped("999.99"), "999.99");
        assert_eq!(grouped("1000.00"), "1,000.00");
        assert_eq!(grouped("-1234567.5"), "-1,234,567.5");
        assert_eq!(grouped("1000"), "1,000");
    }

    #[test]
    fn statuses_read_as_words() {
        assert_eq!(status_label("partially_paid"), "Partially paid");
        assert_eq!(status_label("overdue"), "Overdue");
    }
}
