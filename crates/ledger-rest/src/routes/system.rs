//! Health, queued-request status and audit events.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::views;

use super::{State, access};
use crate::auth::authenticate;
use crate::error::ApiError;

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.route("/health", web::get().to(health::<S>))
        .route(
            "/organizations/{org}/requests/{request_id}",
            web::get().to(get_request::<S>),
        )
        .route(
            "/events/{entity_type}/{entity_id}",
            web::get().to(list_events::<S>),
        );
}

async fn health<S: Store>(state: State<S>) -> HttpResponse {
    if state.ledger.healthy().await {
        HttpResponse::Ok().content_type("text/plain").body("OK")
    } else {
        HttpResponse::ServiceUnavailable()
            .content_type("text/plain")
            .body("database unavailable")
    }
}

async fn get_request<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "requests").await?;
    let job = state.ledger.get_job(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::job_envelope(&job, "")))
}

async fn list_events<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (entity_type, entity_id) = path.into_inner();
    let principal = authenticate(&state, &req).await?;
    let events = state
        .ledger
        .entity_events(&principal, &entity_type, &entity_id)
        .await?;
    Ok(HttpResponse::Ok().json(events.iter().map(views::event).collect::<Vec<_>>()))
}
