//! Webhook endpoints of an organization (DECISIONS 9): create (the secret shown once),
//! list, read, update, delete, rotate the secret; the delivery log of an endpoint and
//! the replay of a delivery. Writes go through the pipeline (1 credit each, `admin`);
//! reads need `read`. Resource name `webhooks` for narrowed keys.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{NewWebhookEndpointInput, WebhookEndpointChanges, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::resource::{
    list_access, queue_admin_write, queue_create, queue_update, required, resource_access,
};
use super::{Routes, State, access, at, list_response};
use crate::error::ApiError;
use crate::input::page;
use crate::queued::submit;

const RESOURCE: &str = "webhooks";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/webhooks")
            .get(list::<S>)
            .post(create::<S>),
    )
    .add(
        at("/organizations/{org}/webhooks/{id}")
            .get(get::<S>)
            .put(update::<S>)
            .patch(update::<S>)
            .delete(delete::<S>),
    )
    .add(at("/organizations/{org}/webhooks/{id}/rotate-secret").post(rotate::<S>))
    .add(at("/organizations/{org}/webhooks/{id}/deliveries").get(deliveries::<S>))
    .add(at("/organizations/{org}/webhooks/{id}/deliveries/{delivery}").get(delivery::<S>))
    .add(at("/organizations/{org}/webhooks/{id}/deliveries/{delivery}/replay").post(replay::<S>));
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

#[utoipa::path(
    post,
    path = "/organizations/{org}/webhooks",
    operation_id = "webhooks_create",
    tag = "webhooks",
    summary = "Create a webhook endpoint (the answer shows its secret once)",
    description = "Registers a URL that receives the organization's events as signed POST requests (Standard Webhooks); the signing secret is in this answer only.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::WebhookEndpoint),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn create<S: Store>(
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
        |input: CreateBody| {
            let input = NewWebhookEndpointInput {
                url: required(input.url, "url")?,
                description: input.description,
                event_types: input.event_types.unwrap_or_default(),
                enabled: input.enabled,
            };
            Ok(Write::CreateWebhookEndpoint(input))
        },
    )
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/webhooks",
    operation_id = "webhooks_list",
    tag = "webhooks",
    summary = "List webhook endpoints",
    description = "Lists the organization's webhook endpoints, oldest first, never their signing secrets.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::WebhookEndpointList),
    ),
)]
async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, RESOURCE, 20).await?;
    let result = state.ledger.list_webhook_endpoints(&access, page).await?;
    Ok(list_response(page, &result, |e| {
        views::WebhookEndpointView::of(e, false)
    }))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/webhooks/{id}",
    operation_id = "webhooks_get",
    tag = "webhooks",
    summary = "Get a webhook endpoint",
    description = "Returns one webhook endpoint with its URL, event kinds and state, never its secret.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::WebhookEndpoint),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let endpoint = state.ledger.get_webhook_endpoint(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::WebhookEndpointView::of(&endpoint, false)))
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

#[utoipa::path(
    put,
    path = "/organizations/{org}/webhooks/{id}",
    operation_id = "webhooks_update",
    tag = "webhooks",
    impl_for = __path_update_put,
    summary = "Update a webhook endpoint",
    description = "Changes a webhook endpoint's URL, event kinds, description or state; enabling it clears its failure streak.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::WebhookEndpoint),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
#[utoipa::path(
    patch,
    path = "/organizations/{org}/webhooks/{id}",
    operation_id = "webhooks_patch",
    tag = "webhooks",
    impl_for = __path_update_patch,
    summary = "Update a webhook endpoint (partial)",
    description = "Changes only the members given of a webhook endpoint.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::WebhookEndpoint),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn update<S: Store>(
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
        |id, input: UpdateBody| {
            let changes = WebhookEndpointChanges {
                url: input.url,
                description: input.description,
                event_types: input.event_types,
                enabled: input.enabled,
            };
            Ok(Write::UpdateWebhookEndpoint { id, changes })
        },
    )
    .await
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/webhooks/{id}",
    operation_id = "webhooks_delete",
    tag = "webhooks",
    summary = "Delete a webhook endpoint",
    description = "Soft-deletes a webhook endpoint; its pending deliveries stop.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    queue_admin_write(&state, &req, path, RESOURCE, |id| {
        Write::DeleteWebhookEndpoint { id }
    })
    .await
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

// The OpenAPI operations of handlers that serve more than one path.
#[expect(
    non_camel_case_types,
    reason = "utoipa names the operation type of handler `x` `__path_x`"
)]
mod operations {
    #[doc(hidden)]
    pub(crate) struct __path_update_put;
    #[doc(hidden)]
    pub(crate) struct __path_update_patch;
}
pub(crate) use operations::*;
