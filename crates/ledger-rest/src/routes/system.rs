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
        .route("/ready", web::get().to(ready::<S>))
        .route("/metrics", web::get().to(metrics::<S>))
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

/// Readiness (`/ready`), distinct from liveness (`/health`): 200 when the database
/// answers and the job queue can be read, so a replica takes traffic only then; 503 with
/// the reason otherwise. No key: probes carry none, and it shows no tenant's data.
async fn ready<S: Store>(state: State<S>) -> HttpResponse {
    let figures = state.ledger.operating_figures().await;
    let body = serde_json::json!({
        "status": if figures.jobs.is_some() { "ready" } else { "not_ready" },
        "database": if figures.database_up { "up" } else { "down" },
        "queue": if figures.jobs.is_some() { "readable" } else { "unavailable" },
        "queued_jobs": figures.jobs.map(|j| j.queued),
        "workers": figures.workers,
    });
    if figures.jobs.is_some() {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}

/// Prometheus metrics (`/metrics`) for keys with the `system` permission, like `/system`.
async fn metrics<S: Store>(state: State<S>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req)
        .await
        .map_err(|ApiError(e)| ApiError(ledger_domain::services::system_auth_error(e)))?;
    let figures = state.ledger.service_figures(&principal).await?;
    let text = ledger_http::metrics::render(&figures).ok_or_else(|| {
        ApiError(ledger_domain::DomainError::Internal(
            "the metrics recorder is not installed".into(),
        ))
    })?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
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
