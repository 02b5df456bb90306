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
use ledger_domain::events::Deletion;
use ledger_domain::exchange::ExchangeRate;
use ledger_domain::ports::Taken;
use ledger_domain::ports::{
    Audit, ExchangeRateFilter, ExchangeRates, Page, PageRequest, StoreResult, Tenant, Written,
};
use time::{Date, PrimitiveDateTime};

use crate::db::{Db, TxError, is_unique_violation};
use crate::rows::{from_db, to_db};
use crate::schema::exchange_rates;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = exchange_rates, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct ExchangeRateRow {
    organization_id: String,
    livemode: bool,
    id: String,
    from_currency: String,
    to_currency: String,
    rate: String,
    effective_date: Date,
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

fn rate_not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::ExchangeRate, id)
}

/// A failed insert or update of a rate: the unique index's refusal is a duplicate.
fn write_error(e: diesel::result::Error, row: &ExchangeRateRow) -> TxError {
    if is_unique_violation(&e) {
        StoreError::Taken(Taken::ExchangeRate {
            from_currency: row.from_currency.clone(),
            to_currency: row.to_currency.clone(),
            effective_date: row.effective_date,
        })
        .into()
    } else {
        e.into()
    }
}

impl ExchangeRates for Db {
    async fn insert_exchange_rate(
        &self,
        rate: ExchangeRate,
        audit: Audit,
    ) -> StoreResult<Written<ExchangeRate>> {
        let row = ExchangeRateRow::from(&rate);
        audited!(self, audit, |conn| {
            diesel::insert_into(exchange_rates::table)
                .values(&row)
                .execute(conn)
                .await
                .map_err(|e| write_error(e, &row))?;
            rate
        })
    }

    async fn update_exchange_rate(
        &self,
        rate: ExchangeRate,
        audit: Audit,
    ) -> StoreResult<Written<ExchangeRate>> {
        let row = ExchangeRateRow::from(&rate);
        audited!(self, audit, |conn| {
            let changed = diesel::update(exchange_rates::table)
                .filter(tenant_of!(exchange_rates, row))
                .filter(exchange_rates::id.eq(&row.id))
                .filter(exchange_rates::deleted_at.is_null())
                .set((
                    exchange_rates::rate.eq(&row.rate),
                    exchange_rates::effective_date.eq(row.effective_date),
                    exchange_rates::updated_at.eq(row.updated_at),
                ))
                .execute(conn)
                .await
                .map_err(|e| write_error(e, &row))?;
            if changed == 0 {
                return Err(rate_not_found(&row.id).into());
            }
            rate
        })
    }

    async fn get_exchange_rate(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> StoreResult<Option<ExchangeRate>> {
        let row: Option<ExchangeRateRow> = db_read!(self, |conn| {
            Ok(exchange_rates::table
                .filter(tenant_of!(exchange_rates, tenant))
                .filter(exchange_rates::id.eq(id))
                .filter(exchange_rates::deleted_at.is_null())
                .select(ExchangeRateRow::as_select())
                .first(conn)
                .await
                .optional()?)
        })?;
        Ok(row.map(ExchangeRate::from))
    }

    async fn list_exchange_rates(
        &self,
        tenant: &Tenant,
        filter: &ExchangeRateFilter,
        page: PageRequest,
    ) -> StoreResult<Page<ExchangeRate>> {
        let from_currency = filter.from_currency.as_deref();
        let to_currency = filter.to_currency.as_deref();
        let (rows, total_count): (Vec<ExchangeRateRow>, i64) = db_read!(self, |conn| {
            // The filter is built twice (count and page): boxed queries are not Clone.
            let filtered = || {
                let mut query = exchange_rates::table
                    .filter(tenant_of!(exchange_rates, tenant))
                    .filter(exchange_rates::deleted_at.is_null())
                    .into_boxed();
                if let Some(code) = from_currency {
                    query = query.filter(exchange_rates::from_currency.eq(code));
                }
                if let Some(code) = to_currency {
                    query = query.filter(exchange_rates::to_currency.eq(code));
                }
                query
            };
            let total: i64 = filtered().count().get_result(conn).await?;
            let rows = filtered()
                .order((
                    exchange_rates::effective_date.desc(),
                    exchange_rates::id.asc(),
                ))
                .select(ExchangeRateRow::as_select())
                .limit(page.limit)
                .offset(page.offset)
                .load(conn)
                .await?;
            Ok((rows, total))
        })?;
        Ok(Page {
            items: rows.into_iter().map(ExchangeRate::from).collect(),
            total_count,
        })
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

    async fn delete_exchange_rate(
        &self,
        rate_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        audited_soft_delete!(
            self,
            exchange_rates,
            Resource::ExchangeRate,
            rate_id,
            deletion,
            audit
        )
    }
}
