//! The steps the handlers of an organization's resources share: clearing the access to
//! one resource, queuing the write made of a JSON body or of an id alone, and the body
//! members a write requires. A handler keeps only what is its own: its body type, the
//! write it builds and the read it makes.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, Write};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::access;
use crate::AppState;
use crate::error::{ApiError, validation};
use crate::input::{page, parse_json, read_body};
use crate::queued::submit;

/// A required body member, or `missing_field` naming it.
pub(crate) fn required<T>(value: Option<T>, name: &str) -> Result<T, ApiError> {
    value.ok_or_else(|| {
        validation(
            ErrorCode::MissingField,
            Some(name.into()),
            format!("{name} is required"),
        )
    })
}

/// A member that may be given as `null` (clear it) or a value; absent stays `None`
/// (`#[serde(default, deserialize_with = "present")]`).
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// Authenticates the request to a path of `/organizations/{org}` (a collection, a report)
/// and clears it for `needed` on `resource`.
pub(crate) async fn organization_access<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    path: web::Path<String>,
    needed: Scope,
    resource: &str,
) -> Result<Access, ApiError> {
    access(state, req, &path.into_inner(), needed, resource).await
}

/// Authenticates the request to `/organizations/{org}/<resource>/{id}` and clears it for
/// `needed`; answers the access and the id.
pub(crate) async fn resource_access<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    path: web::Path<(String, String)>,
    needed: Scope,
    resource: &str,
) -> Result<(Access, String), ApiError> {
    let (org, id) = path.into_inner();
    let access = access(state, req, &org, needed, resource).await?;
    Ok((access, id))
}

/// The JSON body of a write whose body is optional: an empty one is `B::default()` (the
/// defaults of every member).
pub(crate) fn optional_json<B: DeserializeOwned + Default>(
    req: &HttpRequest,
    body: &[u8],
) -> Result<B, ApiError> {
    if body.is_empty() {
        Ok(B::default())
    } else {
        parse_json(req, body)
    }
}

/// Reads the JSON body, builds the write of it with `build` and queues it (answering
/// `success` once it is done).
pub(crate) async fn queue_json<S: Store, B: DeserializeOwned>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    payload: web::Payload,
    success: StatusCode,
    build: impl FnOnce(B) -> Result<Write, ApiError>,
) -> Result<HttpResponse, ApiError> {
    let body = read_body(payload).await?;
    let input: B = parse_json(req, &body)?;
    submit(state, req, access, &body, success, build(input)?).await
}

/// Creates one of the organization's `resource`s: clears the request to
/// `/organizations/{org}/<resource>` for `needed` and queues the write `build` makes of
/// the JSON body, 201 once it is done.
pub(crate) async fn queue_create<S: Store, B: DeserializeOwned>(
    state: &AppState<S>,
    req: &HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    needed: Scope,
    resource: &str,
    build: impl FnOnce(B) -> Result<Write, ApiError>,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(state, req, path, needed, resource).await?;
    queue_json(state, req, &access, payload, StatusCode::CREATED, build).await
}

/// Changes one resource: clears the request to `/organizations/{org}/<resource>/{id}`
/// for `needed` and queues the write `build` makes of the id and the JSON body, 200 once
/// it is done.
pub(crate) async fn queue_update<S: Store, B: DeserializeOwned>(
    state: &AppState<S>,
    req: &HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
    needed: Scope,
    resource: &str,
    build: impl FnOnce(String, B) -> Result<Write, ApiError>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(state, req, path, needed, resource).await?;
    queue_json(state, req, &access, payload, StatusCode::OK, |input| {
        build(id, input)
    })
    .await
}

/// The start of a list read: the request to `/organizations/{org}/<resource>` cleared
/// for `read`, and the page it asks for (`default_limit` items unless it says).
pub(crate) async fn list_access<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    path: web::Path<String>,
    resource: &str,
    default_limit: i64,
) -> Result<(Access, PageRequest), ApiError> {
    let access = organization_access(state, req, path, Scope::Read, resource).await?;
    Ok((access, page(req, default_limit)?))
}

/// A write on one resource that takes no body and needs `admin` (a delete, a secret
/// rotation): the write `build` makes of the id, queued, 200 once it is done.
pub(crate) async fn queue_admin_write<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    path: web::Path<(String, String)>,
    resource: &str,
    build: impl FnOnce(String) -> Write,
) -> Result<HttpResponse, ApiError> {
    queue_action(state, req, path, None, Scope::Admin, resource, build).await
}

/// A write on one resource that takes no body and needs `needed` (a post, a pause, a
/// delete): the write `build` makes of the id, queued, 200 once it is done. With
/// `payload`, whatever body came along is read and fingerprints the request for its
/// `Idempotency-Key`; without, the fingerprint is empty.
pub(crate) async fn queue_action<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    path: web::Path<(String, String)>,
    payload: Option<web::Payload>,
    needed: Scope,
    resource: &str,
    build: impl FnOnce(String) -> Write,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(state, req, path, needed, resource).await?;
    let body = match payload {
        Some(payload) => read_body(payload).await?,
        None => Vec::new(),
    };
    submit(state, req, &access, &body, StatusCode::OK, build(id)).await
}
