//! Chart of accounts (spec 4.5).

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, AccountChanges, NewAccountInput, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::crud::{Crud, crud_operations};
use super::resource::required;
use super::{Routes, State, access, at};
use crate::AppState;
use crate::error::ApiError;
use crate::input::{page, query_bool, query_date, query_param};

crud_operations! {
    Accounts, tag "accounts", schemas Account, AccountList;
    paths "/organizations/{org}/accounts", "/organizations/{org}/accounts/{id}",
        then more_routes;
    create "accounts_create": "Create an account",
        "Adds an account to the chart: a unique code, a name, one of the five types and a currency (the organization's base currency when absent).";
    get "accounts_get": "Get an account with its balance",
        "Returns one account with its current balance (debits, credits and the net in the account type's normal direction).";
    update "accounts_update": "Update an account",
        "Changes an account's name, description, status, parent or metadata.";
    delete "accounts_delete": "Delete an account (soft)",
        "Soft-deletes an account that has no entries: it leaves lists and reports, and is listed under recently deleted until it can no longer be restored.";
    list "accounts_list": "List accounts",
        "Lists the organization's chart of accounts by code, filtered by type and status; `include_hierarchy=true` adds each account's direct children.",
        filters(
            ("include_hierarchy" = Option<bool>, Query, description = "true or false."),
            ("account_type" = Option<String>, Query, description = "Filter by account type."),
            ("status" = Option<String>, Query, description = "Filter by status."),
        );
}

/// The paths of an account's balance and of its entries.
fn more_routes<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/organizations/{org}/accounts/{id}/balance").get(balance::<S>))
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

struct Accounts;

impl Crud for Accounts {
    const RESOURCE: &'static str = "accounts";
    type CreateBody = CreateBody;
    type UpdateBody = UpdateBody;
    const PAGE: i64 = 100;

    fn create(input: CreateBody) -> Result<Write, ApiError> {
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
    }

    fn update(id: String, input: UpdateBody) -> Result<Write, ApiError> {
        let changes = AccountChanges {
            name: input.name,
            description: input.description,
            is_active: input.is_active,
            status: input.status,
            parent_id: input.parent_account_id,
            metadata: input.metadata,
        };
        Ok(Write::UpdateAccount { id, changes })
    }

    fn delete(id: String) -> Write {
        Write::DeleteAccount { id }
    }

    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError> {
        let view = state.ledger.account_balance(access, id, None).await?;
        Ok(HttpResponse::Ok().json(views::AccountView::of(&view.account, Some(view.totals))))
    }

    async fn list<S: Store>(
        state: &AppState<S>,
        req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError> {
        let include_hierarchy = query_bool(req, "include_hierarchy")?.unwrap_or(false);
        let result = state
            .ledger
            .list_accounts(
                access,
                query_param(req, "account_type").as_deref(),
                query_param(req, "status").as_deref(),
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
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/accounts/{id}/balance",
    operation_id = "accounts_balance",
    tag = "accounts",
    summary = "Get an account balance at a date",
    description = "Returns the account's debits, credits and net balance at the end of `as_of` (now when absent), in its currency, and converted into `currency` when asked.",
    params(
        ("as_of" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        ("currency" = Option<String>, Query, description = "Filter by currency."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::AccountBalance),
    ),
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
        ("from_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        ("to_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::AccountHistory),
    ),
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
