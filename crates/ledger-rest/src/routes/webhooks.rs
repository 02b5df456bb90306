//! Webhook endpoints of an organization (DECISIONS 9): create (the secret shown once),
//! list, read, update, delete, rotate the secret; the delivery log of an endpoint and
//! the replay of a delivery. Writes go through the pipeline (1 credit each, `admin`);
//! reads need `read`. Resource name `webhooks` for narrowed keys.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, NewWebhookEndpointInput, WebhookEndpointChanges, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::crud::{Crud, crud_operations};
use super::resource::{queue_admin_write, required, resource_access};
use super::{Routes, State, access, at, list_response};
use crate::AppState;
use crate::error::ApiError;
use crate::input::page;
use crate::queued::submit;

const RESOURCE: &str = "webhooks";

crud_operations! {
    Webhooks, tag "webhooks", schemas WebhookEndpoint, WebhookEndpointList;
    paths "/organizations/{org}/webhooks", "/organizations/{org}/webhooks/{id}",
        then more_routes;
    writes need "ledger:admin";
    create "webhooks_create": "Create a webhook endpoint (the answer shows its secret once)",
        "Registers a URL that receives the organization's events as signed POST requests (Standard Webhooks); the signing secret is in this answer only.";
    get "webhooks_get": "Get a webhook endpoint",
        "Returns one webhook endpoint with its URL, event kinds and state, never its secret.";
    update "webhooks_update": "Update a webhook endpoint",
        "Changes a webhook endpoint's URL, event kinds, description or state; enabling it clears its failure streak.";
    patch "webhooks_patch": "Update a webhook endpoint (partial)",
        "Changes only the members given of a webhook endpoint.";
    delete "webhooks_delete": "Delete a webhook endpoint",
        "Soft-deletes a webhook endpoint; its pending deliveries stop.";
    list "webhooks_list": "List webhook endpoints",
        "Lists the organization's webhook endpoints, oldest first, never their signing secrets.",
        filters();
}

/// The paths of an endpoint's secret rotation and of its deliveries.
fn more_routes<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/organizations/{org}/webhooks/{id}/rotate-secret").post(rotate::<S>))
        .add(at("/organizations/{org}/webhooks/{id}/deliveries").get(deliveries::<S>))
        .add(at("/organizations/{org}/webhooks/{id}/deliveries/{delivery}").get(delivery::<S>))
        .add(
            at("/organizations/{org}/webhooks/{id}/deliveries/{delivery}/replay").post(replay::<S>),
        );
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = WebhookCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::webhook_url)]
    url: Option<String>,
    description: Option<String>,
    #[schema(schema_with = crate::openapi::event_types)]
    event_types: Option<Vec<String>>,
    enabled: Option<bool>,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = WebhookUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[schema(schema_with = crate::openapi::optional_webhook_url)]
    url: Option<String>,
    description: Option<String>,
    #[schema(schema_with = crate::openapi::event_types)]
    event_types: Option<Vec<String>>,
    enabled: Option<bool>,
}

struct Webhooks;

impl Crud for Webhooks {
    const RESOURCE: &'static str = RESOURCE;
    type CreateBody = CreateBody;
    type UpdateBody = UpdateBody;
    const WRITE: Scope = Scope::Admin;

    fn create(input: CreateBody) -> Result<Write, ApiError> {
        Ok(Write::CreateWebhookEndpoint(NewWebhookEndpointInput {
            url: required(input.url, "url")?,
            description: input.description,
            event_types: input.event_types.unwrap_or_default(),
            enabled: input.enabled,
        }))
    }

    fn update(id: String, input: UpdateBody) -> Result<Write, ApiError> {
        let changes = WebhookEndpointChanges {
            url: input.url,
            description: input.description,
            event_types: input.event_types,
            enabled: input.enabled,
        };
        Ok(Write::UpdateWebhookEndpoint { id, changes })
    }

    fn delete(id: String) -> Write {
        Write::DeleteWebhookEndpoint { id }
    }

    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError> {
        let endpoint = state.ledger.get_webhook_endpoint(access, id).await?;
        Ok(HttpResponse::Ok().json(views::WebhookEndpointView::of(&endpoint, false)))
    }

    async fn list<S: Store>(
        state: &AppState<S>,
        _req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError> {
        let result = state.ledger.list_webhook_endpoints(access, page).await?;
        Ok(list_response(page, &result, |e| {
            views::WebhookEndpointView::of(e, false)
        }))
    }
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/webhooks/{id}/rotate-secret",
    operation_id = "webhooks_rotate",
    tag = "webhooks",
    summary = "Rotate the signing secret of a webhook endpoint",
    description = "Gives the endpoint a new signing secret, shown once in this answer; the old secret stops signing at once.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::WebhookEndpoint),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn rotate<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    queue_admin_write(&state, &req, path, RESOURCE, |id| {
        Write::RotateWebhookSecret { id }
    })
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/webhooks/{id}/deliveries",
    operation_id = "webhooks_deliveries",
    tag = "webhooks",
    summary = "List the deliveries of a webhook endpoint",
    description = "Lists an endpoint's deliveries, newest event first, with their state and attempts.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::WebhookDeliveryList),
    ),
)]
async fn deliveries<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let result = state
        .ledger
        .list_webhook_deliveries(&access, &id, page)
        .await?;
    Ok(list_response(page, &result, |d| {
        views::WebhookDeliveryView::of(d, None)
    }))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/webhooks/{id}/deliveries/{delivery}",
    operation_id = "webhooks_delivery",
    tag = "webhooks",
    summary = "Get a webhook delivery",
    description = "Returns one delivery with its event, body and every attempt's status and response.",
    params(
        ("delivery" = String, Path, description = "The delivery id."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::WebhookDelivery),
    ),
)]
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
    Ok(HttpResponse::Ok().json(views::WebhookDeliveryView::of(&delivery, Some(&attempts))))
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/webhooks/{id}/deliveries/{delivery}/replay",
    operation_id = "webhooks_replay",
    tag = "webhooks",
    summary = "Deliver an event again",
    description = "Sends a delivered or given-up delivery again: it becomes pending and keeps its `webhook-id` and body.",
    params(
        ("delivery" = String, Path, description = "The delivery id."),
        crate::openapi::params::QueuedWrite,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::WebhookDelivery),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
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
