//! Exchange rates of a tenant, written synchronously, and the lookup of the rate that
//! applies to a pair on a date.

use std::future::Future;

use time::Date;

use crate::events::Deletion;
use crate::exchange::ExchangeRate;

use super::{Audit, Page, PageRequest, StoreResult, Tenant, Written};

/// Filters of the exchange-rate list (ISO codes).
#[derive(Debug, Clone, Default)]
pub struct ExchangeRateFilter {
    pub from_currency: Option<String>,
    pub to_currency: Option<String>,
}

/// Exchange rates (spec 2.9): synchronous writes, each with its event and credits. A
/// tenant has at most one live rate per pair and effective date.
pub trait ExchangeRates: Send + Sync + 'static {
    /// Inserts a rate and its event, taking the credits of `charge`; an `idempotency` key
    /// of the tenant already used within the window is replayed instead (nothing is
    /// written).
    ///
    /// # Errors
    /// `Taken` (field `effective_date`) when a live rate of the tenant has the
    /// same pair and effective date; `CreditsShort` when a live pool is short.
    /// Nothing is written then.
    fn insert_exchange_rate(
        &self,
        rate: ExchangeRate,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<ExchangeRate>>> + Send;

    /// Saves the mutable fields of a rate (rate, effective_date, updated_at) and its
    /// event, taking the credits of `charge`; a used `idempotency` key is replayed instead.
    ///
    /// # Errors
    /// `Missing` when the rate is not live in its tenant; `Taken`
    /// (field `effective_date`) when another live rate of the pair has the new effective
    /// date; `CreditsShort` when a live pool is short. Nothing is written then.
    fn update_exchange_rate(
        &self,
        rate: ExchangeRate,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<ExchangeRate>>> + Send;

    /// A rate of the tenant that is not deleted.
    fn get_exchange_rate(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<ExchangeRate>>> + Send;

    /// The tenant's rates that are not deleted, matching `filter`, newest effective date
    /// first, then by id.
    fn list_exchange_rates(
        &self,
        tenant: &Tenant,
        filter: &ExchangeRateFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<ExchangeRate>>> + Send;

    /// The live rate of the tenant from `from_currency` to `to_currency` (ISO codes) with
    /// the latest effective date on or before `on`, in one indexed read; `None` when the
    /// pair has none.
    fn latest_exchange_rate(
        &self,
        tenant: &Tenant,
        from_currency: &str,
        to_currency: &str,
        on: Date,
    ) -> impl Future<Output = StoreResult<Option<ExchangeRate>>> + Send;

    /// Soft-deletes a rate with its deletion record and event, taking the credits; a
    /// used `idempotency` key is replayed instead.
    ///
    /// # Errors
    /// `Missing` when the rate is not live in the deletion's tenant;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn delete_exchange_rate(
        &self,
        rate_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;
}
