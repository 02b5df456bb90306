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
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use ledger_domain::DomainError;
use ledger_domain::credits::LedgerKind;
use ledger_domain::jobs::Job;
use ledger_domain::ports::{AppliedWrite, IdempotencyRecord, StoreResult, Written};
use tokio::sync::{Semaphore, mpsc, oneshot};

use crate::apply::{check_locked, check_parties};
use crate::credits::CreditConn;
use crate::db::{Db, GroupQueue, GroupedWrite, SqliteConn, TxError};
use crate::locks::AccountLocks;
use crate::rows::{
    CreditLedgerRow, CreditUsageRow, EntryRow, EventRow, IdempotencyRow, JobRow, TransactionRow,
    entry_rows, event_rows, to_db,
};
use crate::schema::{
    credit_ledger, credit_usage, events, idempotency_keys, jobs, ledger_entries, transactions,
};
use crate::unnest::{UnnestInsert, table_rows};

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
        let queue = self.group_queue();
        let (reply, answer) = oneshot::channel();
        queue
            .send(GroupedWrite { write, reply })
            .map_err(|_| DomainError::Internal("the group committer has stopped".into()))?;
        answer
            .await
            .map_err(|_| DomainError::Internal("the group committer dropped a write".into()))?
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
    Refused(DomainError),
}

async fn commit(db: &Db, batch: Vec<GroupedWrite>) {
    metrics::histogram!("ledger_group_commit_writes").record(batch.len() as f64);
    let (writes, replies): (Vec<AppliedWrite>, Vec<_>) =
        batch.into_iter().map(|p| (p.write, p.reply)).unzip();
    // Shared, not copied, with the database task (and its second pass, if any).
    let writes: Arc<[AppliedWrite]> = writes.into();
    let mut result = write_batch(db, writes.clone()).await;
    if matches!(result, Err(TxError::IdempotencyRace)) {
        // Another process committed one of the keys between our look-up and insert;
        // the second pass finds it and replays it.
        result = write_batch(db, writes.clone()).await;
    }
    match result {
        Ok(outcomes) => {
            for (i, (reply, outcome)) in replies.into_iter().zip(outcomes).enumerate() {
                let answer = match outcome {
                    Outcome::Written => Ok(Written::Done(writes[i].job.clone())),
                    Outcome::Replay(record) => Ok(Written::Replay(record)),
                    Outcome::SameAs(first) => match writes[first].idempotency.clone() {
                        Some(record) => Ok(Written::Replay(record)),
                        None => Err(DomainError::Internal("replay without a record".into())),
                    },
                    Outcome::Refused(e) => Err(e),
                };
                let _ = reply.send(answer);
            }
        }
        Err(e) => {
            let e = DomainError::from(e);
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

async fn write_batch(db: &Db, writes: Arc<[AppliedWrite]>) -> Result<Vec<Outcome>, TxError> {
    db_write!(db, |conn| {
        let mut outcomes: Vec<Option<Outcome>> = vec![None; writes.len()];
        find_replays(conn, &writes, &mut outcomes).await?;
        check_accounts(conn, &writes, &mut outcomes).await?;
        let ledger = take_credits(conn, &writes, &mut outcomes).await?;
        let accepted: Vec<&AppliedWrite> = writes
            .iter()
            .zip(&outcomes)
            .filter(|(_, o)| o.is_none())
            .map(|(w, _)| w)
            .collect();
        insert_accepted(conn, &accepted, ledger).await?;
        Ok(outcomes
            .into_iter()
            .map(|o| o.unwrap_or(Outcome::Written))
            .collect::<Vec<_>>())
    })
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

/// Share-locks every account the batch posts to and refuses writes to accounts that are
/// no longer live and active.
async fn check_accounts<C: BatchConn>(
    conn: &mut C,
    writes: &[AppliedWrite],
    outcomes: &mut [Option<Outcome>],
) -> Result<(), TxError> {
    // Tenants (and their accounts) in a fixed order, as in every batch.
    let mut by_tenant: BTreeMap<TenantKey, Vec<String>> = BTreeMap::new();
    for (w, o) in writes.iter().zip(outcomes.iter()) {
        if o.is_none() {
            let ids = by_tenant.entry(tenant_of(w)).or_default();
            ids.extend(
                w.transaction
                    .entries
                    .iter()
                    .map(|e| e.line.account_id.clone()),
            );
        }
    }
    let mut status: HashMap<TenantKey, Vec<(String, String)>> = HashMap::new();
    for ((org, livemode), mut ids) in by_tenant {
        ids.sort();
        ids.dedup();
        let locked = conn.lock_accounts(&org, livemode, &ids, false).await?;
        status.insert((org, livemode), locked);
    }
    for (w, o) in writes.iter().zip(outcomes.iter_mut()) {
        if o.is_some() {
            continue;
        }
        // The contact and category it names must still be live (share-locked like accounts).
        let row = TransactionRow::from(&w.transaction);
        match check_parties(conn, &row.organization_id, row.livemode, &row).await {
            Ok(()) => {}
            Err(TxError::Domain(e)) => {
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
                    outcomes[i] = Some(Outcome::Refused(DomainError::InsufficientCredits {
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
    accepted: &[&AppliedWrite],
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
    for w in accepted {
        if let Some(record) = &w.idempotency {
            keys.push(IdempotencyRow::from(record));
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
        job_rows.push(JobRow::from_domain(&w.job)?);
        txn_rows.push(TransactionRow::from(&w.transaction));
        entries.extend(entry_rows(&w.transaction));
        event_list.extend(event_rows(&w.events));
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
