//! Reports over posted balances (DECISIONS 8).

use std::collections::HashMap;

use time::OffsetDateTime;

use crate::accounts::{AccountType, Totals};
use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::money::Currency;
use crate::organizations::{Organization, Relationship};
use crate::ports::PageRequest;
use crate::ports::{Store, Tenant};
use crate::reports::{
    AccountTotals, BalanceSheet, ChartLine, IncomeStatement, TrialBalance, balance_sheet,
    consolidate, income_statement, trial_balance,
};
use time::Date;

use super::pipeline::{Channel, Operation};
use super::{Access, Ledger};

/// Whether an account type is valued at the closing rate (balance-sheet items) rather
/// than at the rate of each posting's date (income-statement items).
fn at_closing_rate(kind: AccountType) -> bool {
    matches!(
        kind,
        AccountType::Asset | AccountType::Liability | AccountType::Equity
    )
}

/// Totals of a signed net (debit minus credit): on its natural side.
fn on_its_side(net: i64) -> Totals {
    if net >= 0 {
        Totals {
            debit: net,
            credit: 0,
        }
    } else {
        Totals {
            debit: 0,
            credit: -net,
        }
    }
}

/// The input of a report in one currency: every account's totals in it, and the
/// translation adjustment (see [`crate::reports`]).
pub(super) struct ReportBasis {
    pub totals: Vec<AccountTotals>,
    pub translation_adjustment: i64,
}

impl<S: Store> Ledger<S> {
    /// Every account's totals of entries dated in `[from, until)` of the books of
    /// `tenant`, in `currency`: an account in another currency is converted with the rates
    /// of `rates_tenant` (the tenant itself, or the parent of a consolidation), balance-sheet
    /// items at the rate of the closing day (the day before `until`, else today) and
    /// income-statement items day by day at the rate of each posting's date, each
    /// rounded half away from zero to the currency's minor unit.
    ///
    /// # Errors
    /// `exchange_rate_not_found` naming the pair and day when a rate is missing.
    async fn report_basis(
        &self,
        tenant: &Tenant,
        rates_tenant: &Tenant,
        currency: Currency,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> DomainResult<ReportBasis> {
        let chart = self.store.chart_with_totals(tenant, from, until).await?;
        let code = currency.code();
        let foreign_by_day: Vec<String> = chart
            .iter()
            .filter(|l| l.currency != code && !at_closing_rate(l.account.account_type))
            .map(|l| l.account.id.clone())
            .collect();
        let day_of = |t: OffsetDateTime| t.to_offset(time::UtcOffset::UTC).date();
        let closing = until
            .map(|u| day_of(u - time::Duration::nanoseconds(1)))
            .unwrap_or_else(|| day_of(self.now()));
        let mut daily: HashMap<String, Vec<(Date, Totals)>> = HashMap::new();
        if !foreign_by_day.is_empty() {
            let last =
                until.map(|u| day_of(u - time::Duration::nanoseconds(1)) + time::Duration::days(1));
            for (id, day, t) in self
                .store
                .daily_totals(tenant, &foreign_by_day, from.map(day_of), last)
                .await?
            {
                daily.entry(id).or_default().push((day, t));
            }
        }
        let mut rates: HashMap<(String, Date), crate::exchange::AppliedRate> = HashMap::new();
        let mut result = Vec::with_capacity(chart.len());
        let mut net_sum: i64 = 0;
        for line in chart {
            let ChartLine {
                account,
                currency: own_currency,
                totals: own,
            } = line;
            let converted = if own_currency == code {
                own
            } else if at_closing_rate(account.account_type) {
                let net = self
                    .converted(
                        rates_tenant,
                        &mut rates,
                        &own_currency,
                        currency,
                        closing,
                        own,
                    )
                    .await?;
                on_its_side(net)
            } else {
                let mut net = 0i64;
                for (day, t) in daily.remove(&account.id).unwrap_or_default() {
                    let part = self
                        .converted(rates_tenant, &mut rates, &own_currency, currency, day, t)
                        .await?;
                    net = net.saturating_add(part);
                }
                on_its_side(net)
            };
            net_sum = net_sum.saturating_add(converted.debit - converted.credit);
            result.push(AccountTotals {
                totals: converted,
                account,
            });
        }
        Ok(ReportBasis {
            totals: result,
            translation_adjustment: net_sum,
        })
    }

    /// The organizations a consolidated report of the access's organization covers: the
    /// organization itself, then every descendant reached through `owned` links only, in
    /// tree order. A `linked` organization stays out, and so does everything below it
    /// (it is consolidated, if at all, into its own reports).
    ///
    /// # Errors
    /// Storage failures.
    pub async fn consolidation_members(&self, access: &Access) -> DomainResult<Vec<Organization>> {
        let parent = self.current_organization(access).await?;
        let mut members = vec![parent.clone()];
        let mut included: std::collections::HashSet<String> =
            std::iter::once(parent.id.clone()).collect();
        let mut offset = 0;
        loop {
            let page = PageRequest {
                limit: crate::ports::MAX_PAGE_SIZE,
                offset,
            };
            let found = self.store.list_descendants(&parent.path, page).await?;
            let n = found.items.len() as i64;
            // Tree order: a parent comes before its children, so its membership is known.
            for org in found.items {
                let owned = org.relationship == Some(Relationship::Owned);
                let under_member = org.parent_id.as_ref().is_some_and(|p| included.contains(p));
                if owned && under_member {
                    included.insert(org.id.clone());
                    members.push(org);
                }
            }
            offset += n;
            if n == 0 || offset >= found.total_count {
                break;
            }
        }
        Ok(members)
    }

    /// The basis of a report of the access's organization: its own books, or with
    /// `consolidated` the books of every member (each converted into `currency` with the
    /// organization's own rates, by the rules of [`Ledger::report_basis`]) combined by
    /// account type and code ([`consolidate`]), their translation adjustments added.
    async fn scoped_basis(
        &self,
        access: &Access,
        currency: Currency,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        consolidated: bool,
    ) -> DomainResult<ReportBasis> {
        if !consolidated {
            return self
                .report_basis(&access.tenant, &access.tenant, currency, from, until)
                .await;
        }
        let mut parts = Vec::new();
        let mut translation_adjustment: i64 = 0;
        for member in self.consolidation_members(access).await? {
            let books = Tenant {
                organization_id: member.id,
                livemode: access.tenant.livemode,
            };
            let basis = self
                .report_basis(&books, &access.tenant, currency, from, until)
                .await?;
            translation_adjustment = translation_adjustment
                .checked_add(basis.translation_adjustment)
                .ok_or_else(|| DomainError::Internal("a consolidated total overflowed".into()))?;
            parts.push(basis.totals);
        }
        Ok(ReportBasis {
            totals: consolidate(parts)
                .ok_or_else(|| DomainError::Internal("a consolidated total overflowed".into()))?,
            translation_adjustment,
        })
    }

    /// The net (debit minus credit) of `totals` in `from` converted into `to` at the rate
    /// of `day`, rates cached per currency and day.
    async fn converted(
        &self,
        tenant: &Tenant,
        rates: &mut HashMap<(String, Date), crate::exchange::AppliedRate>,
        from: &str,
        to: Currency,
        day: Date,
        totals: Totals,
    ) -> DomainResult<i64> {
        let net = totals.debit - totals.credit;
        if net == 0 {
            return Ok(0);
        }
        let key = (from.to_owned(), day);
        if !rates.contains_key(&key) {
            let source = Currency::from_code(from).ok_or_else(|| {
                DomainError::Internal(format!("account currency '{from}' is not ISO 4217"))
            })?;
            let rate = self.rate_on(tenant, source, to, day).await?.ok_or_else(|| {
                DomainError::rule(
                    ErrorCode::ExchangeRateNotFound,
                    format!(
                        "no {from}/{} exchange rate is effective on {day}; create one to report in {}",
                        to.code(),
                        to.code()
                    ),
                )
            })?;
            rates.insert(key.clone(), rate);
        }
        rates
            .get(&key)
            .and_then(|rate| rate.convert(net))
            .ok_or_else(|| DomainError::Internal("a converted amount overflowed".into()))
    }

    /// An account's totals in `currency` at the rate of `on` (a balance is a balance-sheet
    /// figure: the closing rate), each side rounded half away from zero to the currency's
    /// minor unit and the net computed from them.
    ///
    /// # Errors
    /// `exchange_rate_not_found` when no rate applies on `on`.
    pub async fn convert_totals(
        &self,
        access: &Access,
        account: &crate::accounts::Account,
        totals: Totals,
        currency: Currency,
        on: Date,
    ) -> DomainResult<(crate::exchange::AppliedRate, Totals)> {
        let source = Currency::from_code(&account.currency).ok_or_else(|| {
            DomainError::Internal(format!(
                "account currency '{}' is not ISO 4217",
                account.currency
            ))
        })?;
        let rate = self
            .rate_on(&access.tenant, source, currency, on)
            .await?
            .ok_or_else(|| {
                DomainError::rule(
                    ErrorCode::ExchangeRateNotFound,
                    format!(
                        "no {}/{} exchange rate is effective on {on}",
                        account.currency,
                        currency.code()
                    ),
                )
            })?;
        let overflow = || DomainError::Internal("a converted amount overflowed".into());
        let converted = Totals {
            debit: rate.convert(totals.debit).ok_or_else(overflow)?,
            credit: rate.convert(totals.credit).ok_or_else(overflow)?,
        };
        Ok((rate, converted))
    }

    /// The report currency: `currency` (an ISO code) or the organization's base.
    ///
    /// # Errors
    /// `invalid_field` on `currency`.
    pub fn report_currency(
        &self,
        access: &Access,
        currency: Option<&str>,
    ) -> DomainResult<Currency> {
        let code = currency
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .unwrap_or(&access.organization.base_currency);
        Currency::from_code(code).ok_or_else(|| {
            DomainError::invalid_field("currency", "must be an ISO 4217 currency code")
        })
    }

    /// The trial balance of entries dated before `until` (consolidated: of the
    /// organization and its owned descendants, see [`Ledger::consolidation_members`]).
    ///
    /// # Errors
    /// Storage failures; `insufficient_credits` where the channel charges for reports
    /// (taken only after the report was computed).
    pub async fn trial_balance(
        &self,
        access: &Access,
        currency: Currency,
        until: Option<OffsetDateTime>,
        consolidated: bool,
        channel: Channel,
    ) -> DomainResult<TrialBalance> {
        let basis = self.scoped_basis(access, currency, None, until, consolidated);
        self.charged_report(access, channel, basis, |b| {
            trial_balance(b.totals, b.translation_adjustment)
        })
        .await
    }

    /// The balance sheet of entries dated before `until` (consolidated or not).
    ///
    /// # Errors
    /// Storage failures; `insufficient_credits` where the channel charges for reports
    /// (taken only after the report was computed).
    pub async fn balance_sheet(
        &self,
        access: &Access,
        currency: Currency,
        until: Option<OffsetDateTime>,
        consolidated: bool,
        channel: Channel,
    ) -> DomainResult<BalanceSheet> {
        let basis = self.scoped_basis(access, currency, None, until, consolidated);
        self.charged_report(access, channel, basis, |b| {
            balance_sheet(b.totals, b.translation_adjustment)
        })
        .await
    }

    /// The income statement of entries dated in `[from, until)` (consolidated or not).
    ///
    /// # Errors
    /// Storage failures; `insufficient_credits` where the channel charges for reports
    /// (taken only after the report was computed).
    pub async fn income_statement(
        &self,
        access: &Access,
        currency: Currency,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        consolidated: bool,
        channel: Channel,
    ) -> DomainResult<IncomeStatement> {
        let basis = self.scoped_basis(access, currency, from, until, consolidated);
        self.charged_report(access, channel, basis, |b| income_statement(b.totals))
            .await
    }

    /// The report `make` computes from `basis`, charged where the channel charges for
    /// reports, only once it was computed.
    async fn charged_report<R>(
        &self,
        access: &Access,
        channel: Channel,
        basis: impl Future<Output = DomainResult<ReportBasis>>,
        make: impl FnOnce(ReportBasis) -> R,
    ) -> DomainResult<R> {
        let report = make(basis.await?);
        self.charge_read(access, Operation::Report, channel).await?;
        Ok(report)
    }
}
