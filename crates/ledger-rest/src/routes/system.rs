//! Health, queued-request status and audit events.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::events::EventView;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::views;

use super::{Routes, State, access, at};
use crate::auth::{authenticate, is_operator};
use crate::error::ApiError;

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/health").get(health::<S>))
        .add(at("/ready").get(ready::<S>))
        .add(at("/metrics").get(metrics::<S>))
        .add(at("/openapi.json").get(openapi::<S>))
        .add(at("/organizations/{org}/requests/{request_id}").get(get_request::<S>))
        .add(at("/events/{entity_type}/{entity_id}").get(list_events::<S>));
}

/// Served without a key: the OpenAPI document of this API, with this server's URLs.
#[utoipa::path(
    get,
    path = "/openapi.json",
    operation_id = "openapi",
    tag = "system",
    summary = "This OpenAPI document",
    description = "This document, with the serving deployment's base URL as its server and its authorization server's OAuth endpoints.",
    responses(
        (status = 200, description = "The OpenAPI 3.1 document.", content_type = "application/json", body = Object),
    ),
    security(()),
)]
async fn openapi<S: Store>(state: State<S>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(crate::openapi::served(&state.oauth))
}

#[utoipa::path(
    get,
    path = "/health",
    operation_id = "system_health",
    tag = "system",
    summary = "Liveness",
    description = "Answers 200 while the process serves requests; it checks nothing else, so a load balancer can use it as a liveness probe.",
    responses(
        (status = 200, description = "Alive.", content_type = "text/plain", body = String, example = "OK"),
        (status = 503, description = "The database is unreachable.", content_type = "text/plain", body = String),
    ),
    security(()),
)]
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
#[utoipa::path(
    get,
    path = "/ready",
    operation_id = "system_ready",
    tag = "system",
    summary = "Readiness: the database and the job queue",
    description = "Answers 200 when the database and the job queue answer, else 503, so that an orchestrator sends traffic only to an instance ready to serve it.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Readiness),
        (status = 503, description = "Not ready.", body = crate::openapi::schemas::Readiness),
    ),
    security(()),
)]
async fn ready<S: Store>(state: State<S>) -> HttpResponse {
    let figures = state.ledger.operating_figures().await;
    let body = views::ReadinessView::of(figures.database_up, figures.jobs, figures.workers);
    if body.is_ready() {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}

/// Prometheus metrics (`/metrics`): server-wide figures, for the operator alone.
#[utoipa::path(
    get,
    path = "/metrics",
    operation_id = "system_metrics",
    tag = "system",
    summary = "Prometheus metrics (the operator's admin token)",
    description = "The server's metrics in the Prometheus text format: figures of the whole server, every tenant's traffic included, so only the operator's admin token (`LEDGER_ADMIN_TOKEN`, as a bearer token) reads them; no API key does, whatever its permissions. Without a configured admin token the metrics are not served.",
    responses(
        (status = 200, description = "Prometheus text exposition.", content_type = "text/plain", body = String),
    ),
    security(("admin_token" = [])),
)]
async fn metrics<S: Store>(state: State<S>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    if !is_operator(state.admin_token.as_deref(), &req) {
        let message = if state.admin_token.is_some() {
            "the metrics need the operator's admin token"
        } else {
            "the metrics are served only to the operator: set LEDGER_ADMIN_TOKEN and send it as a bearer token"
        };
        return Err(ApiError(DomainError::Authentication {
            code: ErrorCode::Unauthorized,
            message: message.into(),
        }));
    }
    let figures = state.ledger.operating_figures().await;
    let text = ledger_http::metrics::render(&figures).ok_or_else(|| {
        ApiError(DomainError::Internal(
            "the metrics recorder is not installed".into(),
        ))
    })?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/requests/{request_id}",
    operation_id = "requests_get",
    tag = "system",
    summary = "Get the status of a queued write",
    description = "Returns the envelope of a queued write (the `Location` of its 202 answer): while the job runs, and once it has ended, whether it succeeded, with its resource in `data`, or failed, with its `error`.",
    params(
        ("request_id" = String, Path, description = "The request id of the queued write (`req_...`)."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::QueuedRequest),
    ),
)]
async fn get_request<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "requests").await?;
    let job = state.ledger.get_job(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::QueuedRequestView::of(&job, "")))
}

#[utoipa::path(
    get,
    path = "/events/{entity_type}/{entity_id}",
    operation_id = "events_list",
    tag = "system",
    summary = "List the audit events of an entity",
    description = "Lists the audit events recorded for one entity: what was done to it, when, and by which key.",
    params(
        ("entity_type" = String, Path, description = "The kind of entity (`account`, `transaction`, ...)."),
        ("entity_id" = String, Path, description = "The id of the entity."),
    ),
    responses(
        (status = 200, description = "The events, oldest first.", body = [crate::openapi::schemas::Event]),
    ),
)]
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
    let views: Vec<EventView> = events.iter().map(EventView::of).collect();
    Ok(HttpResponse::Ok().json(views))
}
