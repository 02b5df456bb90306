//! Financial reports computed from per-account debit and credit totals (DECISIONS 8).
//!
//! The store sums posted entries per account; everything else — sides, sections, current
//! earnings and totals — is computed here, so every interface shows the same numbers.
//! Invariants (property-tested below): the trial balance's debit and credit columns are
//! equal, and total assets equal liabilities plus equity, whenever the input totals come
//! from balanced transactions.

use time::{Date, Month, OffsetDateTime, Time};

use crate::accounts::{AccountType, Totals};
use crate::dates::FlexDate;
use crate::error::{DomainError, DomainResult};

/// The identity of an account as reports show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRef {
    pub id: String,
    pub code: String,
    pub name: String,
    pub account_type: AccountType,
}

/// An account as a report reads it from the chart: who it is, its currency, and the
/// running totals of all its counted entries (zero when it has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartLine {
    pub account: AccountRef,
    pub currency: String,
    pub totals: Totals,
}

/// One account with its totals, the input of every report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountTotals {
    pub account: AccountRef,
    pub totals: Totals,
}

/// A trial-balance row: the net balance on its natural column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialBalanceRow {
    pub account: AccountRef,
    pub debit: i64,
    pub credit: i64,
    pub net_balance: i64,
}

/// The trial balance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialBalance {
    pub rows: Vec<TrialBalanceRow>,
    /// See [`translation`]: credit-positive, included in the totals' columns.
    pub translation_adjustment: i64,
    pub total_debits: i64,
    pub total_credits: i64,
}

/// A report row with a balance in the account type's normal direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceRow {
    pub account: AccountRef,
    pub balance: i64,
}

/// A section of a statement.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Section {
    pub rows: Vec<BalanceRow>,
    pub total: i64,
}

/// The balance sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceSheet {
    pub assets: Section,
    pub liabilities: Section,
    pub equity: Section,
    /// Revenue minus expenses not yet closed to equity; part of the equity total.
    pub current_earnings: i64,
    /// See [`translation`]: part of the equity total.
    pub translation_adjustment: i64,
    pub total_assets: i64,
    pub total_liabilities: i64,
    pub total_equity: i64,
    pub total_liabilities_and_equity: i64,
}

/// The income statement of a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncomeStatement {
    pub revenue: Section,
    pub expenses: Section,
    pub total_revenue: i64,
    pub total_expenses: i64,
    pub net_income: i64,
}

fn sorted(mut input: Vec<AccountTotals>) -> Vec<AccountTotals> {
    input.sort_by(|a, b| {
        a.account
            .code
            .cmp(&b.account.code)
            .then_with(|| a.account.id.cmp(&b.account.id))
    });
    input
}

/// The translation adjustment of a report in one currency over accounts in several.
///
/// Each currency of the books balances on its own, so in one currency the debit and
/// credit totals agree. Converted — balance-sheet items at the closing rate,
/// income-statement items at each posting date's rate — they no longer do: the
/// difference is what the rates moved, the currency translation adjustment, shown as an
/// equity line (credit-positive: the debit total of the converted accounts less their
/// credit total). It is zero when every account is in the report's currency.
pub fn translation(input: &[AccountTotals]) -> i64 {
    input.iter().map(|a| a.totals.debit - a.totals.credit).sum()
}

/// Combines the books of the members of a consolidation (each already in the report's
/// currency): one row per account type and code, the members' debits and credits added,
/// named after the first member's account with that code in the order given (the parent
/// first). Every member has the default chart, so like accounts meet; an account code
/// one member uses for another type stays a row of its own. `None` when a total
/// overflows.
pub fn consolidate(members: Vec<Vec<AccountTotals>>) -> Option<Vec<AccountTotals>> {
    let mut rows: Vec<AccountTotals> = Vec::new();
    let mut index: std::collections::HashMap<(AccountType, String), usize> =
        std::collections::HashMap::new();
    for member in members {
        for a in member {
            let key = (a.account.account_type, a.account.code.clone());
            match index.get(&key) {
                Some(&i) => {
                    let totals = &mut rows[i].totals;
                    totals.debit = totals.debit.checked_add(a.totals.debit)?;
                    totals.credit = totals.credit.checked_add(a.totals.credit)?;
                }
                None => {
                    index.insert(key, rows.len());
                    rows.push(a);
                }
            }
        }
    }
    Some(rows)
}

/// Builds the trial balance. Accounts with no activity are listed with zeros; the
/// translation adjustment (credit-positive) joins its column.
pub fn trial_balance(input: Vec<AccountTotals>, translation_adjustment: i64) -> TrialBalance {
    let mut rows = Vec::with_capacity(input.len());
    let (mut total_debits, mut total_credits) = (0i64, 0i64);
    for AccountTotals { account, totals } in sorted(input) {
        let raw = totals.debit - totals.credit;
        let (debit, credit) = if raw >= 0 { (raw, 0) } else { (0, -raw) };
        total_debits += debit;
        total_credits += credit;
        let net_balance = account.account_type.net(totals.debit, totals.credit);
        rows.push(TrialBalanceRow {
            account,
            debit,
            credit,
            net_balance,
        });
    }
    if translation_adjustment >= 0 {
        total_credits += translation_adjustment;
    } else {
        total_debits -= translation_adjustment;
    }
    TrialBalance {
        rows,
        translation_adjustment,
        total_debits,
        total_credits,
    }
}

fn section(input: &[AccountTotals], kind: AccountType) -> Section {
    let rows: Vec<BalanceRow> = input
        .iter()
        .filter(|a| a.account.account_type == kind)
        .map(|a| BalanceRow {
            account: a.account.clone(),
            balance: kind.net(a.totals.debit, a.totals.credit),
        })
        .collect();
    let total = rows.iter().map(|r| r.balance).sum();
    Section { rows, total }
}

/// Builds the balance sheet from all-time totals up to its date; the translation
/// adjustment (credit-positive) is part of equity.
pub fn balance_sheet(input: Vec<AccountTotals>, translation_adjustment: i64) -> BalanceSheet {
    let input = sorted(input);
    let assets = section(&input, AccountType::Asset);
    let liabilities = section(&input, AccountType::Liability);
    let mut equity = section(&input, AccountType::Equity);
    let current_earnings =
        section(&input, AccountType::Revenue).total - section(&input, AccountType::Expense).total;
    equity.total += current_earnings + translation_adjustment;
    BalanceSheet {
        total_assets: assets.total,
        total_liabilities: liabilities.total,
        total_equity: equity.total,
        total_liabilities_and_equity: liabilities.total + equity.total,
        assets,
        liabilities,
        equity,
        current_earnings,
        translation_adjustment,
    }
}

/// Builds the income statement from the totals of one period.
pub fn income_statement(input: Vec<AccountTotals>) -> IncomeStatement {
    let input = sorted(input);
    let revenue = section(&input, AccountType::Revenue);
    let expenses = section(&input, AccountType::Expense);
    IncomeStatement {
        total_revenue: revenue.total,
        total_expenses: expenses.total,
        net_income: revenue.total - expenses.total,
        revenue,
        expenses,
    }
}

/// The names a request gives a period's members (`start_date`, `end_date` in REST;
/// `startDate`, `endDate` in GraphQL), for the refusal to name the one at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodFields {
    pub start: &'static str,
    pub end: &'static str,
}

/// The span an income statement covers, from a request's optional dates: from `start`
/// (default 1 January of `now`'s year, DECISIONS 10) up to and including `end` (default
/// `now`), as `(from, until)` with `until` exclusive. Every interface reads its period
/// here, so they refuse the same requests the same way.
///
/// # Errors
/// `invalid_field` on `fields.end` when the span is empty (an end before its start):
/// invalid request data (DECISIONS 2, 6), not a business rule.
pub fn income_statement_period(
    start: Option<FlexDate>,
    end: Option<FlexDate>,
    now: OffsetDateTime,
    fields: PeriodFields,
) -> DomainResult<(OffsetDateTime, OffsetDateTime)> {
    let year_start = Date::from_calendar_date(now.year(), Month::January, 1)
        .map(|d| d.with_time(Time::MIDNIGHT).assume_utc())
        .unwrap_or(now);
    let from = start.map_or(year_start, |d| d.at);
    let until = end.map_or(now, FlexDate::inclusive_until);
    if until <= from {
        return Err(DomainError::invalid_field(
            fields.end,
            format!("must not be before {}", fields.start),
        ));
    }
    Ok((from, until))
}

/// The moment a report at a point in time (trial balance, balance sheet) stands at,
/// from a request's optional `as_of`: `(shown, until)`, the moment the report names
/// (`as_of` as given, default `now`) and the exclusive bound of the entries it counts: up
/// to and including `as_of`, or every posted entry when it is absent (the maintained
/// running totals; docs/decisions.md, "A report without as_of").
pub fn report_as_of(
    as_of: Option<FlexDate>,
    now: OffsetDateTime,
) -> (FlexDate, Option<OffsetDateTime>) {
    match as_of {
        Some(d) => (d, Some(d.inclusive_until())),
        None => (
            FlexDate {
                at: now,
                date_only: false,
            },
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::EntryType;
    use crate::transactions::{EntryLine, check_balanced};
    use proptest::prelude::*;

    fn chart() -> Vec<AccountRef> {
        AccountType::ALL
            .iter()
            .enumerate()
            .flat_map(|(i, t)| {
                (0..2).map(move |j| AccountRef {
                    id: format!("act_{i}{j}"),
                    code: format!("{}{j}", (i + 1) * 1000),
                    name: format!("{t:?} {j}"),
                    account_type: *t,
                })
            })
            .collect()
    }

    /// Random balanced transactions over the ten-account chart.
    fn balanced_transactions() -> impl Strategy<Value = Vec<Vec<EntryLine>>> {
        let entry = (0usize..10, 1i64..10_000_000, any::<bool>());
        prop::collection::vec(prop::collection::vec(entry, 1..6), 0..40).prop_map(|txns| {
            txns.into_iter()
                .map(|debits| {
                    let total: i64 = debits.iter().map(|d| d.1).sum();
                    let mut lines: Vec<EntryLine> = debits
                        .iter()
                        .map(|(acct, amount, _)| EntryLine {
                            account_id: format!("{acct}"),
                            entry_type: EntryType::Debit,
                            amount: *amount,
                            description: None,
                            currency: None,
                        })
                        .collect();
                    // Split the credit side over one or two accounts.
                    let first = debits[0].0;
                    let half = total / 2;
                    if debits[0].2 && half > 0 {
                        lines.push(EntryLine {
                            account_id: format!("{}", (first + 3) % 10),
                            entry_type: EntryType::Credit,
                            amount: half,
                            description: None,
                            currency: None,
                        });
                        lines.push(EntryLine {
                            account_id: format!("{}", (first + 7) % 10),
                            entry_type: EntryType::Credit,
                            amount: total - half,
                            description: None,
                            currency: None,
                        });
                    } else {
                        lines.push(EntryLine {
                            account_id: format!("{}", (first + 5) % 10),
                            entry_type: EntryType::Credit,
                            amount: total,
                            description: None,
                            currency: None,
                        });
                    }
                    lines
                })
                .collect()
        })
    }

    fn totals_of(txns: &[Vec<EntryLine>]) -> Vec<AccountTotals> {
        let chart = chart();
        let mut totals = vec![Totals::default(); chart.len()];
        for txn in txns {
            check_balanced(txn, "USD").expect("generated transactions balance");
            for line in txn {
                let i: usize = line.account_id.parse().expect("index");
                totals[i].add(line.entry_type, line.amount);
            }
        }
        chart
            .into_iter()
            .zip(totals)
            .map(|(account, totals)| AccountTotals { account, totals })
            .collect()
    }

    proptest! {
        #[test]
        fn trial_balance_always_balances(txns in balanced_transactions()) {
            let input = totals_of(&txns);
            let tb = trial_balance(input.clone(), 0);
            prop_assert_eq!(tb.total_debits, tb.total_credits);
            // Every account's columns equal the sum of its own entries.
            for (row, given) in tb.rows.iter().zip(sorted(input)) {
                prop_assert_eq!(row.debit - row.credit, given.totals.debit - given.totals.credit);
            }
        }

        #[test]
        fn balance_sheet_always_balances(txns in balanced_transactions()) {
            let bs = balance_sheet(totals_of(&txns), 0);
            prop_assert_eq!(bs.total_assets, bs.total_liabilities_and_equity);
        }

        /// Converted into one currency at any rates per account (each net rounded on its
        /// own, as conversions are), the reports still balance through the translation
        /// adjustment, which is zero when nothing was converted.
        #[test]
        fn converted_reports_still_balance(
            txns in balanced_transactions(),
            rates in prop::collection::vec(1i64..50_000, 10),
        ) {
            let converted: Vec<AccountTotals> = totals_of(&txns)
                .into_iter()
                .zip(&rates)
                .map(|(a, rate)| {
                    // `rate` ten-thousandths per unit, rounded half away from zero.
                    let net = i128::from(a.totals.debit - a.totals.credit) * i128::from(*rate);
                    let rounded = (net.abs() + 5_000) / 10_000 * net.signum();
                    let net = i64::try_from(rounded).expect("fits");
                    let totals = if net >= 0 {
                        Totals { debit: net, credit: 0 }
                    } else {
                        Totals { debit: 0, credit: -net }
                    };
                    AccountTotals { account: a.account, totals }
                })
                .collect();
            let adjustment = translation(&converted);
            let tb = trial_balance(converted.clone(), adjustment);
            prop_assert_eq!(tb.total_debits, tb.total_credits);
            let bs = balance_sheet(converted, adjustment);
            prop_assert_eq!(bs.total_assets, bs.total_liabilities_and_equity);
            prop_assert_eq!(translation(&totals_of(&txns)), 0);
        }

        /// A consolidated trial balance is the sum of its members': each member's books
        /// converted into the report currency at its own rates (each net rounded, as
        /// conversions are), combined, give for every account code the sum of the
        /// members' nets, the translation adjustments add up, and the columns agree.
        #[test]
        fn consolidated_trial_balance_is_the_sum_of_the_members(
            members in prop::collection::vec(
                (balanced_transactions(), prop::collection::vec(1i64..50_000, 10)),
                1..5,
            ),
        ) {
            let parts: Vec<Vec<AccountTotals>> = members
                .iter()
                .map(|(txns, rates)| {
                    totals_of(txns)
                        .into_iter()
                        .zip(rates)
                        .map(|(a, rate)| {
                            let net = i128::from(a.totals.debit - a.totals.credit) * i128::from(*rate);
                            let net = i64::try_from((net.abs() + 5_000) / 10_000 * net.signum())
                                .expect("fits");
                            let totals = if net >= 0 {
                                Totals { debit: net, credit: 0 }
                            } else {
                                Totals { debit: 0, credit: -net }
                            };
                            AccountTotals { account: a.account, totals }
                        })
                        .collect()
                })
                .collect();
            let adjustment: i64 = parts.iter().map(|p| translation(p)).sum();
            let tb = trial_balance(consolidate(parts.clone()).expect("no overflow"), adjustment);
            prop_assert_eq!(tb.total_debits, tb.total_credits);
            prop_assert_eq!(tb.translation_adjustment, adjustment);
            let mut by_code: std::collections::HashMap<String, i64> = Default::default();
            for part in &parts {
                let member = trial_balance(part.clone(), translation(part));
                prop_assert_eq!(member.total_debits, member.total_credits);
                for row in member.rows {
                    *by_code.entry(row.account.code.clone()).or_default() += row.debit - row.credit;
                }
            }
            prop_assert_eq!(tb.rows.len(), by_code.len());
            for row in &tb.rows {
                prop_assert_eq!(Some(&(row.debit - row.credit)), by_code.get(&row.account.code));
            }
        }

        #[test]
        fn net_income_is_revenue_less_expenses(txns in balanced_transactions()) {
            let input = totals_of(&txns);
            let is = income_statement(input.clone());
            let bs = balance_sheet(input, 0);
            prop_assert_eq!(is.net_income, is.total_revenue - is.total_expenses);
            prop_assert_eq!(is.net_income, bs.current_earnings);
        }
    }

    #[test]
    fn a_sale_shows_on_every_report() {
        let chart = chart();
        let cash = chart
            .iter()
            .find(|a| a.code == "10000")
            .cloned()
            .expect("cash");
        let sales = chart
            .iter()
            .find(|a| a.code == "40000")
            .cloned()
            .expect("sales");
        let input = vec![
            AccountTotals {
                account: cash,
                totals: Totals {
                    debit: 1_000_000,
                    credit: 0,
                },
            },
            AccountTotals {
                account: sales,
                totals: Totals {
                    debit: 0,
                    credit: 1_000_000,
                },
            },
        ];
        let tb = trial_balance(input.clone(), 0);
        assert_eq!((tb.total_debits, tb.total_credits), (1_000_000, 1_000_000));
        assert_eq!(tb.rows[1].net_balance, 1_000_000);
        let bs = balance_sheet(input.clone(), 0);
        assert_eq!(
            (bs.total_assets, bs.current_earnings, bs.total_equity),
            (1_000_000, 1_000_000, 1_000_000)
        );
        assert_eq!(income_statement(input).net_income, 1_000_000);
    }

    #[test]
    fn a_period_ending_before_it_starts_is_invalid_input() {
        use crate::error::{ErrorCode, ErrorKind};
        use serde_json::json;

        const REST: PeriodFields = PeriodFields {
            start: "start_date",
            end: "end_date",
        };
        let day = |t: &str| FlexDate::parse(t).expect("a date");
        let now = day("2026-06-15T12:00:00Z").at;
        // Defaults: the year to date.
        let (from, until) = income_statement_period(None, None, now, REST).expect("defaults");
        assert_eq!((from, until), (day("2026-01-01").at, now));
        // One day is a period: its end counts up to and including that day.
        let (from, until) =
            income_statement_period(Some(day("2026-03-01")), Some(day("2026-03-01")), now, REST)
                .expect("one day");
        assert_eq!((from, until), (day("2026-03-01").at, day("2026-03-02").at));
        let e =
            income_statement_period(Some(day("2026-03-01")), Some(day("2026-02-01")), now, REST)
                .expect_err("an end before its start");
        assert_eq!(e.code(), ErrorCode::InvalidField);
        assert_eq!(e.kind(), ErrorKind::Validation);
        assert_eq!(e.to_string(), "end_date: must not be before start_date");
        assert_eq!(e.details(), Some(json!({"field": "end_date"})));
        let graphql = PeriodFields {
            start: "startDate",
            end: "endDate",
        };
        let e = income_statement_period(Some(day("2027-01-01")), None, now, graphql)
            .expect_err("a start after today without an end");
        assert_eq!(e.to_string(), "endDate: must not be before startDate");
        assert_eq!(e.details(), Some(json!({"field": "endDate"})));
    }

    #[test]
    fn a_report_stands_at_its_as_of_or_now() {
        let day = |t: &str| FlexDate::parse(t).expect("a date");
        let now = day("2026-06-15T12:00:00Z").at;
        let (shown, until) = report_as_of(None, now);
        assert_eq!((shown.at, shown.date_only, until), (now, false, None));
        // A date counts up to and including that day; a date-time up to that moment.
        assert_eq!(
            report_as_of(Some(day("2026-03-01")), now),
            (day("2026-03-01"), Some(day("2026-03-02").at))
        );
        let moment = day("2026-03-01T10:00:00Z");
        assert_eq!(
            report_as_of(Some(moment), now),
            (moment, Some(moment.at + time::Duration::nanoseconds(1)))
        );
    }
}
