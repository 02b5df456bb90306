//! Credit pools, their ledger and purchases (the `Credits` port).
//!
//! The balance of a live pool is `organizations.credits_remaining`; every statement that
//! changes it inserts a `credit_ledger` row of the same amount in the same transaction,
//! so a pool's rows sum to its balance at every commit ([`Db::verify_credits`] checks
//! it). The reset and the crediting of a purchase read the balance under the pool's row
//! lock (PostgreSQL `FOR UPDATE`; SQLite's single writer holds every row), so a write
//! charging at the same moment either commits before the read or waits for the reset.
//! Both are exactly-once: a reset by the ledger row `reset_<period>` (a primary key, so
//! of two replicas only one inserts it), a purchase by the compare-and-set of its status
//! and the ledger row named by the purchase id.

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel_async::RunQueryDsl;
use ledger_domain::StoreError;
use ledger_domain::credits::{
    CreditPool, CreditPurchase, LedgerEntry, LedgerKind, after_purchase, after_reset,
    purchased_left, reset_entry_id,
};
use ledger_domain::events::Event;
use ledger_domain::ports::{Credits, Page, PageRequest, StoreResult, Tenant};
use time::OffsetDateTime;

use crate::db::{Db, TxError, is_unique_violation};
use crate::organizations::SUM_CREDITS;
use crate::rows::{CreditLedgerRow, CreditPoolRow, CreditPurchaseRow, event_rows, to_db};
use crate::schema::{credit_ledger, credit_pools, credit_purchases, events, organizations};

/// A pool whose ledger does not sum to its balance.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct CreditDifference {
    #[diesel(sql_type = Text)]
    pub organization_id: String,
    #[diesel(sql_type = BigInt)]
    pub credits_remaining: i64,
    #[diesel(sql_type = BigInt)]
    pub ledger_sum: i64,
}

/// Every organization whose balance differs from the sum of its ledger rows.
const CREDIT_DIFFERENCES: &str = "SELECT o.id AS organization_id, \
     o.credits_remaining AS credits_remaining, \
     CAST(COALESCE(SUM(l.credits), 0) AS BIGINT) AS ledger_sum \
     FROM organizations o LEFT JOIN credit_ledger l ON l.organization_id = o.id \
     GROUP BY o.id, o.credits_remaining \
     HAVING o.credits_remaining <> CAST(COALESCE(SUM(l.credits), 0) AS BIGINT)";

impl Db {
    /// The pools whose credit ledger does not sum to their balance (none, unless a path
    /// changed a balance without its ledger row).
    ///
    /// # Errors
    /// Storage failures.
    pub async fn verify_credits(&self) -> StoreResult<Vec<CreditDifference>> {
        db_read!(self, |conn| {
            Ok(diesel::sql_query(CREDIT_DIFFERENCES)
                .load::<CreditDifference>(conn)
                .await?)
        })
    }
}

/// The reset of one pool inside a write transaction; `$lock` is `for_update` on
/// PostgreSQL (the pool row locked before its balance is read) and `none` on SQLite.
macro_rules! reset_body {
    ($conn:ident, $lock:ident, $pool:ident, $period:ident, $allowance:ident, $at:ident) => {{
        let query = organizations::table
            .filter(organizations::id.eq(&$pool))
            .select(organizations::credits_remaining);
        let balance: Option<i64> = reset_body!(@read query, $conn, $lock);
        let Some(balance) = balance else {
            return Ok(None);
        };
        let state: Option<CreditPoolRow> = credit_pools::table
            .filter(credit_pools::organization_id.eq(&$pool))
            .select(CreditPoolRow::as_select())
            .first($conn)
            .await
            .optional()?;
        let Some(state) = state else {
            return Ok(None);
        };
        if state.period.as_str() >= $period.as_str() {
            return Ok(None);
        }
        let (remaining, kept) = after_reset(balance, state.credits_purchased, $allowance);
        let change = remaining - balance;
        diesel::insert_into(credit_ledger::table)
            .values(&CreditLedgerRow::new(
                &$pool,
                &reset_entry_id(&$period),
                LedgerKind::Reset,
                change,
                Some($period.as_str()),
                $at,
            ))
            .execute($conn)
            .await?;
        diesel::update(organizations::table.filter(organizations::id.eq(&$pool)))
            .set((
                organizations::credits_remaining.eq(organizations::credits_remaining + change),
                organizations::credits_total.eq(remaining),
            ))
            .execute($conn)
            .await?;
        diesel::update(credit_pools::table.filter(credit_pools::organization_id.eq(&$pool)))
            .set((
                credit_pools::credits_purchased.eq(kept),
                credit_pools::period.eq(&$period),
                credit_pools::updated_at.eq($at),
            ))
            .execute($conn)
            .await?;
        Ok(Some(change))
    }};
    (@read $query:ident, $conn:ident, for_update) => {
        $query.for_update().first($conn).await.optional()?
    };
    (@read $query:ident, $conn:ident, none) => {
        $query.first($conn).await.optional()?
    };
}

/// The completion of one purchase inside a write transaction (`$lock` as above): the
/// status compare-and-set, then for a live purchase the pool's ledger row, balance and
/// purchased part, then the event.
macro_rules! complete_body {
    ($conn:ident, $lock:ident, $org:ident, $id:ident, $session:ident, $at:ident, $event_rows:ident) => {{
        let query = credit_purchases::table
            .filter(credit_purchases::organization_id.eq(&$org))
            .filter(credit_purchases::id.eq(&$id))
            .select(CreditPurchaseRow::as_select());
        let found: Option<CreditPurchaseRow> = reset_body!(@read query, $conn, $lock);
        let Some(mut row) = found else {
            return Err(::ledger_domain::StoreError::missing(::ledger_domain::Resource::CreditPurchase, $id)
            .into());
        };
        if row.status != "pending" {
            return Ok((row, false));
        }
        row.status = "completed".to_owned();
        row.completed_at = Some($at);
        if $session.is_some() {
            row.provider_session_id = $session.clone();
        }
        diesel::update(
            credit_purchases::table
                .filter(credit_purchases::organization_id.eq(&$org))
                .filter(credit_purchases::id.eq(&$id))
                .filter(credit_purchases::status.eq("pending")),
        )
        .set((
            credit_purchases::status.eq(&row.status),
            credit_purchases::completed_at.eq(row.completed_at),
            credit_purchases::provider_session_id.eq(&row.provider_session_id),
        ))
        .execute($conn)
        .await?;
        if row.livemode {
            let pool = row.pool_id.clone();
            let query = organizations::table
                .filter(organizations::id.eq(&pool))
                .select(organizations::credits_remaining);
            let balance: Option<i64> = reset_body!(@read query, $conn, $lock);
            let balance = balance.ok_or_else(|| {
                TxError::Fact(StoreError::Internal(format!("credit pool {pool}")))
            })?;
            let purchased: i64 = credit_pools::table
                .filter(credit_pools::organization_id.eq(&pool))
                .select(credit_pools::credits_purchased)
                .first($conn)
                .await
                .optional()?
                .unwrap_or(0);
            let (_, bought) = after_purchase(balance, purchased, row.credits);
            diesel::insert_into(credit_ledger::table)
                .values(&CreditLedgerRow::new(
                    &pool,
                    &row.id,
                    LedgerKind::Purchase,
                    row.credits,
                    Some(row.id.as_str()),
                    $at,
                ))
                .execute($conn)
                .await?;
            diesel::update(organizations::table.filter(organizations::id.eq(&pool)))
                .set((
                    organizations::credits_remaining
                        .eq(organizations::credits_remaining + row.credits),
                    organizations::credits_total.eq(organizations::credits_total + row.credits),
                ))
                .execute($conn)
                .await?;
            diesel::update(credit_pools::table.filter(credit_pools::organization_id.eq(&pool)))
                .set((
                    credit_pools::credits_purchased.eq(bought),
                    credit_pools::updated_at.eq($at),
                ))
                .execute($conn)
                .await?;
        }
        for event in &$event_rows {
            diesel::insert_into(events::table)
                .values(event)
                .execute($conn)
                .await?;
        }
        Ok((row, true))
    }};
}

impl Credits for Db {
    async fn credit_pool(&self, pool_id: &str) -> StoreResult<Option<CreditPool>> {
        let found: Option<(i64, i64, i64, String)> = db_read!(self, |conn| {
            Ok(organizations::table
                .inner_join(
                    credit_pools::table.on(credit_pools::organization_id.eq(organizations::id)),
                )
                .filter(organizations::id.eq(pool_id))
                .select((
                    organizations::credits_remaining,
                    organizations::credits_total,
                    credit_pools::credits_purchased,
                    credit_pools::period,
                ))
                .first(conn)
                .await
                .optional()?)
        })?;
        Ok(
            found.map(|(remaining, total, purchased, period)| CreditPool {
                organization_id: pool_id.to_owned(),
                credits_remaining: remaining,
                credits_total: total,
                purchased_remaining: purchased_left(purchased, remaining),
                period,
            }),
        )
    }

    async fn reset_pool(
        &self,
        pool_id: &str,
        period: &str,
        allowance: i64,
        at: OffsetDateTime,
    ) -> StoreResult<Option<i64>> {
        let pool = pool_id.to_owned();
        let period = period.to_owned();
        let at = to_db(at);
        let result = db_write!(
            self,
            postgres | conn | { reset_body!(conn, for_update, pool, period, allowance, at) },
            sqlite | conn | { reset_body!(conn, none, pool, period, allowance, at) }
        );
        match result {
            Ok(change) => Ok(change),
            // Another replica inserted this month's reset row first: it reset the pool.
            Err(TxError::Db(e)) if is_unique_violation(&e) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    async fn pools_due(&self, period: &str, limit: i64) -> StoreResult<Vec<String>> {
        db_read!(self, |conn| {
            Ok(credit_pools::table
                .filter(credit_pools::period.lt(period))
                .order((
                    credit_pools::period.asc(),
                    credit_pools::organization_id.asc(),
                ))
                .limit(limit)
                .select(credit_pools::organization_id)
                .load(conn)
                .await?)
        })
    }

    async fn credit_ledger(
        &self,
        pool_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<LedgerEntry>> {
        read_page!(
            self,
            CreditLedgerRow,
            CreditLedgerRow::into_domain,
            page,
            (credit_ledger::created_at.desc(), credit_ledger::id.desc()),
            || credit_ledger::table.filter(credit_ledger::organization_id.eq(pool_id))
        )
    }

    async fn credit_ledger_sum(&self, pool_id: &str) -> StoreResult<i64> {
        db_read!(self, |conn| {
            Ok(credit_ledger::table
                .filter(credit_ledger::organization_id.eq(pool_id))
                .select(sql::<BigInt>(SUM_CREDITS))
                .first::<i64>(conn)
                .await?)
        })
    }

    async fn insert_purchase(
        &self,
        purchase: CreditPurchase,
        event: Event,
    ) -> StoreResult<CreditPurchase> {
        let row = CreditPurchaseRow::from(&purchase);
        with_event!(self, event, |conn| {
            diesel::insert_into(credit_purchases::table)
                .values(&row)
                .execute(conn)
                .await?;
        })?;
        Ok(purchase)
    }

    async fn get_purchase(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<CreditPurchase>> {
        read_first!(
            self,
            CreditPurchaseRow,
            CreditPurchaseRow::into_domain,
            credit_purchases::table
                .filter(tenant_of!(credit_purchases, tenant))
                .filter(credit_purchases::id.eq(id))
        )
    }

    async fn find_purchase(
        &self,
        organization_id: &str,
        id: &str,
    ) -> StoreResult<Option<CreditPurchase>> {
        read_first!(
            self,
            CreditPurchaseRow,
            CreditPurchaseRow::into_domain,
            credit_purchases::table
                .filter(credit_purchases::organization_id.eq(organization_id))
                .filter(credit_purchases::id.eq(id))
        )
    }

    async fn list_purchases(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> StoreResult<Page<CreditPurchase>> {
        read_page!(
            self,
            CreditPurchaseRow,
            CreditPurchaseRow::into_domain,
            page,
            (
                credit_purchases::created_at.desc(),
                credit_purchases::id.desc(),
            ),
            || credit_purchases::table.filter(tenant_of!(credit_purchases, tenant))
        )
    }

    async fn complete_purchase(
        &self,
        organization_id: &str,
        id: &str,
        provider_session_id: Option<String>,
        at: OffsetDateTime,
        event: Event,
    ) -> StoreResult<(CreditPurchase, bool)> {
        let org = organization_id.to_owned();
        let id = id.to_owned();
        let session = provider_session_id;
        let at = to_db(at);
        let event_rows = event_rows(std::slice::from_ref(&event));
        let (row, completed): (CreditPurchaseRow, bool) = db_write!(
            self,
            postgres | conn | {
                complete_body!(conn, for_update, org, id, session, at, event_rows)
            },
            sqlite | conn | { complete_body!(conn, none, org, id, session, at, event_rows) }
        )
        .map_err(StoreError::from)?;
        Ok((row.into_domain()?, completed))
    }
}
