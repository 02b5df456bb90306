//! Exchange rates of an organization (spec 2.9, 4.11): synchronous create, read, list,
//! update (rate and effective date) and soft delete through the write pipeline.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::exchange::parse_currency;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{ExchangeRateChanges, NewExchangeRateInput, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::resource::{queue_admin_write, queue_json, required, resource_access};
use super::{Routes, State, access, at, list_response};
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, page, query_param};

const RESOURCE: &str = "exchange_rates";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/exchange-rates")
            .get(list::<S>)
            .post(create::<S>),
    )
    .add(
        at("/organizations/{org}/exchange-rates/{id}")
            .get(get::<S>)
            .put(update::<S>)
            .delete(delete::<S>),
    );
}

/// A currency given as `<side>_currency_id` or by its alias `<side>_currency`: either
/// one, or both naming the same currency.
fn currency(id: Option<String>, code: Option<String>, field: &str) -> Result<String, ApiError> {
    match (id, code) {
        (Some(id), Some(code)) => match (parse_currency(&id), parse_currency(&code)) {
            (Some(a), Some(b)) if a == b => Ok(id),
            // Two currencies, each valid, that disagree: a rule across members (422).
            (Some(_), Some(_)) => Err(ApiError(DomainError::inconsistent(
                field,
                "names another currency than its alias",
            ))),
            _ => Err(validation(
                ErrorCode::InvalidField,
                Some(field.into()),
                format!("{field}: names another currency than its alias"),
            )),
        },
        (Some(one), None) | (None, Some(one)) => Ok(one),
        (None, None) => required(None, field),
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ExchangeRateCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::currency_code)]
    from_currency_id: Option<String>,
    #[schema(required = true, schema_with = crate::openapi::currency_code)]
    to_currency_id: Option<String>,
    /// The same as `from_currency_id` (either one, or both naming the same currency).
    #[schema(deprecated, schema_with = crate::openapi::optional_currency_code)]
    from_currency: Option<String>,
    /// The same as `to_currency_id` (either one, or both naming the same currency).
    #[schema(deprecated, schema_with = crate::openapi::optional_currency_code)]
    to_currency: Option<String>,
    #[schema(required = true, value_type = crate::openapi::RateValue)]
    rate: Option<DecimalText>,
    #[schema(required = true, schema_with = crate::openapi::date_only)]
    effective_date: Option<String>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/exchange-rates",
    operation_id = "exchange_rates_create",
    tag = "exchange-rates",
    summary = "Create an exchange rate",
    description = "Records the rate from one currency into another, effective from a date: a conversion on a day uses the pair's rate with the latest effective date on or before it (or the inverse of the reversed pair's).",
    params(crate::openapi::params::OrgPath, crate::openapi::params::QueuedWrite),
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::ExchangeRate),
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
            let input = NewExchangeRateInput {
                from_currency: currency(
                    input.from_currency_id,
                    input.from_currency,
                    "from_currency_id",
                )?,
                to_currency: currency(input.to_currency_id, input.to_currency, "to_currency_id")?,
                rate: required(input.rate, "rate")?.0,
                effective_date: required(input.effective_date, "effective_date")?,
            };
            Ok(Write::CreateExchangeRate(input))
        },
    )
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/exchange-rates/{id}",
    operation_id = "exchange_rates_get",
    tag = "exchange-rates",
    summary = "Get an exchange rate",
    description = "Returns one exchange rate with its currencies, value and effective date.",
    params(crate::openapi::params::ResourcePath),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::ExchangeRate),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let rate = state.ledger.get_exchange_rate(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::exchange_rate(&rate)))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ExchangeRateUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[schema(value_type = Option<crate::openapi::RateValue>)]
    rate: Option<DecimalText>,
    #[schema(schema_with = crate::openapi::optional_date_only)]
    effective_date: Option<String>,
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/exchange-rates/{id}",
    operation_id = "exchange_rates_update",
    tag = "exchange-rates",
    summary = "Update an exchange rate",
    description = "Changes an exchange rate's value or effective date.",
    params(crate::openapi::params::ResourcePath, crate::openapi::params::QueuedWrite),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::ExchangeRate),
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
            let changes = ExchangeRateChanges {
                rate: input.rate.map(|r| r.0),
                effective_date: input.effective_date,
            };
            Ok(Write::UpdateExchangeRate { id, changes })
        },
    )
    .await
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/exchange-rates/{id}",
    operation_id = "exchange_rates_delete",
    tag = "exchange-rates",
    summary = "Delete an exchange rate",
    description = "Soft-deletes an exchange rate; conversions then use the pair's rate in force before it.",
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
    queue_admin_write(&state, &req, path, RESOURCE, |id| {
        Write::DeleteExchangeRate { id }
    })
    .await
}

/// Rates newest effective date first, optionally of one source or target currency.
#[utoipa::path(
    get,
    path = "/organizations/{org}/exchange-rates",
    operation_id = "exchange_rates_list",
    tag = "exchange-rates",
    summary = "List exchange rates",
    description = "Lists the organization's exchange rates, newest effective date first, filtered by source and target currency.",
    params(
        crate::openapi::params::OrgPath,
        ("from_currency" = Option<String>, Query, description = "Filter by from currency."),
        ("to_currency" = Option<String>, Query, description = "Filter by to currency."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::ExchangeRateList),
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
        .list_exchange_rates(
            &access,
            query_param(&req, "from_currency").as_deref(),
            query_param(&req, "to_currency").as_deref(),
            page,
        )
        .await?;
    Ok(list_response(page, &result, views::exchange_rate))
}
