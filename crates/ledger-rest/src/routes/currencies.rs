//! Currencies (DECISIONS 10): the global ISO 4217 list and one currency, and conversions
//! with the calling key's organization's exchange rates. Reads: any authenticated key
//! with `read`; nothing is charged.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::money::Currency;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{ConversionInput, find_currency};
use ledger_domain::views;
use serde::Deserialize;

use super::State;
use super::resource::required;
use super::{Routes, at};
use crate::auth::authenticate;
use crate::error::ApiError;
use crate::input::{DecimalText, page, parse_json, read_body};

/// The permission resource of currency reads.
const RESOURCE: &str = "currencies";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/currencies").get(list::<S>))
        .add(at("/currencies/convert").post(convert::<S>))
        .add(at("/currencies/{code}").get(get::<S>));
}

/// Every currency with a minor unit, by code (default page 100: reference data).
#[utoipa::path(
    get,
    path = "/currencies",
    operation_id = "currencies_list",
    tag = "currencies",
    summary = "List currencies",
    description = "Lists the ISO 4217 currencies the ledger knows, with the number of decimal places each allows.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::CurrencyList),
    ),
)]
async fn list<S: Store>(state: State<S>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    state
        .ledger
        .check_permission(&principal, Scope::Read, RESOURCE)?;
    let page = page(&req, 100)?;
    let all = Currency::all();
    let total_count = all.len() as i64;
    let data: Vec<views::CurrencyView> = all
        .iter()
        .skip(usize::try_from(page.offset).unwrap_or(usize::MAX))
        .take(usize::try_from(page.limit).unwrap_or(0))
        .map(views::CurrencyView::of)
        .collect();
    Ok(HttpResponse::Ok().json(views::List::page(data, page.offset, total_count)))
}

/// One currency by code (`USD`) or id (`cur_USD`, any prefix case).
#[utoipa::path(
    get,
    path = "/currencies/{code}",
    operation_id = "currencies_get",
    tag = "currencies",
    summary = "Get a currency",
    description = "Returns one currency by its ISO 4217 code, with its name and the number of decimal places it allows.",
    params(
        ("code" = String, Path, description = "The ISO 4217 currency code (or a `cur_` id)."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Currency),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    state
        .ledger
        .check_permission(&principal, Scope::Read, RESOURCE)?;
    let currency = find_currency(&path.into_inner())?;
    Ok(HttpResponse::Ok().json(views::currency(&currency)))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = CurrencyConvertRequest)]
#[serde(deny_unknown_fields)]
struct ConvertBody {
    #[schema(required = true, schema_with = crate::openapi::currency_code)]
    from_currency: Option<String>,
    #[schema(required = true, schema_with = crate::openapi::currency_code)]
    to_currency: Option<String>,
    #[schema(required = true, value_type = crate::openapi::NonNegativeAmount)]
    amount: Option<DecimalText>,
    #[schema(schema_with = crate::openapi::optional_date_only)]
    date: Option<String>,
}

/// Converts an amount with the rates of the key's own organization and mode (a read).
#[utoipa::path(
    post,
    path = "/currencies/convert",
    operation_id = "currencies_convert",
    tag = "currencies",
    summary = "Convert an amount between currencies",
    description = "Converts an amount from one currency into another with the organization's exchange rates in force on `date`, rounded to the target currency's minor unit. A read: it writes and charges nothing.",
    request_body(content = ConvertBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Conversion),
    ),
    // A POST that only reads.
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn convert<S: Store>(
    state: State<S>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    let org = principal.organization.id.clone();
    let access = state
        .ledger
        .authorize(&principal, &org, Scope::Read, "exchange_rates")
        .await?;
    let body = read_body(payload).await?;
    let input: ConvertBody = parse_json(&req, &body)?;
    let input = ConversionInput {
        from_currency: required(input.from_currency, "from_currency")?,
        to_currency: required(input.to_currency, "to_currency")?,
        amount: required(input.amount, "amount")?.0,
        date: input.date,
    };
    let conversion = state.ledger.convert_currency(&access, input).await?;
    Ok(HttpResponse::Ok().json(views::conversion(&conversion)))
}
