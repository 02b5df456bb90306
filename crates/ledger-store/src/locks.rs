//! Row locks on accounts inside a write transaction.
//!
//! An effect that adds or counts entries takes a share lock on each account it touches
//! and checks that the account is still live and active; deleting an account takes an
//! exclusive lock first. On PostgreSQL (READ COMMITTED) the two then serialise: a delete
//! waits for in-flight postings and its next statement sees their entries, and a posting
//! that waited for a delete no longer finds the account. Locks are taken in account-id
//! order, so concurrent postings never deadlock. SQLite needs no row locks: its single
//! writer connection already serialises every write transaction. Contacts and categories
//! that a transaction names are locked the same way against their deletion.

use std::future::Future;

use diesel::prelude::*;
use diesel::result::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::db::SqliteConn;
use crate::schema::{accounts, categories, contacts};

/// `(id, status)` of the live accounts among `ids`, locked for the rest of the transaction.
pub(crate) trait AccountLocks {
    fn lock_accounts<'a>(
        &'a mut self,
        organization_id: &'a str,
        livemode: bool,
        ids: &'a [String],
        exclusive: bool,
    ) -> impl Future<Output = QueryResult<Vec<(String, String)>>> + Send + 'a;

    /// Whether the contact is live, locked like an account (share or exclusive).
    fn lock_contact<'a>(
        &'a mut self,
        organization_id: &'a str,
        livemode: bool,
        id: &'a str,
        exclusive: bool,
    ) -> impl Future<Output = QueryResult<bool>> + Send + 'a;

    /// Whether the category is live, locked like an account (share or exclusive).
    fn lock_category<'a>(
        &'a mut self,
        organization_id: &'a str,
        livemode: bool,
        id: &'a str,
        exclusive: bool,
    ) -> impl Future<Output = QueryResult<bool>> + Send + 'a;
}

/// Whether the row `id` of a tenant table is live: unlocked (`none`), or locked on
/// PostgreSQL (`share`, `update`, or `exclusive = <bool>` to choose one of them).
macro_rules! live_row {
    (@run $query:ident, $conn:expr, none) => {
        $query.first::<String>($conn).await.optional().map(|r| r.is_some())
    };
    (@run $query:ident, $conn:expr, share) => {
        $query.for_share().first::<String>($conn).await.optional().map(|r| r.is_some())
    };
    (@run $query:ident, $conn:expr, update) => {
        $query.for_update().first::<String>($conn).await.optional().map(|r| r.is_some())
    };
    (@run $query:ident, $conn:expr, exclusive = $exclusive:expr) => {
        if $exclusive {
            live_row!(@run $query, $conn, update)
        } else {
            live_row!(@run $query, $conn, share)
        }
    };
    ($conn:expr, $table:ident, $org:expr, $livemode:expr, $id:expr, $($lock:tt)+) => {{
        let query = $table::table
            .filter(tenant_of!($table, $org, $livemode))
            .filter($table::id.eq($id))
            .filter($table::deleted_at.is_null())
            .select($table::id);
        live_row!(@run query, $conn, $($lock)+)
    }};
}

/// The method `$name` of [`AccountLocks`] on the rows of `$table`: whether the row is
/// live, read as `$lock` says (see [`live_row!`]).
macro_rules! live_row_method {
    ($name:ident, $table:ident, $exclusive:ident => $($lock:tt)+) => {
        async fn $name<'a>(
            &'a mut self,
            organization_id: &'a str,
            livemode: bool,
            id: &'a str,
            $exclusive: bool,
        ) -> QueryResult<bool> {
            live_row!(self, $table, organization_id, livemode, id, $($lock)+)
        }
    };
}

/// `(id, status)` of the tenant's live accounts among `$ids`, in id order (the order
/// locks are taken in).
macro_rules! live_accounts {
    ($org:expr, $livemode:expr, $ids:expr) => {
        accounts::table
            .filter(tenant_of!(accounts, $org, $livemode))
            .filter(accounts::id.eq_any($ids))
            .filter(accounts::deleted_at.is_null())
            .select((accounts::id, accounts::status))
            .order(accounts::id)
    };
}

/// PostgreSQL's locks, for a connection and for a shared reference to one (whose
/// statements can be pipelined with others, see `group`).
macro_rules! pg_locks {
    ($conn:ty) => {
        impl AccountLocks for $conn {
            async fn lock_accounts<'a>(
                &'a mut self,
                organization_id: &'a str,
                livemode: bool,
                ids: &'a [String],
                exclusive: bool,
            ) -> QueryResult<Vec<(String, String)>> {
                let query = live_accounts!(organization_id, livemode, ids);
                if exclusive {
                    query.for_update().load(self).await
                } else {
                    query.for_share().load(self).await
                }
            }

            live_row_method!(lock_contact, contacts, exclusive => exclusive = exclusive);
            live_row_method!(lock_category, categories, exclusive => exclusive = exclusive);
        }
    };
}

pg_locks!(AsyncPgConnection);
pg_locks!(&AsyncPgConnection);

impl AccountLocks for SqliteConn {
    async fn lock_accounts<'a>(
        &'a mut self,
        organization_id: &'a str,
        livemode: bool,
        ids: &'a [String],
        _exclusive: bool,
    ) -> QueryResult<Vec<(String, String)>> {
        live_accounts!(organization_id, livemode, ids)
            .load(self)
            .await
    }

    live_row_method!(lock_contact, contacts, _exclusive => none);
    live_row_method!(lock_category, categories, _exclusive => none);
}
