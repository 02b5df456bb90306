//! Exchange rates of an organization (spec 2.9, 4.11): synchronous create, read, list,
//! update (rate and effective date) and soft delete through the write pipeline.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::exchange::parse_currency;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{ExchangeRateChanges, NewExchangeRateInput, Write};
use ledger_domain::views;
use serde::Deserialize;
use serde_json::json;

use super::{State, access};
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, page, parse_json, query_param, read_body};
use crate::queued::submit;

const RESOURCE: &str = "exchange_rates";

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/organizations/{org}/exchange-rates")
            .route(web::get().to(list::<S>))
            .route(web::post().to(create::<S>)),
    )
    .service(
        web::resource("/organizations/{org}/exchange-rates/{id}")
            .route(web::get().to(get::<S>))
            .route(web::put().to(update::<S>))
            .route(web::delete().to(delete::<S>)),
    );
}

/// A required body member, or `missing_field` naming it.
pub(super) fn required<T>(value: Option<T>, name: &str) -> Result<T, ApiError> {
    value.ok_or_else(|| {
        validation(
            ErrorCode::MissingField,
            Some(name.into()),
            format!("{name} is required"),
        )
    })
}

/// A currency given as `<side>_currency_id` or by its alias `<side>_currency`: either
/// one, or both naming the same currency.
fn currency(id: Option<String>, code: Option<String>, field: &str) -> Result<String, ApiError> {
    match (id, code) {
        (Some(id), Some(code)) => {
            let same =
                parse_currency(&id).is_some() && parse_currency(&id) == parse_currency(&code);
            if same {
                Ok(id)
            } else {
                Err(validation(
                    ErrorCode::InvalidField,
                    Some(field.into()),
                    format!("{field}: names another currency than its alias"),
                ))
            }
        }
        (Some(one), None) | (None, Some(one)) => Ok(one),
        (None, None) => required(None, field),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    from_currency_id: Option<String>,
    to_currency_id: Option<String>,
    from_currency: Option<String>,
    to_currency: Option<String>,
    rate: Option<DecimalText>,
    effective_date: Option<String>,
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
    let write = Write::CreateExchangeRate(input);
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let rate = state.ledger.get_exchange_rate(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::exchange_rate(&rate)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    rate: Option<DecimalText>,
    effective_date: Option<String>,
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
    let changes = ExchangeRateChanges {
        rate: input.rate.map(|r| r.0),
        effective_date: input.effective_date,
    };
    let write = Write::UpdateExchangeRate { id, changes };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let write = Write::DeleteExchangeRate { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

/// Rates newest effective date first, optionally of one source or target currency.
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
    let data: Vec<serde_json::Value> = result.items.iter().map(views::exchange_rate).collect();
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "data": data,
        "has_more": page.offset + (result.items.len() as i64) < result.total_count,
        "total_count": result.total_count,
    })))
}
