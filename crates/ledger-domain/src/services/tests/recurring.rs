//! Recurring schedules on the memory store: the scheduler writes each occurrence once
//! (two schedulers racing, and a crash between the write and its run record followed by
//! the purge of old idempotency keys), records refused occurrences as failed runs and
//! moves on.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use time::macros::{date, datetime};

use super::{World, config};
use crate::memory::runtime::TestRuntime;
use crate::ports::PageRequest;
use crate::recurring::RunStatus;
use crate::services::recurring::occurrence_key;
use crate::services::{
    Channel, Ledger, LedgerConfig, Outcome, RecurringScheduleInput, Submission, Write,
};

const PAGE: PageRequest = PageRequest {
    limit: 100,
    offset: 0,
};

fn inline() -> LedgerConfig {
    LedgerConfig {
        run_inline: true,
        ..config(500)
    }
}

fn schedule(template: Value, frequency: &str, start: &str) -> Write {
    Write::CreateRecurringSchedule(RecurringScheduleInput {
        recurable_type: Some("transaction".into()),
        template: Some(template),
        frequency: Some(frequency.into()),
        start_date: Some(start.into()),
        ..RecurringScheduleInput::default()
    })
}

fn id_of(submitted: crate::services::Submitted) -> String {
    match submitted.outcome {
        Outcome::Done(view) => view["id"].as_str().expect("id").to_owned(),
        Outcome::Queued(job) => panic!("schedules are synchronous, got job {}", job.id),
    }
}

async fn fee_template(w: &World) -> Value {
    let cash = w.account(&w.test, "1000").await;
    let expense = w.account(&w.test, "5000").await;
    json!({
        "description": "Fee",
        "auto_post": true,
        "entries": [
            {"account_id": expense, "entry_type": "debit", "amount": "5.00"},
            {"account_id": cash, "entry_type": "credit", "amount": 5},
        ],
    })
}

async fn fees(w: &World) -> usize {
    let page = w
        .ledger
        .list_transactions(&w.test, None, None, None, PAGE)
        .await
        .expect("transactions");
    page.items.iter().filter(|t| t.description == "Fee").count()
}

#[tokio::test]
async fn two_schedulers_racing_write_each_occurrence_once() {
    let w = World::with(inline()).await;
    let template = fee_template(&w).await;
    let id = id_of(
        w.submit(&w.test, schedule(template, "daily", "2026-01-15"))
            .await
            .expect("schedule"),
    );
    // A second service over the same store: another replica.
    let other = Ledger::new(
        w.store().clone(),
        Arc::new(w.clock.clone()),
        Arc::new(TestRuntime),
        inline(),
    );
    w.clock.set(datetime!(2026-01-20 06:00 UTC));
    let (a, b) = tokio::join!(w.ledger.run_due_recurring(), other.run_due_recurring());
    assert_eq!(a.expect("one") + b.expect("other"), 6);
    assert_eq!(fees(&w).await, 6);
    let runs = w
        .ledger
        .list_recurring_runs(&w.test, &id, PAGE)
        .await
        .expect("runs");
    assert_eq!(runs.total_count, 6);
    assert!(runs.items.iter().all(|r| r.status == RunStatus::Succeeded));
    let after = w
        .ledger
        .get_recurring_schedule(&w.test, &id)
        .await
        .expect("schedule");
    assert_eq!(after.next_run_date, Some(date!(2026 - 01 - 21)));
    assert_eq!(after.occurrences, 6);
}

#[tokio::test]
async fn an_occurrence_written_before_a_crash_is_not_written_again_after_the_purge() {
    let w = World::with(inline()).await;
    let template = fee_template(&w).await;
    let id = id_of(
        w.submit(&w.test, schedule(template.clone(), "monthly", "2026-01-15"))
            .await
            .expect("schedule"),
    );
    // The scheduler wrote the occurrence's document, then the process died before it
    // recorded the run.
    let mut input = crate::services::NewTransactionInput {
        description: "Fee".into(),
        date: Some(datetime!(2026-01-15 00:00 UTC)),
        currency: None,
        reference: None,
        entries: Vec::new(),
        metadata: None,
        auto_post: true,
        contact_id: None,
        category_id: None,
    };
    for e in template["entries"].as_array().expect("entries") {
        input.entries.push(super::entry(
            e["account_id"].as_str().expect("account"),
            e["entry_type"].as_str().expect("side"),
            "5.00",
        ));
    }
    let written = w
        .ledger
        .submit(
            &w.test,
            Write::CreateTransaction(input),
            Submission {
                idempotency: Some(occurrence_key(&id, date!(2026 - 01 - 15), "")),
                channel: Channel::Rest,
                wait: Duration::from_secs(5),
            },
        )
        .await
        .expect("written");
    assert!(matches!(written.outcome, Outcome::Queued(_)));
    assert_eq!(fees(&w).await, 1);
    // Down for three days: the purge runs first and removes ordinary keys past 24 hours.
    w.clock.set(datetime!(2026-01-18 06:00 UTC));
    w.ledger.purge_expired().await.expect("purge");
    assert_eq!(w.ledger.run_due_recurring().await.expect("pass"), 1);
    assert_eq!(fees(&w).await, 1, "the occurrence is not written twice");
    let runs = w
        .ledger
        .list_recurring_runs(&w.test, &id, PAGE)
        .await
        .expect("runs");
    assert_eq!(runs.items[0].status, RunStatus::Succeeded);
    assert!(runs.items[0].document_id.is_some());
}

#[tokio::test]
async fn a_refused_occurrence_is_a_failed_run_and_the_schedule_moves_on() {
    let w = World::with(inline()).await;
    let mut template = fee_template(&w).await;
    let id = id_of(
        w.submit(&w.test, schedule(template.clone(), "weekly", "2026-01-15"))
            .await
            .expect("schedule"),
    );
    // The template stops passing: an account it names is gone from the tenant.
    template["entries"][0]["account_id"] = json!("act_01JZZZZZZZZZZZZZZZZZZZZZZZ");
    let stored = w
        .ledger
        .get_recurring_schedule(&w.test, &id)
        .await
        .expect("schedule");
    let mut broken = stored.clone();
    broken.template = template;
    let event = w
        .ledger
        .event(&w.test, "test", "recurring_schedule", &id, None, None);
    crate::ports::RecurringSchedules::update_recurring_schedule(
        w.store(),
        broken,
        crate::ports::Audit::of(event),
    )
    .await
    .expect("stored");
    w.clock.set(datetime!(2026-01-22 06:00 UTC));
    assert_eq!(w.ledger.run_due_recurring().await.expect("pass"), 2);
    let runs = w
        .ledger
        .list_recurring_runs(&w.test, &id, PAGE)
        .await
        .expect("runs");
    assert_eq!(runs.total_count, 2);
    assert!(runs.items.iter().all(|r| r.status == RunStatus::Failed));
    assert!(runs.items.iter().all(|r| r.error.is_some()));
    let after = w
        .ledger
        .get_recurring_schedule(&w.test, &id)
        .await
        .expect("schedule");
    assert_eq!(after.next_run_date, Some(date!(2026 - 01 - 29)));
    assert_eq!(fees(&w).await, 0);
}

#[tokio::test]
async fn templates_are_validated_when_the_schedule_is_written() {
    let w = World::with(inline()).await;
    let mut template = fee_template(&w).await;
    template["entries"][0]["amount"] = json!("6.00");
    let refused = w
        .submit(&w.test, schedule(template, "monthly", "2026-01-15"))
        .await
        .expect_err("unbalanced");
    assert_eq!(refused.code(), crate::ErrorCode::UnbalancedTransaction);
    let refused = w
        .submit(
            &w.test,
            schedule(
                json!({"description": "x", "entries": [], "colour": 1}),
                "monthly",
                "2026-01-15",
            ),
        )
        .await
        .expect_err("unknown");
    assert_eq!(refused.code(), crate::ErrorCode::UnknownField);
    assert_eq!(
        refused.details().expect("details")["field"],
        "template.colour"
    );
}
