//! `record_applied`: writes applied at once, committed in groups, each judged on its own.

use ledger_domain::accounts::AccountStatus;
use ledger_domain::jobs::{JobStatus, TransactionDraft};
use ledger_domain::ports::{AppliedWrite, Audit, CreditCharge, IdempotencyRecord, Store, Written};
use ledger_domain::transactions::TransactionStatus;
use serde_json::json;

use crate::credits_left;
use crate::sign_up_with_accounts;
use crate::{Org, T0, job};

pub(crate) fn applied(
    org: &Org,
    livemode: bool,
    debit: &str,
    credit: &str,
    amount: i64,
    key: Option<&str>,
) -> AppliedWrite {
    let tenant = org.tenant(livemode);
    let transaction = crate::transaction(
        &tenant,
        T0,
        TransactionStatus::Posted,
        debit,
        credit,
        amount,
    );
    let draft = TransactionDraft {
        description: transaction.description.clone(),
        date: T0,
        currency: "USD".into(),
        reference: None,
        entries: transaction.entries.iter().map(|e| e.line.clone()).collect(),
        metadata: json!({}),
        contact_id: None,
        category_id: None,
        source: None,
    };
    let command = ledger_domain::jobs::JobCommand::CreateTransaction {
        transaction_id: transaction.id.clone(),
        draft,
        auto_post: true,
    };
    let mut j = job(org, livemode, command, 1);
    j.status = JobStatus::Completed;
    j.attempts = 1;
    j.result = Some(json!({ "id": transaction.id }));
    j.completed_at = Some(T0);
    let idempotency = key.map(|k| IdempotencyRecord {
        organization_id: org.org.id.clone(),
        livemode,
        key: k.to_owned(),
        request_hash: "h".into(),
        job_id: Some(j.id.clone()),
        result: None,
        created_at: T0,
    });
    AppliedWrite {
        charge: Some(CreditCharge {
            pool_id: org.org.id.clone(),
            livemode,
            credits: 1,
        }),
        events: vec![crate::event(
            &tenant,
            "transaction.created",
            "transaction",
            &transaction.id,
        )],
        job: j,
        idempotency,
        transaction,
    }
}

contract!(concurrent_writes_are_judged_one_by_one);
async fn concurrent_writes_are_judged_one_by_one<S: Store>(db: &S, backend: &str) {
    let (a, live, [cash, sales, expenses]) =
        sign_up_with_accounts(db, "Group", true, ["1000", "4000", "5000"]).await;
    let mut suspended = db
        .get_account(&live, &expenses)
        .await
        .expect("read")
        .expect("expenses");
    suspended.status = AccountStatus::Suspended;
    db.update_account(
        suspended,
        Audit::of(crate::event(&live, "account.updated", "account", &expenses)),
    )
    .await
    .expect("suspend");

    // 40 good writes, one to a suspended account, two sharing a key, all at once.
    let mut writes: Vec<AppliedWrite> = (0..40)
        .map(|i| applied(&a, true, &cash, &sales, 100 + i, None))
        .collect();
    writes.push(applied(&a, true, &expenses, &cash, 5, None));
    writes.push(applied(&a, true, &cash, &sales, 7, Some("k1")));
    writes.push(applied(&a, true, &cash, &sales, 7, Some("k1")));
    let answers =
        futures::future::join_all(writes.iter().cloned().map(|w| db.record_applied(w))).await;

    let done = answers
        .iter()
        .filter(|a| matches!(a, Ok(Written::Done(_))))
        .count();
    let replays = answers
        .iter()
        .filter(|a| matches!(a, Ok(Written::Replay(_))))
        .count();
    assert_eq!((done, replays), (41, 1), "{backend}");
    assert_eq!(
        answers[40].as_ref().err().map(|e| e.code().as_str()),
        Some("account_inactive")
    );
    // Exactly the accepted ones are in the books, charged once each.
    let totals = db
        .account_totals(&live, Some(&cash), None, None)
        .await
        .expect("totals");
    let debit: i64 = (0..40).map(|i| 100 + i).sum::<i64>() + 7;
    assert_eq!(totals.first().map(|(_, t)| t.debit), Some(debit));
    assert_eq!(credits_left(db, &a.org.id).await, 500 - 41);
    let page = db
        .list_transactions(&live, None, None, None, crate::page(100, 0))
        .await
        .expect("list");
    assert_eq!(page.total_count, 41);
    // The key is used now: a later write with it replays.
    let again = db
        .record_applied(applied(&a, true, &cash, &sales, 7, Some("k1")))
        .await
        .expect("replay");
    assert!(matches!(again, Written::Replay(_)));
    // A short pool refuses only the writes it cannot pay for.
    let (b, _, [bcash, bsales]) = sign_up_with_accounts(db, "Short", true, ["1000", "4000"]).await;
    let many: Vec<AppliedWrite> = (0..3)
        .map(|i| {
            let mut w = applied(&b, true, &bcash, &bsales, 10 + i, None);
            w.charge = Some(CreditCharge {
                pool_id: b.org.id.clone(),
                livemode: true,
                credits: 200,
            });
            w
        })
        .collect();
    let answers = futures::future::join_all(many.into_iter().map(|w| db.record_applied(w))).await;
    let refused: Vec<&str> = answers
        .iter()
        .filter_map(|a| a.as_ref().err().map(|e| e.code().as_str()))
        .collect();
    assert_eq!(refused, ["insufficient_credits"], "{backend}");
    assert_eq!(credits_left(db, &b.org.id).await, 100);
}

contract!(group_committed_rows_read_back_whole);
/// Every column a group commit writes reads back unchanged (PostgreSQL writes them through
/// one `unnest` statement; a column left out or misplaced there shows here).
async fn group_committed_rows_read_back_whole<S: Store>(db: &S, backend: &str) {
    let (a, test, [cash, sales]) =
        sign_up_with_accounts(db, "Round trip", false, ["1000", "4000"]).await;
    let mut write = applied(&a, false, &cash, &sales, 12_345, None);
    write.transaction.entries[0].line.description = Some("first line".into());
    write.events[0].api_key_id = Some(a.test_key.id.clone());
    write.events[0].before_state = Some(json!({ "before": true }));
    // The first event carries the job's result (its JSON text is shared with the job's
    // row), the second a state of its own.
    write.events[0].after_state = write.job.result.clone();
    let second = {
        let mut e = write.events[0].clone();
        e.id = ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Event);
        e.event_type = "transaction.posted".into();
        e.before_state = None;
        e.after_state = Some(json!({ "after": [1, 2] }));
        e
    };
    write.events.push(second);
    let answer = db.record_applied(write.clone()).await.expect("written");
    assert!(matches!(answer, Written::Done(_)), "{backend}");

    let stored = db
        .get_transaction(&test, &write.transaction.id)
        .await
        .expect("read")
        .expect("transaction");
    assert_eq!(stored, write.transaction, "{backend}");
    let job = db
        .get_job(&test, &write.job.id)
        .await
        .expect("read")
        .expect("job");
    assert_eq!(job, write.job, "{backend}");
    // Same timestamp: listed by id, so compare in id order.
    let mut events = db
        .list_events(&test, "transaction", &write.transaction.id)
        .await
        .expect("events");
    let mut expected = write.events.clone();
    events.sort_by(|a, b| a.id.cmp(&b.id));
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(events, expected, "{backend}");
}

contract!(a_failed_batch_writes_nothing_and_frees_its_connection);
/// A batch whose insert fails (here: a job id used before) leaves nothing of it in the
/// books, and its connection goes back to the pool out of its transaction: every later
/// write works, on each of the pool's connections (PostgreSQL sends a batch's `COMMIT`
/// together with its insert, and rolls back itself when they fail).
async fn a_failed_batch_writes_nothing_and_frees_its_connection<S: Store>(db: &S, backend: &str) {
    let (a, test, [cash, sales]) =
        sign_up_with_accounts(db, "Failed batch", false, ["1000", "4000"]).await;
    let first = applied(&a, false, &cash, &sales, 100, None);
    db.record_applied(first.clone()).await.expect("written");
    let mut clash = applied(&a, false, &cash, &sales, 5, Some("clash"));
    clash.job.id = first.job.id.clone();
    let refused = db.record_applied(clash.clone()).await;
    assert!(refused.is_err(), "{backend}: {refused:?}");
    let stored = db
        .get_transaction(&test, &clash.transaction.id)
        .await
        .expect("read");
    assert_eq!(stored, None, "{backend}");
    // Its idempotency key went with it: the key is free for a write that succeeds.
    let retry = db
        .record_applied(applied(&a, false, &cash, &sales, 5, Some("clash")))
        .await;
    assert!(
        matches!(retry, Ok(Written::Done(_))),
        "{backend}: {retry:?}"
    );
    // More writes than the pool has connections, one after the other.
    for i in 0..12 {
        let answer = db
            .record_applied(applied(&a, false, &cash, &sales, i, None))
            .await;
        assert!(
            matches!(answer, Ok(Written::Done(_))),
            "{backend}: {answer:?}"
        );
    }
    let totals = db
        .account_totals(&test, Some(&cash), None, None)
        .await
        .expect("totals");
    let debit = 100 + 5 + (0..12).sum::<i64>();
    assert_eq!(
        totals.first().map(|(_, t)| t.debit),
        Some(debit),
        "{backend}"
    );
}
