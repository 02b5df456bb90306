//! Atomic bulk posting: a batch is one job; when any of its transactions can no longer
//! be written at apply time, none is, and the batch's credits come back.

use crate::services::{AccountChanges, RunOutcome, Write};
use crate::transactions::TransactionStatus;

use super::{World, transfer};

fn inputs(writes: Vec<Write>) -> Vec<crate::services::NewTransactionInput> {
    writes
        .into_iter()
        .map(|w| match w {
            Write::CreateTransaction(input) => input,
            other => panic!("not a create: {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn a_batch_broken_after_its_decision_writes_nothing_and_is_refunded() {
    let w = World::new().await;
    let (cash, sales, expenses) = (
        w.account(&w.live, "1000").await,
        w.account(&w.live, "4000").await,
        w.account(&w.live, "5000").await,
    );
    let credits = w.credits();
    let batch = inputs(vec![
        transfer(&cash, &sales, "10.00", true),
        transfer(&expenses, &cash, "4.00", true),
    ]);
    let job = w.queue(&w.live, Write::CreateTransactionBatch(batch)).await;
    assert_eq!(w.credits(), credits - 2, "one credit per transaction");
    // The expense account is deactivated between the batch's decision and its write.
    let ledger = w.ledger.clone();
    let live = w.live.clone();
    let account = expenses.clone();
    w.store().before_next_apply(Box::new(move || {
        Box::pin(async move {
            let change = Write::UpdateAccount {
                id: account,
                changes: AccountChanges {
                    is_active: Some(false),
                    ..AccountChanges::default()
                },
            };
            ledger
                .submit(
                    &live,
                    change,
                    crate::services::Submission::new(
                        crate::services::Channel::Rest,
                        std::time::Duration::ZERO,
                    ),
                )
                .await
                .expect("deactivated");
        })
    }));
    let outcome = w.ledger.run_now(&job.id).await.expect("batch runs");
    let Some(RunOutcome::Failed(error)) = outcome else {
        panic!("the batch should fail, got {outcome:?}");
    };
    assert_eq!(error["code"], "account_inactive");
    let page = w
        .ledger
        .list_transactions(
            &w.live,
            None,
            None,
            None,
            crate::ports::PageRequest {
                limit: 10,
                offset: 0,
            },
        )
        .await
        .expect("list");
    assert_eq!(page.total_count, 0, "neither transaction was written");
    let balance = w.ledger.account_balance(&w.live, &cash, None).await;
    assert_eq!(balance.expect("balance").totals.debit, 0);
    // The account update cost one; the failed batch's two came back.
    assert_eq!(w.credits(), credits - 1);
}

#[tokio::test]
async fn a_batch_writes_every_transaction_with_its_status() {
    let w = World::new().await;
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let batch = inputs(vec![
        transfer(&cash, &sales, "1.00", true),
        transfer(&cash, &sales, "2.00", false),
    ]);
    let job = w.queue(&w.live, Write::CreateTransactionBatch(batch)).await;
    let outcome = w.ledger.run_now(&job.id).await.expect("runs");
    let Some(RunOutcome::Completed(result)) = outcome else {
        panic!("the batch should complete, got {outcome:?}");
    };
    assert_eq!(result["count"], 2);
    let second = result["transactions"][1]["id"].as_str().expect("id");
    let txn = w
        .ledger
        .get_transaction(&w.live, second)
        .await
        .expect("read");
    assert_eq!(txn.status, TransactionStatus::Pending);
    let balance = w.ledger.account_balance(&w.live, &cash, None).await;
    assert_eq!(balance.expect("balance").totals.debit, 10_000);
}
