//! The job runner: a queued write is decided from the state when it runs, re-decided
//! when that state changed before it was applied, retried with backoff after a storage
//! failure, dropped when its claim was taken over, and refunded when it fails.

use crate::documents::DocumentKind;
use crate::error::ErrorCode;
use crate::jobs::{JobStatus, MAX_ATTEMPTS, retry_delay};
use crate::ports::{Deletions, DocumentFilter, Documents, Jobs, Organizations, PageRequest};
use crate::services::{NewContactInput, RunOutcome, TransactionChanges, Write};

use super::{World, consulting_invoice, entry, transfer};

const PAGE: PageRequest = PageRequest {
    limit: 100,
    offset: 0,
};

fn stored_code(error: &Option<serde_json::Value>) -> Option<String> {
    error
        .as_ref()
        .and_then(|e| e["code"].as_str())
        .map(str::to_owned)
}

/// Has the store run job `job_id`, to completion, just before it applies its next write.
fn complete_before_next_apply(w: &World, job_id: &str) {
    let ledger = w.ledger.clone();
    let job_id = job_id.to_owned();
    w.store().before_next_apply(Box::new(move || {
        Box::pin(async move {
            let outcome = ledger.run_now(&job_id).await.expect("the job runs");
            assert!(matches!(outcome, Some(RunOutcome::Completed(_))));
        })
    }));
}

/// A pending transaction of the live tenant, created and applied; its id.
async fn pending_transaction(w: &World) -> String {
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let job = w
        .queue(&w.live, transfer(&cash, &sales, "10.00", false))
        .await;
    assert_eq!(w.run_jobs().await, 1);
    job.command.resource().1.to_owned()
}

#[tokio::test]
async fn a_queued_write_is_decided_from_the_state_when_it_runs() {
    let w = World::new().await;
    let id = pending_transaction(&w).await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    // Accepted while the transaction is pending...
    let update = w
        .queue(
            &w.live,
            Write::UpdateTransaction {
                id: id.clone(),
                changes: TransactionChanges {
                    entries: Some(vec![
                        entry(&cash, "debit", "20.00"),
                        entry(&sales, "credit", "20.00"),
                    ]),
                    ..TransactionChanges::default()
                },
            },
        )
        .await;
    let post = w
        .queue(&w.live, Write::PostTransaction { id: id.clone() })
        .await;
    assert_eq!(w.credits(), 497);
    // ... but the post runs first, so the update finds it posted.
    let posted = w.ledger.run_now(&post.id).await.expect("post runs");
    assert!(matches!(posted, Some(RunOutcome::Completed(_))));
    let outcome = w.ledger.run_now(&update.id).await.expect("update runs");
    let Some(RunOutcome::Failed(error)) = outcome else {
        panic!("the update should fail, got {outcome:?}");
    };
    assert_eq!(error["code"], "transaction_not_pending");
    // The failed write is refunded; the posted amount is the original one.
    assert_eq!(w.credits(), 498);
    let balance = w.ledger.account_balance(&w.live, &cash, None).await;
    assert_eq!(balance.expect("balance").totals.debit, 100_000);
}

#[tokio::test]
async fn a_precondition_broken_after_the_decision_fails_the_job_and_writes_nothing() {
    let w = World::new().await;
    let id = pending_transaction(&w).await;
    let delete = w
        .queue(&w.live, Write::DeleteTransaction { id: id.clone() })
        .await;
    let post = w
        .queue(&w.live, Write::PostTransaction { id: id.clone() })
        .await;
    // The post is applied between the delete's decision and its application.
    complete_before_next_apply(&w, &post.id);
    let outcome = w.ledger.run_now(&delete.id).await.expect("delete runs");
    let Some(RunOutcome::Failed(error)) = outcome else {
        panic!("the delete should fail, got {outcome:?}");
    };
    assert_eq!(error["code"], "transaction_not_pending");
    let txn = w
        .ledger
        .get_transaction(&w.live, &id)
        .await
        .expect("still there");
    assert_eq!(txn.status, crate::transactions::TransactionStatus::Posted);
    let deletions = w
        .store()
        .list_deletions(&w.live.tenant, PAGE)
        .await
        .expect("deletions");
    assert_eq!(deletions.total_count, 0);
}

#[tokio::test]
async fn a_sequence_number_taken_meanwhile_is_decided_again() {
    let w = World::new().await;
    let contact = w
        .queue(
            &w.live,
            Write::CreateContact(NewContactInput {
                contact_type: "customer".into(),
                name: "Globex".into(),
                ..NewContactInput::default()
            }),
        )
        .await;
    w.run_jobs().await;
    let contact_id = contact.command.resource().1.to_owned();
    let sales = w.account(&w.live, "4000").await;
    let invoice = || consulting_invoice(&contact_id, &sales, None);
    let first = w.queue(&w.live, invoice()).await;
    let second = w.queue(&w.live, invoice()).await;
    // The second takes number 1 while the first, decided with number 1, is applied.
    complete_before_next_apply(&w, &second.id);
    let outcome = w.ledger.run_now(&first.id).await.expect("first runs");
    assert!(
        matches!(outcome, Some(RunOutcome::Completed(_))),
        "{outcome:?}"
    );
    let page = PAGE;
    let documents = w
        .store()
        .list_documents(
            &w.live.tenant,
            DocumentKind::Invoice,
            &DocumentFilter::default(),
            page,
        )
        .await
        .expect("invoices");
    let mut sequences: Vec<i64> = documents.items.iter().map(|d| d.sequence).collect();
    sequences.sort();
    assert_eq!(sequences, vec![1, 2]);
}

#[tokio::test]
async fn a_storage_failure_retries_with_backoff() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let job = w
        .queue(&w.live, transfer(&cash, &sales, "1.00", true))
        .await;
    w.store().fail_next_applies(1);
    assert_eq!(w.run_jobs().await, 1);
    let retrying = w.ledger.get_job(&w.live, &job.id).await.expect("job");
    assert_eq!(retrying.status, JobStatus::Queued);
    assert_eq!(retrying.attempts, 1);
    assert_eq!(retrying.run_at, w.ledger.now() + retry_delay(1));
    assert_eq!(
        stored_code(&retrying.error).as_deref(),
        Some("internal_error")
    );
    // Not before its time...
    assert_eq!(w.run_jobs().await, 0);
    w.clock.advance(retry_delay(1));
    assert_eq!(w.run_jobs().await, 1);
    let done = w.ledger.get_job(&w.live, &job.id).await.expect("job");
    assert_eq!(done.status, JobStatus::Completed);
    assert_eq!(done.attempts, 2);
    assert_eq!(w.credits(), 499);
}

#[tokio::test]
async fn a_job_failing_every_attempt_ends_failed_and_refunded() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let job = w
        .queue(&w.live, transfer(&cash, &sales, "1.00", true))
        .await;
    assert_eq!(w.credits(), 499);
    w.store()
        .fail_next_applies(u32::try_from(MAX_ATTEMPTS).expect("small"));
    for attempt in 1..=MAX_ATTEMPTS {
        assert_eq!(w.run_jobs().await, 1, "attempt {attempt}");
        w.clock.advance(retry_delay(attempt));
    }
    let failed = w.ledger.get_job(&w.live, &job.id).await.expect("job");
    assert_eq!(failed.status, JobStatus::Failed);
    assert_eq!(failed.attempts, MAX_ATTEMPTS);
    assert_eq!(w.credits(), 500);
    assert_eq!(w.run_jobs().await, 0);
}

#[tokio::test]
async fn a_lost_claim_writes_nothing() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let job = w
        .queue(&w.live, transfer(&cash, &sales, "1.00", true))
        .await;
    let lease = w.ledger.config.job_lease;
    let store = w.store();
    let first = store
        .claim_job(&job.id, w.ledger.now(), lease)
        .await
        .expect("claim")
        .expect("runnable");
    // Leased: no one else may take it...
    let now = w.ledger.now();
    assert!(
        store
            .claim_job(&job.id, now, lease)
            .await
            .expect("claim")
            .is_none()
    );
    // ... until the lease runs out.
    w.clock.advance(lease + time::Duration::seconds(1));
    let second = store
        .claim_job(&job.id, w.ledger.now(), lease)
        .await
        .expect("claim")
        .expect("taken over");
    assert_eq!(second.attempts, 2);
    assert_eq!(
        w.ledger.run_claimed(&first).await.expect("run"),
        RunOutcome::Lost
    );
    let err = store
        .fail_job(&first, serde_json::json!({}), w.ledger.now())
        .await
        .expect_err("lost");
    assert_eq!(err.code(), ErrorCode::JobLost);
    let txns = w
        .ledger
        .list_transactions(&w.live, None, None, None, PAGE)
        .await;
    assert_eq!(txns.expect("list").total_count, 0);
    let outcome = w.ledger.run_claimed(&second).await.expect("run");
    assert!(matches!(outcome, RunOutcome::Completed(_)));
    assert_eq!(w.credits(), 499);
}

#[tokio::test]
async fn a_failed_test_mode_job_is_refunded_as_usage() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.test).await;
    // Deactivated after the write was accepted: the store refuses it under lock.
    w.submit(&w.test, transfer(&cash, &sales, "1.00", true))
        .await
        .expect("accepted");
    w.submit(
        &w.test,
        Write::UpdateAccount {
            id: cash.clone(),
            changes: crate::services::AccountChanges {
                is_active: Some(false),
                ..Default::default()
            },
        },
    )
    .await
    .expect("deactivated");
    let pool = w.test.organization.id.clone();
    assert_eq!(w.store().test_credits_used(&pool).await.expect("usage"), 2);
    assert_eq!(w.run_jobs().await, 1);
    let job = &w.store().jobs()[0];
    assert_eq!(job.status, JobStatus::Failed);
    assert_eq!(stored_code(&job.error).as_deref(), Some("account_inactive"));
    assert_eq!(w.store().test_credits_used(&pool).await.expect("usage"), 1);
    assert_eq!(w.credits(), 500);
}
