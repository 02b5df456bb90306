//! Inside a batch's transaction: the account locks, then each write judged on its own
//! (replays, accounts and parties, credits), then one insert of what was accepted. A
//! refused write is left out of the inserts and answered with its refusal.

use std::collections::{BTreeMap, HashMap};

use ledger_domain::StoreError;
use ledger_domain::credits::LedgerKind;
use ledger_domain::ports::{AppliedWrite, IdempotencyRecord};

use super::sql::{BatchConn, BatchRows};
use super::{Outcome, TenantKey, tenant_of};
use crate::apply::{check_locked, check_parties};
use crate::db::TxError;
use crate::rows::{CreditLedgerRow, CreditUsageRow, WriteRows, to_db};

/// The accounts each tenant's writes post to, tenants and ids in a fixed order (as in
/// every batch and every other write, so concurrent transactions never deadlock).
pub(super) fn accounts_to_lock(writes: &[AppliedWrite]) -> BTreeMap<TenantKey, Vec<String>> {
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
pub(super) type Locked = HashMap<TenantKey, Vec<(String, String)>>;

/// Inside the batch's transaction: share-locks the accounts of `tenants` (those not
/// locked yet, beside `locked`), judges each write (replays, accounts, parties,
/// credits) and inserts the accepted ones.
pub(super) async fn write_locked<C: BatchConn>(
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
