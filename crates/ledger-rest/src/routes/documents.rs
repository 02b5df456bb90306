//! Invoices and bills (spec 4.10, DECISIONS 4-5, 7): one set of handlers for both kinds.
//!
//! Creates, updates, deletes, sends/approvals, voids and bill payments are queued writes;
//! an invoice payment answers synchronously with the payment (spec 4.10), through the same
//! queue.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::documents::{DocumentKind, DocumentStatus};
use ledger_domain::error::ErrorCode;
use ledger_domain::ids::{IdKind, parse_id};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{DocumentFilter, Store};
use ledger_domain::services::{DocumentInput, DocumentItemInput, PaymentInput, Write};
use ledger_domain::views;
use serde::Deserialize;
use serde_json::json;

use super::{State, access};
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, FlexDate, page, parse_json, query_param, read_body};
use crate::queued::{submit, submit_synchronous};

/// Which kind of document a route serves.
pub(super) trait Kind: 'static {
    const KIND: DocumentKind;
    /// The plural path segment and permission resource (`invoices`, `bills`).
    const PLURAL: &'static str;
    /// The action that posts a draft (`send`, `approve`).
    const ISSUE: &'static str;
}

pub(super) struct Invoices;
pub(super) struct Bills;

impl Kind for Invoices {
    const KIND: DocumentKind = DocumentKind::Invoice;
    const PLURAL: &'static str = "invoices";
    const ISSUE: &'static str = "send";
}

impl Kind for Bills {
    const KIND: DocumentKind = DocumentKind::Bill;
    const PLURAL: &'static str = "bills";
    const ISSUE: &'static str = "approve";
}

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    routes::<S, Invoices>(cfg);
    routes::<S, Bills>(cfg);
}

fn routes<S: Store, K: Kind>(cfg: &mut web::ServiceConfig) {
    let base = format!("/organizations/{{org}}/{}", K::PLURAL);
    cfg.service(
        web::resource(base.clone())
            .route(web::get().to(list::<S, K>))
            .route(web::post().to(create::<S, K>)),
    )
    .service(
        web::resource(format!("{base}/{{id}}"))
            .route(web::get().to(get::<S, K>))
            .route(web::put().to(update::<S, K>))
            .route(web::delete().to(|s, r, p| act::<S, K>(s, r, p, Action::Delete))),
    )
    .route(
        &format!("{base}/{{id}}/{}", K::ISSUE),
        web::post().to(|s, r, p| act::<S, K>(s, r, p, Action::Issue)),
    )
    .route(
        &format!("{base}/{{id}}/void"),
        web::post().to(|s, r, p| act::<S, K>(s, r, p, Action::Void)),
    )
    .service(
        web::resource(format!("{base}/{{id}}/payments"))
            .route(web::get().to(payments::<S, K>))
            .route(web::post().to(pay::<S, K>)),
    )
    .route(
        &format!("{base}/{{id}}/history"),
        web::get().to(history::<S, K>),
    )
    .route(
        &format!("{base}/{{id}}/pdf"),
        web::get().to(super::pdf::pdf::<S, K>),
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ItemBody {
    description: Option<String>,
    quantity: Option<DecimalText>,
    unit_price: Option<DecimalText>,
    item_id: Option<String>,
    account_id: Option<String>,
    #[serde(default)]
    tax_ids: Vec<String>,
    category_id: Option<String>,
}

impl From<ItemBody> for DocumentItemInput {
    fn from(i: ItemBody) -> Self {
        Self {
            description: i.description,
            quantity: i.quantity.map(|q| q.0),
            unit_price: i.unit_price.map(|p| p.0),
            item_id: i.item_id,
            account_id: i.account_id,
            tax_ids: i.tax_ids,
            category_id: i.category_id,
        }
    }
}

/// The body of a create or update. The date field is `invoice_date` or `bill_date`; the
/// other kind's name is refused as an unknown field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocumentBody {
    contact_id: Option<String>,
    invoice_date: Option<FlexDate>,
    bill_date: Option<FlexDate>,
    due_date: Option<FlexDate>,
    items: Option<Vec<ItemBody>>,
    #[serde(default, deserialize_with = "present")]
    notes: Option<Option<String>>,
}

/// A field that may be given as `null` (clear it) or a value; absent stays `None`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

fn document_input<K: Kind>(body: DocumentBody) -> Result<DocumentInput, ApiError> {
    let (mine, other) = match K::KIND {
        DocumentKind::Invoice => (body.invoice_date, body.bill_date.map(|_| "bill_date")),
        DocumentKind::Bill => (body.bill_date, body.invoice_date.map(|_| "invoice_date")),
    };
    if let Some(field) = other {
        return Err(validation(
            ErrorCode::UnknownField,
            Some(field.into()),
            format!("unknown field `{field}` on a {}", K::KIND.as_str()),
        ));
    }
    Ok(DocumentInput {
        contact_id: body.contact_id,
        issue_date: mine.map(|d| d.at.date()),
        due_date: body.due_date.map(|d| d.at.date()),
        items: body
            .items
            .map(|items| items.into_iter().map(Into::into).collect()),
        notes: body.notes,
    })
}

async fn create<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Write, K::PLURAL).await?;
    let body = read_body(payload).await?;
    let input = document_input::<K>(parse_json(&req, &body)?)?;
    let write = Write::CreateDocument {
        kind: K::KIND,
        input,
    };
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

async fn update<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, K::PLURAL).await?;
    let body = read_body(payload).await?;
    let input = document_input::<K>(parse_json(&req, &body)?)?;
    let write = Write::UpdateDocument {
        kind: K::KIND,
        id,
        input,
    };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

/// A body-less queued action on one document.
#[derive(Clone, Copy)]
enum Action {
    Delete,
    Issue,
    Void,
}

async fn act<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    action: Action,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let needed = match action {
        Action::Delete => Scope::Admin,
        Action::Issue | Action::Void => Scope::Write,
    };
    let access = access(&state, &req, &org, needed, K::PLURAL).await?;
    let kind = K::KIND;
    let write = match action {
        Action::Delete => Write::DeleteDocument { kind, id },
        Action::Issue => Write::IssueDocument { kind, id },
        Action::Void => Write::VoidDocument { kind, id },
    };
    // DECISIONS 4 queues invoice deletes; a bill delete is answered synchronously.
    if matches!((action, kind), (Action::Delete, DocumentKind::Bill)) {
        submit_synchronous(&state, &req, &access, b"", StatusCode::OK, write).await
    } else {
        submit(&state, &req, &access, b"", StatusCode::OK, write).await
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PaymentBody {
    amount: Option<DecimalText>,
    payment_date: Option<FlexDate>,
    payment_method: Option<String>,
    reference: Option<String>,
    notes: Option<String>,
    account_id: Option<String>,
}

async fn pay<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, K::PLURAL).await?;
    let body = read_body(payload).await?;
    let input: PaymentBody = parse_json(&req, &body)?;
    let input = PaymentInput {
        amount: input
            .amount
            .ok_or_else(|| {
                validation(
                    ErrorCode::MissingField,
                    Some("amount".into()),
                    "amount is required",
                )
            })?
            .0,
        payment_date: input.payment_date.map(|d| d.at.date()),
        payment_method: input.payment_method,
        reference: input.reference,
        notes: input.notes,
        account_id: input.account_id,
    };
    let write = Write::RecordPayment {
        kind: K::KIND,
        id,
        payment: input,
    };
    // The spec answers an invoice payment synchronously; a bill payment is queued.
    match K::KIND {
        DocumentKind::Invoice => {
            submit_synchronous(&state, &req, &access, &body, StatusCode::CREATED, write).await
        }
        DocumentKind::Bill => {
            submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
        }
    }
}

async fn get<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, K::PLURAL).await?;
    let view = state.ledger.document_view(&access, K::KIND, &id).await?;
    Ok(HttpResponse::Ok().json(state.ledger.render_document(&view)))
}

async fn payments<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, K::PLURAL).await?;
    let view = state.ledger.document_view(&access, K::KIND, &id).await?;
    let data: Vec<serde_json::Value> = view.payments.iter().map(views::payment).collect();
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "total_count": data.len(),
        "has_more": false,
        "data": data,
    })))
}

async fn history<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, K::PLURAL).await?;
    let rows = state.ledger.document_history(&access, K::KIND, &id).await?;
    let data: Vec<serde_json::Value> = rows.iter().map(views::status_change).collect();
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "total_count": data.len(),
        "has_more": false,
        "data": data,
    })))
}

async fn list<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, K::PLURAL).await?;
    let page = page(&req, 20)?;
    let status = query_param(&req, "status")
        .map(|s| DocumentStatus::parse_filter(K::KIND, &s))
        .transpose()?;
    let filter = DocumentFilter {
        status,
        contact_id: query_param(&req, "contact_id")
            .map(|c| parse_id(IdKind::Contact, &c).unwrap_or(c)),
    };
    let result = state
        .ledger
        .list_documents(&access, K::KIND, &filter, page)
        .await?;
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "data": result.items.iter().map(|v| state.ledger.render_document(v)).collect::<Vec<_>>(),
        "has_more": page.offset + (result.items.len() as i64) < result.total_count,
        "total_count": result.total_count,
    })))
}
