//! `Ledger::submit`: idempotency within its window, pricing from the cost table, and
//! nothing charged for a refused write.

use std::time::Duration;

use crate::error::ErrorCode;
use crate::jobs::JobStatus;
use crate::ports::{IDEMPOTENCY_WINDOW, Organizations};
use crate::services::{Access, Channel, IdempotencyKey, Outcome, Submission, Submitted, Write};

use super::{World, config, new_account, queued, transfer};

fn keyed(key: &str, hash: &str) -> Submission {
    Submission {
        idempotency: Some(IdempotencyKey {
            key: key.into(),
            request_hash: hash.into(),
        }),
        channel: Channel::Rest,
        wait: Duration::ZERO,
    }
}

impl World {
    /// Submits through REST without waiting, with an idempotency key.
    async fn submit_keyed(
        &self,
        access: &Access,
        write: Write,
        key: &str,
        hash: &str,
    ) -> crate::DomainResult<Submitted> {
        self.ledger.submit(access, write, keyed(key, hash)).await
    }
}

/// Through GraphQL (two credits a write), without waiting.
fn graphql() -> Submission {
    Submission::new(Channel::GraphQl, Duration::ZERO)
}

#[tokio::test]
async fn a_key_replays_the_first_outcome_within_the_window() {
    let w = World::new().await;
    let first = w
        .submit_keyed(&w.live, new_account("1500"), "k1", "h1")
        .await
        .expect("first");
    assert!(!first.replayed);
    w.clock.advance(time::Duration::hours(23));
    let again = w
        .submit_keyed(&w.live, new_account("1500"), "k1", "h1")
        .await
        .expect("replay");
    assert!(again.replayed);
    assert_eq!(again.outcome, first.outcome);
    // Charged once, written once.
    assert_eq!(w.credits(), 499);
    let accounts = w.ledger.list_accounts(&w.live, None, None, None).await;
    assert_eq!(accounts.expect("list").total_count, 8);
}

#[tokio::test]
async fn a_queued_write_replays_its_job() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let first = w
        .submit_keyed(&w.live, transfer(&cash, &sales, "10.00", true), "k", "h")
        .await
        .expect("first");
    let job = queued(&first);
    assert_eq!(job.status, JobStatus::Queued);
    assert_eq!(w.run_jobs().await, 1);
    let again = w
        .submit_keyed(&w.live, transfer(&cash, &sales, "10.00", true), "k", "h")
        .await
        .expect("replay");
    assert!(again.replayed);
    let replayed = queued(&again);
    assert_eq!(replayed.id, job.id);
    assert_eq!(replayed.status, JobStatus::Completed);
    assert_eq!(w.store().jobs().len(), 1);
    assert_eq!(w.credits(), 499);
}

#[tokio::test]
async fn a_key_used_with_another_request_is_refused_and_costs_nothing() {
    let w = World::new().await;
    w.submit_keyed(&w.live, new_account("1500"), "k1", "h1")
        .await
        .expect("first");
    let err = w
        .submit_keyed(&w.live, new_account("1501"), "k1", "h2")
        .await
        .expect_err("another body");
    assert_eq!(err.code(), ErrorCode::IdempotencyKeyReused);
    assert_eq!(w.credits(), 499);
    // The key belongs to its tenant: test mode may use it for something else.
    let other = w
        .submit_keyed(&w.test, new_account("1501"), "k1", "h2")
        .await
        .expect("the other mode");
    assert!(!other.replayed);
}

#[tokio::test]
async fn a_key_is_free_again_after_the_window() {
    let w = World::new().await;
    w.submit_keyed(&w.live, new_account("1500"), "k1", "h1")
        .await
        .expect("first");
    w.clock
        .advance(IDEMPOTENCY_WINDOW + time::Duration::seconds(1));
    let later = w
        .submit_keyed(&w.live, new_account("1501"), "k1", "h2")
        .await
        .expect("a new write");
    assert!(!later.replayed);
    assert_eq!(w.credits(), 498);
    // And the new request is what the key replays from now on.
    let again = w
        .submit_keyed(&w.live, new_account("1501"), "k1", "h2")
        .await
        .expect("replay of the second");
    assert!(again.replayed);
    assert_eq!(again.outcome, later.outcome);
}

#[tokio::test]
async fn writes_are_priced_by_the_cost_table() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    w.submit(&w.live, transfer(&cash, &sales, "1.00", true))
        .await
        .expect("rest");
    assert_eq!(w.credits(), 499);
    w.ledger
        .submit(&w.live, transfer(&cash, &sales, "1.00", true), graphql())
        .await
        .expect("graphql");
    assert_eq!(w.credits(), 497);
    // Test mode never touches the live pool; its use is counted apart.
    let (tcash, tsales) = w.cash_and_sales(&w.test).await;
    w.ledger
        .submit(&w.test, transfer(&tcash, &tsales, "1.00", true), graphql())
        .await
        .expect("test mode");
    assert_eq!(w.credits(), 497);
    let pool = w.live.organization.id.clone();
    assert_eq!(w.store().test_credits_used(&pool).await.expect("usage"), 2);
}

#[tokio::test]
async fn a_waited_create_is_applied_at_once_and_charged() {
    let mut cfg = config(500);
    cfg.run_inline = true;
    let w = World::with(cfg).await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let done = w
        .ledger
        .submit(
            &w.live,
            transfer(&cash, &sales, "5.00", true),
            Submission::new(Channel::GraphQl, Duration::from_secs(1)),
        )
        .await
        .expect("waited");
    let job = queued(&done);
    assert_eq!(job.status, JobStatus::Completed);
    assert_eq!(w.credits(), 498);
    let balance = w.ledger.account_balance(&w.live, &cash, None).await;
    assert_eq!(balance.expect("balance").totals.debit, 50_000);
}

#[tokio::test]
async fn a_refused_write_costs_nothing() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let unbalanced = Write::CreateTransaction(crate::services::NewTransactionInput {
        entries: vec![
            super::entry(&cash, "debit", "10.00"),
            super::entry(&sales, "credit", "9.00"),
        ],
        ..match transfer(&cash, &sales, "1", false) {
            Write::CreateTransaction(input) => input,
            _ => unreachable!(),
        }
    });
    let err = w.submit(&w.live, unbalanced).await.expect_err("unbalanced");
    assert_eq!(err.code(), ErrorCode::UnbalancedTransaction);
    let err = w
        .submit(&w.live, new_account("1000"))
        .await
        .expect_err("a taken code");
    assert_eq!(err.code(), ErrorCode::DuplicateValue);
    assert_eq!(w.credits(), 500);
    assert!(w.store().jobs().is_empty());
}

#[tokio::test]
async fn a_short_pool_refuses_the_write_and_keeps_what_it_has() {
    let w = World::with(config(1)).await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let err = w
        .ledger
        .submit(&w.live, transfer(&cash, &sales, "1.00", true), graphql())
        .await
        .expect_err("two credits needed");
    assert_eq!(err.code(), ErrorCode::InsufficientCredits);
    assert_eq!(w.credits(), 1);
    assert!(w.store().jobs().is_empty());
    let ok = w
        .submit(&w.live, transfer(&cash, &sales, "1.00", true))
        .await;
    assert!(matches!(
        ok.expect("one credit").outcome,
        Outcome::Queued(_)
    ));
    assert_eq!(w.credits(), 0);
}
