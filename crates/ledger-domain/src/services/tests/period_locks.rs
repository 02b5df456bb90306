//! Period locks: nothing dated on or before a tenant's `period_lock_date` is posted,
//! changed or reversed, whether the lock was set before the write was accepted or only
//! before its job ran; writes that post nothing stay allowed.

use time::macros::datetime;

use crate::documents::DocumentKind;
use crate::error::ErrorCode;
use crate::jobs::JobStatus;
use crate::ports::Jobs;
use crate::services::{
    Access, NewContactInput, NewTransactionInput, PaymentInput, RunOutcome, TransactionChanges,
    Write,
};

use super::{World, consulting_invoice, transfer};

async fn lock(w: &World, access: &Access, value: Option<&str>) {
    w.ledger
        .put_setting(access, "period_lock_date", value)
        .await
        .expect("the lock is set");
}

/// A transfer of 10.00 from sales to cash dated `date`.
fn dated(cash: &str, sales: &str, date: time::OffsetDateTime, auto_post: bool) -> Write {
    let Write::CreateTransaction(input) = transfer(cash, sales, "10.00", auto_post) else {
        unreachable!("transfer creates a transaction");
    };
    Write::CreateTransaction(NewTransactionInput {
        date: Some(date),
        ..input
    })
}

/// Submits `write` and runs its job; the new resource's id.
async fn applied(w: &World, write: Write) -> String {
    let job = w.queue(&w.live, write).await;
    assert_eq!(w.run_jobs().await, 1);
    let job = w.ledger.get_job(&w.live, &job.id).await.expect("the job");
    assert_eq!(job.status, JobStatus::Completed, "{:?}", job.error);
    job.command.resource().1.to_owned()
}

fn refused(result: crate::DomainResult<crate::services::Submitted>) {
    let err = result.expect_err("refused");
    assert_eq!(err.code(), ErrorCode::PeriodLocked, "{err}");
    assert_eq!(
        err.details(),
        Some(serde_json::json!({ "lock_date": "2026-01-10" }))
    );
}

async fn cash_debits(w: &World, cash: &str) -> i64 {
    w.ledger
        .account_balance(&w.live, cash, None)
        .await
        .expect("balance")
        .totals
        .debit
}

#[tokio::test]
async fn the_setting_is_a_date_or_nothing_per_tenant() {
    let w = World::new().await;
    for bad in ["soon", "2026-13-01", "2026-01-10T00:00:00Z"] {
        let err = w
            .ledger
            .put_setting(&w.live, "period_lock_date", Some(bad))
            .await
            .expect_err(bad);
        assert_eq!(err.code(), ErrorCode::InconsistentFields);
    }
    lock(&w, &w.live, Some("2026-01-10")).await;
    let (cash, sales) = w.cash_and_sales(&w.test).await;
    // The live lock does not close test mode's books.
    let date = datetime!(2026-01-05 09:00 UTC);
    w.submit(&w.test, dated(&cash, &sales, date, true))
        .await
        .expect("test mode is open");
    lock(&w, &w.live, None).await;
    let setting = w
        .ledger
        .get_setting(&w.live, "period_lock_date")
        .await
        .expect("the setting");
    assert_eq!(setting.value, "");
    w.run_jobs().await;
}

#[tokio::test]
async fn postings_updates_and_reversals_in_a_closed_period_are_refused() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let inside = datetime!(2026-01-10 23:00 UTC);
    let after = datetime!(2026-01-11 00:00 UTC);
    let posted = applied(&w, dated(&cash, &sales, inside, true)).await;
    let pending = applied(&w, dated(&cash, &sales, inside, false)).await;
    let pending_after = applied(&w, dated(&cash, &sales, after, false)).await;
    lock(&w, &w.live, Some("2026-01-10")).await;
    let credits = w.credits();
    let debits = cash_debits(&w, &cash).await;

    refused(w.submit(&w.live, dated(&cash, &sales, inside, true)).await);
    refused(
        w.submit(
            &w.live,
            Write::PostTransaction {
                id: pending.clone(),
            },
        )
        .await,
    );
    let redate = |id: &str, date| Write::UpdateTransaction {
        id: id.to_owned(),
        changes: TransactionChanges {
            date: Some(date),
            ..TransactionChanges::default()
        },
    };
    refused(w.submit(&w.live, redate(&pending, after)).await);
    refused(w.submit(&w.live, redate(&pending_after, inside)).await);
    refused(
        w.submit(
            &w.live,
            Write::ReverseTransaction {
                id: posted.clone(),
                reason: Some("wrong".into()),
            },
        )
        .await,
    );
    assert_eq!(w.credits(), credits, "a refused write costs nothing");
    assert_eq!(cash_debits(&w, &cash).await, debits);
    assert_eq!(w.run_jobs().await, 0);

    // Writes that post nothing, and anything after the lock, go through.
    applied(&w, dated(&cash, &sales, inside, false)).await;
    applied(&w, dated(&cash, &sales, after, true)).await;
    applied(&w, redate(&pending_after, datetime!(2026-01-12 00:00 UTC))).await;
    applied(&w, Write::PostTransaction { id: pending_after }).await;
    applied(
        &w,
        Write::DeleteTransaction {
            id: pending.clone(),
        },
    )
    .await;
    assert_eq!(cash_debits(&w, &cash).await, debits + 2 * 100_000);

    // Clearing the lock opens the period again.
    lock(&w, &w.live, Some("")).await;
    applied(
        &w,
        Write::ReverseTransaction {
            id: posted,
            reason: Some("wrong".into()),
        },
    )
    .await;
}

#[tokio::test]
async fn a_reversal_dated_in_a_closed_period_is_refused() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let posted = applied(
        &w,
        dated(&cash, &sales, datetime!(2026-01-20 09:00 UTC), true),
    )
    .await;
    // The books are closed up to today (the clock says 2026-01-15), so the mirror, dated
    // today, would fall inside even though the original, dated later, does not.
    lock(&w, &w.live, Some("2026-01-15")).await;
    let err = w
        .submit(
            &w.live,
            Write::ReverseTransaction {
                id: posted,
                reason: Some("wrong".into()),
            },
        )
        .await
        .expect_err("refused");
    assert_eq!(err.code(), ErrorCode::PeriodLocked);
    assert!(err.to_string().contains("the reversal"), "{err}");
}

#[tokio::test]
async fn a_lock_set_after_a_write_was_accepted_fails_its_job() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let inside = datetime!(2026-01-09 09:00 UTC);
    let pending = applied(&w, dated(&cash, &sales, inside, false)).await;
    let credits = w.credits();
    let create = w.queue(&w.live, dated(&cash, &sales, inside, true)).await;
    let post = w
        .queue(&w.live, Write::PostTransaction { id: pending })
        .await;
    assert_eq!(w.credits(), credits - 2);
    lock(&w, &w.live, Some("2026-01-10")).await;
    for job in [create, post] {
        let outcome = w.ledger.run_now(&job.id).await.expect("runs");
        let Some(RunOutcome::Failed(error)) = outcome else {
            panic!("the job should fail, got {outcome:?}");
        };
        assert_eq!(error["code"], "period_locked");
        assert_eq!(error["details"]["lock_date"], "2026-01-10");
        let stored = w.store().get_job(&w.live.tenant, &job.id).await;
        let stored = stored.expect("read").expect("the job");
        assert_eq!(stored.status, JobStatus::Failed);
    }
    assert_eq!(w.credits(), credits, "failed jobs are refunded");
    assert_eq!(cash_debits(&w, &cash).await, 0);
}

#[tokio::test]
async fn document_postings_in_a_closed_period_are_refused() {
    let w = World::new().await;
    let contact = applied(
        &w,
        Write::CreateContact(NewContactInput {
            contact_type: "customer".into(),
            name: "Globex".into(),
            ..NewContactInput::default()
        }),
    )
    .await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let invoice = |day| consulting_invoice(&contact, &sales, Some(day));
    let issue = |id: &str| Write::IssueDocument {
        kind: DocumentKind::Invoice,
        id: id.to_owned(),
    };
    let void = |id: &str| Write::VoidDocument {
        kind: DocumentKind::Invoice,
        id: id.to_owned(),
    };
    let pay = |id: &str, day| Write::RecordPayment {
        kind: DocumentKind::Invoice,
        id: id.to_owned(),
        payment: PaymentInput {
            amount: "10.00".into(),
            payment_date: Some(day),
            payment_method: Some("bank_transfer".into()),
            account_id: Some(cash.clone()),
            ..PaymentInput::default()
        },
    };
    let early = applied(&w, invoice(time::macros::date!(2026 - 01 - 05))).await;
    let issued_early = applied(&w, invoice(time::macros::date!(2026 - 01 - 06))).await;
    applied(&w, issue(&issued_early)).await;
    let late = applied(&w, invoice(time::macros::date!(2026 - 01 - 12))).await;
    lock(&w, &w.live, Some("2026-01-10")).await;
    let credits = w.credits();

    refused(w.submit(&w.live, issue(&early)).await);
    refused(w.submit(&w.live, void(&issued_early)).await);
    refused(
        w.submit(
            &w.live,
            pay(&issued_early, time::macros::date!(2026 - 01 - 08)),
        )
        .await,
    );
    assert_eq!(w.credits(), credits);
    // A draft posts nothing; a later invoice and its payment after the lock post.
    applied(&w, void(&early)).await;
    applied(&w, issue(&late)).await;
    applied(&w, pay(&late, time::macros::date!(2026 - 01 - 13))).await;
    applied(&w, pay(&issued_early, time::macros::date!(2026 - 01 - 14))).await;
    assert_eq!(cash_debits(&w, &cash).await, 2 * 100_000);
}

/// With copies on (the server's default), validation may use a copy of the lock; a lock
/// set through this ledger replaces the copy at once, and a lock another process sets
/// (a second ledger over the same store), which the copy does not know yet, still stops
/// the posting when its job is decided: refused, refunded, nothing posted.
#[tokio::test]
async fn a_copy_of_the_lock_is_replaced_when_set_and_checked_again_when_decided() {
    let config = crate::services::LedgerConfig {
        account_cache_ttl: std::time::Duration::from_secs(3600),
        ..super::config(500)
    };
    let w = World::with(config.clone()).await;
    let other = crate::services::Ledger::new(
        w.store().clone(),
        std::sync::Arc::new(w.clock.clone()),
        std::sync::Arc::new(crate::memory::runtime::TestRuntime),
        config,
    );
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let inside = datetime!(2026-01-10 23:00 UTC);
    // Validation reads the lock (none) and keeps the copy.
    applied(&w, dated(&cash, &sales, inside, true)).await;

    // Set here: the copy is replaced, the next write is refused at validation.
    lock(&w, &w.live, Some("2026-01-10")).await;
    refused(w.submit(&w.live, dated(&cash, &sales, inside, true)).await);
    lock(&w, &w.live, None).await;
    applied(&w, dated(&cash, &sales, inside, true)).await;

    // Set by the other process: accepted on the copy, refused when decided.
    other
        .put_setting(&w.live, "period_lock_date", Some("2026-01-10"))
        .await
        .expect("the other process locks");
    let credits = w.credits();
    let debits = cash_debits(&w, &cash).await;
    let job = w.queue(&w.live, dated(&cash, &sales, inside, true)).await;
    assert_eq!(w.credits(), credits - 1);
    let outcome = w.ledger.run_now(&job.id).await.expect("runs");
    let Some(RunOutcome::Failed(error)) = outcome else {
        panic!("the job should fail, got {outcome:?}");
    };
    assert_eq!(error["code"], "period_locked");
    assert_eq!(cash_debits(&w, &cash).await, debits, "nothing posted");
    assert_eq!(w.credits(), credits, "the refused write is refunded");
}
