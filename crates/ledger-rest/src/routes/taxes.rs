//! Taxes (spec 4.9): synchronous create, read, list, update and soft delete.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{NewTaxInput, TaxChanges, Write};
use ledger_domain::tax::format_rate;
use ledger_domain::views;
use serde::Deserialize;
use serde_json::json;

use super::{State, access};
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, page, parse_json, query_bool, query_param, read_body};
use crate::queued::submit;

const RESOURCE: &str = "taxes";

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/organizations/{org}/taxes")
            .route(web::get().to(list::<S>))
            .route(web::post().to(create::<S>)),
    )
    .service(
        web::resource("/organizations/{org}/taxes/{id}")
            .route(web::get().to(get::<S>))
            .route(web::put().to(update::<S>))
            .route(web::delete().to(delete::<S>)),
    );
}

fn required<T>(value: Option<T>, name: &str) -> Result<T, ApiError> {
    value.ok_or_else(|| {
        validation(
            ErrorCode::MissingField,
            Some(name.into()),
            format!("{name} is required"),
        )
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    name: Option<String>,
    rate: Option<DecimalText>,
    tax_type: Option<String>,
    description: Option<String>,
    is_compound: Option<bool>,
    is_active: Option<bool>,
}

async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: CreateBody = parse_json(&req, &body)?;
    let input = NewTaxInput {
        name: required(input.name, "name")?,
        rate: required(input.rate, "rate")?.0,
        tax_type: required(input.tax_type, "tax_type")?,
        description: input.description,
        is_compound: input.is_compound,
        is_active: input.is_active,
    };
    let write = Write::CreateTax(input);
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let tax = state.ledger.get_tax(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::tax(&tax)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    name: Option<String>,
    description: Option<String>,
    rate: Option<DecimalText>,
    is_active: Option<bool>,
}

async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: UpdateBody = parse_json(&req, &body)?;
    let changes = TaxChanges {
        name: input.name,
        description: input.description,
        rate: input.rate.map(|r| r.0),
        is_active: input.is_active,
    };
    let write = Write::UpdateTax { id, changes };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    submit(
        &state,
        &req,
        &access,
        b"",
        StatusCode::OK,
        Write::DeleteTax { id },
    )
    .await
}

async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let result = state
        .ledger
        .list_taxes(
            &access,
            query_param(&req, "tax_type").as_deref(),
            query_bool(&req, "is_active")?,
            page,
        )
        .await?;
    let data: Vec<serde_json::Value> = result
        .items
        .iter()
        .map(|t| {
            json!({
                "id": t.id,
                "object": "tax",
                "name": t.name,
                "rate": format_rate(t.rate),
                "tax_type": t.tax_type.as_str(),
                "is_compound": t.is_compound,
                "is_active": t.is_active,
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "data": data,
        "has_more": page.offset + (result.items.len() as i64) < result.total_count,
        "total_count": result.total_count,
    })))
}
