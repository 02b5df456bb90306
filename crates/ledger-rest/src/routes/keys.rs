//! API-key management (spec 4.11, DECISIONS 10), also under `/api/v1` (spec 9).

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::ports::Store;
use ledger_domain::services::{KeyChanges, NewKeyInput};
use ledger_domain::views;
use serde::Deserialize;

use super::resource::required;
use super::{Routes, State, at, list_response};
use crate::auth::{authenticate, generate_key};
use crate::error::ApiError;
use crate::input::{FlexDate, page, parse_json, read_body};

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    for prefix in ["", "/api/v1"] {
        r.add(
            at(format!("{prefix}/organizations/{{org}}/api-keys"))
                .get(list::<S>)
                .post(create::<S>),
        )
        .add(
            at(format!(
                "{prefix}/organizations/{{org}}/api-keys/{{key_id}}"
            ))
            .get(get::<S>)
            .put(update::<S>)
            .delete(delete::<S>),
        )
        .add(
            at(format!(
                "{prefix}/organizations/{{org}}/api-keys/{{key_id}}/rotate"
            ))
            .post(rotate::<S>),
        );
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ApiKeyCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::name)]
    name: Option<String>,
    /// `read`, `write`, `admin`, `system`, or `<resource>:<read|write|admin>`.
    #[schema(required = true, schema_with = crate::openapi::permissions)]
    permissions: Option<Vec<String>>,
    /// `live` or `test` (default: the calling key's mode; a test key makes test keys).
    #[schema(schema_with = crate::openapi::optional_key_mode)]
    mode: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    expires_at: Option<FlexDate>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/api-keys",
    operation_id = "api_keys_create",
    tag = "api-keys",
    summary = "Create an API key (the answer shows its secret once)",
    description = "Creates an API key with the given permissions and mode; its secret is in this answer only and cannot be read again.",
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::ApiKey),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    let body = read_body(payload).await?;
    let input: CreateBody = parse_json(&req, &body)?;
    let input = NewKeyInput {
        name: required(input.name, "name")?,
        permissions: required(input.permissions, "permissions")?,
        mode: input.mode,
        expires_at: input.expires_at.map(|d| d.at),
    };
    let (key, secret) = state
        .ledger
        .create_key(&principal, &path.into_inner(), input, generate_key)
        .await?;
    Ok(HttpResponse::Created().json(views::ApiKeyView::of(&key, Some(&secret))))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/api-keys",
    operation_id = "api_keys_list",
    tag = "api-keys",
    summary = "List API keys",
    description = "Lists the organization's API keys of the caller's mode, newest first: name, permissions, last use and expiry, never their secrets.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::ApiKeyList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    let page = page(&req, 20)?;
    let result = state
        .ledger
        .list_keys(&principal, &path.into_inner(), page)
        .await?;
    Ok(list_response(page, &result, |k| {
        views::ApiKeyView::of(k, None)
    }))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/api-keys/{key_id}",
    operation_id = "api_keys_get",
    tag = "api-keys",
    summary = "Get an API key",
    description = "Returns one API key's name, mode, permissions, last use and expiry, never its secret.",
    params(
        ("key_id" = String, Path, description = "The API key id."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::ApiKey),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let principal = authenticate(&state, &req).await?;
    let key = state.ledger.get_key(&principal, &org, &id).await?;
    Ok(HttpResponse::Ok().json(views::ApiKeyView::of(&key, None)))
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/api-keys/{key_id}/rotate",
    operation_id = "api_keys_rotate",
    tag = "api-keys",
    summary = "Rotate an API key (the answer shows the new secret once)",
    description = "Gives an API key a new secret, shown once in this answer; the old secret keeps working for a short grace period so running clients can switch.",
    params(
        ("key_id" = String, Path, description = "The API key id."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::ApiKey),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn rotate<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let principal = authenticate(&state, &req).await?;
    let (key, secret) = state
        .ledger
        .rotate_key(&principal, &org, &id, generate_key)
        .await?;
    Ok(HttpResponse::Ok().json(views::ApiKeyView::of(&key, Some(&secret))))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ApiKeyUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[schema(schema_with = crate::openapi::optional_name)]
    name: Option<String>,
    disabled: Option<bool>,
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/api-keys/{key_id}",
    operation_id = "api_keys_update",
    tag = "api-keys",
    summary = "Update an API key",
    description = "Renames an API key or disables and re-enables it.",
    params(
        ("key_id" = String, Path, description = "The API key id."),
    ),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::ApiKey),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let principal = authenticate(&state, &req).await?;
    let body = read_body(payload).await?;
    let input: UpdateBody = parse_json(&req, &body)?;
    let changes = KeyChanges {
        name: input.name,
        disabled: input.disabled,
    };
    let key = state
        .ledger
        .update_key(&principal, &org, &id, changes)
        .await?;
    Ok(HttpResponse::Ok().json(views::ApiKeyView::of(&key, None)))
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/api-keys/{key_id}",
    operation_id = "api_keys_delete",
    tag = "api-keys",
    summary = "Revoke an API key",
    description = "Revokes an API key: it stops authenticating at once.",
    params(
        ("key_id" = String, Path, description = "The API key id."),
    ),
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
    let (org, id) = path.into_inner();
    let principal = authenticate(&state, &req).await?;
    let id = state.ledger.delete_key(&principal, &org, &id).await?;
    Ok(HttpResponse::Ok().json(views::DeletedView::permanent("api_key", &id)))
}
