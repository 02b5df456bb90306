//! Exchange rates of an organization (spec 2.9, 4.11): synchronous create, read, list,
//! update (rate and effective date) and soft delete through the write pipeline.

use actix_web::{HttpRequest, HttpResponse};
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::exchange::parse_currency;
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, ExchangeRateChanges, NewExchangeRateInput, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::crud::{Crud, crud_operations};
use super::list_response;
use super::resource::required;
use crate::AppState;
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, query_param};

crud_operations! {
    ExchangeRates, tag "exchange-rates", schemas ExchangeRate, ExchangeRateList;
    paths "/organizations/{org}/exchange-rates", "/organizations/{org}/exchange-rates/{id}";
    create "exchange_rates_create": "Create an exchange rate",
        "Records the rate from one currency into another, effective from a date: a conversion on a day uses the pair's rate with the latest effective date on or before it (or the inverse of the reversed pair's).";
    get "exchange_rates_get": "Get an exchange rate",
        "Returns one exchange rate with its currencies, value and effective date.";
    update "exchange_rates_update": "Update an exchange rate",
        "Changes an exchange rate's value or effective date.";
    delete "exchange_rates_delete": "Delete an exchange rate",
        "Soft-deletes an exchange rate; conversions then use the pair's rate in force before it.";
    list "exchange_rates_list": "List exchange rates",
        "Lists the organization's exchange rates, newest effective date first, filtered by source and target currency.",
        filters(
            ("from_currency" = Option<String>, Query, description = "Filter by from currency."),
            ("to_currency" = Option<String>, Query, description = "Filter by to currency."),
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

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ExchangeRateUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[schema(value_type = Option<crate::openapi::RateValue>)]
    rate: Option<DecimalText>,
    #[schema(schema_with = crate::openapi::optional_date_only)]
    effective_date: Option<String>,
}

struct ExchangeRates;

impl Crud for ExchangeRates {
    const RESOURCE: &'static str = "exchange_rates";
    type CreateBody = CreateBody;
    type UpdateBody = UpdateBody;

    fn create(input: CreateBody) -> Result<Write, ApiError> {
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
    }

    fn update(id: String, input: UpdateBody) -> Result<Write, ApiError> {
        let changes = ExchangeRateChanges {
            rate: input.rate.map(|r| r.0),
            effective_date: input.effective_date,
        };
        Ok(Write::UpdateExchangeRate { id, changes })
    }

    fn delete(id: String) -> Write {
        Write::DeleteExchangeRate { id }
    }

    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError> {
        let rate = state.ledger.get_exchange_rate(access, id).await?;
        Ok(HttpResponse::Ok().json(views::exchange_rate(&rate)))
    }

    /// Rates newest effective date first, optionally of one source or target currency.
    async fn list<S: Store>(
        state: &AppState<S>,
        req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError> {
        let result = state
            .ledger
            .list_exchange_rates(
                access,
                query_param(req, "from_currency").as_deref(),
                query_param(req, "to_currency").as_deref(),
                page,
            )
            .await?;
        Ok(list_response(page, &result, views::exchange_rate))
    }
}
