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

use std::collections::BTreeMap;

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Text, Timestamp};
use diesel_async::RunQueryDsl;
use ledger_domain::StoreError;
use ledger_domain::accounts::{EntryType, Totals};
use ledger_domain::ports::{HistoryPage, HistoryRow, PageRequest, StoreResult, Tenant};
use time::macros::{date, datetime};
use time::{Date, OffsetDateTime, PrimitiveDateTime, Time};

use crate::db::Db;
use crate::rows::{from_db, to_db};
use crate::schema::{
    account_daily_totals as adt, account_totals as at, ledger_entries as le, transactions,
};

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

/// The `day` number of midnight `t` (days since 1970-01-01).
fn day_number(t: PrimitiveDateTime) -> i32 {
    i32::try_from((t.date() - EPOCH).whole_days()).unwrap_or(i32::MAX)
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
        let mut query = adt::table
            .filter(tenant_of!(adt, tenant))
            .group_by(adt::account_id)
            .select((
                adt::account_id,
                sql::<BigInt>("CAST(COALESCE(SUM(debit), 0) AS BIGINT)"),
                sql::<BigInt>("CAST(COALESCE(SUM(credit), 0) AS BIGINT)"),
                sql::<BigInt>("CAST(COALESCE(SUM(entries), 0) AS BIGINT)"),
            ))
            .order(adt::account_id.asc())
            .into_boxed();
        if let Some(account_id) = account_id {
            query = query.filter(adt::account_id.eq(account_id));
        }
        if let Some(from) = from {
            query = query.filter(adt::day.ge(from));
        }
        if let Some(until) = until {
            query = query.filter(adt::day.lt(until));
        }
        Ok(query.load(conn).await?)
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
    let number = |d: Date| i32::try_from((d - EPOCH).whole_days()).unwrap_or(i32::MAX);
    let (from, until) = (from.map(number), until.map(number));
    let rows: Vec<(String, i32, i64, i64)> = db_read!(db, |conn| {
        let mut query = adt::table
            .filter(tenant_of!(adt, tenant))
            .filter(adt::account_id.eq_any(ids))
            .filter(adt::entries.ne(0))
            .select((adt::account_id, adt::day, adt::debit, adt::credit))
            .order((adt::account_id.asc(), adt::day.asc()))
            .into_boxed();
        if let Some(from) = from {
            query = query.filter(adt::day.ge(from));
        }
        if let Some(until) = until {
            query = query.filter(adt::day.lt(until));
        }
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
        let mut query = le::table
            .filter(tenant_of!(le, tenant))
            .filter(le::counted.eq(true))
            .group_by(le::account_id)
            .select((
                le::account_id,
                sql::<BigInt>(DEBIT_SUM),
                sql::<BigInt>(CREDIT_SUM),
                sql::<BigInt>("CAST(COUNT(*) AS BIGINT)"),
            ))
            .order(le::account_id.asc())
            .into_boxed();
        if let Some(account_id) = account_id {
            query = query.filter(le::account_id.eq(account_id));
        }
        if let Some(from) = from {
            query = query.filter(le::date.ge(from));
        }
        if let Some(until) = until {
            query = query.filter(le::date.lt(until));
        }
        Ok(query.load(conn).await?)
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

/// One ranked history row as loaded by [`first_rows_of`].
#[derive(diesel::QueryableByName)]
struct RankedRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    account_id: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    transaction_id: String,
    #[diesel(sql_type = diesel::sql_types::Timestamp)]
    date: PrimitiveDateTime,
    #[diesel(sql_type = diesel::sql_types::Text)]
    entry_type: String,
    #[diesel(sql_type = BigInt)]
    amount: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    entry_description: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Text)]
    txn_description: String,
}

/// The first `limit` counted entries of each account among `ids` (by date, transaction
/// id and line, as [`history`] orders them), in one statement: `ROW_NUMBER()` over each
/// account's entries (PostgreSQL, and SQLite since 3.25; the bundled one is newer).
pub(crate) async fn first_rows_of(
    db: &Db,
    tenant: &Tenant,
    ids: &[String],
    limit: i64,
) -> StoreResult<Vec<(String, HistoryRow)>> {
    use diesel::sql_types::{Bool, Text};
    if ids.is_empty() || limit <= 0 {
        return Ok(Vec::new());
    }
    // Placeholders differ: `$n` on PostgreSQL, `?` on SQLite.
    let postgres = matches!(db.pool, crate::db::DbPool::Postgres(_));
    let mark = |n: usize| {
        if postgres {
            format!("${n}")
        } else {
            "?".to_owned()
        }
    };
    let list: Vec<String> = (0..ids.len()).map(|i| mark(i + 3)).collect();
    let text = format!(
        "SELECT account_id, transaction_id, date, entry_type, amount, entry_description, \
         txn_description FROM (SELECT le.account_id, le.transaction_id, le.date, le.line_no, \
         le.entry_type, le.amount, le.description AS entry_description, \
         t.description AS txn_description, ROW_NUMBER() OVER (PARTITION BY le.account_id \
         ORDER BY le.date, le.transaction_id, le.line_no) AS rn FROM ledger_entries le \
         JOIN transactions t ON t.organization_id = le.organization_id \
         AND t.id = le.transaction_id WHERE le.organization_id = {} AND le.livemode = {} \
         AND le.counted = {} AND le.account_id IN ({})) ranked WHERE rn <= {} \
         ORDER BY account_id, date, transaction_id, line_no",
        mark(1),
        mark(2),
        if postgres { "TRUE" } else { "1" },
        list.join(", "),
        mark(ids.len() + 3),
    );
    let org = tenant.organization_id.clone();
    let livemode = tenant.livemode;
    let rows: Vec<RankedRow> = db_read!(db, |conn| {
        let mut query = diesel::sql_query(text.clone())
            .into_boxed()
            .bind::<Text, _>(org.clone())
            .bind::<Bool, _>(livemode);
        for id in ids {
            query = query.bind::<Text, _>(id.clone());
        }
        Ok(query.bind::<BigInt, _>(limit).load(conn).await?)
    })?;
    rows.into_iter()
        .map(|r| {
            let side = EntryType::parse(&r.entry_type).ok_or_else(|| {
                StoreError::Internal(format!("stored entry type '{}'", r.entry_type))
            })?;
            let mut totals = Totals::default();
            totals.add(side, r.amount);
            Ok((
                r.account_id,
                HistoryRow {
                    transaction_id: r.transaction_id,
                    date: from_db(r.date),
                    description: r
                        .entry_description
                        .filter(|d| !d.is_empty())
                        .unwrap_or(r.txn_description),
                    debit: totals.debit,
                    credit: totals.credit,
                },
            ))
        })
        .collect()
}

/// Open window bounds: every stored date lies between these (both backends hold them).
const EARLIEST: PrimitiveDateTime = datetime!(0001-01-01 00:00);
const LATEST: PrimitiveDateTime = datetime!(9999-12-31 23:59:59);

/// One joined history row as loaded.
type RawRow = (
    String,
    PrimitiveDateTime,
    i32,
    String,
    i64,
    Option<String>,
    String,
);

/// A page of one account's counted entries in `[from, until)` by date, transaction id
/// and line, with the totals of everything ordered before the page's first row.
pub(crate) async fn history(
    db: &Db,
    tenant: &Tenant,
    account_id: &str,
    from: Option<OffsetDateTime>,
    until: Option<OffsetDateTime>,
    page: PageRequest,
) -> StoreResult<HistoryPage> {
    let from = from.map(to_db);
    let until = until.map(to_db);
    let org = tenant.organization_id.as_str();
    let livemode = tenant.livemode;
    // The window's size, from the maintained counts.
    let total_count = window_sums(db, tenant, Some(account_id), from, until)
        .await?
        .into_iter()
        .next()
        .map_or(0, |(_, s)| s.entries);
    let (raw, same_day) = db_read!(db, |conn| {
        let rows: Vec<RawRow> = le::table
            .inner_join(
                transactions::table.on(transactions::organization_id
                    .eq(le::organization_id)
                    .and(transactions::id.eq(le::transaction_id))),
            )
            .filter(tenant_of!(le, org, livemode))
            .filter(le::account_id.eq(account_id))
            .filter(le::counted.eq(true))
            .filter(le::date.ge(from.unwrap_or(EARLIEST)))
            .filter(le::date.lt(until.unwrap_or(LATEST)))
            .order((le::date.asc(), le::transaction_id.asc(), le::line_no.asc()))
            .limit(page.limit)
            .offset(page.offset)
            .select((
                le::transaction_id,
                le::date,
                le::line_no,
                le::entry_type,
                le::amount,
                le::description,
                transactions::description,
            ))
            .load(conn)
            .await?;
        // The lines of the first row's day ordered before it (the days before it come
        // from the daily totals below). Not needed on a first page (everything ordered
        // before its first row is dated before the window) or an empty one.
        let first = <[RawRow]>::first(&rows).filter(|_| page.offset > 0);
        let same_day = match first {
            Some((txn, date, line, ..)) => {
                let day = floor_day(*date);
                let sums: (i64, i64) = le::table
                    .filter(tenant_of!(le, org, livemode))
                    .filter(le::account_id.eq(account_id))
                    .filter(le::counted.eq(true))
                    .filter(le::date.ge(day))
                    // A row-value comparison, which the history index can bound.
                    .filter(
                        sql::<Bool>("(date, transaction_id, line_no) < (")
                            .bind::<Timestamp, _>(*date)
                            .sql(", ")
                            .bind::<Text, _>(txn.clone())
                            .sql(", ")
                            .bind::<Integer, _>(*line)
                            .sql(")"),
                    )
                    .select((sql::<BigInt>(DEBIT_SUM), sql::<BigInt>(CREDIT_SUM)))
                    .get_result(conn)
                    .await?;
                Some((day, sums))
            }
            None => None,
        };
        Ok((rows, same_day))
    })?;
    // Everything of the account ordered before the first row of the page; with an empty
    // page, everything before the end of the window.
    let first_page = page.offset == 0 && !raw.is_empty();
    let before = match same_day {
        Some((day, (debit, credit))) => {
            let days = daily(db, tenant, Some(account_id), None, Some(day)).await?;
            let earlier = days.into_iter().next().map(|(_, s)| s.totals);
            let earlier = earlier.unwrap_or_default();
            Totals {
                debit: earlier.debit + debit,
                credit: earlier.credit + credit,
            }
        }
        // A first page: what is dated before the window (nothing without a start). An
        // empty page: everything before the window's end.
        None => {
            let end = if first_page { from } else { until };
            if first_page && from.is_none() {
                Totals::default()
            } else {
                window_sums(db, tenant, Some(account_id), None, end)
                    .await?
                    .into_iter()
                    .next()
                    .map(|(_, s)| s.totals)
                    .unwrap_or_default()
            }
        }
    };
    let rows = raw
        .into_iter()
        .map(
            |(transaction_id, date, _, side, amount, entry_text, txn_text)| {
                let side = EntryType::parse(&side)
                    .ok_or_else(|| StoreError::Internal(format!("stored entry type '{side}'")))?;
                let mut totals = Totals::default();
                totals.add(side, amount);
                Ok(HistoryRow {
                    transaction_id,
                    date: from_db(date),
                    description: entry_text.filter(|d| !d.is_empty()).unwrap_or(txn_text),
                    debit: totals.debit,
                    credit: totals.credit,
                })
            },
        )
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(HistoryPage {
        rows,
        total_count,
        before,
    })
}

/// A maintained total that differs from the journal (see [`Db::verify_balances`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotalsDifference {
    pub organization_id: String,
    pub livemode: bool,
    pub account_id: String,
    /// The day of a daily total; `None` for a running total.
    pub day: Option<Date>,
    /// Summed from the counted journal lines.
    pub journal: Totals,
    /// As maintained.
    pub stored: Totals,
    /// Counted journal lines.
    pub journal_entries: i64,
    /// Lines as maintained.
    pub stored_entries: i64,
}

/// Totals keyed by organization, mode, account and (for daily totals) day.
type Keyed = BTreeMap<(String, bool, String, Option<i32>), Sums>;

impl Db {
    /// Recomputes every running and daily total from the journal and answers each one
    /// that differs from what is maintained (empty when the books agree). Reads the
    /// whole journal: an operator's check (`ledger-server verify-balances`), not a
    /// request path.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn verify_balances(&self) -> StoreResult<Vec<TotalsDifference>> {
        type Line = (String, bool, String, PrimitiveDateTime, i64, i64, i64);
        type Running = (String, bool, String, i64, i64, i64);
        type Daily = (String, bool, String, i32, i64, i64, i64);
        let (lines, running, days): (Vec<Line>, Vec<Running>, Vec<Daily>) =
            db_read!(self, |conn| {
                let lines: Vec<Line> = le::table
                    .filter(le::counted.eq(true))
                    .group_by((le::organization_id, le::livemode, le::account_id, le::date))
                    .select((
                        le::organization_id,
                        le::livemode,
                        le::account_id,
                        le::date,
                        sql::<BigInt>(DEBIT_SUM),
                        sql::<BigInt>(CREDIT_SUM),
                        sql::<BigInt>("CAST(COUNT(*) AS BIGINT)"),
                    ))
                    .load(conn)
                    .await?;
                let running = at::table
                    .select((
                        at::organization_id,
                        at::livemode,
                        at::account_id,
                        at::debit,
                        at::credit,
                        at::entries,
                    ))
                    .load(conn)
                    .await?;
                let days = adt::table
                    .select((
                        adt::organization_id,
                        adt::livemode,
                        adt::account_id,
                        adt::day,
                        adt::debit,
                        adt::credit,
                        adt::entries,
                    ))
                    .load(conn)
                    .await?;
                Ok((lines, running, days))
            })?;
        let mut journal = Keyed::new();
        for (org, livemode, account, date, debit, credit, entries) in lines {
            let totals = Totals { debit, credit };
            for day in [None, Some(day_number(floor_day(date)))] {
                journal
                    .entry((org.clone(), livemode, account.clone(), day))
                    .or_default()
                    .add(Sums { totals, entries });
            }
        }
        let mut stored = Keyed::new();
        for (org, livemode, account, debit, credit, entries) in running {
            let totals = Totals { debit, credit };
            stored.insert((org, livemode, account, None), Sums { totals, entries });
        }
        for (org, livemode, account, day, debit, credit, entries) in days {
            let totals = Totals { debit, credit };
            stored.insert(
                (org, livemode, account, Some(day)),
                Sums { totals, entries },
            );
        }
        let keys: std::collections::BTreeSet<_> =
            journal.keys().chain(stored.keys()).cloned().collect();
        Ok(keys
            .into_iter()
            .filter_map(|key| {
                let journal = journal.get(&key).copied().unwrap_or_default();
                let stored = stored.get(&key).copied().unwrap_or_default();
                (journal != stored).then(|| {
                    let (organization_id, livemode, account_id, day) = key;
                    TotalsDifference {
                        organization_id,
                        livemode,
                        account_id,
                        day: day.map(|d| EPOCH + time::Duration::days(d.into())),
                        journal: journal.totals,
                        stored: stored.totals,
                        journal_entries: journal.entries,
                        stored_entries: stored.entries,
                    }
                })
            })
            .collect())
    }
}
