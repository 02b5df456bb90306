//! Exchange rates in memory: synchronous writes with their event, credits and
//! idempotency record, and the reads, checked in the SQL adapter's order (the key's
//! replay, the credits, then the write's own refusals). The one-live-rate-per-pair-and-
//! date rule is the SQL adapter's partial unique index.

use crate::ports::{Audit, StoreError, Taken};
use time::Date;

use crate::error::Resource;
use crate::events::Deletion;
use crate::exchange::ExchangeRate;
use crate::ports::{
    ExchangeRateFilter, ExchangeRates, Page, PageRequest, StoreResult, Tenant, Written,
};

use super::tenanted::live_in;
use super::{MemoryStore, State, in_tenant, page_of, push_new};

fn rate_not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::ExchangeRate, id)
}

/// The refusal of a second live rate of a pair on one date.
fn duplicate(rate: &ExchangeRate) -> StoreError {
    StoreError::Taken(Taken::ExchangeRate {
        from_currency: rate.from_currency.clone(),
        to_currency: rate.to_currency.clone(),
        effective_date: rate.effective_date,
    })
}

impl State {
    fn live_rates<'a>(&'a self, tenant: &'a Tenant) -> impl Iterator<Item = &'a ExchangeRate> {
        self.exchange_rates
            .iter()
            .filter(move |r| {
                r.is_live() && in_tenant(tenant, &r.value.organization_id, r.value.livemode)
            })
            .map(|r| &r.value)
    }

    fn live_rate(&self, tenant: &Tenant, id: &str) -> Option<usize> {
        live_in(&self.exchange_rates, tenant, id)
    }

    /// Whether another live rate of the tenant has `rate`'s pair and effective date.
    fn clashes(&self, rate: &ExchangeRate) -> bool {
        let tenant = Tenant {
            organization_id: rate.organization_id.clone(),
            livemode: rate.livemode,
        };
        self.live_rates(&tenant).any(|r| {
            r.id != rate.id
                && r.from_currency == rate.from_currency
                && r.to_currency == rate.to_currency
                && r.effective_date == rate.effective_date
        })
    }
}

impl ExchangeRates for MemoryStore {
    async fn insert_exchange_rate(
        &self,
        rate: ExchangeRate,
        audit: Audit,
    ) -> StoreResult<Written<ExchangeRate>> {
        self.state().audited(audit, |state| {
            if state.clashes(&rate) {
                return Err(duplicate(&rate));
            }
            let same =
                |r: &ExchangeRate| r.organization_id == rate.organization_id && r.id == rate.id;
            push_new(
                &mut state.exchange_rates,
                rate.clone(),
                same,
                "exchange rate",
                &rate.id,
            )?;
            Ok(rate)
        })
    }

    async fn update_exchange_rate(
        &self,
        rate: ExchangeRate,
        audit: Audit,
    ) -> StoreResult<Written<ExchangeRate>> {
        self.state().audited(audit, |state| {
            let tenant = Tenant {
                organization_id: rate.organization_id.clone(),
                livemode: rate.livemode,
            };
            let Some(index) = state.live_rate(&tenant, &rate.id) else {
                return Err(rate_not_found(&rate.id));
            };
            if state.clashes(&rate) {
                return Err(duplicate(&rate));
            }
            let stored = &mut state.exchange_rates[index].value;
            stored.rate = rate.rate.clone();
            stored.effective_date = rate.effective_date;
            stored.updated_at = rate.updated_at;
            Ok(rate)
        })
    }

    async fn get_exchange_rate(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> StoreResult<Option<ExchangeRate>> {
        let state = self.state();
        Ok(state
            .live_rate(tenant, id)
            .map(|i| state.exchange_rates[i].value.clone()))
    }

    async fn list_exchange_rates(
        &self,
        tenant: &Tenant,
        filter: &ExchangeRateFilter,
        page: PageRequest,
    ) -> StoreResult<Page<ExchangeRate>> {
        let state = self.state();
        let mut found: Vec<ExchangeRate> = state
            .live_rates(tenant)
            .filter(|r| {
                filter
                    .from_currency
                    .as_ref()
                    .is_none_or(|c| r.from_currency == *c)
                    && filter
                        .to_currency
                        .as_ref()
                        .is_none_or(|c| r.to_currency == *c)
            })
            .cloned()
            .collect();
        found.sort_by(|a, b| {
            b.effective_date
                .cmp(&a.effective_date)
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(page_of(found, Some(page)))
    }

    async fn latest_exchange_rate(
        &self,
        tenant: &Tenant,
        from_currency: &str,
        to_currency: &str,
        on: Date,
    ) -> StoreResult<Option<ExchangeRate>> {
        let state = self.state();
        Ok(state
            .live_rates(tenant)
            .filter(|r| {
                r.from_currency == from_currency
                    && r.to_currency == to_currency
                    && r.effective_date <= on
            })
            .max_by_key(|r| r.effective_date)
            .cloned())
    }

    async fn delete_exchange_rate(
        &self,
        rate_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        self.state().audited(audit, |state| {
            state.soft_delete(
                |s| &mut s.exchange_rates,
                Resource::ExchangeRate,
                rate_id,
                deletion,
            )
        })
    }
}
