//! Categories (spec 4.8): synchronous create, read (with subcategories), list, update and
//! soft delete.

use actix_web::{HttpRequest, HttpResponse};
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, CategoryChanges, NewCategoryInput, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::crud::{Crud, crud_operations};
use super::list_response;
use super::resource::{present, required};
use crate::AppState;
use crate::error::ApiError;
use crate::input::{query_bool, query_param};

crud_operations! {
    Categories, tag "categories", schemas Category, CategoryList;
    paths "/organizations/{org}/categories", "/organizations/{org}/categories/{id}";
    create "categories_create": "Create a category",
        "Creates a category of a type (`income`, `expense` or `other`), optionally under a parent category of the same type.";
    get "categories_get": "Get a category",
        "Returns one category with its type, parent and activity.";
    update "categories_update": "Update a category",
        "Changes a category's name, description, colour, parent or active flag.";
    delete "categories_delete": "Delete a category",
        "Soft-deletes a category; it is listed under recently deleted while it can be restored.";
    list "categories_list": "List categories",
        "Lists the organization's categories by name, filtered by type, active flag (active ones by default) and parent.",
        filters(
            ("category_type" = Option<String>, Query, description = "Filter by category type."),
            ("is_active" = Option<bool>, Query, description = "true or false."),
            ("parent_id" = Option<String>, Query, description = "Filter by parent id."),
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

struct Categories;

impl Crud for Categories {
    const RESOURCE: &'static str = "categories";
    type CreateBody = CreateBody;
    type UpdateBody = UpdateBody;

    fn create(input: CreateBody) -> Result<Write, ApiError> {
        let input = NewCategoryInput {
            name: required(input.name, "name")?,
            category_type: required(input.category_type, "category_type")?,
            description: input.description,
            color: input.color,
            parent_id: input.parent_id,
            is_active: input.is_active,
        };
        Ok(Write::CreateCategory(input))
    }

    fn update(id: String, input: UpdateBody) -> Result<Write, ApiError> {
        let changes = CategoryChanges {
            name: input.name,
            description: input.description,
            color: input.color,
            is_active: input.is_active,
            parent_id: input.parent_id,
        };
        Ok(Write::UpdateCategory { id, changes })
    }

    fn delete(id: String) -> Write {
        Write::DeleteCategory { id }
    }

    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError> {
        let view = state.ledger.category_view(access, id).await?;
        Ok(HttpResponse::Ok().json(views::category(&view.category, Some(&view.subcategories))))
    }

    async fn list<S: Store>(
        state: &AppState<S>,
        req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError> {
        let result = state
            .ledger
            .list_categories(
                access,
                query_param(req, "category_type").as_deref(),
                query_bool(req, "is_active")?,
                query_param(req, "parent_id").as_deref(),
                page,
            )
            .await?;
        Ok(list_response(page, &result, views::CategorySummaryView::of))
    }
}
