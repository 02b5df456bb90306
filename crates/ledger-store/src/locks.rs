//! Row locks on accounts inside a write transaction.
//!
//! An effect that adds or counts entries takes a share lock on each account it touches
//! and checks that the account is still live and active; deleting an account takes an
//! exclusive lock first. On PostgreSQL (READ COMMITTED) the two then serialise: a delete
//! waits for in-flight postings and its next statement sees their entries, and a posting
//! that waited for a delete no longer finds the account. Locks are taken in account-id
//! order, so concurrent postings never deadlock. SQLite needs no row locks: its single
//! writer connection already serialises every write transaction.

use std::future::Future;

use diesel::prelude::*;
use diesel::result::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::db::SqliteConn;
use crate::schema::accounts;

/// `(id, status)` of the live accounts among `ids`, locked for the rest of the transaction.
pub(crate) trait AccountLocks {
    fn lock_accounts<'a>(
        &'a mut self,
        organization_id: &'a str,
        livemode: bool,
        ids: &'a [String],
        exclusive: bool,
    ) -> impl Future<Output = QueryResult<Vec<(String, String)>>> + Send + 'a;
}

impl AccountLocks for AsyncPgConnection {
    async fn lock_accounts<'a>(
        &'a mut self,
        organization_id: &'a str,
        livemode: bool,
        ids: &'a [String],
        exclusive: bool,
    ) -> QueryResult<Vec<(String, String)>> {
        {
            let query = accounts::table
                .filter(accounts::organization_id.eq(organization_id))
                .filter(accounts::livemode.eq(livemode))
                .filter(accounts::id.eq_any(ids))
                .filter(accounts::deleted_at.is_null())
                .select((accounts::id, accounts::status))
                .order(accounts::id);
            if exclusive {
                query.for_update().load(self).await
            } else {
                query.for_share().load(self).await
            }
        }
    }
}

impl AccountLocks for SqliteConn {
    async fn lock_accounts<'a>(
        &'a mut self,
        organization_id: &'a str,
        livemode: bool,
        ids: &'a [String],
        _exclusive: bool,
    ) -> QueryResult<Vec<(String, String)>> {
        {
            accounts::table
                .filter(accounts::organization_id.eq(organization_id))
                .filter(accounts::livemode.eq(livemode))
                .filter(accounts::id.eq_any(ids))
                .filter(accounts::deleted_at.is_null())
                .select((accounts::id, accounts::status))
                .order(accounts::id)
                .load(self)
                .await
        }
    }
}
