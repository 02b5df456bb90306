//! Ownership transfers of organizations (spec 3.1, 4.4; DECISIONS 10): the sender's
//! side initiates, lists and cancels under the transferred organization's path (or an
//! ancestor's); the recipient lists incoming, accepts and rejects under its own root
//! organization's path. Either side reads a transfer and its stats. Writes need `admin`
//! and go through the write pipeline (one credit each, `Idempotency-Key` honoured);
//! who may act is the domain's rule.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{OrganizationTransferInput, Write};
use serde::Deserialize;
use serde_json::json;

use super::{State, access};
use crate::error::ApiError;
use crate::input::{page, parse_json, read_body};
use crate::queued::submit;

const RESOURCE: &str = "organization_transfers";

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/organizations/{org}/organization-transfers")
            .route(web::get().to(list_outgoing::<S>))
            .route(web::post().to(initiate::<S>)),
    )
    // Before `{id}`, which would otherwise take `incoming` for an id.
    .route(
        "/organizations/{org}/organization-transfers/incoming",
        web::get().to(list_incoming::<S>),
    )
    .route(
        "/organizations/{org}/organization-transfers/{id}",
        web::get().to(get::<S>),
    )
    .route(
        "/organizations/{org}/organization-transfers/{id}/stats",
        web::get().to(stats::<S>),
    )
    .route(
        "/organizations/{org}/organization-transfers/{id}/accept",
        web::post().to(accept::<S>),
    )
    .route(
        "/organizations/{org}/organization-transfers/{id}/reject",
        web::post().to(reject::<S>),
    )
    .route(
        "/organizations/{org}/organization-transfers/{id}/cancel",
        web::post().to(cancel::<S>),
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InitiateBody {
    to_provider_username: Option<String>,
    to_email: Option<String>,
}

async fn initiate<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Admin, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: InitiateBody = parse_json(&req, &body)?;
    let write = Write::InitiateOrganizationTransfer(OrganizationTransferInput {
        to_provider_username: input.to_provider_username,
        to_email: input.to_email,
    });
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

fn list_answer(
    page: ledger_domain::ports::PageRequest,
    found: ledger_domain::ports::Page<serde_json::Value>,
) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "object": "list",
        "has_more": page.offset + (found.items.len() as i64) < found.total_count,
        "total_count": found.total_count,
        "data": found.items,
    }))
}

/// Outgoing: transfers of `{org}` and of organizations below it, newest first.
async fn list_outgoing<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let found = state.ledger.list_outgoing_transfers(&access, page).await?;
    Ok(list_answer(page, found))
}

/// Incoming: transfers designated to the owner of the root organization `{org}`.
async fn list_incoming<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let found = state.ledger.list_incoming_transfers(&access, page).await?;
    Ok(list_answer(page, found))
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let view = state.ledger.get_organization_transfer(&access, &id).await?;
    Ok(HttpResponse::Ok().json(view))
}

async fn stats<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let view = state
        .ledger
        .organization_transfer_stats(&access, &id)
        .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AcceptBody {
    relationship: Option<String>,
}

async fn accept<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: AcceptBody = parse_json(&req, &body)?;
    let write = Write::AcceptOrganizationTransfer {
        id,
        relationship: input.relationship,
    };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

/// An empty body, or an empty JSON object (reject and cancel take nothing).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoBody {}

async fn answer<S: Store>(
    state: State<S>,
    req: HttpRequest,
    org: String,
    payload: web::Payload,
    write: Write,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let body = read_body(payload).await?;
    if !body.iter().all(u8::is_ascii_whitespace) {
        let _: NoBody = parse_json(&req, &body)?;
    }
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

async fn reject<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    answer(
        state,
        req,
        org,
        payload,
        Write::RejectOrganizationTransfer { id },
    )
    .await
}

async fn cancel<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    answer(
        state,
        req,
        org,
        payload,
        Write::CancelOrganizationTransfer { id },
    )
    .await
}
