//! Balances and history: aggregates over `ledger_entries` alone.
//!
//! Entries carry a copy of their transaction's `date` and a `counted` flag (the
//! transaction is posted or reversed), so totals never join the transactions table and
//! use the index `(organization_id, livemode, account_id, counted, date)`. Sums are
//! exact `BIGINT` on both backends.

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_async::RunQueryDsl;
use ledger_domain::DomainError;
use ledger_domain::accounts::{EntryType, Totals};
use ledger_domain::ports::{HistoryPage, HistoryRow, PageRequest, StoreResult, Tenant};
use time::macros::datetime;
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::db::Db;
use crate::rows::{from_db, to_db};
use crate::schema::{ledger_entries as le, transactions};

/// Debit units of the selected entries, 0 when there are none.
const DEBIT_SUM: &str =
    "CAST(COALESCE(SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END), 0) AS BIGINT)";
/// Credit units of the selected entries, 0 when there are none.
const CREDIT_SUM: &str =
    "CAST(COALESCE(SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), 0) AS BIGINT)";

/// Debit and credit totals per account of the counted entries dated in `[from, until)`.
pub(crate) async fn totals(
    db: &Db,
    tenant: &Tenant,
    account_id: Option<&str>,
    from: Option<OffsetDateTime>,
    until: Option<OffsetDateTime>,
) -> StoreResult<Vec<(String, Totals)>> {
    let from = from.map(to_db);
    let until = until.map(to_db);
    let rows: Vec<(String, i64, i64)> = db_read!(db, |conn| {
        let mut query = le::table
            .filter(tenant_of!(le, tenant))
            .filter(le::counted.eq(true))
            .group_by(le::account_id)
            .select((
                le::account_id,
                sql::<BigInt>(DEBIT_SUM),
                sql::<BigInt>(CREDIT_SUM),
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
    Ok(rows
        .into_iter()
        .map(|(id, debit, credit)| (id, Totals { debit, credit }))
        .collect())
}

/// Debit and credit totals of each account among `ids` (all dates), in one query.
pub(crate) async fn totals_of(
    db: &Db,
    tenant: &Tenant,
    ids: &[String],
) -> StoreResult<Vec<(String, Totals)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(String, i64, i64)> = db_read!(db, |conn| {
        Ok(le::table
            .filter(tenant_of!(le, tenant))
            .filter(le::counted.eq(true))
            .filter(le::account_id.eq_any(ids))
            .group_by(le::account_id)
            .select((
                le::account_id,
                sql::<BigInt>(DEBIT_SUM),
                sql::<BigInt>(CREDIT_SUM),
            ))
            .order(le::account_id.asc())
            .load(conn)
            .await?)
    })?;
    Ok(rows
        .into_iter()
        .map(|(id, debit, credit)| (id, Totals { debit, credit }))
        .collect())
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
                DomainError::Internal(format!("stored entry type '{}'", r.entry_type))
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
    let (raw, total_count, before): (Vec<RawRow>, i64, (i64, i64)) = db_read!(db, |conn| {
        let window = || {
            let mut query = le::table
                .filter(tenant_of!(le, org, livemode))
                .filter(le::account_id.eq(account_id))
                .filter(le::counted.eq(true))
                .into_boxed();
            if let Some(from) = from {
                query = query.filter(le::date.ge(from));
            }
            if let Some(until) = until {
                query = query.filter(le::date.lt(until));
            }
            query
        };
        let total: i64 = window().count().get_result(conn).await?;
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
        // Everything of the account ordered before the first row of the page; with an
        // empty page, everything before the end of the window.
        let mut before = le::table
            .filter(tenant_of!(le, org, livemode))
            .filter(le::account_id.eq(account_id))
            .filter(le::counted.eq(true))
            .select((sql::<BigInt>(DEBIT_SUM), sql::<BigInt>(CREDIT_SUM)))
            .into_boxed();
        match <[RawRow]>::first(&rows) {
            Some((txn, date, line, ..)) => {
                before = before.filter(
                    le::date.lt(*date).or(le::date.eq(*date).and(
                        le::transaction_id.lt(txn.clone()).or(le::transaction_id
                            .eq(txn.clone())
                            .and(le::line_no.lt(*line))),
                    )),
                );
            }
            None => {
                if let Some(until) = until {
                    before = before.filter(le::date.lt(until));
                }
            }
        }
        let before: (i64, i64) = before.get_result(conn).await?;
        Ok((rows, total, before))
    })?;
    let rows = raw
        .into_iter()
        .map(
            |(transaction_id, date, _, side, amount, entry_text, txn_text)| {
                let side = EntryType::parse(&side)
                    .ok_or_else(|| DomainError::Internal(format!("stored entry type '{side}'")))?;
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
        before: Totals {
            debit: before.0,
            credit: before.1,
        },
    })
}
