//! Taxes (spec 4.9): synchronous create, read, list, update and soft delete.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{NewTaxInput, TaxChanges, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::resource::{queue_admin_write, queue_json, required, resource_access};
use super::{Routes, State, access, at, list_response};
use crate::error::ApiError;
use crate::input::{DecimalText, page, query_bool, query_param};

const RESOURCE: &str = "taxes";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/taxes")
            .get(list::<S>)
            .post(create::<S>),
    )
    .add(
        at("/organizations/{org}/taxes/{id}")
            .get(get::<S>)
            .put(update::<S>)
            .delete(delete::<S>),
    );
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TaxCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::name)]
    name: Option<String>,
    #[schema(required = true, value_type = crate::openapi::TaxRate)]
    rate: Option<DecimalText>,
    #[schema(required = true, schema_with = crate::openapi::tax_type)]
    tax_type: Option<String>,
    description: Option<String>,
    is_compound: Option<bool>,
    is_active: Option<bool>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/taxes",
    operation_id = "taxes_create",
    tag = "taxes",
    summary = "Create a tax",
    description = "Creates a tax: its name, type (`sales_tax`, `vat`, `excise` or `other`), rate in percent, and whether it is compound.",
    params(crate::openapi::params::OrgPath, crate::openapi::params::QueuedWrite),
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Tax),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Write, RESOURCE).await?;
    queue_json(
        &state,
        &req,
        &access,
        payload,
        StatusCode::CREATED,
        |input: CreateBody| {
            Ok(Write::CreateTax(NewTaxInput {
                name: required(input.name, "name")?,
                rate: required(input.rate, "rate")?.0,
                tax_type: required(input.tax_type, "tax_type")?,
                description: input.description,
                is_compound: input.is_compound,
                is_active: input.is_active,
            }))
        },
    )
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/taxes/{id}",
    operation_id = "taxes_get",
    tag = "taxes",
    summary = "Get a tax",
    description = "Returns one tax with its type and rate.",
    params(crate::openapi::params::ResourcePath),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Tax),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let tax = state.ledger.get_tax(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::tax(&tax)))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TaxUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[schema(schema_with = crate::openapi::optional_name)]
    name: Option<String>,
    description: Option<String>,
    #[schema(value_type = Option<crate::openapi::TaxRate>)]
    rate: Option<DecimalText>,
    is_active: Option<bool>,
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/taxes/{id}",
    operation_id = "taxes_update",
    tag = "taxes",
    summary = "Update a tax",
    description = "Changes a tax's name, description, rate or active flag.",
    params(crate::openapi::params::ResourcePath, crate::openapi::params::QueuedWrite),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Tax),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Write, RESOURCE).await?;
    queue_json(
        &state,
        &req,
        &access,
        payload,
        StatusCode::OK,
        |input: UpdateBody| {
            let changes = TaxChanges {
                name: input.name,
                description: input.description,
                rate: input.rate.map(|r| r.0),
                is_active: input.is_active,
            };
            Ok(Write::UpdateTax { id, changes })
        },
    )
    .await
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/taxes/{id}",
    operation_id = "taxes_delete",
    tag = "taxes",
    summary = "Delete a tax",
    description = "Soft-deletes a tax; it is listed under recently deleted while it can be restored.",
    params(crate::openapi::params::ResourcePath, crate::openapi::params::QueuedWrite),
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
    queue_admin_write(&state, &req, path, RESOURCE, |id| Write::DeleteTax { id }).await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/taxes",
    operation_id = "taxes_list",
    tag = "taxes",
    summary = "List taxes",
    description = "Lists the organization's taxes by name, filtered by type and active flag (active ones by default).",
    params(
        crate::openapi::params::OrgPath,
        ("tax_type" = Option<String>, Query, description = "Filter by tax type."),
        ("is_active" = Option<bool>, Query, description = "true or false."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::TaxList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
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
    Ok(list_response(page, &result, views::TaxSummaryView::of))
}
