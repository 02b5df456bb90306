//! Health, queued-request status and audit events.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{Store, Tenant};
use ledger_domain::views;

use super::{State, access};
use crate::auth::authenticate;
use crate::error::{ApiError, validation};

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
    if state.ledger.store.ping().await {
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

const ENTITY_TYPES: [&str; 11] = [
    "account",
    "transaction",
    "contact",
    "invoice",
    "bill",
    "organization",
    "category",
    "tax",
    "api_key",
    "payment",
    "transfer",
];

async fn list_events<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (entity_type, entity_id) = path.into_inner();
    let principal = authenticate(&state, &req).await?;
    state
        .ledger
        .check_permission(&principal, Scope::Read, "events")?;
    if !ENTITY_TYPES.contains(&entity_type.as_str()) {
        return Err(validation(
            "invalid_field",
            Some("entity_type".into()),
            format!("entity_type must be one of {}", ENTITY_TYPES.join(", ")),
        ));
    }
    let tenant = Tenant {
        organization_id: principal.organization.id.clone(),
        livemode: principal.key.livemode,
    };
    let events = state
        .ledger
        .store
        .list_events(&tenant, &entity_type, entity_id.trim())
        .await?;
    Ok(HttpResponse::Ok().json(events.iter().map(views::event).collect::<Vec<_>>()))
}
