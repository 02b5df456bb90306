//! Organization settings and the billing record (spec 2.2, 4.11).

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::views;
use serde::Deserialize;

use super::resource::organization_access;
use super::{Routes, State, access, at};
use crate::error::ApiError;
use crate::input::{parse_json, read_body};

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/settings/{setting_key}")
            .get(get::<S>)
            .put(put::<S>),
    )
    .add(at("/organizations/{org}/billing").get(billing::<S>));
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/settings/{setting_key}",
    operation_id = "settings_get",
    tag = "settings",
    summary = "Get a setting",
    description = "Returns one organization setting (`default_currency`, `period_lock_date`, ...).",
    params(
        ("setting_key" = String, Path, description = "The setting name."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Setting),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, key) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "settings").await?;
    let setting = state.ledger.get_setting(&access, &key).await?;
    Ok(HttpResponse::Ok().json(views::SettingView::of(&setting)))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = SettingPutRequest)]
#[serde(deny_unknown_fields)]
struct PutBody {
    /// Required; at most 10 000 characters. What a value means depends on the key:
    /// `default_currency` an ISO 4217 code, `period_lock_date` a `YYYY-MM-DD` date (or
    /// null or empty to clear the lock), `invoice_number_prefix` and
    /// `bill_number_prefix` at most 20 of `A-Z a-z 0-9 - _ / . #`; only `period_lock_date`
    /// takes null. A value that does not fit its key is 422 `inconsistent_fields`.
    #[serde(deserialize_with = "nullable")]
    #[schema(required = true, max_length = 10000)]
    value: Option<String>,
}

/// A present value that may be null (without `deserialize_with`, serde would read a
/// missing `value` as null too).
fn nullable<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/settings/{setting_key}",
    operation_id = "settings_put",
    tag = "settings",
    summary = "Set a setting",
    description = "Sets one organization setting; what the value means, and how it is checked, depends on the key.",
    params(
        ("setting_key" = String, Path, description = "The setting name."),
    ),
    request_body(content = PutBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Setting),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn put<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, key) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, "settings").await?;
    let body = read_body(payload).await?;
    let input: PutBody = parse_json(&req, &body)?;
    let setting = state
        .ledger
        .put_setting(&access, &key, input.value.as_deref())
        .await?;
    Ok(HttpResponse::Ok().json(views::SettingView::of(&setting)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/billing",
    operation_id = "settings_billing",
    tag = "settings",
    summary = "Get the billing record",
    description = "Returns the billing record of the credit pool that pays for the organization's live writes (its root organization's): the credits left, the total, and the billing e-mail.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Billing),
    ),
)]
async fn billing<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Read, "billing").await?;
    let billing = state.ledger.billing(&access).await?;
    Ok(HttpResponse::Ok().json(views::BillingView::of(&billing)))
}
