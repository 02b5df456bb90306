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

use super::{Routes, State, access, at};
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

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    routes::<S, Invoices>(r);
    routes::<S, Bills>(r);
}

fn routes<S: Store, K: Kind>(r: &mut Routes<'_>) {
    let base = format!("/organizations/{{org}}/{}", K::PLURAL);
    r.add(at(base.clone()).get(list::<S, K>).post(create::<S, K>))
        .add(
            at(format!("{base}/{{id}}"))
                .get(get::<S, K>)
                .put(update::<S, K>)
                .delete(delete::<S, K>),
        )
        .add(at(format!("{base}/{{id}}/{}", K::ISSUE)).post(issue::<S, K>))
        .add(at(format!("{base}/{{id}}/void")).post(void::<S, K>))
        .add(
            at(format!("{base}/{{id}}/payments"))
                .get(payments::<S, K>)
                .post(pay::<S, K>),
        )
        .add(at(format!("{base}/{{id}}/history")).get(history::<S, K>))
        .add(at(format!("{base}/{{id}}/pdf")).get(super::pdf::pdf::<S, K>));
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = DocumentItemRequest)]
#[serde(deny_unknown_fields)]
struct ItemBody {
    #[schema(required = true, schema_with = crate::openapi::text_1000)]
    description: Option<String>,
    #[schema(required = true, value_type = crate::openapi::Quantity)]
    quantity: Option<DecimalText>,
    #[schema(required = true, value_type = crate::openapi::NonNegativeAmount)]
    unit_price: Option<DecimalText>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    item_id: Option<String>,
    account_id: Option<String>,
    #[serde(default)]
    #[schema(schema_with = crate::openapi::tax_ids)]
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

/// The body of an invoice as documented: [`DocumentBody`] with `invoice_date` and
/// without `bill_date` (which an invoice refuses).
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = InvoiceCreateRequest)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "the OpenAPI schema of a body read as JSON, never built"
)]
struct InvoiceBody {
    #[schema(required = true, schema_with = crate::openapi::text)]
    contact_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    invoice_date: Option<FlexDate>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    due_date: Option<FlexDate>,
    #[schema(required = true, value_type = Vec<ItemBody>, min_items = 1, max_items = 200)]
    items: Option<Vec<ItemBody>>,
    #[schema(schema_with = crate::openapi::optional_text_5000)]
    notes: Option<String>,
}

/// The changes to an invoice as documented: [`DocumentBody`] with `invoice_date` and
/// without `bill_date` (which an invoice refuses).
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = InvoiceUpdateRequest)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "the OpenAPI schema of a body read as JSON, never built"
)]
struct InvoiceUpdateBody {
    contact_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    invoice_date: Option<FlexDate>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    due_date: Option<FlexDate>,
    #[schema(min_items = 1, max_items = 200)]
    items: Option<Vec<ItemBody>>,
    #[schema(schema_with = crate::openapi::optional_text_5000)]
    notes: Option<String>,
}

/// The body of a bill as documented: [`DocumentBody`] with `bill_date` and without
/// `invoice_date`.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = BillCreateRequest)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "the OpenAPI schema of a body read as JSON, never built"
)]
struct BillBody {
    #[schema(required = true, schema_with = crate::openapi::text)]
    contact_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    bill_date: Option<FlexDate>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    due_date: Option<FlexDate>,
    #[schema(required = true, value_type = Vec<ItemBody>, min_items = 1, max_items = 200)]
    items: Option<Vec<ItemBody>>,
    #[schema(schema_with = crate::openapi::optional_text_5000)]
    notes: Option<String>,
}

/// The changes to a bill as documented: [`DocumentBody`] with `bill_date` and without
/// `invoice_date`.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = BillUpdateRequest)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "the OpenAPI schema of a body read as JSON, never built"
)]
struct BillUpdateBody {
    contact_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    bill_date: Option<FlexDate>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    due_date: Option<FlexDate>,
    #[schema(min_items = 1, max_items = 200)]
    items: Option<Vec<ItemBody>>,
    #[schema(schema_with = crate::openapi::optional_text_5000)]
    notes: Option<String>,
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

#[utoipa::path(
    post,
    path = "/organizations/{org}/invoices",
    operation_id = "invoices_create",
    tag = "invoices",
    impl_for = __path_invoices_create,
    summary = "Create a draft invoice",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    request_body(content = InvoiceBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Document),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
#[utoipa::path(
    post,
    path = "/organizations/{org}/bills",
    operation_id = "bills_create",
    tag = "bills",
    impl_for = __path_bills_create,
    summary = "Create a draft bill",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    request_body(content = BillBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Document),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
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

#[utoipa::path(
    put,
    path = "/organizations/{org}/invoices/{id}",
    operation_id = "invoices_update",
    tag = "invoices",
    impl_for = __path_invoices_update,
    summary = "Update a draft invoice",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    request_body(content = InvoiceUpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
#[utoipa::path(
    put,
    path = "/organizations/{org}/bills/{id}",
    operation_id = "bills_update",
    tag = "bills",
    impl_for = __path_bills_update,
    summary = "Update a draft bill",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    request_body(content = BillUpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
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

#[utoipa::path(
    delete,
    path = "/organizations/{org}/invoices/{id}",
    operation_id = "invoices_delete",
    tag = "invoices",
    impl_for = __path_invoices_delete,
    summary = "Delete a draft invoice",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
#[utoipa::path(
    delete,
    path = "/organizations/{org}/bills/{id}",
    operation_id = "bills_delete",
    tag = "bills",
    impl_for = __path_bills_delete,
    summary = "Delete a draft bill",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn delete<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    act::<S, K>(state, req, path, Action::Delete).await
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/invoices/{id}/send",
    operation_id = "invoices_send",
    tag = "invoices",
    impl_for = __path_invoices_send,
    summary = "Send a draft invoice (posts it)",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
#[utoipa::path(
    post,
    path = "/organizations/{org}/bills/{id}/approve",
    operation_id = "bills_approve",
    tag = "bills",
    impl_for = __path_bills_approve,
    summary = "Approve a draft bill (posts it)",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
async fn issue<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    act::<S, K>(state, req, path, Action::Issue).await
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/invoices/{id}/void",
    operation_id = "invoices_void",
    tag = "invoices",
    impl_for = __path_invoices_void,
    summary = "Void an invoice",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
#[utoipa::path(
    post,
    path = "/organizations/{org}/bills/{id}/void",
    operation_id = "bills_void",
    tag = "bills",
    impl_for = __path_bills_void,
    summary = "Void a bill",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
async fn void<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    act::<S, K>(state, req, path, Action::Void).await
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

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = DocumentPaymentRequest)]
#[serde(deny_unknown_fields)]
struct PaymentBody {
    #[schema(required = true, value_type = crate::openapi::PositiveAmount)]
    amount: Option<DecimalText>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    payment_date: Option<FlexDate>,
    payment_method: Option<String>,
    reference: Option<String>,
    notes: Option<String>,
    account_id: Option<String>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/invoices/{id}/payments",
    operation_id = "invoices_pay",
    tag = "invoices",
    impl_for = __path_invoices_pay,
    summary = "Record a payment of an invoice",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
    ),
    request_body(content = PaymentBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Payment),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
#[utoipa::path(
    post,
    path = "/organizations/{org}/bills/{id}/payments",
    operation_id = "bills_pay",
    tag = "bills",
    impl_for = __path_bills_pay,
    summary = "Record a payment of a bill",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ("Prefer" = Option<String>, Header, description = "`wait=N` (seconds, at most 30): wait for the queued write and answer its final resource."),
    ),
    request_body(content = PaymentBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Payment),
        (status = 202, description = "Queued: the write runs in the background; follow `Location`.", body = crate::openapi::schemas::QueuedRequest, headers(("Location" = String, description = "The status URL of the queued write."))),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
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

#[utoipa::path(
    get,
    path = "/organizations/{org}/invoices/{id}",
    operation_id = "invoices_get",
    tag = "invoices",
    impl_for = __path_invoices_get,
    summary = "Get an invoice",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
#[utoipa::path(
    get,
    path = "/organizations/{org}/bills/{id}",
    operation_id = "bills_get",
    tag = "bills",
    impl_for = __path_bills_get,
    summary = "Get a bill",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
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

#[utoipa::path(
    get,
    path = "/organizations/{org}/invoices/{id}/payments",
    operation_id = "invoices_payments",
    tag = "invoices",
    impl_for = __path_invoices_payments,
    summary = "List the payments of an invoice",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::PaymentList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
#[utoipa::path(
    get,
    path = "/organizations/{org}/bills/{id}/payments",
    operation_id = "bills_payments",
    tag = "bills",
    impl_for = __path_bills_payments,
    summary = "List the payments of a bill",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::PaymentList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
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

#[utoipa::path(
    get,
    path = "/organizations/{org}/invoices/{id}/history",
    operation_id = "invoices_history",
    tag = "invoices",
    impl_for = __path_invoices_history,
    summary = "List the status changes of an invoice",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::StatusChangeList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
#[utoipa::path(
    get,
    path = "/organizations/{org}/bills/{id}/history",
    operation_id = "bills_history",
    tag = "bills",
    impl_for = __path_bills_history,
    summary = "List the status changes of a bill",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("id" = String, Path, description = "The id of the resource."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::StatusChangeList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
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

#[utoipa::path(
    get,
    path = "/organizations/{org}/invoices",
    operation_id = "invoices_list",
    tag = "invoices",
    impl_for = __path_invoices_list,
    summary = "List invoices",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("status" = Option<String>, Query, description = "Filter by status."),
        ("contact_id" = Option<String>, Query, description = "Filter by contact id."),
        ("limit" = Option<i64>, Query, description = "Page size (1 to 100).", minimum = 1, maximum = 100),
        ("offset" = Option<i64>, Query, description = "Items to skip.", minimum = 0),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::DocumentList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
#[utoipa::path(
    get,
    path = "/organizations/{org}/bills",
    operation_id = "bills_list",
    tag = "bills",
    impl_for = __path_bills_list,
    summary = "List bills",
    params(
        ("org" = String, Path, description = "The organization id (`org_...`)."),
        ("status" = Option<String>, Query, description = "Filter by status."),
        ("contact_id" = Option<String>, Query, description = "Filter by contact id."),
        ("limit" = Option<i64>, Query, description = "Page size (1 to 100).", minimum = 1, maximum = 100),
        ("offset" = Option<i64>, Query, description = "Items to skip.", minimum = 0),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::DocumentList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
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

// The OpenAPI operations of handlers that serve more than one path.
#[expect(
    non_camel_case_types,
    reason = "utoipa names the operation type of handler `x` `__path_x`"
)]
mod operations {
    #[doc(hidden)]
    pub(crate) struct __path_invoices_list;
    #[doc(hidden)]
    pub(crate) struct __path_bills_list;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_create;
    #[doc(hidden)]
    pub(crate) struct __path_bills_create;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_get;
    #[doc(hidden)]
    pub(crate) struct __path_bills_get;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_update;
    #[doc(hidden)]
    pub(crate) struct __path_bills_update;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_delete;
    #[doc(hidden)]
    pub(crate) struct __path_bills_delete;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_send;
    #[doc(hidden)]
    pub(crate) struct __path_bills_approve;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_void;
    #[doc(hidden)]
    pub(crate) struct __path_bills_void;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_payments;
    #[doc(hidden)]
    pub(crate) struct __path_bills_payments;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_pay;
    #[doc(hidden)]
    pub(crate) struct __path_bills_pay;
    #[doc(hidden)]
    pub(crate) struct __path_invoices_history;
    #[doc(hidden)]
    pub(crate) struct __path_bills_history;
}
pub(crate) use operations::*;
