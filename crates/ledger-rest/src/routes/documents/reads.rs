//! The reads of invoices and bills: one document, its payments, its status history, and
//! a page of the organization's documents of a kind.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::documents::DocumentStatus;
use ledger_domain::ids::{IdKind, parse_id};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{DocumentFilter, Store};
use ledger_domain::views;

use super::Kind;
use super::operations::*;
use crate::error::ApiError;
use crate::input::{page, query_param};
use crate::routes::resource::resource_access;
use crate::routes::{State, access, list_response};

#[utoipa::path(
    get,
    path = "/organizations/{org}/invoices/{id}",
    operation_id = "invoices_get",
    tag = "invoices",
    impl_for = __path_invoices_get,
    summary = "Get an invoice",
    description = "Returns an invoice with its lines, taxes, totals, the amount paid and the amount due.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
)]
#[utoipa::path(
    get,
    path = "/organizations/{org}/bills/{id}",
    operation_id = "bills_get",
    tag = "bills",
    impl_for = __path_bills_get,
    summary = "Get a bill",
    description = "Returns a bill with its lines, taxes, totals, the amount paid and the amount due.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
    ),
)]
pub(super) async fn get<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, K::PLURAL).await?;
    let view = state.ledger.document_view(&access, K::KIND, &id).await?;
    let today = state.ledger.now().date();
    Ok(HttpResponse::Ok().json(views::DocumentView::of(
        &view.document,
        &view.payments,
        today,
    )))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/invoices/{id}/payments",
    operation_id = "invoices_payments",
    tag = "invoices",
    impl_for = __path_invoices_payments,
    summary = "List the payments of an invoice",
    description = "Lists the payments recorded against an invoice.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::PaymentList),
    ),
)]
#[utoipa::path(
    get,
    path = "/organizations/{org}/bills/{id}/payments",
    operation_id = "bills_payments",
    tag = "bills",
    impl_for = __path_bills_payments,
    summary = "List the payments of a bill",
    description = "Lists the payments recorded against a bill.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::PaymentList),
    ),
)]
pub(super) async fn payments<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, K::PLURAL).await?;
    let view = state.ledger.document_view(&access, K::KIND, &id).await?;
    let data: Vec<_> = view.payments.iter().map(views::PaymentView::of).collect();
    Ok(HttpResponse::Ok().json(views::List::all(data)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/invoices/{id}/history",
    operation_id = "invoices_history",
    tag = "invoices",
    impl_for = __path_invoices_history,
    summary = "List the status changes of an invoice",
    description = "Lists the invoice's status changes, oldest first, with when and by which key each was made.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::StatusChangeList),
    ),
)]
#[utoipa::path(
    get,
    path = "/organizations/{org}/bills/{id}/history",
    operation_id = "bills_history",
    tag = "bills",
    impl_for = __path_bills_history,
    summary = "List the status changes of a bill",
    description = "Lists the bill's status changes, oldest first, with when and by which key each was made.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::StatusChangeList),
    ),
)]
pub(super) async fn history<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, K::PLURAL).await?;
    let rows = state.ledger.document_history(&access, K::KIND, &id).await?;
    let data: Vec<_> = rows.iter().map(views::StatusChangeView::of).collect();
    Ok(HttpResponse::Ok().json(views::List::all(data)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/invoices",
    operation_id = "invoices_list",
    tag = "invoices",
    impl_for = __path_invoices_list,
    summary = "List invoices",
    description = "Lists the organization's invoices, newest first, filtered by status and customer.",
    params(
        ("status" = Option<String>, Query, description = "Filter by status."),
        ("contact_id" = Option<String>, Query, description = "Filter by contact id."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::DocumentList),
    ),
)]
#[utoipa::path(
    get,
    path = "/organizations/{org}/bills",
    operation_id = "bills_list",
    tag = "bills",
    impl_for = __path_bills_list,
    summary = "List bills",
    description = "Lists the organization's bills, newest first, filtered by status and supplier.",
    params(
        ("status" = Option<String>, Query, description = "Filter by status."),
        ("contact_id" = Option<String>, Query, description = "Filter by contact id."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::DocumentList),
    ),
)]
pub(super) async fn list<S: Store, K: Kind>(
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
    let today = state.ledger.now().date();
    Ok(list_response(page, &result, |v| {
        views::DocumentView::of(&v.document, &v.payments, today)
    }))
}
