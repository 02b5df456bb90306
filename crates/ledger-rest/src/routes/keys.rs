//! API-key management (spec 4.11, DECISIONS 10), also under `/api/v1` (spec 9).

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::ports::Store;
use ledger_domain::services::{KeyChanges, NewKeyInput};
use ledger_domain::views;
use serde::Deserialize;
use serde_json::json;

use super::State;
use crate::auth::{authenticate, generate_key};
use crate::error::{ApiError, validation};
use crate::input::{FlexDate, page, parse_json, read_body};

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    for prefix in ["", "/api/v1"] {
        cfg.service(
            web::resource(format!("{prefix}/organizations/{{org}}/api-keys"))
                .route(web::get().to(list::<S>))
                .route(web::post().to(create::<S>)),
        )
        .service(
            web::resource(format!(
                "{prefix}/organizations/{{org}}/api-keys/{{key_id}}"
            ))
            .route(web::get().to(get::<S>))
            .route(web::put().to(update::<S>))
            .route(web::delete().to(delete::<S>)),
        )
        .route(
            &format!("{prefix}/organizations/{{org}}/api-keys/{{key_id}}/rotate"),
            web::post().to(rotate::<S>),
        );
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    name: Option<String>,
    permissions: Option<Vec<String>>,
    mode: Option<String>,
    expires_at: Option<FlexDate>,
}

async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    let body = read_body(payload).await?;
    let input: CreateBody = parse_json(&req, &body)?;
    let missing = |name: &str| {
        validation(
            ErrorCode::MissingField,
            Some(name.into()),
            format!("{name} is required"),
        )
    };
    let input = NewKeyInput {
        name: input.name.ok_or_else(|| missing("name"))?,
        permissions: input.permissions.ok_or_else(|| missing("permissions"))?,
        mode: input.mode,
        expires_at: input.expires_at.map(|d| d.at),
    };
    let (key, secret) = state
        .ledger
        .create_key(&principal, &path.into_inner(), input, generate_key)
        .await?;
    Ok(HttpResponse::Created().json(views::api_key(&key, Some(&secret))))
}

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
    let data: Vec<serde_json::Value> = result
        .items
        .iter()
        .map(|k| views::api_key(k, None))
        .collect();
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "data": data,
        "has_more": page.offset + (result.items.len() as i64) < result.total_count,
        "total_count": result.total_count,
    })))
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let principal = authenticate(&state, &req).await?;
    let key = state.ledger.get_key(&principal, &org, &id).await?;
    Ok(HttpResponse::Ok().json(views::api_key(&key, None)))
}

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
    Ok(HttpResponse::Ok().json(views::api_key(&key, Some(&secret))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    name: Option<String>,
    disabled: Option<bool>,
}

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
    Ok(HttpResponse::Ok().json(views::api_key(&key, None)))
}

async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let principal = authenticate(&state, &req).await?;
    let id = state.ledger.delete_key(&principal, &org, &id).await?;
    Ok(HttpResponse::Ok().json(json!({ "id": id, "object": "api_key", "deleted": true })))
}
