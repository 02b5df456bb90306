//! The writes on an invoice or a bill: create, update, delete, issue (send or approve),
//! void and pay, each one write of the pipeline. Deletes and actions carry no body.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::documents::DocumentKind;
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{PaymentInput, Write};
use serde::Deserialize;

use super::Kind;
use super::bodies::{BillBody, BillUpdateBody, InvoiceBody, InvoiceUpdateBody, document_input};
use super::operations::*;
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, FlexDate, parse_json, read_body};
use crate::queued::{submit, submit_synchronous};
use crate::routes::resource::resource_access;
use crate::routes::{State, access};

#[utoipa::path(
    post,
    path = "/organizations/{org}/invoices",
    operation_id = "invoices_create",
    tag = "invoices",
    impl_for = __path_invoices_create,
    summary = "Create a draft invoice",
    description = "Creates an invoice to a customer as a draft: its lines, taxes and dates. Nothing is posted until it is sent.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = InvoiceBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Document),
    ),
)]
#[utoipa::path(
    post,
    path = "/organizations/{org}/bills",
    operation_id = "bills_create",
    tag = "bills",
    impl_for = __path_bills_create,
    summary = "Create a draft bill",
    description = "Creates a bill from a supplier as a draft: its lines, taxes and dates. Nothing is posted until it is approved.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = BillBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Document),
    ),
)]
pub(super) async fn create<S: Store, K: Kind>(
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
    description = "Changes a draft invoice: its customer, dates, lines and taxes. A sent invoice cannot change.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = InvoiceUpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
)]
#[utoipa::path(
    put,
    path = "/organizations/{org}/bills/{id}",
    operation_id = "bills_update",
    tag = "bills",
    impl_for = __path_bills_update,
    summary = "Update a draft bill",
    description = "Changes a draft bill: its supplier, dates, lines and taxes. An approved bill cannot change.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = BillUpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
)]
pub(super) async fn update<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Write, K::PLURAL).await?;
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
    description = "Soft-deletes an invoice that is still a draft; a sent invoice is voided instead.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
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
    description = "Soft-deletes a bill that is still a draft; an approved bill is voided instead.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
pub(super) async fn delete<S: Store, K: Kind>(
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
    description = "Sends a draft invoice: it is posted to the books (the receivable against its lines' accounts) and becomes open for payment.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
)]
#[utoipa::path(
    post,
    path = "/organizations/{org}/bills/{id}/approve",
    operation_id = "bills_approve",
    tag = "bills",
    impl_for = __path_bills_approve,
    summary = "Approve a draft bill (posts it)",
    description = "Approves a draft bill: it is posted to the books (the payable against its lines' accounts) and becomes open for payment.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
)]
pub(super) async fn issue<S: Store, K: Kind>(
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
    description = "Voids an invoice: a draft simply ends; a sent invoice without payments has its posting reversed.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
)]
#[utoipa::path(
    post,
    path = "/organizations/{org}/bills/{id}/void",
    operation_id = "bills_void",
    tag = "bills",
    impl_for = __path_bills_void,
    summary = "Void a bill",
    description = "Voids a bill: a draft simply ends; an approved bill without payments has its posting reversed.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
)]
pub(super) async fn void<S: Store, K: Kind>(
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
    description = "Records a payment of a sent invoice into a payment account: it posts the receipt and lowers the amount due, marking the invoice paid when nothing is left.",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
    ),
    request_body(content = PaymentBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Payment),
    ),
)]
#[utoipa::path(
    post,
    path = "/organizations/{org}/bills/{id}/payments",
    operation_id = "bills_pay",
    tag = "bills",
    impl_for = __path_bills_pay,
    summary = "Record a payment of a bill",
    description = "Records a payment of an approved bill from a payment account: it posts the payment and lowers the amount due, marking the bill paid when nothing is left.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = PaymentBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Payment),
    ),
)]
pub(super) async fn pay<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Write, K::PLURAL).await?;
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
