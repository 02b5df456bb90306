//! Report nodes (DECISIONS 8, mirrored in camelCase): amounts are `Decimal` strings in
//! the report currency (`currency`, default the base currency), balances in each
//! account type's normal direction.

use juniper::{GraphQLObject, ID};
use ledger_domain::money::Currency;
use ledger_domain::ports::Store;
use ledger_domain::reports::{
    AccountRef, PeriodFields, Section, income_statement_period, report_as_of,
};
use ledger_domain::services::{Access, Channel};

use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql};
use crate::nodes::{AccountType, decimal};
use crate::scalars::{DateTime, Decimal};

/// The income statement's period arguments, as GraphQL spells them.
const PERIOD_FIELDS: PeriodFields = PeriodFields {
    start: "startDate",
    end: "endDate",
};

/// A trial-balance row.
#[derive(GraphQLObject)]
pub struct TrialBalanceRowNode {
    account_id: ID,
    account_code: String,
    account_name: String,
    account_type: AccountType,
    debit: Decimal,
    credit: Decimal,
    net_balance: Decimal,
}

/// Trial balance: `totalDebits` always equals `totalCredits`.
#[derive(GraphQLObject)]
pub struct TrialBalanceNode {
    as_of: DateTime,
    currency: String,
    accounts: Vec<TrialBalanceRowNode>,
    /// What converting accounts of other currencies moved (credit-positive; zero in one
    /// currency); included in the totals.
    translation_adjustment: Decimal,
    total_debits: Decimal,
    total_credits: Decimal,
}

/// One account's line in a report section.
#[derive(GraphQLObject)]
pub struct ReportLineNode {
    account_id: ID,
    account_code: String,
    account_name: String,
    account_type: AccountType,
    balance: Decimal,
}

/// A report section: its accounts and their total.
#[derive(GraphQLObject)]
pub struct ReportSectionNode {
    accounts: Vec<ReportLineNode>,
    total: Decimal,
}

/// Balance sheet; `equity` includes the computed current earnings.
#[derive(GraphQLObject)]
pub struct BalanceSheetNode {
    as_of: DateTime,
    currency: String,
    assets: ReportSectionNode,
    liabilities: ReportSectionNode,
    equity: ReportSectionNode,
    /// Revenue minus expenses not yet closed, part of `equity.total`.
    current_earnings: Decimal,
    /// The currency translation adjustment, part of `equity.total` (zero in one currency).
    translation_adjustment: Decimal,
    total_assets: Decimal,
    total_liabilities: Decimal,
    total_equity: Decimal,
    total_liabilities_and_equity: Decimal,
}

/// Income statement of a period.
#[derive(GraphQLObject)]
pub struct IncomeStatementNode {
    start_date: DateTime,
    end_date: DateTime,
    currency: String,
    revenue: ReportSectionNode,
    expenses: ReportSectionNode,
    total_revenue: Decimal,
    total_expenses: Decimal,
    net_income: Decimal,
}

fn section(s: &Section, currency: &str) -> ReportSectionNode {
    ReportSectionNode {
        accounts: s
            .rows
            .iter()
            .map(|r| {
                let AccountRef {
                    id,
                    code,
                    name,
                    account_type,
                } = &r.account;
                ReportLineNode {
                    account_id: ID::new(id),
                    account_code: code.clone(),
                    account_name: name.clone(),
                    account_type: (*account_type).into(),
                    balance: decimal(r.balance, currency),
                }
            })
            .collect(),
        total: decimal(s.total, currency),
    }
}

/// The currency a report is in (`currency`, else the organization's base) and its code.
fn report_currency<St: Store>(
    ctx: &Ctx<St>,
    access: &Access,
    currency: Option<&str>,
) -> GqlResult<(Currency, String)> {
    let report_currency = ctx.ledger.report_currency(access, currency).gql()?;
    let code = report_currency.code();
    Ok((report_currency, code))
}

/// What a point-in-time report is asked for: the currency (and its code) it is in, the
/// instant it shows and the exclusive bound of the entries it counts.
struct PointInTime {
    currency: Currency,
    code: String,
    shown: DateTime,
    until: Option<time::OffsetDateTime>,
}

impl PointInTime {
    fn of<St: Store>(
        ctx: &Ctx<St>,
        access: &Access,
        as_of: Option<DateTime>,
        currency: Option<String>,
    ) -> GqlResult<Self> {
        let (currency, code) = report_currency(ctx, access, currency.as_deref())?;
        let (shown, until) = report_as_of(as_of.map(|d| d.0), ctx.ledger.now());
        Ok(Self {
            currency,
            code,
            shown: DateTime(shown),
            until,
        })
    }
}

pub(crate) async fn trial_balance<St: Store>(
    ctx: &Ctx<St>,
    access: &Access,
    as_of: Option<DateTime>,
    currency: Option<String>,
    consolidated: bool,
) -> GqlResult<TrialBalanceNode> {
    let at = PointInTime::of(ctx, access, as_of, currency)?;
    let currency = at.code;
    let tb = ctx
        .ledger
        .trial_balance(
            access,
            at.currency,
            at.until,
            consolidated,
            Channel::GraphQl,
        )
        .await
        .gql()?;
    Ok(TrialBalanceNode {
        as_of: at.shown,
        accounts: tb
            .rows
            .iter()
            .map(|r| TrialBalanceRowNode {
                account_id: ID::new(&r.account.id),
                account_code: r.account.code.clone(),
                account_name: r.account.name.clone(),
                account_type: r.account.account_type.into(),
                debit: decimal(r.debit, &currency),
                credit: decimal(r.credit, &currency),
                net_balance: decimal(r.net_balance, &currency),
            })
            .collect(),
        translation_adjustment: decimal(tb.translation_adjustment, &currency),
        total_debits: decimal(tb.total_debits, &currency),
        total_credits: decimal(tb.total_credits, &currency),
        currency,
    })
}

pub(crate) async fn balance_sheet<St: Store>(
    ctx: &Ctx<St>,
    access: &Access,
    as_of: Option<DateTime>,
    currency: Option<String>,
    consolidated: bool,
) -> GqlResult<BalanceSheetNode> {
    let at = PointInTime::of(ctx, access, as_of, currency)?;
    let currency = at.code;
    let bs = ctx
        .ledger
        .balance_sheet(
            access,
            at.currency,
            at.until,
            consolidated,
            Channel::GraphQl,
        )
        .await
        .gql()?;
    Ok(BalanceSheetNode {
        as_of: at.shown,
        assets: section(&bs.assets, &currency),
        liabilities: section(&bs.liabilities, &currency),
        equity: section(&bs.equity, &currency),
        current_earnings: decimal(bs.current_earnings, &currency),
        translation_adjustment: decimal(bs.translation_adjustment, &currency),
        total_assets: decimal(bs.total_assets, &currency),
        total_liabilities: decimal(bs.total_liabilities, &currency),
        total_equity: decimal(bs.total_equity, &currency),
        total_liabilities_and_equity: decimal(bs.total_liabilities_and_equity, &currency),
        currency,
    })
}

pub(crate) async fn income_statement<St: Store>(
    ctx: &Ctx<St>,
    access: &Access,
    start: Option<DateTime>,
    end: Option<DateTime>,
    currency: Option<String>,
    consolidated: bool,
) -> GqlResult<IncomeStatementNode> {
    let (report_currency, currency) = report_currency(ctx, access, currency.as_deref())?;
    let now = ctx.ledger.now();
    // Default period: the current calendar year to date (DECISIONS 10); an end before
    // its start is a `VALIDATION_ERROR` (`reason: invalid_field`), as in REST.
    let (from, until) =
        income_statement_period(start.map(|d| d.0), end.map(|d| d.0), now, PERIOD_FIELDS).gql()?;
    let end_shown = end.unwrap_or_else(|| DateTime::at(now));
    let is = ctx
        .ledger
        .income_statement(
            access,
            report_currency,
            Some(from),
            Some(until),
            consolidated,
            Channel::GraphQl,
        )
        .await
        .gql()?;
    Ok(IncomeStatementNode {
        start_date: DateTime::at(from),
        end_date: end_shown,
        revenue: section(&is.revenue, &currency),
        expenses: section(&is.expenses, &currency),
        total_revenue: decimal(is.total_revenue, &currency),
        total_expenses: decimal(is.total_expenses, &currency),
        net_income: decimal(is.net_income, &currency),
        currency,
    })
}
