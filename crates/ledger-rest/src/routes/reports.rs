//! Reports (spec 4.11, DECISIONS 8 and 9): `?currency=` converts, `?consolidated=true`
//! includes the organization's owned descendants.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::money::{Currency, format_units};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::reports::{AccountRef, PeriodFields, Section, income_statement_period};
use ledger_domain::services::{Access, Channel};
use ledger_domain::views::{self, amount};
use serde::Serialize;
use serde_json::{Value, json};

use super::{Routes, State, access, at};
use crate::AppState;
use crate::error::ApiError;
use crate::input::{query_bool, query_date, query_param};

/// The income statement's period members, as REST spells them.
const PERIOD_FIELDS: PeriodFields = PeriodFields {
    start: "start_date",
    end: "end_date",
};

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/organizations/{org}/reports/trial-balance").get(trial_balance::<S>))
        .add(at("/organizations/{org}/reports/balance-sheet").get(balance_sheet::<S>))
        .add(at("/organizations/{org}/reports/income-statement").get(income_statement::<S>));
}

/// What every report's query asks for: the currency it is in (`currency`, else the
/// organization's base) with its code, and whether it consolidates the subsidiaries.
fn report_query<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
) -> Result<(Currency, String, bool), ApiError> {
    let report_currency = state
        .ledger
        .report_currency(access, query_param(req, "currency").as_deref())?;
    let code = report_currency.code();
    let consolidated = query_bool(req, "consolidated")?.unwrap_or(false);
    Ok((report_currency, code, consolidated))
}

fn row(a: &AccountRef) -> Value {
    json!({ "account_id": a.id, "account_code": a.code, "account_name": a.name, "account_type": a.account_type.as_str() })
}

fn section(s: &Section, currency: &str) -> Value {
    let accounts: Vec<Value> = s
        .rows
        .iter()
        .map(|r| {
            let mut v = row(&r.account);
            v["balance"] = json!(amount(r.balance, currency));
            v
        })
        .collect();
    json!({ "accounts": accounts, "total": amount(s.total, currency) })
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/reports/trial-balance",
    operation_id = "reports_trial_balance",
    tag = "reports",
    summary = "Trial balance",
    params(
        crate::openapi::params::OrgPath,
        ("currency" = Option<String>, Query, description = "Filter by currency."),
        ("consolidated" = Option<bool>, Query, description = "true or false."),
        ("as_of" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Report),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn trial_balance<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, "reports").await?;
    let (report_currency, currency, consolidated) = report_query(&state, &req, &access)?;
    let as_of = query_date(&req, "as_of")?;
    let tb = state
        .ledger
        .trial_balance(
            &access,
            report_currency,
            as_of.map(|d| d.inclusive_until()),
            consolidated,
            Channel::Rest,
        )
        .await?;
    // Typed rows (members in the alphabetical order the `Value` maps of the other
    // reports print): a trial balance lists the whole chart, and building a map per
    // account was most of the answer's cost. The currency's scale is looked up once.
    let decimals = report_currency.decimals();
    let amount = |units: i64| format_units(units, decimals);
    let accounts: Vec<TrialBalanceRowOut<'_>> = tb
        .rows
        .iter()
        .map(|r| TrialBalanceRowOut {
            account_code: &r.account.code,
            account_id: &r.account.id,
            account_name: &r.account.name,
            account_type: r.account.account_type.as_str(),
            credit: amount(r.credit),
            debit: amount(r.debit),
            net_balance: amount(r.net_balance),
        })
        .collect();
    Ok(HttpResponse::Ok().json(TrialBalanceOut {
        accounts,
        as_of: as_of.map_or_else(
            || views::timestamp(state.ledger.now()),
            |d| views::timestamp(d.at),
        ),
        consolidated,
        currency: &currency,
        object: "trial_balance",
        total_credits: amount(tb.total_credits),
        total_debits: amount(tb.total_debits),
        translation_adjustment: amount(tb.translation_adjustment),
    }))
}

/// One row of the trial balance's answer.
#[derive(Serialize)]
struct TrialBalanceRowOut<'a> {
    account_code: &'a str,
    account_id: &'a str,
    account_name: &'a str,
    account_type: &'static str,
    credit: String,
    debit: String,
    net_balance: String,
}

/// The trial balance's answer.
#[derive(Serialize)]
struct TrialBalanceOut<'a> {
    accounts: Vec<TrialBalanceRowOut<'a>>,
    as_of: String,
    consolidated: bool,
    currency: &'a str,
    object: &'static str,
    total_credits: String,
    total_debits: String,
    translation_adjustment: String,
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/reports/balance-sheet",
    operation_id = "reports_balance_sheet",
    tag = "reports",
    summary = "Balance sheet",
    params(
        crate::openapi::params::OrgPath,
        ("currency" = Option<String>, Query, description = "Filter by currency."),
        ("consolidated" = Option<bool>, Query, description = "true or false."),
        ("as_of" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Report),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn balance_sheet<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, "reports").await?;
    let (report_currency, currency, consolidated) = report_query(&state, &req, &access)?;
    let as_of = query_date(&req, "as_of")?;
    let bs = state
        .ledger
        .balance_sheet(
            &access,
            report_currency,
            as_of.map(|d| d.inclusive_until()),
            consolidated,
            Channel::Rest,
        )
        .await?;
    let mut equity = section(&bs.equity, &currency);
    equity["current_earnings"] = json!(amount(bs.current_earnings, &currency));
    equity["translation_adjustment"] = json!(amount(bs.translation_adjustment, &currency));
    Ok(HttpResponse::Ok().json(json!({
        "object": "balance_sheet",
        "as_of": as_of.map_or_else(|| views::timestamp(state.ledger.now()), |d| views::timestamp(d.at)),
        "currency": currency,
        "consolidated": consolidated,
        "assets": section(&bs.assets, &currency),
        "liabilities": section(&bs.liabilities, &currency),
        "equity": equity,
        "total_assets": amount(bs.total_assets, &currency),
        "total_liabilities": amount(bs.total_liabilities, &currency),
        "total_equity": amount(bs.total_equity, &currency),
        "total_liabilities_and_equity": amount(bs.total_liabilities_and_equity, &currency),
    })))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/reports/income-statement",
    operation_id = "reports_income_statement",
    tag = "reports",
    summary = "Income statement",
    params(
        crate::openapi::params::OrgPath,
        ("currency" = Option<String>, Query, description = "Filter by currency."),
        ("consolidated" = Option<bool>, Query, description = "true or false."),
        ("start_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        ("end_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Report),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:read"])),
)]
async fn income_statement<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, "reports").await?;
    let (report_currency, currency, consolidated) = report_query(&state, &req, &access)?;
    let now = state.ledger.now();
    let start = query_date(&req, "start_date")?;
    let end = query_date(&req, "end_date")?;
    // Default period: the current calendar year to date (DECISIONS 10); an end before
    // its start is 400 `invalid_field`.
    let (from, until) = income_statement_period(start, end, now, PERIOD_FIELDS)?;
    let is = state
        .ledger
        .income_statement(
            &access,
            report_currency,
            Some(from),
            Some(until),
            consolidated,
            Channel::Rest,
        )
        .await?;
    let date = |t: time::OffsetDateTime| t.date().to_string();
    Ok(HttpResponse::Ok().json(json!({
        "object": "income_statement",
        "start_date": date(from),
        "end_date": end.map_or_else(|| date(now), |d| date(d.at)),
        "currency": currency,
        "consolidated": consolidated,
        "revenue": section(&is.revenue, &currency),
        "expenses": section(&is.expenses, &currency),
        "total_revenue": amount(is.total_revenue, &currency),
        "total_expenses": amount(is.total_expenses, &currency),
        "net_income": amount(is.net_income, &currency),
    })))
}
