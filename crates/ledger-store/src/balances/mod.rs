//! Balances and history.
//!
//! Balances and reports read the maintained totals (migration
//! `2026-11-26-000001_account_totals`): triggers on `ledger_entries` keep a running total
//! per account and a total per account and day in the same database transaction as the
//! lines, on every path that writes, posts or removes lines. A balance now is one row; a
//! balance as of an instant or a report for a period reads the daily totals of the days
//! asked about and the lines of at most two partial days, never the whole history.
//!
//! Entries carry a copy of their transaction's `date` and a `counted` flag (the
//! transaction is posted or reversed), so history pages never join the transactions table
//! for their window and read the index `(organization_id, livemode, account_id, counted,
//! date, transaction_id, line_no)` in page order; their `total_count` comes from the
//! maintained line counts. Sums are exact `BIGINT` on both backends.
//!
//! The parts: this file sums windows of lines (running totals, daily totals, the
//! journal's partial days); `history` reads pages of an account's lines and the first
//! rows of many accounts; `verify` recomputes every maintained total from the journal.

mod history;
mod verify;

use std::collections::BTreeMap;

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_async::RunQueryDsl;
use ledger_domain::accounts::Totals;
use ledger_domain::ports::{StoreResult, Tenant};
use time::macros::date;
use time::{Date, OffsetDateTime, PrimitiveDateTime, Time};

use crate::db::Db;
use crate::rows::to_db;
use crate::schema::{account_daily_totals as adt, account_totals as at, ledger_entries as le};

pub(crate) use history::{first_rows_of, history};
pub use verify::TotalsDifference;

/// Debit units of the selected entries, 0 when there are none.
const DEBIT_SUM: &str =
    "CAST(COALESCE(SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END), 0) AS BIGINT)";
/// Credit units of the selected entries, 0 when there are none.
const CREDIT_SUM: &str =
    "CAST(COALESCE(SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), 0) AS BIGINT)";

/// What a window of an account's counted lines adds up to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Sums {
    totals: Totals,
    /// How many lines.
    entries: i64,
}

impl Sums {
    fn add(&mut self, other: Sums) {
        self.totals.debit += other.totals.debit;
        self.totals.credit += other.totals.credit;
        self.entries += other.entries;
    }
}

/// Rows of (account id, debit, credit, lines) as loaded.
fn sums_of(rows: Vec<(String, i64, i64, i64)>) -> Vec<(String, Sums)> {
    rows.into_iter()
        .map(|(id, debit, credit, entries)| {
            let totals = Totals { debit, credit };
            (id, Sums { totals, entries })
        })
        .collect()
}

/// Debit and credit totals per account of the counted entries dated in `[from, until)`,
/// by account id; `account_id` narrows to one account (see [`window_sums`]).
pub(crate) async fn totals(
    db: &Db,
    tenant: &Tenant,
    account_id: Option<&str>,
    from: Option<OffsetDateTime>,
    until: Option<OffsetDateTime>,
) -> StoreResult<Vec<(String, Totals)>> {
    let sums = window_sums(db, tenant, account_id, from.map(to_db), until.map(to_db)).await?;
    Ok(sums.into_iter().map(|(id, s)| (id, s.totals)).collect())
}

/// What the counted lines dated in `[from, until)` add up to per account, by account id,
/// leaving out accounts without lines there (as a sum over the lines would).
///
/// Read from the maintained totals: without a window, one running-total row per account;
/// with one, the daily totals of the whole days inside it plus the journal lines of the
/// partial days at its edges (none when the edges fall on midnight, as a date's do).
async fn window_sums(
    db: &Db,
    tenant: &Tenant,
    account_id: Option<&str>,
    from: Option<PrimitiveDateTime>,
    until: Option<PrimitiveDateTime>,
) -> StoreResult<Vec<(String, Sums)>> {
    if from.is_none() && until.is_none() {
        return running(db, tenant, account_id.map(|id| vec![id.to_owned()])).await;
    }
    if let (Some(from), Some(until)) = (from, until)
        && ceil_day(from) >= floor_day(until)
    {
        // No whole day inside the window: its lines are a day's at most.
        return journal_sums(db, tenant, account_id, Some(from), Some(until)).await;
    }
    let mut sums: BTreeMap<String, Sums> = BTreeMap::new();
    let mut add = |rows: Vec<(String, Sums)>| {
        for (id, s) in rows {
            sums.entry(id).or_default().add(s);
        }
    };
    let (days_from, days_until) = (from.map(ceil_day), until.map(floor_day));
    add(daily(db, tenant, account_id, days_from, days_until).await?);
    if let Some((from, edge)) = from.zip(days_from).filter(|(from, edge)| from < edge) {
        add(journal_sums(db, tenant, account_id, Some(from), Some(edge)).await?);
    }
    if let Some((edge, until)) = days_until.zip(until).filter(|(edge, until)| edge < until) {
        add(journal_sums(db, tenant, account_id, Some(edge), Some(until)).await?);
    }
    Ok(sums.into_iter().filter(|(_, s)| s.entries != 0).collect())
}

/// Day 0 of `account_daily_totals.day`.
const EPOCH: Date = date!(1970 - 01 - 01);

/// The `day` number of `date` (days since 1970-01-01).
fn day_of(date: Date) -> i32 {
    i32::try_from((date - EPOCH).whole_days()).unwrap_or(i32::MAX)
}

/// The `day` number of midnight `t`.
fn day_number(t: PrimitiveDateTime) -> i32 {
    day_of(t.date())
}

/// Midnight of the day of `t`.
fn floor_day(t: PrimitiveDateTime) -> PrimitiveDateTime {
    t.replace_time(Time::MIDNIGHT)
}

/// The first midnight at or after `t`.
fn ceil_day(t: PrimitiveDateTime) -> PrimitiveDateTime {
    if t.time() == Time::MIDNIGHT {
        t
    } else {
        floor_day(t)
            .checked_add(time::Duration::DAY)
            .unwrap_or(PrimitiveDateTime::MAX)
    }
}

/// The running totals of the tenant's accounts that have lines (of `ids` only, when
/// given).
async fn running(
    db: &Db,
    tenant: &Tenant,
    ids: Option<Vec<String>>,
) -> StoreResult<Vec<(String, Sums)>> {
    // Not boxed, so each shape is prepared once per connection: every report reads it.
    macro_rules! running {
        ($org:expr) => {
            at::table
                .filter(tenant_of!(at, $org, tenant.livemode))
                .filter(at::entries.ne(0))
                .select((at::account_id, at::debit, at::credit, at::entries))
                .order(at::account_id.asc())
        };
    }
    let rows: Vec<(String, i64, i64, i64)> = db_read!(
        db,
        postgres | conn | {
            let query = running!(&tenant.organization_id);
            Ok(match &ids {
                None => query.load(conn).await?,
                Some(ids) => query.filter(at::account_id.eq_any(ids)).load(conn).await?,
            })
        },
        sqlite | conn | {
            let query = running!(tenant.organization_id.clone());
            Ok(match ids {
                None => crate::db::sqlite_load(conn, query).await?,
                Some(ids) => {
                    crate::db::sqlite_load(conn, query.filter(at::account_id.eq_any(ids))).await?
                }
            })
        }
    )?;
    Ok(sums_of(rows))
}

/// Inside a read: `(account, debit, credit, entries)` per account of the rows `$rows`
/// selects from `$table`, as the three `$sums` add them up, narrowed to `$account_id`
/// and to `[$from, $until)` of `$date` when given.
macro_rules! sums_per_account {
    ($conn:expr, $table:ident, $rows:expr, $sums:expr, $date:expr, $account_id:expr, $from:expr, $until:expr) => {{
        let (debit, credit, entries) = $sums;
        let mut query = $rows
            .group_by($table::account_id)
            .select(($table::account_id, debit, credit, entries))
            .order($table::account_id.asc())
            .into_boxed();
        if let Some(account_id) = $account_id {
            query = query.filter($table::account_id.eq(account_id));
        }
        in_period!(query, $date, $from, $until);
        query.load(&mut *$conn).await?
    }};
}

/// Sums of the daily totals per account over the days of `[from, until)` (both midnight).
async fn daily(
    db: &Db,
    tenant: &Tenant,
    account_id: Option<&str>,
    from: Option<PrimitiveDateTime>,
    until: Option<PrimitiveDateTime>,
) -> StoreResult<Vec<(String, Sums)>> {
    let (from, until) = (from.map(day_number), until.map(day_number));
    let rows = db_read!(db, |conn| {
        let days = adt::table.filter(tenant_of!(adt, tenant));
        let sums = (
            sql::<BigInt>("CAST(COALESCE(SUM(debit), 0) AS BIGINT)"),
            sql::<BigInt>("CAST(COALESCE(SUM(credit), 0) AS BIGINT)"),
            sql::<BigInt>("CAST(COALESCE(SUM(entries), 0) AS BIGINT)"),
        );
        Ok(sums_per_account!(
            conn,
            adt,
            days,
            sums,
            adt::day,
            account_id,
            from,
            until
        ))
    })?;
    Ok(sums_of(rows))
}

/// See [`ledger_domain::ports::Accounts::daily_totals`]: the maintained daily totals.
pub(crate) async fn daily_totals(
    db: &Db,
    tenant: &Tenant,
    ids: &[String],
    from: Option<Date>,
    until: Option<Date>,
) -> StoreResult<Vec<(String, Date, Totals)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let (from, until) = (from.map(day_of), until.map(day_of));
    let rows: Vec<(String, i32, i64, i64)> = db_read!(db, |conn| {
        let mut query = adt::table
            .filter(tenant_of!(adt, tenant))
            .filter(adt::account_id.eq_any(ids))
            .filter(adt::entries.ne(0))
            .select((adt::account_id, adt::day, adt::debit, adt::credit))
            .order((adt::account_id.asc(), adt::day.asc()))
            .into_boxed();
        in_period!(query, adt::day, from, until);
        Ok(query.load(conn).await?)
    })?;
    Ok(rows
        .into_iter()
        .map(|(id, day, debit, credit)| {
            (
                id,
                EPOCH + time::Duration::days(i64::from(day)),
                Totals { debit, credit },
            )
        })
        .collect())
}

/// What the counted journal lines dated in `[from, until)` add up to per account, summed
/// from the lines themselves.
async fn journal_sums(
    db: &Db,
    tenant: &Tenant,
    account_id: Option<&str>,
    from: Option<PrimitiveDateTime>,
    until: Option<PrimitiveDateTime>,
) -> StoreResult<Vec<(String, Sums)>> {
    let rows = db_read!(db, |conn| {
        let lines = le::table
            .filter(tenant_of!(le, tenant))
            .filter(le::counted.eq(true));
        let sums = (
            sql::<BigInt>(DEBIT_SUM),
            sql::<BigInt>(CREDIT_SUM),
            sql::<BigInt>("CAST(COUNT(*) AS BIGINT)"),
        );
        Ok(sums_per_account!(
            conn,
            le,
            lines,
            sums,
            le::date,
            account_id,
            from,
            until
        ))
    })?;
    Ok(sums_of(rows))
}

/// Debit and credit totals of each account among `ids` (all dates): their running
/// totals, in one query.
pub(crate) async fn totals_of(
    db: &Db,
    tenant: &Tenant,
    ids: &[String],
) -> StoreResult<Vec<(String, Totals)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sums = running(db, tenant, Some(ids.to_vec())).await?;
    Ok(sums.into_iter().map(|(id, s)| (id, s.totals)).collect())
}
