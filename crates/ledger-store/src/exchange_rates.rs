//! Exchange rates: inserts, updates, reads, the "latest on or before" lookup and soft
//! deletes, each write with its event and credits.
//!
//! One live rate per tenant, pair and effective date is the partial unique index
//! `exchange_rates_pair_date`; a write it refuses answers `duplicate_value` on
//! `effective_date`. The same index serves the lookup and the list's currency filters.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::exchange::ExchangeRate;
use ledger_domain::ports::Taken;
use ledger_domain::ports::{
    ExchangeRateFilter, ExchangeRates, Page, PageRequest, StoreResult, Tenant,
};
use time::{Date, PrimitiveDateTime};

use crate::db::{Db, TxError, unique_or};
use crate::rows::{from_db, to_db};
use crate::schema::exchange_rates;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = exchange_rates, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
// An update (`AsChangeset`) sets every column but the key and the `skip_update` ones.
#[diesel(primary_key(organization_id, livemode, id), treat_none_as_null = true)]
struct ExchangeRateRow {
    organization_id: String,
    livemode: bool,
    id: String,
    #[diesel(skip_update)]
    from_currency: String,
    #[diesel(skip_update)]
    to_currency: String,
    rate: String,
    effective_date: Date,
    #[diesel(skip_update)]
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

impl From<&ExchangeRate> for ExchangeRateRow {
    fn from(r: &ExchangeRate) -> Self {
        Self {
            organization_id: r.organization_id.clone(),
            livemode: r.livemode,
            id: r.id.clone(),
            from_currency: r.from_currency.clone(),
            to_currency: r.to_currency.clone(),
            rate: r.rate.clone(),
            effective_date: r.effective_date,
            created_at: to_db(r.created_at),
            updated_at: to_db(r.updated_at),
        }
    }
}

impl From<ExchangeRateRow> for ExchangeRate {
    fn from(r: ExchangeRateRow) -> Self {
        Self {
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            from_currency: r.from_currency,
            to_currency: r.to_currency,
            rate: r.rate,
            effective_date: r.effective_date,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        }
    }
}

/// A failed insert or update of a rate: the unique index's refusal is a duplicate.
fn write_error(e: diesel::result::Error, row: &ExchangeRateRow) -> TxError {
    unique_or(e, || {
        StoreError::Taken(Taken::ExchangeRate {
            from_currency: row.from_currency.clone(),
            to_currency: row.to_currency.clone(),
            effective_date: row.effective_date,
        })
    })
}

impl ExchangeRates for Db {
    resource_methods!(
        ExchangeRate, ExchangeRateRow, exchange_rates, Resource::ExchangeRate, on_error = write_error;
        insert: insert_exchange_rate,
        update: update_exchange_rate,
        delete: delete_exchange_rate,
    );

    async fn get_exchange_rate(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> StoreResult<Option<ExchangeRate>> {
        live_record!(self, exchange_rates, tenant, id, ExchangeRateRow, |row| {
            Ok(ExchangeRate::from(row))
        })
    }

    async fn list_exchange_rates(
        &self,
        tenant: &Tenant,
        filter: &ExchangeRateFilter,
        page: PageRequest,
    ) -> StoreResult<Page<ExchangeRate>> {
        let from_currency = filter.from_currency.as_deref();
        let to_currency = filter.to_currency.as_deref();
        // Built twice (count and page): boxed queries are not Clone.
        read_page!(
            self,
            ExchangeRateRow,
            |row| Ok(ExchangeRate::from(row)),
            page,
            (
                exchange_rates::effective_date.desc(),
                exchange_rates::id.asc(),
            ),
            || {
                live_filtered!(
                    exchange_rates,
                    tenant,
                    from_currency = from_currency,
                    to_currency = to_currency,
                )
            }
        )
    }

    async fn latest_exchange_rate(
        &self,
        tenant: &Tenant,
        from_currency: &str,
        to_currency: &str,
        on: Date,
    ) -> StoreResult<Option<ExchangeRate>> {
        let row: Option<ExchangeRateRow> = db_read!(self, |conn| {
            // Every condition is on `exchange_rates_pair_date` (including its partial
            // `deleted_at IS NULL`): one index probe, read backwards from `on`.
            Ok(exchange_rates::table
                .filter(tenant_of!(exchange_rates, tenant))
                .filter(exchange_rates::from_currency.eq(from_currency))
                .filter(exchange_rates::to_currency.eq(to_currency))
                .filter(exchange_rates::deleted_at.is_null())
                .filter(exchange_rates::effective_date.le(on))
                .order(exchange_rates::effective_date.desc())
                .select(ExchangeRateRow::as_select())
                .first(conn)
                .await
                .optional()?)
        })?;
        Ok(row.map(ExchangeRate::from))
    }
}
