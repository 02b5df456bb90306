//! Exchange rates in memory: synchronous writes with their event, credits and
//! idempotency record, and the reads, checked in the SQL adapter's order (the key's
//! replay, the credits, then the write's own refusals). The one-live-rate-per-pair-and-
//! date rule is the SQL adapter's partial unique index.

use crate::ports::{Audit, StoreError, Taken};
use time::Date;

use crate::error::Resource;
use crate::exchange::ExchangeRate;
use crate::ports::{
    ExchangeRateFilter, ExchangeRates, Page, PageRequest, StoreResult, Tenant, Written,
};

use super::tenanted::{insert_new, live_rows, live_where, stored_index, table_methods, tenant_of};
use super::{MemoryStore, State, page_of};

/// The refusal of a second live rate of a pair on one date.
fn duplicate(rate: &ExchangeRate) -> StoreError {
    StoreError::Taken(Taken::ExchangeRate {
        from_currency: rate.from_currency.clone(),
        to_currency: rate.to_currency.clone(),
        effective_date: rate.effective_date,
    })
}

impl State {
    /// Whether another live rate of the tenant has `rate`'s pair and effective date.
    fn clashes(&self, rate: &ExchangeRate) -> bool {
        let tenant = tenant_of(rate);
        live_rows(&self.exchange_rates, &tenant).any(|r| {
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
            insert_new(&mut state.exchange_rates, rate, "exchange rate")
        })
    }

    async fn update_exchange_rate(
        &self,
        rate: ExchangeRate,
        audit: Audit,
    ) -> StoreResult<Written<ExchangeRate>> {
        self.state().audited(audit, |state| {
            let index = stored_index(&state.exchange_rates, &rate, Resource::ExchangeRate)?;
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

    table_methods! {
        fn get_exchange_rate(get) -> ExchangeRate: exchange_rates;
    }

    async fn list_exchange_rates(
        &self,
        tenant: &Tenant,
        filter: &ExchangeRateFilter,
        page: PageRequest,
    ) -> StoreResult<Page<ExchangeRate>> {
        let mut found = live_where(&self.state().exchange_rates, tenant, |r| {
            filter
                .from_currency
                .as_ref()
                .is_none_or(|c| r.from_currency == *c)
                && filter
                    .to_currency
                    .as_ref()
                    .is_none_or(|c| r.to_currency == *c)
        });
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
        Ok(live_rows(&state.exchange_rates, tenant)
            .filter(|r| {
                r.from_currency == from_currency
                    && r.to_currency == to_currency
                    && r.effective_date <= on
            })
            .max_by_key(|r| r.effective_date)
            .cloned())
    }

    table_methods! {
        fn delete_exchange_rate(delete) -> ExchangeRate: exchange_rates;
    }
}
