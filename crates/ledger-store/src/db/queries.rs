//! Query shapes the store modules share: a page of a filtered query with its count, the
//! first row of a query, a tenant's live record and page of live records, a tenant's live
//! rows narrowed by optional filters, a one-row insert, the update of a live record, a
//! port's audited insert and update, a period filter, and a page of rows turned into
//! domain values.
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

/// Inside a write body: sets `$changes` on the live (not soft-deleted) record `$id` of
/// `$tenant` in `$table`; returns `Missing` (of `$resource`) when there is none. A failed
/// statement goes through `$on_error` (to a `TxError`) when given.
macro_rules! update_live {
    ($conn:expr, $table:ident, $tenant:expr, $id:expr, $resource:expr, $changes:expr $(, $on_error:expr)? $(,)?) => {{
        let changed = diesel::update($table::table)
            .filter(tenant_of!($table, $tenant))
            .filter($table::id.eq($id))
            .filter($table::deleted_at.is_null())
            .set($changes)
            .execute(&mut *$conn)
            .await
            $(.map_err($on_error))??;
        if changed == 0 {
            return Err(::ledger_domain::StoreError::missing($resource, $id).into());
        }
    }};
}

/// Inside a write body: sets `$changes` on the job `$job_id` of `$org` while its claim is
/// still held (`processing` at `$attempts` attempts); `ClaimLost` when it is not.
macro_rules! end_claim {
    ($conn:expr, $org:expr, $job_id:expr, $attempts:expr, $changes:expr $(,)?) => {{
        use $crate::schema::jobs;
        let ended = diesel::update(jobs::table)
            .filter(jobs::organization_id.eq($org))
            .filter(jobs::id.eq($job_id))
            .filter(jobs::status.eq("processing"))
            .filter(jobs::attempts.eq($attempts))
            .set($changes)
            .execute(&mut *$conn)
            .await?;
        if ended == 0 {
            return Err(::ledger_domain::StoreError::ClaimLost {
                job_id: $job_id.clone(),
            }
            .into());
        }
    }};
}

/// A port's insert, as one [`audited!`] write: inserts the row `$row` into `$table` (a
/// failed insert mapped by `$on_error` when given) and answers `$value`; evaluates to
/// `StoreResult<Written<_>>`.
macro_rules! audited_insert {
    ($db:expr, $audit:expr, $table:path, $row:ident, $value:expr $(, $on_error:expr)? $(,)?) => {
        audited!($db, $audit, |conn| {
            diesel::insert_into($table)
                .values(&$row)
                .execute(conn)
                .await
                $(.map_err($on_error))??;
            $value
        })
    };
}

/// A port's update, as one [`audited!`] write: [`update_live!`] of the record `$of.id` of
/// `$of`'s tenant with `$changes` (most often `&row`, a row deriving `AsChangeset`: every
/// column but its `skip_update` ones, in field order), answering `$value`; evaluates to
/// `StoreResult<Written<_>>`.
macro_rules! audited_update {
    ($db:expr, $audit:expr, $table:ident, $resource:expr, $of:ident, $changes:expr, $value:expr $(, $on_error:expr)? $(,)?) => {
        audited!($db, $audit, |conn| {
            update_live!(conn, $table, $of, &$of.id, $resource, $changes $(, $on_error)?);
            $value
        })
    };
}

/// Methods of a port over records `$domain` stored as `$row` (`From<&$domain>`,
/// `TryFrom` back, `AsChangeset`) in the soft-deletable `$table`, `Missing` as `$resource`;
/// a failed insert or update goes through `on_error(e, &row)` when given. Each method is
/// named after its one generic step: `insert` ([`audited_insert!`]), `update`
/// ([`audited_update!`]), `get` ([`live_record!`]), `list` ([`live_records!`]) and
/// `delete` or `delete_unused` ([`audited_soft_delete!`], the latter refusing a record in
/// use).
macro_rules! resource_methods {
    (@ insert $name:ident, [$domain:ty, $row:ty, $table:ident, $resource:expr $(, $on_error:path)?]) => {
        async fn $name(
            &self,
            value: $domain,
            audit: ::ledger_domain::ports::Audit,
        ) -> ::ledger_domain::ports::StoreResult<::ledger_domain::ports::Written<$domain>> {
            let row = <$row>::from(&value);
            audited_insert!(self, audit, $table::table, row, value $(, |e| $on_error(e, &row))?)
        }
    };
    (@ update $name:ident, [$domain:ty, $row:ty, $table:ident, $resource:expr $(, $on_error:path)?]) => {
        async fn $name(
            &self,
            value: $domain,
            audit: ::ledger_domain::ports::Audit,
        ) -> ::ledger_domain::ports::StoreResult<::ledger_domain::ports::Written<$domain>> {
            let row = <$row>::from(&value);
            audited_update!(self, audit, $table, $resource, row, &row, value $(, |e| $on_error(e, &row))?)
        }
    };
    (@ get $name:ident, [$domain:ty, $row:ty, $table:ident, $resource:expr $(, $on_error:path)?]) => {
        async fn $name(
            &self,
            tenant: &::ledger_domain::ports::Tenant,
            id: &str,
        ) -> ::ledger_domain::ports::StoreResult<Option<$domain>> {
            live_record!(self, $table, tenant, id, $row)
        }
    };
    (@ list $name:ident, [$domain:ty, $row:ty, $table:ident, $resource:expr $(, $on_error:path)?]) => {
        async fn $name(
            &self,
            tenant: &::ledger_domain::ports::Tenant,
            page: ::ledger_domain::ports::PageRequest,
        ) -> ::ledger_domain::ports::StoreResult<::ledger_domain::ports::Page<$domain>> {
            live_records!(self, $table, tenant, page, $row)
        }
    };
    (@ soft_delete delete, $($args:tt)+) => {
        audited_soft_delete!($($args)+)
    };
    (@ soft_delete delete_unused, $($args:tt)+) => {
        audited_soft_delete!($($args)+, refuse_in_use)
    };
    (@ $delete:ident $name:ident, [$domain:ty, $row:ty, $table:ident, $resource:expr $(, $on_error:path)?]) => {
        async fn $name(
            &self,
            id: &str,
            deletion: ::ledger_domain::events::Deletion,
            audit: ::ledger_domain::ports::Audit,
        ) -> ::ledger_domain::ports::StoreResult<::ledger_domain::ports::Written<()>> {
            resource_methods!(@ soft_delete $delete, self, $table, $resource, id, deletion, audit)
        }
    };
    ($domain:ty, $row:ty, $table:ident, $resource:expr $(, on_error = $on_error:path)?;
     $($step:ident: $name:ident),+ $(,)?) => {
        resource_methods!(@each [$domain, $row, $table, $resource $(, $on_error)?]; $($step $name)+);
    };
    (@each $resource:tt; $($step:ident $name:ident)+) => {
        $(resource_methods!(@ $step $name, $resource);)+
    };
}

/// `$table`'s live (not soft-deleted) rows of `$tenant` as a boxed query, narrowed to
/// `$column = value` for each `$value` (an `Option`) that is given: a list's filter.
macro_rules! live_filtered {
    ($table:ident, $tenant:expr $(, $column:ident = $value:expr)+ $(,)?) => {{
        let mut query = $table::table
            .filter(tenant_of!($table, $tenant))
            .filter($table::deleted_at.is_null())
            .into_boxed();
        $(if let Some(value) = $value {
            query = query.filter($table::$column.eq(value));
        })+
        query
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

/// The first row `$query` selects, loaded as `$row` in a read of its own and made a domain
/// value with `$into_domain`; evaluates to `StoreResult<Option<_>>`.
macro_rules! read_first {
    ($db:expr, $row:ty, $into_domain:expr, $query:expr $(,)?) => {{
        let row: Option<$row> = db_read!($db, |conn| { Ok(first_row!(conn, $query, $row)) })?;
        row.map($into_domain).transpose()
    }};
}

/// Every row `$query` selects, loaded as `$row` in a read of its own and made domain values
/// with `$into_domain`; evaluates to `StoreResult<Vec<_>>`.
macro_rules! read_all {
    ($db:expr, $row:ty, $into_domain:expr, $query:expr $(,)?) => {{
        let rows: Vec<$row> = db_read!($db, |conn| {
            Ok($query.select(<$row>::as_select()).load(&mut *conn).await?)
        })?;
        rows.into_iter().map($into_domain).collect()
    }};
}

/// One page of the rows `$query()` selects (a closure: see [`load_page!`]), ordered by
/// `$order`, loaded as `$row` in a read of its own and made domain values with
/// `$into_domain`; evaluates to `StoreResult<Page<_>>`.
macro_rules! read_page {
    ($db:expr, $row:ty, $into_domain:expr, $page:expr, $order:expr, $query:expr $(,)?) => {{
        let loaded = db_read!($db, |conn| {
            let query = $query;
            let order = $order;
            Ok(load_page!(conn, query, order, $page, $row))
        })?;
        $crate::db::page_from(loaded, $into_domain)
    }};
}

/// The live (not soft-deleted) record `$id` of `$tenant` in `$table`, loaded as `$row` and
/// made a domain value with its `TryFrom` (or `$into_domain`, a `StoreResult`); evaluates
/// to `StoreResult<Option<_>>`.
macro_rules! live_record {
    ($db:expr, $table:ident, $tenant:expr, $id:expr, $row:ty) => {
        live_record!($db, $table, $tenant, $id, $row, TryFrom::try_from)
    };
    ($db:expr, $table:ident, $tenant:expr, $id:expr, $row:ty, $into_domain:expr) => {
        read_first!(
            $db,
            $row,
            $into_domain,
            $table::table
                .filter(tenant_of!($table, $tenant))
                .filter($table::id.eq($id))
                .filter($table::deleted_at.is_null()),
        )
    };
}

/// One page of the live (not soft-deleted) records of `$tenant` in `$table`, oldest first
/// (`created_at`, then `id`), loaded as `$row` and made domain values with their
/// `TryFrom`; evaluates to `StoreResult<Page<_>>`.
macro_rules! live_records {
    ($db:expr, $table:ident, $tenant:expr, $page:expr, $row:ty) => {
        read_page!(
            $db,
            $row,
            TryFrom::try_from,
            $page,
            ($table::created_at.asc(), $table::id.asc()),
            || {
                $table::table
                    .filter(tenant_of!($table, $tenant))
                    .filter($table::deleted_at.is_null())
            },
        )
    };
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
