//! History: a page of one account's counted lines with the totals ordered before it,
//! and the first lines of many accounts at once (their `ROW_NUMBER()` per account).

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Text, Timestamp};
use diesel_async::RunQueryDsl;
use ledger_domain::StoreError;
use ledger_domain::accounts::{EntryType, Totals};
use ledger_domain::ports::{HistoryPage, HistoryRow, PageRequest, StoreResult, Tenant};
use time::macros::datetime;
use time::{OffsetDateTime, PrimitiveDateTime};

use super::{CREDIT_SUM, DEBIT_SUM, daily, floor_day, window_sums};
use crate::db::Db;
use crate::rows::{from_db, to_db};
use crate::schema::{ledger_entries as le, transactions};

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
    // The window's size, from the maintained counts.
    let total_count = window_sums(db, tenant, Some(account_id), from, until)
        .await?
        .into_iter()
        .next()
        .map_or(0, |(_, s)| s.entries);
    let (raw, same_day) = load_page(db, tenant, account_id, from, until, page).await?;
    // Everything of the account ordered before the first row of the page; with an empty
    // page, everything before the end of the window.
    let first_page = page.offset == 0 && !raw.is_empty();
    let before = before_page(db, tenant, account_id, same_day, first_page, from, until).await?;
    Ok(HistoryPage {
        rows: history_rows(raw)?,
        total_count,
        before,
    })
}

/// The lines of the first row's day ordered before it, as summed by [`load_page`]: that
/// day (midnight) and the (debit, credit) of those lines.
type SameDay = Option<(PrimitiveDateTime, (i64, i64))>;

/// The page's rows, and, when the page is not the first, what the lines of its first
/// row's day ordered before that row add up to.
async fn load_page(
    db: &Db,
    tenant: &Tenant,
    account_id: &str,
    from: Option<PrimitiveDateTime>,
    until: Option<PrimitiveDateTime>,
    page: PageRequest,
) -> StoreResult<(Vec<RawRow>, SameDay)> {
    let org = tenant.organization_id.as_str();
    let livemode = tenant.livemode;
    let loaded = db_read!(db, |conn| {
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
    Ok(loaded)
}

/// The totals of everything of the account ordered before the page's first row (see
/// [`history`]): the daily totals of the days before that row's day plus `same_day`; on
/// a first page, what is dated before the window; on an empty page, everything before
/// the window's end.
async fn before_page(
    db: &Db,
    tenant: &Tenant,
    account_id: &str,
    same_day: SameDay,
    first_page: bool,
    from: Option<PrimitiveDateTime>,
    until: Option<PrimitiveDateTime>,
) -> StoreResult<Totals> {
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
    Ok(before)
}

/// The page's rows as the domain's history rows.
fn history_rows(raw: Vec<RawRow>) -> StoreResult<Vec<HistoryRow>> {
    raw.into_iter()
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
        .collect::<StoreResult<Vec<_>>>()
}
