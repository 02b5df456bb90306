//! Taking credits inside a write transaction: a conditional decrement of a live pool with
//! its credit-ledger row (so the pool's ledger keeps summing to its balance), or an
//! appended test-mode usage row. Shared by the synchronous writes, the queue and the
//! group commit.

use std::future::Future;

use diesel::prelude::*;
use diesel::result::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use ledger_domain::StoreError;
use ledger_domain::credits::LedgerKind;
use ledger_domain::ports::CreditCharge;

use crate::db::{SqliteConn, TxError};
use crate::rows::{CreditLedgerRow, CreditUsageRow};
use crate::schema::{credit_ledger, credit_usage, organizations};

/// The credit statements, for both connection types.
pub(crate) trait CreditConn {
    /// Takes `credits` from the live pool `pool` if it holds that many; whether it did.
    fn take_credits<'a>(
        &'a mut self,
        pool: &'a str,
        credits: i64,
    ) -> impl Future<Output = QueryResult<bool>> + Send + 'a;
    /// The credits the live pool `pool` holds (0 when there is no such pool).
    fn credits_of<'a>(
        &'a mut self,
        pool: &'a str,
    ) -> impl Future<Output = QueryResult<i64>> + Send + 'a;
    /// Appends test-mode usage rows.
    fn insert_usage<'a>(
        &'a mut self,
        rows: &'a [CreditUsageRow],
    ) -> impl Future<Output = QueryResult<()>> + Send + 'a;
    /// Appends credit-ledger rows.
    fn insert_ledger<'a>(
        &'a mut self,
        rows: &'a [CreditLedgerRow],
    ) -> impl Future<Output = QueryResult<()>> + Send + 'a;
}

/// The reads and credit updates, identical on both backends.
macro_rules! credit_queries {
    () => {
        async fn take_credits<'a>(&'a mut self, pool: &'a str, credits: i64) -> QueryResult<bool> {
            let taken = diesel::update(organizations::table)
                .filter(organizations::id.eq(pool))
                .filter(organizations::credits_remaining.ge(credits))
                .set(
                    organizations::credits_remaining.eq(organizations::credits_remaining - credits),
                )
                .execute(self)
                .await?;
            Ok(taken > 0)
        }

        async fn credits_of<'a>(&'a mut self, pool: &'a str) -> QueryResult<i64> {
            Ok(organizations::table
                .filter(organizations::id.eq(pool))
                .select(organizations::credits_remaining)
                .first(self)
                .await
                .optional()?
                .unwrap_or(0))
        }
    };
}

impl CreditConn for AsyncPgConnection {
    credit_queries!();
    insert_chunks!(insert_usage, credit_usage::table, CreditUsageRow);
    insert_chunks!(insert_ledger, credit_ledger::table, CreditLedgerRow);
}

impl CreditConn for SqliteConn {
    credit_queries!();
    insert_each!(insert_usage, credit_usage::table, CreditUsageRow);
    insert_each!(insert_ledger, credit_ledger::table, CreditLedgerRow);
}

/// Takes one write's credits inside a write transaction: a conditional decrement of a
/// live pool (refused with `InsufficientCredits` when short) and its ledger row named
/// `usage_id`, or an appended test-mode usage row, never touching a hot organization row
/// for test writes.
pub(crate) async fn take_charge<C: CreditConn>(
    conn: &mut C,
    charge: &CreditCharge,
    usage_id: &str,
    job_id: Option<&str>,
    at: time::PrimitiveDateTime,
) -> Result<(), TxError> {
    if charge.credits <= 0 {
        return Ok(());
    }
    if charge.livemode {
        if !conn.take_credits(&charge.pool_id, charge.credits).await? {
            let available = conn.credits_of(&charge.pool_id).await?;
            return Err(StoreError::CreditsShort {
                required: charge.credits,
                available,
            }
            .into());
        }
        let row = CreditLedgerRow::new(
            &charge.pool_id,
            usage_id,
            LedgerKind::Charge,
            -charge.credits,
            Some(job_id.unwrap_or(usage_id)),
            at,
        );
        conn.insert_ledger(std::slice::from_ref(&row)).await?;
        return Ok(());
    }
    let usage = CreditUsageRow {
        organization_id: charge.pool_id.clone(),
        livemode: false,
        id: usage_id.to_owned(),
        credits: charge.credits,
        job_id: job_id.map(str::to_owned),
        created_at: at,
    };
    conn.insert_usage(std::slice::from_ref(&usage)).await?;
    Ok(())
}
