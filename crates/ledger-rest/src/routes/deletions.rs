//! The soft-delete audit trail (spec 3.6, DECISIONS 10).

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::ports::Store;
use ledger_domain::views;

use super::resource::list_access;
use super::{Routes, State, at, list_response};
use crate::auth::authenticate;
use crate::error::ApiError;
use crate::input::page;

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/organizations/{org}/recently-deleted").get(of_organization::<S>))
        .add(at("/recently-deleted").get(of_caller::<S>));
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/recently-deleted",
    operation_id = "deletions_of_organization",
    tag = "deletions",
    summary = "List what was deleted in an organization and can be restored",
    description = "Lists what was soft-deleted in this organization, by any key, newest first, with until when each can be restored.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::DeletionList),
    ),
)]
async fn of_organization<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, "deletions", 20).await?;
    let result = state.ledger.recently_deleted(&access, page).await?;
    Ok(list_response(page, &result, views::DeletionView::of))
}

#[utoipa::path(
    get,
    path = "/recently-deleted",
    operation_id = "deletions_of_caller",
    tag = "deletions",
    summary = "List what the caller deleted and can restore",
    description = "Lists what the calling key deleted, in its mode, across the organizations it reaches, newest first, with until when each can be restored.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::DeletionList),
    ),
)]
async fn of_caller<S: Store>(state: State<S>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    let page = page(&req, 20)?;
    let result = state.ledger.deleted_by_caller(&principal, page).await?;
    Ok(list_response(page, &result, views::DeletionView::of))
}
