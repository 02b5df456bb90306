//! The audit trail of deletions, the purge (through the service with a fixed clock) and
//! the `/system` figures.

use std::sync::Arc;

use ledger_domain::accounts::AccountType;
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::jobs::JobStatus;
use ledger_domain::ports::{
    Audit, Clock, Effect, IdempotencyRecord, PoolStats, PurgeReport, Store,
};
use ledger_domain::services::{Ledger, LedgerConfig};
use ledger_domain::transactions::TransactionStatus;
use serde_json::json;
use time::OffsetDateTime;

use crate::PAGE;
use crate::absent;
use crate::harness::Probe;
use crate::journal::insert;
use crate::sign_up_each;
use crate::{
    Org, T0, account, account_id, deletion, enqueue_and_claim, event, job, post_command, sign_up,
};

/// A clock stopped at one instant.
struct FixedClock(OffsetDateTime);

impl Clock for FixedClock {
    fn now(&self) -> OffsetDateTime {
        self.0
    }
}

fn ledger_at<S: Store>(db: &S, now: OffsetDateTime) -> Ledger<S> {
    Ledger::new(
        db.clone(),
        Arc::new(FixedClock(now)),
        Arc::new(ledger_store::TokioRuntime::default()),
        LedgerConfig::default(),
    )
}

async fn apply<S: Store>(db: &S, org: &Org, livemode: bool, effect: Effect) {
    let held = enqueue_and_claim(db, job(org, livemode, post_command("txn"), 0)).await;
    db.apply_job(&held, effect, vec![], json!({}), T0)
        .await
        .expect("apply");
}

contract!(purge_removes_only_what_expired);
async fn purge_removes_only_what_expired<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Acme").await;
    let test = a.tenant(false);

    // A deleted account (with a child that survives it), a deleted pending
    // transaction with its entries, and a deleted key: all recoverable for 7 days.
    let parent = account(&a.org.id, false, "6100", AccountType::Expense);
    let mut child = account(&a.org.id, false, "6110", AccountType::Expense);
    child.parent_id = Some(parent.id.clone());
    for acc in [&parent, &child] {
        let ev = event(&test, "account.created", "account", &acc.id);
        db.insert_account(acc.clone(), Audit::of(ev))
            .await
            .expect("account");
    }
    apply(
        db,
        &a,
        false,
        Effect::DeleteAccount {
            account_id: parent.id.clone(),
            deletion: deletion(&test, "account", &parent.id),
        },
    )
    .await;
    let cash = account_id(db, &test, "1000").await;
    let sales = account_id(db, &test, "4000").await;
    let pending = crate::transaction(&test, T0, TransactionStatus::Pending, &cash, &sales, 100);
    insert(db, &a, pending.clone()).await;
    apply(
        db,
        &a,
        false,
        Effect::DeleteTransaction {
            transaction_id: pending.id.clone(),
            deletion: deletion(&test, "transaction", &pending.id),
        },
    )
    .await;
    let key = a.test_key.clone();
    let ev = event(&test, "api_key.deleted", "api_key", &key.id);
    db.delete_key(&key.id, deletion(&test, "api_key", &key.id), ev)
        .await
        .expect("delete key");
    // A key deleted later is still recoverable when the others are purged.
    let later = a.live_key.clone();
    let mut later_deletion = deletion(&a.tenant(true), "api_key", &later.id);
    later_deletion.recoverable_until = T0 + time::Duration::days(30);
    let ev = event(&a.tenant(true), "api_key.deleted", "api_key", &later.id);
    db.delete_key(&later.id, later_deletion.clone(), ev)
        .await
        .expect("delete key");
    // An idempotency record made at T0.
    let record = IdempotencyRecord {
        organization_id: a.org.id.clone(),
        livemode: false,
        key: "idem-1".to_owned(),
        request_hash: "h".to_owned(),
        job_id: None,
        result: Some(serde_json::json!({})),
        created_at: T0,
    };
    db.enqueue(job(&a, false, post_command("x"), 0), None, Some(record))
        .await
        .expect("enqueue");
    assert_eq!(
        db.list_deletions(&test, PAGE)
            .await
            .expect("trail")
            .total_count,
        3
    );

    // A day later only the idempotency record is old enough.
    let report = ledger_at(
        db,
        T0 + time::Duration::days(1) + time::Duration::seconds(1),
    )
    .purge_expired()
    .await
    .expect("purge");
    assert_eq!(
        report,
        PurgeReport {
            idempotency_records: 1,
            ..PurgeReport::default()
        },
        "{backend}"
    );
    let since = T0 - time::Duration::days(1);
    assert!(
        db.find_idempotency(&test, "idem-1", since)
            .await
            .expect("find")
            .is_none()
    );

    // After the retention everything expired goes; the later key stays.
    let report = ledger_at(db, T0 + time::Duration::days(8))
        .purge_expired()
        .await
        .expect("purge");
    assert_eq!(
        report,
        PurgeReport {
            accounts: 1,
            transactions: 1,
            entries: 2,
            api_keys: 1,
            taxes: 0,
            categories: 0,
            contacts: 0,
            documents: 0,
            deletions: 3,
            idempotency_records: 0,
            exchange_rates: 0,
            attachments: 0,
            reconciliations: 0,
        },
        "{backend}"
    );
    assert_eq!(
        db.list_deletions(&test, PAGE)
            .await
            .expect("trail")
            .total_count,
        0
    );
    let live_trail = db
        .list_deletions(&a.tenant(true), PAGE)
        .await
        .expect("trail");
    assert_eq!(live_trail.items, vec![later_deletion]);
    let survivor = db
        .get_account(&test, &child.id)
        .await
        .expect("get")
        .expect("child survives");
    assert_eq!(survivor.parent_id, None);
    absent(db.get_transaction(&test, &pending.id).await, backend);
    // Running it again finds nothing more.
    let again = ledger_at(db, T0 + time::Duration::days(8))
        .purge_expired()
        .await
        .expect("purge");
    assert_eq!(again, PurgeReport::default());
}

contract!(deletions_by_key_stay_in_the_keys_reach);
async fn deletions_by_key_stay_in_the_keys_reach<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Acme", "Beta"]).await;
    let key_id = "key_x";
    for (org, n) in [(&a, 2), (&b, 1)] {
        for i in 0..n {
            let mut d = deletion(&org.tenant(false), "account", &format!("act_{i}"));
            d.deleted_at = T0 + time::Duration::minutes(i);
            let ev = event(&org.tenant(false), "x", "account", "y");
            // Any port that writes a deletion row will do: a key deletion.
            let mut k = crate::key(&org.org.id, false);
            k.previous_hash = None;
            db.insert_key(k.clone(), ev).await.expect("key");
            let ev = event(&org.tenant(false), "x", "account", "y");
            db.delete_key(&k.id, d, ev).await.expect("delete");
        }
    }
    let mine = db
        .list_deletions_by_key(key_id, false, &a.org.path, PAGE)
        .await
        .expect("list");
    assert_eq!(mine.total_count, 2, "{backend}");
    assert!(mine.items[0].deleted_at > mine.items[1].deleted_at);
    assert!(mine.items.iter().all(|d| d.organization_id == a.org.id));
    let live = db
        .list_deletions_by_key(key_id, true, &a.org.path, PAGE)
        .await
        .expect("list");
    assert_eq!(live.total_count, 0);
    let other = db
        .list_deletions_by_key("key_other", false, &a.org.path, PAGE)
        .await
        .expect("list");
    assert_eq!(other.total_count, 0);
}

contract!(system_figures);
async fn system_figures<S: Probe>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Acme", "Beta"]).await;
    let test = a.tenant(false);
    for n in 0..12 {
        let mut ev = event(&test, "account.created", "account", &format!("act_{n}"));
        ev.created_at = T0 + time::Duration::minutes(n);
        let acc = account(&a.org.id, false, &format!("7{n:03}"), AccountType::Asset);
        db.insert_account(acc, Audit::of(ev))
            .await
            .expect("account");
    }
    let ev = event(&b.tenant(false), "account.created", "account", "act_b");
    let acc = account(&b.org.id, false, "7999", AccountType::Asset);
    db.insert_account(acc, Audit::of(ev))
        .await
        .expect("account");

    let stats = db
        .event_stats(&a.org.path, false, T0 + time::Duration::minutes(10), 10)
        .await
        .expect("stats");
    // Sign-up wrote one organization.created (test mode) per organization.
    assert_eq!(stats.total_events, 13, "{backend}");
    assert_eq!(stats.events_since, 2);
    assert_eq!(
        stats.events_by_type,
        vec![
            ("account.created".to_owned(), 12),
            ("organization.created".to_owned(), 1)
        ]
    );
    assert_eq!(stats.recent_events.len(), 10);
    assert_eq!(stats.recent_events[0].entity_id, "act_11");
    let live = db
        .event_stats(&a.org.path, true, T0, 10)
        .await
        .expect("stats");
    assert_eq!(live.total_events, 0);

    let id = new_id(IdKind::Request);
    let mut queued = job(&a, false, post_command("t"), 0);
    queued.id = id;
    db.enqueue(queued, None, None).await.expect("enqueue");
    let jobs = db.job_stats(T0).await.expect("jobs");
    assert_eq!(jobs.queued, 1);
    assert_eq!((jobs.completed_since, jobs.failed_since), (0, 0));
    let held = enqueue_and_claim(db, job(&a, false, post_command("u"), 0)).await;
    assert_eq!(held.status, JobStatus::Processing);
    db.fail_job(&held, json!({"code": "x"}), T0 + time::Duration::minutes(1))
        .await
        .expect("fail");
    let jobs = db.job_stats(T0).await.expect("jobs");
    assert_eq!((jobs.queued, jobs.failed_since), (1, 1));

    let pools = db.pool_stats();
    // A database has connections to count; the memory store has none and says so.
    if db.has_connection_pool() {
        assert!(pools.max_size >= 1, "{backend}");
    } else {
        assert_eq!(pools, PoolStats::default(), "{backend}");
    }
    assert!(pools.in_use <= pools.max_size);
}
