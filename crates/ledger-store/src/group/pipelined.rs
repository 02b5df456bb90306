//! The PostgreSQL side of a batch's transaction: its `BEGIN` pipelined with the first
//! account lock, and the guard that closes a connection rather than return it to the
//! pool with a transaction still open.

use std::collections::HashMap;

use diesel_async::pooled_connection::deadpool::Object;
use diesel_async::{AsyncPgConnection, SimpleAsyncConnection};
use futures::future::join;
use ledger_domain::ports::AppliedWrite;

use super::Outcome;
use super::judge::{accounts_to_lock, write_locked};
use crate::db::TxError;
use crate::locks::AccountLocks;
use crate::rows::WriteRows;

/// A pooled PostgreSQL connection.
type PgObject = Object<AsyncPgConnection>;

/// PostgreSQL: the batch's transaction with its `BEGIN` sent together with the first
/// account lock, pipelined on the connection: one wait for the database fewer per
/// batch (docs/decisions.md, "Session 17").
pub(super) async fn pipelined_batch(
    pooled: PgObject,
    writes: &[AppliedWrite],
    rows: Vec<WriteRows>,
) -> Result<Vec<Outcome>, TxError> {
    let mut guard = OpenTransaction(Some(pooled));
    let Some(conn) = guard.0.as_deref_mut() else {
        return Err(TxError::pool("no connection"));
    };
    let result = pipelined_steps(conn, writes, rows).await;
    // Whatever failed, the transaction ends here (a `ROLLBACK` after a failed `COMMIT`
    // only warns). A connection that cannot even say so is closed by the guard.
    if result.is_err() && conn.batch_execute("ROLLBACK").await.is_err() {
        return result;
    }
    guard.release();
    result
}

async fn pipelined_steps(
    conn: &mut AsyncPgConnection,
    writes: &[AppliedWrite],
    rows: Vec<WriteRows>,
) -> Result<Vec<Outcome>, TxError> {
    let mut tenants = accounts_to_lock(writes).into_iter();
    let mut locked = HashMap::new();
    {
        let shared: &AsyncPgConnection = conn;
        let (mut first, mut second) = (shared, shared);
        // `join` polls in order, and a simple query like `BEGIN` is sent on its first
        // poll (the lock, a prepared statement, may first wait for its preparation):
        // `BEGIN` is on the wire before the lock, whatever the lock waits for.
        match tenants.next() {
            Some(((org, livemode), ids)) => {
                let (began, status) = join(
                    first.batch_execute("BEGIN"),
                    second.lock_accounts(&org, livemode, &ids, false),
                )
                .await;
                began?;
                locked.insert((org, livemode), status?);
            }
            None => first.batch_execute("BEGIN").await?,
        }
    }
    let outcomes = write_locked(conn, writes, rows, tenants, locked).await?;
    // Not pipelined with the insert: a statement not yet prepared on this connection
    // goes out only after its preparation's round trip, so a `COMMIT` sent beside it
    // would overtake it and commit the transaction without its rows.
    conn.batch_execute("COMMIT").await?;
    Ok(outcomes)
}

/// A pooled PostgreSQL connection inside a transaction that this module began and
/// ends itself. Dropped before [`OpenTransaction::release`] (an error that could not
/// roll back, or a panic), it closes the connection instead of returning it to the
/// pool with the transaction open.
struct OpenTransaction(Option<PgObject>);

impl OpenTransaction {
    /// Returns the connection to the pool: its transaction has ended.
    fn release(mut self) {
        drop(self.0.take());
    }
}

impl Drop for OpenTransaction {
    fn drop(&mut self) {
        if let Some(pooled) = self.0.take() {
            drop(PgObject::take(pooled));
        }
    }
}
