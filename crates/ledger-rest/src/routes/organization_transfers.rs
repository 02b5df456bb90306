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

use super::resource::{list_access, optional_json, queue_create, queue_update, resource_access};
use super::{Routes, State, access, at, list_response};
use crate::error::ApiError;
use crate::input::read_body;
use crate::queued::submit;

const RESOURCE: &str = "organization_transfers";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/organization-transfers")
            .get(list_outgoing::<S>)
            .post(initiate::<S>),
    )
    // Before `{id}`, which would otherwise take `incoming` for an id.
    .add(at("/organizations/{org}/organization-transfers/incoming").get(list_incoming::<S>))
    .add(at("/organizations/{org}/organization-transfers/{id}").get(get::<S>))
    .add(at("/organizations/{org}/organization-transfers/{id}/stats").get(stats::<S>))
    .add(at("/organizations/{org}/organization-transfers/{id}/accept").post(accept::<S>))
    .add(at("/organizations/{org}/organization-transfers/{id}/reject").post(reject::<S>))
    .add(at("/organizations/{org}/organization-transfers/{id}/cancel").post(cancel::<S>));
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = OrganizationTransferInitiateRequest)]
#[serde(deny_unknown_fields)]
struct InitiateBody {
    to_provider_username: Option<String>,
    to_email: Option<String>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/organization-transfers",
    operation_id = "organization_transfers_initiate",
    tag = "organization-transfers",
    summary = "Offer an organization to another user",
    description = "Offers the organization, with everything below it, to another user named by email or provider username; nothing moves until that user accepts.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = InitiateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::OrganizationTransfer),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn initiate<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_create(
        &state,
        &req,
        path,
        payload,
        Scope::Admin,
        RESOURCE,
        |input: InitiateBody| {
            Ok(Write::InitiateOrganizationTransfer(
                OrganizationTransferInput {
                    to_provider_username: input.to_provider_username,
                    to_email: input.to_email,
                },
            ))
        },
    )
    .await
}

/// Outgoing: transfers of `{org}` and of organizations below it, newest first.
#[utoipa::path(
    get,
    path = "/organizations/{org}/organization-transfers",
    operation_id = "organization_transfers_list_outgoing",
    tag = "organization-transfers",
    summary = "List the outgoing transfers of an organization",
    description = "Lists the transfers of this organization that its owner offered to other users, in every state.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::OrganizationTransferList),
    ),
)]
async fn list_outgoing<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, RESOURCE, 20).await?;
    let found = state.ledger.list_outgoing_transfers(&access, page).await?;
    Ok(list_response(page, &found, |view| view))
}

/// Incoming: transfers designated to the owner of the root organization `{org}`.
#[utoipa::path(
    get,
    path = "/organizations/{org}/organization-transfers/incoming",
    operation_id = "organization_transfers_list_incoming",
    tag = "organization-transfers",
    summary = "List the transfers offered to the caller",
    description = "Lists the organization transfers offered to the user who owns the calling key.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::OrganizationTransferList),
    ),
)]
async fn list_incoming<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, RESOURCE, 20).await?;
    let found = state.ledger.list_incoming_transfers(&access, page).await?;
    Ok(list_response(page, &found, |view| view))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/organization-transfers/{id}",
    operation_id = "organization_transfers_get",
    tag = "organization-transfers",
    summary = "Get an organization transfer",
    description = "Returns one organization transfer with its parties and state.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::OrganizationTransfer),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let view = state.ledger.get_organization_transfer(&access, &id).await?;
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/organization-transfers/{id}/stats",
    operation_id = "organization_transfers_stats",
    tag = "organization-transfers",
    summary = "Count what an organization transfer moves",
    description = "Counts what accepting the transfer would move, in the caller's mode: the organizations, accounts, transactions, invoices, bills, contacts, categories and keys of the subtree.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::TransferStats),
    ),
)]
async fn stats<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let view = state
        .ledger
        .organization_transfer_stats(&access, &id)
        .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = OrganizationTransferAcceptRequest)]
#[serde(deny_unknown_fields)]
struct AcceptBody {
    relationship: Option<String>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/organization-transfers/{id}/accept",
    operation_id = "organization_transfers_accept",
    tag = "organization-transfers",
    summary = "Accept an organization transfer",
    description = "Accepts a transfer offered to the caller: the organization and its descendants move to the caller.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = AcceptBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::OrganizationTransfer),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn accept<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_update(
        &state,
        &req,
        path,
        payload,
        Scope::Admin,
        RESOURCE,
        |id, input: AcceptBody| {
            Ok(Write::AcceptOrganizationTransfer {
                id,
                relationship: input.relationship,
            })
        },
    )
    .await
}

/// An empty body, or an empty JSON object (reject and cancel take nothing).
#[derive(Deserialize, utoipa::ToSchema, Default)]
#[schema(as = OrganizationTransferNoteRequest)]
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
    let _: NoBody = optional_json(&req, &body)?;
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/organization-transfers/{id}/reject",
    operation_id = "organization_transfers_reject",
    tag = "organization-transfers",
    summary = "Reject an organization transfer",
    description = "Declines a pending transfer offered to the caller, with an optional note.",
    request_body(content = NoBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::OrganizationTransfer),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
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

#[utoipa::path(
    post,
    path = "/organizations/{org}/organization-transfers/{id}/cancel",
    operation_id = "organization_transfers_cancel",
    tag = "organization-transfers",
    summary = "Cancel an organization transfer",
    description = "Withdraws a pending transfer the caller offered, with an optional note.",
    request_body(content = NoBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::OrganizationTransfer),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
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
