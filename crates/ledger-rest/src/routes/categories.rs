//! Categories (spec 4.8): synchronous create, read (with subcategories), list, update and
//! soft delete.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{CategoryChanges, NewCategoryInput, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::resource::{present, queue_admin_write, queue_json, required, resource_access};
use super::{Routes, State, access, at, list_response};
use crate::error::ApiError;
use crate::input::{page, query_bool, query_param};

const RESOURCE: &str = "categories";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/categories")
            .get(list::<S>)
            .post(create::<S>),
    )
    .add(
        at("/organizations/{org}/categories/{id}")
            .get(get::<S>)
            .put(update::<S>)
            .delete(delete::<S>),
    );
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = CategoryCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::name)]
    name: Option<String>,
    #[schema(required = true, schema_with = crate::openapi::category_type)]
    category_type: Option<String>,
    description: Option<String>,
    /// `#RRGGBB`.
    #[schema(pattern = "^#[0-9A-Fa-f]{6}$")]
    color: Option<String>,
    parent_id: Option<String>,
    is_active: Option<bool>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/categories",
    operation_id = "categories_create",
    tag = "categories",
    summary = "Create a category",
    description = "Creates a category of a type (`income`, `expense` or `other`), optionally under a parent category of the same type.",
    params(crate::openapi::params::OrgPath, crate::openapi::params::QueuedWrite),
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Category),
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
            let input = NewCategoryInput {
                name: required(input.name, "name")?,
                category_type: required(input.category_type, "category_type")?,
                description: input.description,
                color: input.color,
                parent_id: input.parent_id,
                is_active: input.is_active,
            };
            Ok(Write::CreateCategory(input))
        },
    )
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/categories/{id}",
    operation_id = "categories_get",
    tag = "categories",
    summary = "Get a category",
    description = "Returns one category with its type, parent and activity.",
    params(crate::openapi::params::ResourcePath),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Category),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let view = state.ledger.category_view(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::category(&view.category, Some(&view.subcategories))))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = CategoryUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[schema(schema_with = crate::openapi::optional_name)]
    name: Option<String>,
    description: Option<String>,
    /// `#RRGGBB`.
    #[schema(pattern = "^#[0-9A-Fa-f]{6}$")]
    color: Option<String>,
    is_active: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    parent_id: Option<Option<String>>,
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/categories/{id}",
    operation_id = "categories_update",
    tag = "categories",
    summary = "Update a category",
    description = "Changes a category's name, description, colour, parent or active flag.",
    params(crate::openapi::params::ResourcePath, crate::openapi::params::QueuedWrite),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Category),
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
            let changes = CategoryChanges {
                name: input.name,
                description: input.description,
                color: input.color,
                is_active: input.is_active,
                parent_id: input.parent_id,
            };
            Ok(Write::UpdateCategory { id, changes })
        },
    )
    .await
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/categories/{id}",
    operation_id = "categories_delete",
    tag = "categories",
    summary = "Delete a category",
    description = "Soft-deletes a category; it is listed under recently deleted while it can be restored.",
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
    queue_admin_write(&state, &req, path, RESOURCE, |id| Write::DeleteCategory {
        id,
    })
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/categories",
    operation_id = "categories_list",
    tag = "categories",
    summary = "List categories",
    description = "Lists the organization's categories by name, filtered by type, active flag (active ones by default) and parent.",
    params(
        crate::openapi::params::OrgPath,
        ("category_type" = Option<String>, Query, description = "Filter by category type."),
        ("is_active" = Option<bool>, Query, description = "true or false."),
        ("parent_id" = Option<String>, Query, description = "Filter by parent id."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::CategoryList),
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
        .list_categories(
            &access,
            query_param(&req, "category_type").as_deref(),
            query_bool(&req, "is_active")?,
            query_param(&req, "parent_id").as_deref(),
            page,
        )
        .await?;
    Ok(list_response(page, &result, views::CategorySummaryView::of))
}
