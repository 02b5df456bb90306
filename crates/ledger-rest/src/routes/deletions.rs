//! The soft-delete audit trail (spec 3.6, DECISIONS 10).

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::events::Deletion;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{Page, PageRequest, Store};
use ledger_domain::views;
use serde_json::json;

use super::{Routes, State, access, at};
use crate::auth::authenticate;
use crate::error::ApiError;
use crate::input::page;

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/organizations/{org}/recently-deleted").get(of_organization::<S>))
        .add(at("/recently-deleted").get(of_caller::<S>));
}

fn list(result: &Page<Deletion>, page: PageRequest) -> HttpResponse {
    let data: Vec<serde_json::Value> = result.items.iter().map(views::deletion).collect();
    HttpResponse::Ok().json(json!({
        "object": "list",
        "data": data,
        "has_more": page.offset + (result.items.len() as i64) < result.total_count,
        "total_count": result.total_count,
    }))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/recently-deleted",
    operation_id = "deletions_of_organization",
    tag = "deletions",
    summary = "List what was deleted in an organization and can be restored",
    params(crate::openapi::params::OrgPath, crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::DeletionList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn of_organization<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, "deletions").await?;
    let page = page(&req, 20)?;
    let result = state.ledger.recently_deleted(&access, page).await?;
    Ok(list(&result, page))
}

#[utoipa::path(
    get,
    path = "/recently-deleted",
    operation_id = "deletions_of_caller",
    tag = "deletions",
    summary = "List what the caller deleted and can restore",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::DeletionList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn of_caller<S: Store>(state: State<S>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    let page = page(&req, 20)?;
    let result = state.ledger.deleted_by_caller(&principal, page).await?;
    Ok(list(&result, page))
}
