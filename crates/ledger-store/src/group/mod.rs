//! Group commit of writes applied at once (`Jobs::record_applied`).
//!
//! Concurrent calls go through one queue; when one of [`COMMITTERS`] lanes is free, the
//! committer task takes everything waiting (up to [`MAX_BATCH`]) and writes it in one
//! database transaction: one idempotency look-up, one share lock on the accounts, one
//! credit update per pool, then one statement inserting every table's rows on PostgreSQL
//! ([`crate::unnest`]). Each write is still judged on its own — a refused write is left
//! out of the inserts and answered with its refusal — so a batch never mixes one
//! caller's failure into another's answer. While the lanes commit, the next batch fills
//! up: the busier the service, the fewer commits per write.
//!
//! The module's parts: this file holds the queue, the committer loop and the batch's
//! transaction on each backend; `pipelined` the PostgreSQL transaction begun beside its
//! first lock; `judge` the steps inside the transaction (locks, replays, checks,
//! credits, inserts); `sql` the statements they run, per backend.

mod judge;
mod pipelined;
mod sql;

use std::sync::Arc;

use ledger_domain::StoreError;
use ledger_domain::jobs::Job;
use ledger_domain::ports::{AppliedWrite, IdempotencyRecord, StoreResult, Written};
use tokio::sync::{Semaphore, mpsc, oneshot};

use crate::db::{Db, DbPool, GroupQueue, GroupedWrite, SqliteConn, TxError, immediate_transaction};
use crate::rows::WriteRows;

use judge::{Locked, accounts_to_lock, write_locked};
use pipelined::pipelined_batch;

/// Most writes in one database transaction.
pub(crate) const MAX_BATCH: usize = 64;
/// Batches committing at once. More than one keeps the database busy while a batch
/// waits for its commit (or for the CPU); they never block each other, as they share-lock
/// accounts and take credit rows in a fixed order.
const COMMITTERS: usize = 2;

/// Starts the committer task for `db` (a handle without a committer of its own, so the
/// task ends when every caller's handle is gone) and returns the queue in front of it.
fn start_committer(db: Db) -> GroupQueue {
    let (queue, mut inbox) = mpsc::unbounded_channel::<GroupedWrite>();
    tokio::spawn(async move {
        let lanes = Arc::new(Semaphore::new(COMMITTERS));
        while let Some(first) = inbox.recv().await {
            // Wait for a free lane first: meanwhile the queue fills, so the busier
            // the lanes, the bigger the next batch.
            let Ok(lane) = lanes.clone().acquire_owned().await else {
                break;
            };
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match inbox.try_recv() {
                    Ok(next) => batch.push(next),
                    Err(_) => break,
                }
            }
            let db = db.clone();
            tokio::spawn(async move {
                commit(&db, batch).await;
                drop(lane);
            });
        }
    });
    queue
}

impl Db {
    /// Starts the group committer now, on the runtime of the caller, instead of on the
    /// runtime of the first grouped write. The server calls it from its multi-thread
    /// runtime: otherwise the batches (and the connections they open) run on whichever
    /// HTTP worker took the first write, which then carried them beside its share of
    /// the requests while the other workers had none (docs/decisions.md, "Session 15").
    pub fn start_group_committer(&self) {
        self.group_queue();
    }

    fn group_queue(&self) -> &GroupQueue {
        self.group.get_or_init(|| {
            start_committer(Db {
                group: Arc::default(),
                ..self.clone()
            })
        })
    }

    /// See [`ledger_domain::ports::Jobs::record_applied`].
    pub(crate) async fn record_applied_grouped(
        &self,
        write: AppliedWrite,
    ) -> StoreResult<Written<Job>> {
        // The rows (and their JSON) are built here, in the caller's task, so a batch's
        // transaction only picks and inserts them.
        let rows = WriteRows::of(&write)?;
        let queue = self.group_queue();
        let (reply, answer) = oneshot::channel();
        queue
            .send(GroupedWrite { write, rows, reply })
            .map_err(|_| StoreError::Internal("the group committer has stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::Internal("the group committer dropped a write".into()))?
    }
}

/// What became of one write of a batch.
#[derive(Debug, Clone)]
enum Outcome {
    Written,
    /// The key was used before this batch.
    Replay(IdempotencyRecord),
    /// The key is used by an earlier write of the same batch.
    SameAs(usize),
    Refused(StoreError),
}

async fn commit(db: &Db, batch: Vec<GroupedWrite>) {
    metrics::histogram!("ledger_group_commit_writes").record(batch.len() as f64);
    let mut writes = Vec::with_capacity(batch.len());
    let mut rows = Vec::with_capacity(batch.len());
    let mut replies = Vec::with_capacity(batch.len());
    for grouped in batch {
        writes.push(grouped.write);
        rows.push(grouped.rows);
        replies.push(grouped.reply);
    }
    // Shared, not copied, with the database task (and its second pass, if any).
    let writes: Arc<[AppliedWrite]> = writes.into();
    let mut result = write_batch(db, writes.clone(), rows).await;
    if matches!(result, Err(TxError::IdempotencyRace)) {
        // Another process committed one of the keys between our look-up and insert;
        // the second pass finds it and replays it (with rows built again: the first
        // pass used them up).
        result = match writes.iter().map(WriteRows::of).collect() {
            Ok(rows) => write_batch(db, writes.clone(), rows).await,
            Err(e) => Err(TxError::Fact(e)),
        };
    }
    match result {
        Ok(outcomes) => {
            for (i, (reply, outcome)) in replies.into_iter().zip(outcomes).enumerate() {
                let answer = match outcome {
                    Outcome::Written => Ok(Written::Done(writes[i].job.clone())),
                    Outcome::Replay(record) => Ok(Written::Replay(record)),
                    Outcome::SameAs(first) => match writes[first].idempotency.clone() {
                        Some(record) => Ok(Written::Replay(record)),
                        None => Err(StoreError::Internal("replay without a record".into())),
                    },
                    Outcome::Refused(e) => Err(e),
                };
                let _ = reply.send(answer);
            }
        }
        Err(e) => {
            let e = StoreError::from(e);
            for reply in replies {
                let _ = reply.send(Err(e.clone()));
            }
        }
    }
}

type TenantKey = (String, bool);

fn tenant_of(w: &AppliedWrite) -> TenantKey {
    (w.job.organization_id.clone(), w.job.livemode)
}

/// Writes a batch in one database transaction: share-locks its accounts, finds replayed
/// idempotency keys, judges each write, takes credits, and inserts what was accepted.
async fn write_batch(
    db: &Db,
    writes: Arc<[AppliedWrite]>,
    rows: Vec<WriteRows>,
) -> Result<Vec<Outcome>, TxError> {
    let pool = db.pool.clone();
    // Spawned, like every write transaction (`db_write!`): a caller that goes away
    // cannot cut it short.
    let task = tokio::spawn(async move {
        match pool {
            DbPool::Postgres(pool) => {
                let pooled = pool.get().await.map_err(TxError::pool)?;
                pipelined_batch(pooled, &writes, rows).await
            }
            DbPool::Sqlite { writer, .. } => {
                let mut pooled = writer.get().await.map_err(TxError::pool)?;
                immediate_transaction(&mut pooled, async |conn: &mut SqliteConn| {
                    let tenants = accounts_to_lock(&writes).into_iter();
                    write_locked(conn, &writes, rows, tenants, Locked::new()).await
                })
                .await
            }
        }
    });
    task.await.map_err(TxError::task)?
}
