//! Webhook endpoints of an organization (DECISIONS 9): create (the secret shown once),
//! list, read, update, delete, rotate the secret; the delivery log of an endpoint and
//! the replay of a delivery. Writes go through the pipeline (1 credit each, `admin`);
//! reads need `read`. Resource name `webhooks` for narrowed keys.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{
    NewWebhookEndpointInput, WebhookEndpointChanges, Write, delivery_view, endpoint_view,
};
use serde::Deserialize;

use super::exchange_rates::required;
use super::{State, access, list_response};
use crate::error::ApiError;
use crate::input::{page, parse_json, read_body};
use crate::queued::submit;

const RESOURCE: &str = "webhooks";

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/organizations/{org}/webhooks")
            .route(web::get().to(list::<S>))
            .route(web::post().to(create::<S>)),
    )
    .service(
        web::resource("/organizations/{org}/webhooks/{id}")
            .route(web::get().to(get::<S>))
            .route(web::put().to(update::<S>))
            .route(web::patch().to(update::<S>))
            .route(web::delete().to(delete::<S>)),
    )
    .service(
        web::resource("/organizations/{org}/webhooks/{id}/rotate-secret")
            .route(web::post().to(rotate::<S>)),
    )
    .service(
        web::resource("/organizations/{org}/webhooks/{id}/deliveries")
            .route(web::get().to(deliveries::<S>)),
    )
    .service(
        web::resource("/organizations/{org}/webhooks/{id}/deliveries/{delivery}")
            .route(web::get().to(delivery::<S>)),
    )
    .service(
        web::resource("/organizations/{org}/webhooks/{id}/deliveries/{delivery}/replay")
            .route(web::post().to(replay::<S>)),
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    url: Option<String>,
    description: Option<String>,
    event_types: Option<Vec<String>>,
    enabled: Option<bool>,
}

async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Admin, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: CreateBody = parse_json(&req, &body)?;
    let input = NewWebhookEndpointInput {
        url: required(input.url, "url")?,
        description: input.description,
        event_types: input.event_types.unwrap_or_default(),
        enabled: input.enabled,
    };
    let write = Write::CreateWebhookEndpoint(input);
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let result = state.ledger.list_webhook_endpoints(&access, page).await?;
    Ok(list_response(page, &result, |e| endpoint_view(e, false)))
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let endpoint = state.ledger.get_webhook_endpoint(&access, &id).await?;
    Ok(HttpResponse::Ok().json(endpoint_view(&endpoint, false)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    url: Option<String>,
    description: Option<String>,
    event_types: Option<Vec<String>>,
    enabled: Option<bool>,
}

async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: UpdateBody = parse_json(&req, &body)?;
    let changes = WebhookEndpointChanges {
        url: input.url,
        description: input.description,
        event_types: input.event_types,
        enabled: input.enabled,
    };
    let write = Write::UpdateWebhookEndpoint { id, changes };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let write = Write::DeleteWebhookEndpoint { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

async fn rotate<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let write = Write::RotateWebhookSecret { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

async fn deliveries<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let result = state
        .ledger
        .list_webhook_deliveries(&access, &id, page)
        .await?;
    Ok(list_response(page, &result, |d| delivery_view(d, None)))
}

async fn delivery<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id, delivery) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let (delivery, attempts) = state
        .ledger
        .get_webhook_delivery(&access, &id, &delivery)
        .await?;
    Ok(HttpResponse::Ok().json(delivery_view(&delivery, Some(&attempts))))
}

async fn replay<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, endpoint_id, delivery_id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let write = Write::ReplayWebhookDelivery {
        endpoint_id,
        delivery_id,
    };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}
