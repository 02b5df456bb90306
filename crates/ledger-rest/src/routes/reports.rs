//! Reports (spec 4.11, DECISIONS 8 and 9): `?currency=` converts, `?consolidated=true`
//! includes the organization's owned descendants.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::money::Currency;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::reports::{PeriodFields, income_statement_period, report_as_of};
use ledger_domain::services::{Access, Channel};
use ledger_domain::views::{BalanceSheetView, IncomeStatementView, TrialBalanceView};

use super::resource::organization_access;
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
/// organization's base), and whether it consolidates the subsidiaries.
fn report_query<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
) -> Result<(Currency, bool), ApiError> {
    let report_currency = state
        .ledger
        .report_currency(access, query_param(req, "currency").as_deref())?;
    let consolidated = query_bool(req, "consolidated")?.unwrap_or(false);
    Ok((report_currency, consolidated))
}

/// What a report at a point in time (trial balance, balance sheet) is asked for: the
/// access it is read with, its currency, whether it consolidates, the moment it names and
/// the bound of the entries it counts (`report_as_of`).
struct PointInTime {
    access: Access,
    currency: Currency,
    consolidated: bool,
    as_of: time::OffsetDateTime,
    until: Option<time::OffsetDateTime>,
}

async fn point_in_time<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    org: &str,
) -> Result<PointInTime, ApiError> {
    let access = access(state, req, org, Scope::Read, "reports").await?;
    let (currency, consolidated) = report_query(state, req, &access)?;
    let (as_of, until) = report_as_of(query_date(req, "as_of")?, state.ledger.now());
    Ok(PointInTime {
        access,
        currency,
        consolidated,
        as_of: as_of.at,
        until,
    })
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/reports/trial-balance",
    operation_id = "reports_trial_balance",
    tag = "reports",
    summary = "Trial balance",
    description = "Every account's net on its natural side at `as_of` (now when absent). `total_debits` always equals `total_credits`; every amount is a decimal string in `currency`.",
    params(
        ("currency" = Option<String>, Query, description = "Filter by currency."),
        ("consolidated" = Option<bool>, Query, description = "true or false."),
        ("as_of" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::TrialBalance),
    ),
)]
async fn trial_balance<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let q = point_in_time(&state, &req, &path.into_inner()).await?;
    let tb = state
        .ledger
        .trial_balance(
            &q.access,
            q.currency,
            q.until,
            q.consolidated,
            Channel::Rest,
        )
        .await?;
    let view = TrialBalanceView::of(&tb, q.currency, q.as_of, q.consolidated);
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/reports/balance-sheet",
    operation_id = "reports_balance_sheet",
    tag = "reports",
    summary = "Balance sheet",
    description = "The balance sheet at `as_of` (now when absent): assets, liabilities and equity by account, with the current earnings not yet closed. `total_assets` always equals `total_liabilities_and_equity`; every amount is a decimal string in `currency`.",
    params(
        ("currency" = Option<String>, Query, description = "Filter by currency."),
        ("consolidated" = Option<bool>, Query, description = "true or false."),
        ("as_of" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::BalanceSheet),
    ),
)]
async fn balance_sheet<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let q = point_in_time(&state, &req, &path.into_inner()).await?;
    let bs = state
        .ledger
        .balance_sheet(
            &q.access,
            q.currency,
            q.until,
            q.consolidated,
            Channel::Rest,
        )
        .await?;
    let view = BalanceSheetView::of(&bs, q.currency, q.as_of, q.consolidated);
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/reports/income-statement",
    operation_id = "reports_income_statement",
    tag = "reports",
    summary = "Income statement",
    description = "Revenue and expenses by account between `start_date` and `end_date`, and the net income. Every amount is a decimal string in `currency`; `consolidated=true` adds the owned sub-organizations.",
    params(
        ("currency" = Option<String>, Query, description = "Filter by currency."),
        ("consolidated" = Option<bool>, Query, description = "true or false."),
        ("start_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        ("end_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::IncomeStatement),
    ),
)]
async fn income_statement<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Read, "reports").await?;
    let (report_currency, consolidated) = report_query(&state, &req, &access)?;
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
    Ok(HttpResponse::Ok().json(IncomeStatementView::of(
        &is,
        report_currency,
        from.date(),
        end.map_or(now, |d| d.at).date(),
        consolidated,
    )))
}
