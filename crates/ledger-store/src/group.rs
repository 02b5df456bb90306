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

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::Arc;

use diesel::prelude::*;
use diesel::result::QueryResult;
use diesel_async::pooled_connection::deadpool::Object;
use diesel_async::{AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use futures::future::join;
use ledger_domain::StoreError;
use ledger_domain::credits::LedgerKind;
use ledger_domain::jobs::Job;
use ledger_domain::ports::{AppliedWrite, IdempotencyRecord, StoreResult, Written};
use tokio::sync::{Semaphore, mpsc, oneshot};

use crate::apply::{check_locked, check_parties};
use crate::credits::CreditConn;
use crate::db::{Db, DbPool, GroupQueue, GroupedWrite, SqliteConn, TxError, immediate_transaction};
use crate::locks::AccountLocks;
use crate::rows::{
    CreditLedgerRow, CreditUsageRow, EntryRow, EventRow, IdempotencyRow, JobRow, TransactionRow,
    WriteRows, to_db,
};
use crate::schema::{
    credit_ledger, credit_usage, events, idempotency_keys, jobs, ledger_entries, transactions,
};
use crate::unnest::{UnnestInsert, table_rows};

/// A pooled PostgreSQL connection.
type PgObject = Object<AsyncPgConnection>;

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

/// PostgreSQL: the batch's transaction with its `BEGIN` sent together with the first
/// account lock, pipelined on the connection: one wait for the database fewer per
/// batch (docs/decisions.md, "Session 17").
async fn pipelined_batch(
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

/// The accounts each tenant's writes post to, tenants and ids in a fixed order (as in
/// every batch and every other write, so concurrent transactions never deadlock).
fn accounts_to_lock(writes: &[AppliedWrite]) -> BTreeMap<TenantKey, Vec<String>> {
    let mut by_tenant: BTreeMap<TenantKey, Vec<String>> = BTreeMap::new();
    for w in writes {
        by_tenant.entry(tenant_of(w)).or_default().extend(
            w.transaction
                .entries
                .iter()
                .map(|e| e.line.account_id.clone()),
        );
    }
    for ids in by_tenant.values_mut() {
        ids.sort();
        ids.dedup();
    }
    by_tenant
}

/// What the batch's accounts were found to be: `(id, status)` of the live ones, by tenant.
type Locked = HashMap<TenantKey, Vec<(String, String)>>;

/// Inside the batch's transaction: share-locks the accounts of `tenants` (those not
/// locked yet, beside `locked`), judges each write (replays, accounts, parties,
/// credits) and inserts the accepted ones.
async fn write_locked<C: BatchConn>(
    conn: &mut C,
    writes: &[AppliedWrite],
    rows: Vec<WriteRows>,
    tenants: impl Iterator<Item = (TenantKey, Vec<String>)> + Send,
    mut locked: Locked,
) -> Result<Vec<Outcome>, TxError> {
    for ((org, livemode), ids) in tenants {
        let status = conn.lock_accounts(&org, livemode, &ids, false).await?;
        locked.insert((org, livemode), status);
    }
    let mut outcomes: Vec<Option<Outcome>> = vec![None; writes.len()];
    find_replays(conn, writes, &mut outcomes).await?;
    check_accounts(conn, writes, &rows, &locked, &mut outcomes).await?;
    let ledger = take_credits(conn, writes, &mut outcomes).await?;
    let accepted: Vec<(&AppliedWrite, WriteRows)> = writes
        .iter()
        .zip(rows)
        .zip(&outcomes)
        .filter(|(_, o)| o.is_none())
        .map(|(accepted, _)| accepted)
        .collect();
    insert_accepted(conn, accepted, ledger).await?;
    Ok(outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Outcome::Written))
        .collect())
}

/// Marks writes whose idempotency key was used already (before or earlier in the batch).
async fn find_replays<C: BatchConn>(
    conn: &mut C,
    writes: &[AppliedWrite],
    outcomes: &mut [Option<Outcome>],
) -> Result<(), TxError> {
    let mut by_tenant: HashMap<TenantKey, Vec<String>> = HashMap::new();
    for w in writes {
        if let Some(r) = &w.idempotency {
            by_tenant
                .entry(tenant_of(w))
                .or_default()
                .push(r.key.clone());
        }
    }
    let mut used: HashMap<(TenantKey, String), IdempotencyRecord> = HashMap::new();
    for ((org, livemode), keys) in by_tenant {
        for row in conn.idempotency_rows(&org, livemode, &keys).await? {
            used.insert(((org.clone(), livemode), row.key.clone()), row.into());
        }
    }
    let mut first: HashMap<(TenantKey, String), usize> = HashMap::new();
    let mut stale: HashMap<TenantKey, Vec<String>> = HashMap::new();
    for (i, w) in writes.iter().enumerate() {
        let Some(record) = &w.idempotency else {
            continue;
        };
        let id = (tenant_of(w), record.key.clone());
        let stored = used.get(&id);
        if let Some(stored) = stored.filter(|s| record.replays(s)) {
            outcomes[i] = Some(Outcome::Replay(stored.clone()));
            continue;
        }
        if stored.is_some() && !first.contains_key(&id) {
            // Past the window (the domain's rule): the key is free again.
            stale.entry(id.0.clone()).or_default().push(id.1.clone());
        }
        if let Some(&j) = first.get(&id) {
            outcomes[i] = Some(Outcome::SameAs(j));
        } else {
            first.insert(id, i);
        }
    }
    for ((org, livemode), keys) in stale {
        conn.delete_idempotency(&org, livemode, &keys).await?;
    }
    Ok(())
}

/// Refuses writes to accounts that are no longer live and active (`locked`: the
/// batch's accounts as its share locks found them), or naming a contact or category
/// that is gone.
async fn check_accounts<C: BatchConn>(
    conn: &mut C,
    writes: &[AppliedWrite],
    rows: &[WriteRows],
    status: &Locked,
    outcomes: &mut [Option<Outcome>],
) -> Result<(), TxError> {
    for ((w, rows), o) in writes.iter().zip(rows).zip(outcomes.iter_mut()) {
        if o.is_some() {
            continue;
        }
        // The contact and category it names must still be live (share-locked like accounts).
        let row = &rows.transaction;
        match check_parties(conn, &row.organization_id, row.livemode, row).await {
            Ok(()) => {}
            Err(TxError::Fact(e)) => {
                *o = Some(Outcome::Refused(e));
                continue;
            }
            Err(other) => return Err(other),
        }
        let locked = status
            .get(&tenant_of(w))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut wanted: Vec<String> = w
            .transaction
            .entries
            .iter()
            .map(|e| e.line.account_id.clone())
            .collect();
        wanted.sort();
        wanted.dedup();
        if let Err(e) = check_locked(&wanted, locked, false) {
            *o = Some(Outcome::Refused(e));
        }
    }
    Ok(())
}

/// Takes live credits (one update per pool when all fit, else write by write) and
/// refuses writes whose pool is short; returns the credit-ledger rows of what was taken,
/// one per pool for the whole batch (named after the pool's first charged write, whose
/// job id is unique). Test-mode credits are rows inserted later.
async fn take_credits<C: BatchConn>(
    conn: &mut C,
    writes: &[AppliedWrite],
    outcomes: &mut [Option<Outcome>],
) -> Result<Vec<CreditLedgerRow>, TxError> {
    // Pools in a fixed order: concurrent batches take their rows without deadlocking.
    let mut by_pool: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (w, o)) in writes.iter().zip(outcomes.iter()).enumerate() {
        if let (None, Some(charge)) = (o, &w.charge)
            && charge.livemode
            && charge.credits > 0
        {
            by_pool.entry(charge.pool_id.clone()).or_default().push(i);
        }
    }
    let mut ledger = Vec::with_capacity(by_pool.len());
    for (pool, members) in by_pool {
        let credits = |i: usize| writes[i].charge.as_ref().map_or(0, |c| c.credits);
        let total: i64 = members.iter().map(|&i| credits(i)).sum();
        let charged: Vec<usize> = if conn.take_credits(&pool, total).await? {
            members
        } else {
            let mut charged = Vec::new();
            for i in members {
                if conn.take_credits(&pool, credits(i)).await? {
                    charged.push(i);
                } else {
                    let available = conn.credits_of(&pool).await?;
                    outcomes[i] = Some(Outcome::Refused(StoreError::CreditsShort {
                        required: credits(i),
                        available,
                    }));
                }
            }
            charged
        };
        if let [first, ..] = charged[..] {
            let job = &writes[first].job;
            ledger.push(CreditLedgerRow::new(
                &pool,
                &job.id,
                LedgerKind::Charge,
                -charged.iter().map(|&i| credits(i)).sum::<i64>(),
                Some(job.id.as_str()),
                to_db(job.created_at),
            ));
        }
    }
    Ok(ledger)
}

async fn insert_accepted<C: BatchConn>(
    conn: &mut C,
    accepted: Vec<(&AppliedWrite, WriteRows)>,
    ledger: Vec<CreditLedgerRow>,
) -> Result<(), TxError> {
    if accepted.is_empty() {
        return Ok(());
    }
    let mut keys = Vec::new();
    // Test-mode credits: one usage row per pool for the whole batch (writes committed
    // here are done at once and never refunded, so no row needs to name its job).
    let mut usage: BTreeMap<String, CreditUsageRow> = BTreeMap::new();
    let mut job_rows = Vec::with_capacity(accepted.len());
    let mut txn_rows = Vec::with_capacity(accepted.len());
    let mut entries = Vec::new();
    let mut event_list = Vec::new();
    for (w, rows) in accepted {
        if let Some(key) = rows.idempotency {
            keys.push(key);
        }
        if let Some(charge) = w.charge.as_ref().filter(|c| !c.livemode && c.credits > 0) {
            usage
                .entry(charge.pool_id.clone())
                .or_insert_with(|| CreditUsageRow {
                    organization_id: charge.pool_id.clone(),
                    livemode: false,
                    id: w.job.id.clone(),
                    credits: 0,
                    job_id: None,
                    created_at: to_db(w.job.created_at),
                })
                .credits += charge.credits;
        }
        job_rows.push(rows.job);
        txn_rows.push(rows.transaction);
        entries.extend(rows.entries);
        event_list.extend(rows.events);
    }
    // Keys in a fixed order: a concurrent batch with the same keys waits, never deadlocks.
    keys.sort_by(|a, b| {
        (&a.organization_id, a.livemode, &a.key).cmp(&(&b.organization_id, b.livemode, &b.key))
    });
    conn.insert_idempotency(&keys)
        .await
        .map_err(crate::idempotency::idempotency_insert_error)?;
    conn.insert_rows(BatchRows {
        usage: usage.into_values().collect(),
        ledger,
        jobs: job_rows,
        transactions: txn_rows,
        entries,
        events: event_list,
    })
    .await?;
    Ok(())
}

/// The rows a batch inserts, besides idempotency keys.
pub(crate) struct BatchRows {
    usage: Vec<CreditUsageRow>,
    ledger: Vec<CreditLedgerRow>,
    jobs: Vec<JobRow>,
    transactions: Vec<TransactionRow>,
    entries: Vec<EntryRow>,
    events: Vec<EventRow>,
}

/// The statements a batch needs, for both connection types: multi-row inserts (one
/// `unnest` statement for the batch's rows) on PostgreSQL; one row per statement on
/// SQLite, where diesel-async has no multi-row insert and statements cost no network
/// round trip (all of a batch's rows in one task on the connection's thread).
pub(crate) trait BatchConn: AccountLocks + CreditConn + Send {
    fn idempotency_rows<'a>(
        &'a mut self,
        org: &'a str,
        livemode: bool,
        keys: &'a [String],
    ) -> impl Future<Output = QueryResult<Vec<IdempotencyRow>>> + Send + 'a;
    fn delete_idempotency<'a>(
        &'a mut self,
        org: &'a str,
        livemode: bool,
        keys: &'a [String],
    ) -> impl Future<Output = QueryResult<usize>> + Send + 'a;
    fn insert_idempotency<'a>(
        &'a mut self,
        rows: &'a [IdempotencyRow],
    ) -> impl Future<Output = QueryResult<()>> + Send + 'a;
    fn insert_rows(&mut self, rows: BatchRows) -> impl Future<Output = QueryResult<()>> + Send;
}

/// The idempotency reads and deletes, identical on both backends.
macro_rules! batch_reads {
    () => {
        async fn idempotency_rows<'a>(
            &'a mut self,
            org: &'a str,
            livemode: bool,
            keys: &'a [String],
        ) -> QueryResult<Vec<IdempotencyRow>> {
            idempotency_keys::table
                .filter(tenant_of!(idempotency_keys, org, livemode))
                .filter(idempotency_keys::key.eq_any(keys))
                .select(IdempotencyRow::as_select())
                .load(self)
                .await
        }

        async fn delete_idempotency<'a>(
            &'a mut self,
            org: &'a str,
            livemode: bool,
            keys: &'a [String],
        ) -> QueryResult<usize> {
            diesel::delete(
                idempotency_keys::table
                    .filter(tenant_of!(idempotency_keys, org, livemode))
                    .filter(idempotency_keys::key.eq_any(keys)),
            )
            .execute(self)
            .await
        }
    };
}

impl BatchConn for AsyncPgConnection {
    batch_reads!();
    insert_chunks!(insert_idempotency, idempotency_keys::table, IdempotencyRow);

    /// One statement of fixed text for every table (see `unnest`).
    async fn insert_rows(&mut self, rows: BatchRows) -> QueryResult<()> {
        UnnestInsert(vec![
            table_rows!(
                "credit_usage",
                rows.usage,
                CreditUsageRow {
                    organization_id,
                    livemode,
                    id,
                    credits,
                    job_id,
                    created_at,
                }
            ),
            table_rows!(
                "credit_ledger",
                rows.ledger,
                CreditLedgerRow {
                    organization_id,
                    id,
                    kind,
                    credits,
                    reference,
                    created_at,
                }
            ),
            table_rows!(
                "jobs",
                rows.jobs,
                JobRow {
                    organization_id,
                    livemode,
                    id,
                    api_key_id,
                    command_name,
                    command,
                    resource_type,
                    resource_id,
                    status,
                    attempts,
                    credit_cost,
                    credit_pool_id,
                    result,
                    error,
                    run_at,
                    locked_until,
                    created_at,
                    updated_at,
                    completed_at,
                }
            ),
            table_rows!(
                "transactions",
                rows.transactions,
                TransactionRow {
                    organization_id,
                    livemode,
                    id,
                    description,
                    date,
                    status,
                    currency,
                    amount,
                    reference,
                    reversal_of,
                    reversed_by,
                    reversal_reason,
                    metadata,
                    posted_at,
                    created_at,
                    updated_at,
                    deleted_at,
                    deleted_by,
                    recoverable_until,
                    contact_id,
                    category_id,
                    source,
                }
            ),
            table_rows!(
                "ledger_entries",
                rows.entries,
                EntryRow {
                    organization_id,
                    livemode,
                    id,
                    transaction_id,
                    line_no,
                    account_id,
                    entry_type,
                    amount,
                    description,
                    date,
                    counted,
                    currency,
                }
            ),
            table_rows!(
                "events",
                rows.events,
                EventRow {
                    organization_id,
                    livemode,
                    id,
                    event_type,
                    entity_type,
                    entity_id,
                    api_key_id,
                    before_state,
                    after_state,
                    created_at,
                }
            ),
        ])
        .execute(self)
        .await?;
        Ok(())
    }
}

impl BatchConn for SqliteConn {
    batch_reads!();
    insert_each!(insert_idempotency, idempotency_keys::table, IdempotencyRow);

    /// One statement per row, all of them in one task on the connection's thread:
    /// SQLite statements cost no network round trip, but each statement sent on its own
    /// is a hand-off to that thread and back (two context switches), and a posting
    /// inserts half a dozen rows (docs/benchmarks.md, session 13).
    async fn insert_rows(&mut self, rows: BatchRows) -> QueryResult<()> {
        self.spawn_blocking(move |conn| {
            macro_rules! each {
                ($table:path, $rows:expr) => {
                    for row in $rows {
                        diesel::RunQueryDsl::execute(
                            diesel::insert_into($table).values(row),
                            conn,
                        )?;
                    }
                };
            }
            each!(credit_usage::table, &rows.usage);
            each!(credit_ledger::table, &rows.ledger);
            each!(jobs::table, &rows.jobs);
            each!(transactions::table, &rows.transactions);
            each!(ledger_entries::table, &rows.entries);
            each!(events::table, &rows.events);
            Ok(())
        })
        .await
    }
}
