//! The queue: credits, claims, leases, completion, failure and retries.

use std::collections::HashSet;

use ledger_domain::StoreError;
use ledger_domain::jobs::JobStatus;
use ledger_domain::ports::{Effect, Store, Written};
use serde_json::json;
use time::Duration;

use crate::credits_left;
use crate::{T0, charge, job, post_command, sign_up};

contract!(live_credits_are_taken_refused_and_refunded);
async fn live_credits_are_taken_refused_and_refunded<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let live = a.tenant(true);
    let first = job(&a, true, post_command("txn_1"), 300);
    let done = db
        .enqueue(first.clone(), Some(charge(&a, true, 300)), None)
        .await
        .expect("enqueue");
    assert_eq!(done, Written::Done(first.clone()));
    assert_eq!(credits_left(db, &a.org.id).await, 200, "{backend}");

    let second = job(&a, true, post_command("txn_2"), 300);
    let err = db
        .enqueue(second.clone(), Some(charge(&a, true, 300)), None)
        .await
        .expect_err("short");
    assert_eq!(
        err,
        StoreError::CreditsShort {
            required: 300,
            available: 200
        }
    );
    assert!(db.get_job(&live, &second.id).await.expect("get").is_none());

    // A failed live job gives its credits back, in the same transaction.
    let held = db
        .claim_job(&first.id, T0, Duration::seconds(30))
        .await
        .expect("claim")
        .expect("claimed");
    db.fail_job(&held, json!({ "code": "boom" }), T0)
        .await
        .expect("fail");
    assert_eq!(credits_left(db, &a.org.id).await, 500);
    let failed = db
        .get_job(&live, &first.id)
        .await
        .expect("get")
        .expect("job");
    assert_eq!(failed.status, JobStatus::Failed);
    assert_eq!(failed.error, Some(json!({ "code": "boom" })));
    assert_eq!(failed.completed_at, Some(T0));
    // Failing again is a lost claim and refunds nothing twice.
    let err = db.fail_job(&held, json!({}), T0).await.expect_err("lost");
    assert_eq!(err.code(), "job_lost");
    assert_eq!(credits_left(db, &a.org.id).await, 500);
}

contract!(test_mode_credits_are_counted_apart_and_never_refused);
async fn test_mode_credits_are_counted_apart_and_never_refused<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let big = job(&a, false, post_command("txn_1"), 1000);
    db.enqueue(big.clone(), Some(charge(&a, false, 1000)), None)
        .await
        .expect("test writes are never refused");
    let small = job(&a, false, post_command("txn_2"), 5);
    db.enqueue(small, Some(charge(&a, false, 5)), None)
        .await
        .expect("enqueue");
    assert_eq!(
        db.test_credits_used(&a.org.id).await.expect("usage"),
        1005,
        "{backend}"
    );
    assert_eq!(credits_left(db, &a.org.id).await, 500);
    let held = db
        .claim_job(&big.id, T0, Duration::seconds(30))
        .await
        .expect("claim")
        .expect("claimed");
    db.fail_job(&held, json!("x"), T0).await.expect("fail");
    assert_eq!(
        db.test_credits_used(&a.org.id).await.expect("usage"),
        5,
        "the failed job's test credits are given back"
    );
}

contract!(claims_lease_retry_and_lose_jobs);
async fn claims_lease_retry_and_lose_jobs<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let live = a.tenant(true);
    let lease = Duration::seconds(30);
    let now = job(&a, true, post_command("txn_1"), 0);
    let mut later = job(&a, true, post_command("txn_2"), 0);
    later.run_at = T0 + Duration::seconds(10);
    db.enqueue(now.clone(), None, None).await.expect("enqueue");
    db.enqueue(later.clone(), None, None)
        .await
        .expect("enqueue");

    let claimed = db.claim_jobs(10, T0, lease).await.expect("claim");
    assert_eq!(claimed.len(), 1, "{backend}");
    let held = &claimed[0];
    assert_eq!(held.id, now.id);
    assert_eq!(held.status, JobStatus::Processing);
    assert_eq!(held.attempts, 1);
    assert_eq!(held.locked_until, Some(T0 + lease));
    assert!(
        db.claim_jobs(10, T0, lease)
            .await
            .expect("claim")
            .is_empty()
    );
    assert!(
        db.claim_job(&now.id, T0, lease)
            .await
            .expect("claim")
            .is_none()
    );

    // The lease ran out: another worker takes both runnable jobs over.
    let t1 = T0 + Duration::seconds(31);
    let retaken = db.claim_jobs(10, t1, lease).await.expect("claim");
    let ids: Vec<_> = retaken.iter().map(|j| (j.id.clone(), j.attempts)).collect();
    assert_eq!(ids, [(now.id.clone(), 2), (later.id.clone(), 1)]);

    // The first worker's claim is lost: it can neither complete nor fail the job.
    let effect = || Effect::PostTransaction {
        transaction_id: "txn_1".into(),
        posted_at: T0,
    };
    let err = db
        .apply_job(held, effect(), vec![], json!({}), t1)
        .await
        .expect_err("lost");
    assert_eq!(err.code(), "job_lost");
    assert_eq!(
        db.fail_job(held, json!({}), t1)
            .await
            .expect_err("lost")
            .code(),
        "job_lost"
    );

    // An effect whose precondition fails rolls the completion back too.
    let current = retaken[0].clone();
    let err = db
        .apply_job(&current, effect(), vec![], json!({}), t1)
        .await
        .expect_err("missing");
    assert_eq!(err.code(), "transaction_not_pending");
    let still = db.get_job(&live, &now.id).await.expect("get").expect("job");
    assert_eq!(still.status, JobStatus::Processing);

    // Retry: back in the queue until run_at.
    let run_at = t1 + Duration::seconds(100);
    db.retry_job(&current, json!({ "try": 2 }), run_at)
        .await
        .expect("retry");
    let queued = db.get_job(&live, &now.id).await.expect("get").expect("job");
    assert_eq!(queued.status, JobStatus::Queued);
    assert_eq!(queued.run_at, run_at);
    assert_eq!(queued.error, Some(json!({ "try": 2 })));
    assert_eq!(queued.locked_until, None);
    assert!(
        db.claim_job(&now.id, t1, lease)
            .await
            .expect("claim")
            .is_none()
    );
    let third = db
        .claim_job(&now.id, run_at, lease)
        .await
        .expect("claim")
        .expect("due");
    assert_eq!(third.attempts, 3);
    assert_eq!(
        db.retry_job(&current, json!({}), run_at)
            .await
            .expect_err("old")
            .code(),
        "job_lost"
    );
    db.fail_job(&third, json!("gave up"), run_at)
        .await
        .expect("fail");
    assert!(
        db.claim_jobs(10, run_at + Duration::days(1), lease)
            .await
            .expect("claim")
            .len()
            == 1
    );
}

contract!(concurrent_claimers_never_share_a_job, multi_thread);
async fn concurrent_claimers_never_share_a_job<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let mut all = HashSet::new();
    for _ in 0..40 {
        let j = job(&a, true, post_command("txn"), 0);
        all.insert(j.id.clone());
        db.enqueue(j, None, None).await.expect("enqueue");
    }
    let mut workers = Vec::new();
    for _ in 0..5 {
        let db = db.clone();
        workers.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let batch = db
                    .claim_jobs(3, T0, Duration::seconds(60))
                    .await
                    .expect("claim");
                if batch.is_empty() {
                    return mine;
                }
                mine.extend(batch.into_iter().map(|j| j.id));
            }
        }));
    }
    let mut seen = HashSet::new();
    for worker in workers {
        for id in worker.await.expect("worker") {
            assert!(seen.insert(id), "a job was claimed twice on {backend}");
        }
    }
    assert_eq!(seen, all, "{backend}");
}
