//! The reads of invoices and bills: one document, its payments, its status history, and
//! a page of the organization's documents of a kind.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::documents::DocumentStatus;
use ledger_domain::ids::{IdKind, parse_id};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{DocumentFilter, Store};
use ledger_domain::views;

use super::Kind;
use crate::error::ApiError;
use crate::input::{page, query_param};
use crate::routes::resource::{organization_access, resource_access};
use crate::routes::{State, list_response};

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

pub(super) async fn list<S: Store, K: Kind>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Read, K::PLURAL).await?;
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
