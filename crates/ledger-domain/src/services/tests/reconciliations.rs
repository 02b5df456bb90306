//! Reconciliations on the memory store: the difference rule of completion, the lock of
//! reconciled transactions (also when the reconciliation is completed after a reversal
//! was accepted but before its job ran), and statement import with proposals.

use crate::error::ErrorCode;
use crate::jobs::JobStatus;
use crate::services::{
    NewReconciliationInput, Outcome, ReconciliationChanges, StatementImportInput, Write,
};

use super::{World, transfer};

fn done(outcome: Outcome) -> serde_json::Value {
    match outcome {
        Outcome::Done(view) => view,
        Outcome::Queued(job) => panic!("expected a synchronous write, got job {}", job.id),
    }
}

/// The reconciled books of these tests: a transfer of `amount` posted into cash from
/// sales, and an open January reconciliation of cash closing at `amount`. The ids of the
/// transaction, of its cash entry and of the reconciliation.
struct Reconciled {
    transaction: String,
    entry: String,
    id: String,
}

async fn reconciled(w: &World, amount: &str) -> Reconciled {
    let (cash, sales) = w.cash_and_sales(&w.live).await;
    let job = w
        .queue(&w.live, transfer(&cash, &sales, amount, true))
        .await;
    assert_eq!(w.run_jobs().await, 1);
    let transaction = job.command.resource().1.to_owned();
    let txn = w
        .ledger
        .get_transaction(&w.live, &transaction)
        .await
        .expect("posted");
    let entry = txn
        .entries
        .iter()
        .find(|e| e.line.account_id == cash)
        .expect("a cash entry")
        .id
        .clone();
    let created = w
        .submit(
            &w.live,
            Write::CreateReconciliation(NewReconciliationInput {
                account_id: cash,
                start_date: "2026-01-01".into(),
                end_date: "2026-01-31".into(),
                closing_balance: amount.into(),
            }),
        )
        .await
        .expect("created");
    let id = done(created.outcome)["id"].as_str().expect("id").to_owned();
    Reconciled {
        transaction,
        entry,
        id,
    }
}

#[tokio::test]
async fn completion_needs_a_zero_difference_and_locks_late_reversals() {
    let w = World::new().await;
    let Reconciled {
        transaction: txn,
        entry,
        id,
    } = reconciled(&w, "40.00").await;
    let complete = Write::CompleteReconciliation { id: id.clone() };
    let err = w
        .submit(&w.live, complete.clone())
        .await
        .expect_err("unbalanced");
    assert_eq!(err.code(), ErrorCode::ReconciliationNotBalanced);
    assert_eq!(err.details().expect("details")["difference"], "40.00");

    let matched = w
        .submit(
            &w.live,
            Write::UpdateReconciliation {
                id: id.clone(),
                changes: ReconciliationChanges {
                    match_entry_ids: vec![entry.clone()],
                    ..ReconciliationChanges::default()
                },
            },
        )
        .await
        .expect("matched");
    assert_eq!(done(matched.outcome)["difference"], "0.00");

    // A reversal accepted while the reconciliation is open...
    let reversal = w
        .queue(
            &w.live,
            Write::ReverseTransaction {
                id: txn.clone(),
                reason: Some("mistake".into()),
            },
        )
        .await;
    // ...fails when the reconciliation was completed before its job ran.
    let completed = w.submit(&w.live, complete).await.expect("balanced");
    assert_eq!(done(completed.outcome)["status"], "completed");
    w.run_jobs().await;
    let job = w.ledger.get_job(&w.live, &reversal.id).await.expect("job");
    assert_eq!(job.status, JobStatus::Failed);
    assert_eq!(
        job.error.expect("an error")["code"],
        ErrorCode::TransactionReconciled.as_str()
    );
    let err = w
        .submit(
            &w.live,
            Write::ReverseTransaction {
                id: txn,
                reason: Some("again".into()),
            },
        )
        .await
        .expect_err("locked");
    assert_eq!(err.code(), ErrorCode::TransactionReconciled);
}

#[tokio::test]
async fn imports_propose_and_skip_duplicates() {
    let w = World::new().await;
    let Reconciled { entry, id, .. } = reconciled(&w, "12.34").await;
    let import = Write::ImportStatement {
        id: id.clone(),
        input: StatementImportInput {
            content:
                "date,amount,description\n2026-01-10,12.34,Transfer in\n2026-01-12,-1.00,Fee\n"
                    .into(),
            format: None,
            mapping: None,
        },
    };
    let first = done(
        w.submit(&w.live, import.clone())
            .await
            .expect("imported")
            .outcome,
    );
    assert_eq!(first["imported"], 2);
    assert_eq!(
        first["statement_lines"][0]["proposal"]["entry_id"],
        entry.as_str()
    );
    assert_eq!(
        first["statement_lines"][0]["proposal"]["confidence"],
        "1.00"
    );
    assert_eq!(
        first["statement_lines"][1]["proposal"],
        serde_json::Value::Null
    );
    let again = done(w.submit(&w.live, import).await.expect("imported").outcome);
    assert_eq!(
        (&again["imported"], &again["skipped_duplicates"]),
        (&serde_json::json!(0), &serde_json::json!(2))
    );
    let bad = Write::ImportStatement {
        id,
        input: StatementImportInput {
            content: "OFXHEADER:100\n\n<OFX><STMTTRN><TRNAMT>1</STMTTRN></OFX>".into(),
            format: None,
            mapping: None,
        },
    };
    let err = w.submit(&w.live, bad).await.expect_err("malformed");
    assert_eq!(err.code(), ErrorCode::InconsistentFields);
    assert_eq!(
        err.details(),
        Some(serde_json::json!({ "field": "content" }))
    );
}
