//! The reports as the interfaces answer them (spec 4.11, DECISIONS 8 and 9): the trial
//! balance, the balance sheet and the income statement, each with the currency its
//! amounts are in and whether it consolidates the owned sub-organizations.
//!
//! Every amount is a decimal string at the report currency's minor unit; the currency's
//! scale is looked up once per report, not once per amount (a trial balance lists the
//! whole chart). The rows borrow the accounts' names from the report they render.
//!
//! The members of each view are declared in alphabetical order: the reports were first
//! sent as JSON maps, which print their keys sorted, and a typed struct serializes in
//! declaration order, so this order keeps the bytes on the wire unchanged.

use serde::Serialize;
use time::{Date, OffsetDateTime};
use utoipa::ToSchema;

use crate::money::{Currency, format_units};
use crate::reports::{AccountRef, BalanceSheet, IncomeStatement, Section, TrialBalance};

use super::{date, timestamp};

/// Formats the amounts of one report: every amount at the report currency's scale.
#[derive(Debug, Clone, Copy)]
struct Amounts {
    decimals: u32,
}

impl Amounts {
    fn of(currency: Currency) -> Self {
        Self {
            decimals: currency.decimals(),
        }
    }

    fn format(self, units: i64) -> String {
        format_units(units, self.decimals)
    }
}

/// One account of the trial balance: its net on the column of its sign, and its balance
/// in its type's normal direction.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = TrialBalanceRow)]
pub struct TrialBalanceRowView<'a> {
    #[schema(example = "1000")]
    account_code: &'a str,
    account_id: &'a str,
    account_name: &'a str,
    /// `asset`, `liability`, `equity`, `revenue` or `expense`.
    account_type: &'static str,
    /// The account's net when it is a credit (its credits exceed its debits), else zero.
    #[schema(example = "0.00")]
    credit: String,
    /// The account's net when it is a debit (its debits exceed its credits), else zero.
    #[schema(example = "1250.00")]
    debit: String,
    /// The balance in the account type's normal direction (debit for assets and
    /// expenses, credit for the others); negative when it runs the other way.
    #[schema(example = "1250.00")]
    net_balance: String,
}

/// The trial balance: every account of the chart (those without entries at zero) with
/// its net on its natural column, as of a moment. `total_debits` always equals
/// `total_credits`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = TrialBalance)]
pub struct TrialBalanceView<'a> {
    /// The accounts, by code.
    accounts: Vec<TrialBalanceRowView<'a>>,
    /// The moment the report is taken at: the `as_of` asked for (a date as its midnight
    /// UTC, entries of that whole day included), else the time of the request.
    #[schema(format = DateTime)]
    as_of: String,
    /// Whether the owned sub-organizations' books are included, converted into
    /// `currency`.
    consolidated: bool,
    /// The currency of every amount: the `currency` asked for, else the organization's
    /// base currency.
    #[schema(example = "USD")]
    currency: String,
    #[schema(example = "trial_balance")]
    object: &'static str,
    /// The credit column's total, `translation_adjustment` included when positive.
    #[schema(example = "1250.00")]
    total_credits: String,
    /// The debit column's total, `translation_adjustment` included when negative.
    #[schema(example = "1250.00")]
    total_debits: String,
    /// What converting accounts of other currencies into `currency` moved
    /// (credit-positive; zero when every account is in `currency`).
    #[schema(example = "0.00")]
    translation_adjustment: String,
}

impl<'a> TrialBalanceView<'a> {
    /// The trial balance `tb` in `currency` as of `as_of`; `consolidated` when it
    /// includes the owned sub-organizations.
    pub fn of(
        tb: &'a TrialBalance,
        currency: Currency,
        as_of: OffsetDateTime,
        consolidated: bool,
    ) -> Self {
        let amounts = Amounts::of(currency);
        let accounts = tb
            .rows
            .iter()
            .map(|r| TrialBalanceRowView {
                account_code: &r.account.code,
                account_id: &r.account.id,
                account_name: &r.account.name,
                account_type: r.account.account_type.as_str(),
                credit: amounts.format(r.credit),
                debit: amounts.format(r.debit),
                net_balance: amounts.format(r.net_balance),
            })
            .collect();
        Self {
            accounts,
            as_of: timestamp(as_of),
            consolidated,
            currency: currency.code(),
            object: "trial_balance",
            total_credits: amounts.format(tb.total_credits),
            total_debits: amounts.format(tb.total_debits),
            translation_adjustment: amounts.format(tb.translation_adjustment),
        }
    }
}

/// One account of a statement's section, with its balance.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ReportLine)]
pub struct ReportLineView<'a> {
    #[schema(example = "4000")]
    account_code: &'a str,
    account_id: &'a str,
    account_name: &'a str,
    /// `asset`, `liability`, `equity`, `revenue` or `expense`.
    account_type: &'static str,
    /// The balance in the account type's normal direction (debit for assets and
    /// expenses, credit for the others); negative when it runs the other way.
    #[schema(example = "1250.00")]
    balance: String,
}

impl<'a> ReportLineView<'a> {
    fn of(account: &'a AccountRef, balance: i64, amounts: Amounts) -> Self {
        Self {
            account_code: &account.code,
            account_id: &account.id,
            account_name: &account.name,
            account_type: account.account_type.as_str(),
            balance: amounts.format(balance),
        }
    }
}

fn lines(section: &Section, amounts: Amounts) -> Vec<ReportLineView<'_>> {
    section
        .rows
        .iter()
        .map(|r| ReportLineView::of(&r.account, r.balance, amounts))
        .collect()
}

/// A section of a statement: the accounts of one type, by code, and their total.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ReportSection)]
pub struct ReportSectionView<'a> {
    accounts: Vec<ReportLineView<'a>>,
    /// The sum of the accounts' balances.
    #[schema(example = "1250.00")]
    total: String,
}

impl<'a> ReportSectionView<'a> {
    fn of(section: &'a Section, amounts: Amounts) -> Self {
        Self {
            accounts: lines(section, amounts),
            total: amounts.format(section.total),
        }
    }
}

/// The equity section of the balance sheet: the equity accounts, and the two figures
/// that are equity without an account of their own.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = EquitySection)]
pub struct EquitySectionView<'a> {
    accounts: Vec<ReportLineView<'a>>,
    /// Revenue less expenses not yet closed to equity; part of `total`.
    #[schema(example = "1250.00")]
    current_earnings: String,
    /// The accounts' balances, `current_earnings` and `translation_adjustment`.
    #[schema(example = "1250.00")]
    total: String,
    /// What converting accounts of other currencies into the report's currency moved
    /// (credit-positive; zero in one currency); part of `total`.
    #[schema(example = "0.00")]
    translation_adjustment: String,
}

/// The balance sheet as of a moment: assets, liabilities and equity by account and in
/// total. `total_assets` always equals `total_liabilities_and_equity`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = BalanceSheet)]
pub struct BalanceSheetView<'a> {
    /// The moment the report is taken at: the `as_of` asked for (a date as its midnight
    /// UTC, entries of that whole day included), else the time of the request.
    #[schema(format = DateTime)]
    as_of: String,
    assets: ReportSectionView<'a>,
    /// Whether the owned sub-organizations' books are included, converted into
    /// `currency`.
    consolidated: bool,
    /// The currency of every amount: the `currency` asked for, else the organization's
    /// base currency.
    #[schema(example = "USD")]
    currency: String,
    equity: EquitySectionView<'a>,
    liabilities: ReportSectionView<'a>,
    #[schema(example = "balance_sheet")]
    object: &'static str,
    #[schema(example = "1250.00")]
    total_assets: String,
    /// `equity.total`.
    #[schema(example = "1250.00")]
    total_equity: String,
    #[schema(example = "0.00")]
    total_liabilities: String,
    #[schema(example = "1250.00")]
    total_liabilities_and_equity: String,
}

impl<'a> BalanceSheetView<'a> {
    /// The balance sheet `bs` in `currency` as of `as_of`; `consolidated` when it
    /// includes the owned sub-organizations.
    pub fn of(
        bs: &'a BalanceSheet,
        currency: Currency,
        as_of: OffsetDateTime,
        consolidated: bool,
    ) -> Self {
        let amounts = Amounts::of(currency);
        Self {
            as_of: timestamp(as_of),
            assets: ReportSectionView::of(&bs.assets, amounts),
            consolidated,
            currency: currency.code(),
            equity: EquitySectionView {
                accounts: lines(&bs.equity, amounts),
                current_earnings: amounts.format(bs.current_earnings),
                total: amounts.format(bs.equity.total),
                translation_adjustment: amounts.format(bs.translation_adjustment),
            },
            liabilities: ReportSectionView::of(&bs.liabilities, amounts),
            object: "balance_sheet",
            total_assets: amounts.format(bs.total_assets),
            total_equity: amounts.format(bs.total_equity),
            total_liabilities: amounts.format(bs.total_liabilities),
            total_liabilities_and_equity: amounts.format(bs.total_liabilities_and_equity),
        }
    }
}

/// The income statement (profit and loss) of a period: revenue and expenses by account,
/// their totals and net income.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = IncomeStatement)]
pub struct IncomeStatementView<'a> {
    /// Whether the owned sub-organizations' books are included, converted into
    /// `currency`.
    consolidated: bool,
    /// The currency of every amount: the `currency` asked for, else the organization's
    /// base currency.
    #[schema(example = "USD")]
    currency: String,
    /// The last day of the period: the `end_date` asked for, else today.
    #[schema(format = Date)]
    end_date: String,
    expenses: ReportSectionView<'a>,
    /// `total_revenue` less `total_expenses`.
    #[schema(example = "1250.00")]
    net_income: String,
    #[schema(example = "income_statement")]
    object: &'static str,
    revenue: ReportSectionView<'a>,
    /// The first day of the period: the `start_date` asked for, else 1 January of the
    /// current year.
    #[schema(format = Date)]
    start_date: String,
    #[schema(example = "0.00")]
    total_expenses: String,
    #[schema(example = "1250.00")]
    total_revenue: String,
}

impl<'a> IncomeStatementView<'a> {
    /// The income statement `is` in `currency` of the days `start_date` to `end_date`
    /// (both included); `consolidated` when it includes the owned sub-organizations.
    pub fn of(
        is: &'a IncomeStatement,
        currency: Currency,
        start_date: Date,
        end_date: Date,
        consolidated: bool,
    ) -> Self {
        let amounts = Amounts::of(currency);
        Self {
            consolidated,
            currency: currency.code(),
            end_date: date(end_date),
            expenses: ReportSectionView::of(&is.expenses, amounts),
            net_income: amounts.format(is.net_income),
            object: "income_statement",
            revenue: ReportSectionView::of(&is.revenue, amounts),
            start_date: date(start_date),
            total_expenses: amounts.format(is.total_expenses),
            total_revenue: amounts.format(is.total_revenue),
        }
    }
}
