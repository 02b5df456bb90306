//! Taxes (spec 4.9): synchronous create, read, list, update and soft delete.

use actix_web::{HttpRequest, HttpResponse};
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, NewTaxInput, TaxChanges, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::crud::{Crud, crud_operations};
use super::list_response;
use super::resource::required;
use crate::AppState;
use crate::error::ApiError;
use crate::input::{DecimalText, query_bool, query_param};

crud_operations! {
    Taxes, tag "taxes", schemas Tax, TaxList;
    paths "/organizations/{org}/taxes", "/organizations/{org}/taxes/{id}";
    create "taxes_create": "Create a tax",
        "Creates a tax: its name, type (`sales_tax`, `vat`, `excise` or `other`), rate in percent, and whether it is compound.";
    get "taxes_get": "Get a tax", "Returns one tax with its type and rate.";
    update "taxes_update": "Update a tax", "Changes a tax's name, description, rate or active flag.";
    delete "taxes_delete": "Delete a tax",
        "Soft-deletes a tax; it is listed under recently deleted while it can be restored.";
    list "taxes_list": "List taxes",
        "Lists the organization's taxes by name, filtered by type and active flag (active ones by default).",
        filters(
            ("tax_type" = Option<String>, Query, description = "Filter by tax type."),
            ("is_active" = Option<bool>, Query, description = "true or false."),
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

struct Taxes;

impl Crud for Taxes {
    const RESOURCE: &'static str = "taxes";
    type CreateBody = CreateBody;
    type UpdateBody = UpdateBody;

    fn create(input: CreateBody) -> Result<Write, ApiError> {
        Ok(Write::CreateTax(NewTaxInput {
            name: required(input.name, "name")?,
            rate: required(input.rate, "rate")?.0,
            tax_type: required(input.tax_type, "tax_type")?,
            description: input.description,
            is_compound: input.is_compound,
            is_active: input.is_active,
        }))
    }

    fn update(id: String, input: UpdateBody) -> Result<Write, ApiError> {
        let changes = TaxChanges {
            name: input.name,
            description: input.description,
            rate: input.rate.map(|r| r.0),
            is_active: input.is_active,
        };
        Ok(Write::UpdateTax { id, changes })
    }

    fn delete(id: String) -> Write {
        Write::DeleteTax { id }
    }

    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError> {
        let tax = state.ledger.get_tax(access, id).await?;
        Ok(HttpResponse::Ok().json(views::tax(&tax)))
    }

    async fn list<S: Store>(
        state: &AppState<S>,
        req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError> {
        let result = state
            .ledger
            .list_taxes(
                access,
                query_param(req, "tax_type").as_deref(),
                query_bool(req, "is_active")?,
                page,
            )
            .await?;
        Ok(list_response(page, &result, views::TaxSummaryView::of))
    }
}
