//! Query shapes the store modules share: a page of a filtered query with its count, the
//! first row of a query, a tenant's live record and page of live records, a one-row
//! insert, a period filter, and a page of rows turned into domain values.
//!
//! The shapes are macros where they wrap diesel queries: each table's query is its own
//! type, and the body must stay a plain diesel expression compiled for both backends.
//! A caller has `diesel::prelude::*` and `diesel_async::RunQueryDsl` in scope.

use ledger_domain::ports::{Page, StoreResult};

/// Inserts the row `$row` into `$table` in a write transaction of its own; evaluates to
/// `StoreResult<()>`.
macro_rules! insert_one {
    ($db:expr, $table:path, $row:expr) => {{
        let row = $row;
        db_write!($db, |conn| {
            diesel::insert_into($table)
                .values(&row)
                .execute(conn)
                .await?;
            Ok(())
        })
        .map_err(::ledger_domain::StoreError::from)
    }};
}

/// Inside a read body: `(rows, total)`, one page of the rows `$query()` selects, ordered
/// by `$order` and loaded as `$row`, and how many rows all pages hold. `$query` builds
/// the query anew for the count and for the page (diesel queries are not `Clone`).
macro_rules! load_page {
    ($conn:expr, $query:expr, $order:expr, $page:expr, $row:ty) => {{
        let total: i64 = $query().count().get_result(&mut *$conn).await?;
        let rows: Vec<$row> = $query()
            .order($order)
            .limit($page.limit)
            .offset($page.offset)
            .select(<$row>::as_select())
            .load(&mut *$conn)
            .await?;
        (rows, total)
    }};
}

/// Inside a body: the first row `$query` selects, loaded as `$row`, if there is one.
macro_rules! first_row {
    ($conn:expr, $query:expr, $row:ty) => {
        $query
            .select(<$row>::as_select())
            .first::<$row>(&mut *$conn)
            .await
            .optional()?
    };
}

/// The live (not soft-deleted) record `$id` of `$tenant` in `$table`, loaded as `$row` and
/// made a domain value with its `TryFrom`; evaluates to `StoreResult<Option<_>>`.
macro_rules! live_record {
    ($db:expr, $table:ident, $tenant:expr, $id:expr, $row:ty) => {{
        let row: Option<$row> = db_read!($db, |conn| {
            let query = $table::table
                .filter(tenant_of!($table, $tenant))
                .filter($table::id.eq($id))
                .filter($table::deleted_at.is_null());
            Ok(first_row!(conn, query, $row))
        })?;
        row.map(TryFrom::try_from).transpose()
    }};
}

/// One page of the live (not soft-deleted) records of `$tenant` in `$table`, oldest first
/// (`created_at`, then `id`), loaded as `$row` and made domain values with their
/// `TryFrom`; evaluates to `StoreResult<Page<_>>`.
macro_rules! live_records {
    ($db:expr, $table:ident, $tenant:expr, $page:expr, $row:ty) => {{
        let loaded = db_read!($db, |conn| {
            let live = || {
                $table::table
                    .filter(tenant_of!($table, $tenant))
                    .filter($table::deleted_at.is_null())
            };
            let order = ($table::created_at.asc(), $table::id.asc());
            Ok(load_page!(conn, live, order, $page, $row))
        })?;
        $crate::db::page_from(loaded, TryFrom::try_from)
    }};
}

/// Narrows the boxed `$query` to the rows whose `$column` lies in `[$from, $until)`, each
/// bound applied when given.
macro_rules! in_period {
    ($query:ident, $column:expr, $from:expr, $until:expr) => {
        if let Some(from) = $from {
            $query = $query.filter($column.ge(from));
        }
        if let Some(until) = $until {
            $query = $query.filter($column.lt(until));
        }
    };
}

/// The page of domain values made of a page of rows (see [`load_page!`]).
pub(crate) fn page_from<R, T>(
    (rows, total_count): (Vec<R>, i64),
    into_domain: impl FnMut(R) -> StoreResult<T>,
) -> StoreResult<Page<T>> {
    Ok(Page {
        items: rows
            .into_iter()
            .map(into_domain)
            .collect::<StoreResult<_>>()?,
        total_count,
    })
}
