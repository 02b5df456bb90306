//! The writes on an invoice or a bill: create, update, delete, issue (send or approve),
//! void and pay, each one write of the pipeline. Deletes and actions carry no body.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::documents::DocumentKind;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{PaymentInput, Write};
use serde::Deserialize;

use super::Kind;
use super::bodies::document_input;
use crate::error::ApiError;
use crate::input::{DecimalText, FlexDate, parse_json, read_body};
use crate::queued::{submit, submit_synchronous};
use crate::routes::resource::{organization_access, required, resource_access};
use crate::routes::{State, access};

pub(super) async fn create<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Write, K::PLURAL).await?;
    let body = read_body(payload).await?;
    let input = document_input::<K>(parse_json(&req, &body)?)?;
    let write = Write::CreateDocument {
        kind: K::KIND,
        input,
    };
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

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

pub(super) async fn delete<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    act::<S, K>(state, req, path, Action::Delete).await
}

pub(super) async fn issue<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    act::<S, K>(state, req, path, Action::Issue).await
}

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

// The body of a payment, of either kind (`//`: a doc comment would become the
// schema's description).
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = DocumentPaymentRequest)]
#[serde(deny_unknown_fields)]
pub(super) struct PaymentBody {
    #[schema(required = true, value_type = crate::openapi::PositiveAmount)]
    amount: Option<DecimalText>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    payment_date: Option<FlexDate>,
    payment_method: Option<String>,
    reference: Option<String>,
    notes: Option<String>,
    account_id: Option<String>,
}

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
        amount: required(input.amount, "amount")?.0,
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
