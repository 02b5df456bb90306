//! Chart of accounts (spec 4.5).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{AccountChanges, NewAccountInput, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::resource::queue_json;
use super::{Routes, State, access, at};
use crate::error::{ApiError, validation};
use crate::input::{page, query_bool, query_date, query_param};
use crate::queued::submit;

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/accounts")
            .get(list::<S>)
            .post(create::<S>),
    )
    .add(
        at("/organizations/{org}/accounts/{id}")
            .get(get::<S>)
            .put(update::<S>)
            .delete(delete::<S>),
    )
    .add(at("/organizations/{org}/accounts/{id}/balance").get(balance::<S>))
    .add(at("/organizations/{org}/accounts/{id}/transactions").get(history::<S>));
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = AccountCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::name)]
    name: Option<String>,
    /// 1 to 20 digits.
    #[schema(required = true, pattern = "^[0-9]{1,20}$", value_type = String)]
    code: Option<String>,
    #[schema(required = true, schema_with = crate::openapi::account_type)]
    account_type: Option<String>,
    /// The same as `account_type` (used when `account_type` is absent).
    #[serde(rename = "type")]
    #[schema(deprecated)]
    type_alias: Option<String>,
    subtype: Option<String>,
    #[schema(schema_with = crate::openapi::optional_currency_code)]
    currency_id: Option<String>,
    #[schema(schema_with = crate::openapi::optional_currency_code)]
    currency: Option<String>,
    description: Option<String>,
    parent_account_id: Option<String>,
    parent_id: Option<String>,
    metadata: Option<serde_json::Value>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/accounts",
    operation_id = "accounts_create",
    tag = "accounts",
    summary = "Create an account",
    description = "Adds an account to the chart: a unique code, a name, one of the five types and a currency (the organization's base currency when absent).",
    params(crate::openapi::params::OrgPath, crate::openapi::params::QueuedWrite),
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Account),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Write, "accounts").await?;
    queue_json(
        &state,
        &req,
        &access,
        payload,
        StatusCode::CREATED,
        |input: CreateBody| {
            let required = |v: Option<String>, name: &str| {
                v.ok_or_else(|| {
                    validation(
                        ErrorCode::MissingField,
                        Some(name.into()),
                        format!("{name} is required"),
                    )
                })
            };
            let input = NewAccountInput {
                code: required(input.code, "code")?,
                name: required(input.name, "name")?,
                account_type: required(input.account_type.or(input.type_alias), "account_type")?,
                subtype: input.subtype,
                currency: input.currency_id.or(input.currency),
                description: input.description,
                parent_id: input.parent_account_id.or(input.parent_id),
                metadata: input.metadata,
            };
            Ok(Write::CreateAccount(input))
        },
    )
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/accounts/{id}",
    operation_id = "accounts_get",
    tag = "accounts",
    summary = "Get an account with its balance",
    description = "Returns one account with its current balance (debits, credits and the net in the account type's normal direction).",
    params(crate::openapi::params::ResourcePath),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Account),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "accounts").await?;
    let view = state.ledger.account_balance(&access, &id, None).await?;
    Ok(HttpResponse::Ok().json(views::AccountView::of(&view.account, Some(view.totals))))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = AccountUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[schema(schema_with = crate::openapi::optional_name)]
    name: Option<String>,
    description: Option<String>,
    is_active: Option<bool>,
    /// `active`, `inactive` or `suspended` (suspending, or lifting a suspension, needs
    /// `admin`).
    #[schema(schema_with = crate::openapi::optional_account_status)]
    status: Option<String>,
    parent_account_id: Option<Option<String>>,
    metadata: Option<serde_json::Value>,
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/accounts/{id}",
    operation_id = "accounts_update",
    tag = "accounts",
    summary = "Update an account",
    description = "Changes an account's name, description, status, parent or metadata.",
    params(crate::openapi::params::ResourcePath, crate::openapi::params::QueuedWrite),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Account),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:write"])),
)]
async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, "accounts").await?;
    queue_json(
        &state,
        &req,
        &access,
        payload,
        StatusCode::OK,
        |input: UpdateBody| {
            let changes = AccountChanges {
                name: input.name,
                description: input.description,
                is_active: input.is_active,
                status: input.status,
                parent_id: input.parent_account_id,
                metadata: input.metadata,
            };
            Ok(Write::UpdateAccount { id, changes })
        },
    )
    .await
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/accounts/{id}",
    operation_id = "accounts_delete",
    tag = "accounts",
    summary = "Delete an account (soft)",
    description = "Soft-deletes an account that has no entries: it leaves lists and reports, and is listed under recently deleted until it can no longer be restored.",
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
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, "accounts").await?;
    let write = Write::DeleteAccount { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/accounts",
    operation_id = "accounts_list",
    tag = "accounts",
    summary = "List accounts",
    description = "Lists the organization's chart of accounts by code, filtered by type and status; `include_hierarchy=true` adds each account's direct children.",
    params(
        crate::openapi::params::OrgPath,
        ("include_hierarchy" = Option<bool>, Query, description = "true or false."),
        ("account_type" = Option<String>, Query, description = "Filter by account type."),
        ("status" = Option<String>, Query, description = "Filter by status."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::AccountList),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, "accounts").await?;
    let page = page(&req, 100)?;
    let include_hierarchy = query_bool(&req, "include_hierarchy")?.unwrap_or(false);
    let result = state
        .ledger
        .list_accounts(
            &access,
            query_param(&req, "account_type").as_deref(),
            query_param(&req, "status").as_deref(),
            Some(page),
        )
        .await?;
    let mut data: Vec<views::AccountView<'_>> = result
        .items
        .iter()
        .map(|a| views::AccountView::of(a, None))
        .collect();
    if include_hierarchy {
        // Each account lists the ids of its direct children on this page.
        data = data
            .into_iter()
            .zip(&result.items)
            .map(|(row, account)| {
                let kids: Vec<&str> = result
                    .items
                    .iter()
                    .filter(|a| a.parent_id.as_deref() == Some(account.id.as_str()))
                    .map(|a| a.id.as_str())
                    .collect();
                row.with_children(kids)
            })
            .collect();
    }
    Ok(HttpResponse::Ok().json(views::List::page(data, page.offset, result.total_count)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/accounts/{id}/balance",
    operation_id = "accounts_balance",
    tag = "accounts",
    summary = "Get an account balance at a date",
    description = "Returns the account's debits, credits and net balance at the end of `as_of` (now when absent), in its currency, and converted into `currency` when asked.",
    params(
        crate::openapi::params::ResourcePath,
        ("as_of" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        ("currency" = Option<String>, Query, description = "Filter by currency."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::AccountBalance),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn balance<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "accounts").await?;
    let as_of = query_date(&req, "as_of")?;
    let currency = query_param(&req, "currency");
    let view = state
        .ledger
        .account_balance(&access, &id, as_of.map(|d| d.inclusive_until()))
        .await?;
    let at = as_of.map_or_else(|| state.ledger.now(), |d| d.at);
    let answer = views::AccountBalanceView::of(&view.account, view.totals, at);
    // `?currency=` adds the balance converted at the rate of the as-of day.
    let Some(code) = currency else {
        return Ok(HttpResponse::Ok().json(answer));
    };
    let target = state.ledger.report_currency(&access, Some(&code))?;
    let on = as_of.map_or_else(|| state.ledger.now().date(), |d| d.at.date());
    let (rate, totals) = state
        .ledger
        .convert_totals(&access, &view.account, view.totals, target, on)
        .await?;
    let converted = views::ConvertedBalanceView::of(view.account.account_type, totals, &rate);
    Ok(HttpResponse::Ok().json(answer.with_converted(converted)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/accounts/{id}/transactions",
    operation_id = "accounts_history",
    tag = "accounts",
    summary = "List the postings of an account with a running balance",
    description = "A page of the account's entries between `from_date` and `to_date`, each with the account's running balance after it.",
    params(
        crate::openapi::params::ResourcePath,
        ("from_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        ("to_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::AccountHistory),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn history<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "accounts").await?;
    let from = query_date(&req, "from_date")?.map(|d| d.at);
    let until = query_date(&req, "to_date")?.map(|d| d.inclusive_until());
    let page = page(&req, 20)?;
    let view = state
        .ledger
        .account_history(&access, &id, from, until, page)
        .await?;
    Ok(HttpResponse::Ok().json(views::AccountHistoryView::of(&view)))
}
