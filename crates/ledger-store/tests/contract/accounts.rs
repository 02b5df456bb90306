//! Accounts: duplicate codes, idempotency replay, updates and soft deletion.

use ledger_domain::StoreError;
use ledger_domain::accounts::{AccountStatus, AccountType};
use ledger_domain::ports::Taken;
use ledger_domain::ports::{Audit, Effect, IdempotencyRecord, Store, Written};
use ledger_domain::transactions::TransactionStatus;
use serde_json::json;

use crate::absent;
use crate::credits_left;
use crate::sign_up_each;
use crate::sign_up_with_accounts;
use crate::{T0, account, account_id, deletion, enqueue_and_claim, event, job, sign_up};

fn record(org_id: &str, livemode: bool, key: &str) -> IdempotencyRecord {
    IdempotencyRecord {
        organization_id: org_id.to_owned(),
        livemode,
        key: key.to_owned(),
        request_hash: "abc123".to_owned(),
        job_id: None,
        result: Some(serde_json::json!({"id": 1})),
        created_at: T0,
    }
}

contract!(duplicate_codes_are_refused_per_tenant);
async fn duplicate_codes_are_refused_per_tenant<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["A", "B"]).await;
    let live = a.tenant(true);
    let dup = account(&a.org.id, true, "1000", AccountType::Asset);
    let err = db
        .insert_account(
            dup.clone(),
            Audit::of(event(&live, "account.created", "account", &dup.id)),
        )
        .await
        .expect_err("duplicate");
    assert_eq!(err.code(), "duplicate_value", "{backend}");
    assert_eq!(
        err,
        StoreError::Taken(Taken::AccountCode {
            code: "1000".into()
        })
    );
    // Nothing of the refused write remains, not even its event.
    assert!(db.get_account(&live, &dup.id).await.expect("get").is_none());
    assert!(
        db.list_events(&live, "account", &dup.id)
            .await
            .map(|e| e.is_empty())
            .unwrap_or(false)
    );
    // The same code is free in another organization and in the other mode.
    for (org, livemode) in [(&b, true), (&a, false)] {
        let other = account(&org.org.id, livemode, "1010", AccountType::Asset);
        let tenant = org.tenant(livemode);
        let e = event(&tenant, "account.created", "account", &other.id);
        assert!(matches!(
            db.insert_account(other, Audit::of(e))
                .await
                .expect("insert"),
            Written::Done(_)
        ));
    }
}

contract!(an_idempotency_key_replays_the_first_record);
async fn an_idempotency_key_replays_the_first_record<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let live = a.tenant(true);
    let first = account(&a.org.id, true, "1200", AccountType::Asset);
    let rec = record(&a.org.id, true, "key-1");
    let e = event(&live, "account.created", "account", &first.id);
    let done = db
        .insert_account(
            first.clone(),
            Audit {
                event: e,
                idempotency: Some(rec.clone()),
                charge: None,
            },
        )
        .await
        .expect("first");
    assert_eq!(done, Written::Done(first.clone()));

    let second = account(&a.org.id, true, "1300", AccountType::Asset);
    let e = event(&live, "account.created", "account", &second.id);
    let mut other = rec.clone();
    other.request_hash = "different".to_owned();
    let replay = db
        .insert_account(
            second.clone(),
            Audit {
                event: e,
                idempotency: Some(other),
                charge: None,
            },
        )
        .await
        .expect("replay");
    assert_eq!(replay, Written::Replay(rec.clone()), "{backend}");
    absent(db.get_account(&live, &second.id).await, backend);

    let found = db
        .find_idempotency(&live, "key-1", T0 - time::Duration::hours(24))
        .await
        .expect("find");
    assert_eq!(found, Some(rec.clone()));
    // Too old, other mode, other key: nothing.
    let later = T0 + time::Duration::seconds(1);
    assert!(
        db.find_idempotency(&live, "key-1", later)
            .await
            .expect("find")
            .is_none()
    );
    let since = T0 - time::Duration::hours(1);
    assert!(
        db.find_idempotency(&a.tenant(false), "key-1", since)
            .await
            .expect("f")
            .is_none()
    );
    assert!(
        db.find_idempotency(&live, "key-2", since)
            .await
            .expect("f")
            .is_none()
    );

    // The same key on a queued write replays too, and writes no job.
    let queued = job(&a, true, crate::post_command("txn_x"), 1);
    let replay = db
        .enqueue(queued.clone(), None, Some(record(&a.org.id, true, "key-1")))
        .await
        .expect("enqueue");
    assert_eq!(replay, Written::Replay(rec));
    assert!(db.get_job(&live, &queued.id).await.expect("get").is_none());
}

contract!(updates_change_the_stored_account);
async fn updates_change_the_stored_account<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let live = a.tenant(true);
    let id = account_id(db, &live, "1100").await;
    let mut acct = db
        .get_account(&live, &id)
        .await
        .expect("get")
        .expect("found");
    acct.name = "Receivables".to_owned();
    acct.description = Some("customers".to_owned());
    acct.status = AccountStatus::Inactive;
    acct.metadata = json!({ "k": [1, 2] });
    acct.updated_at = T0 + time::Duration::minutes(5);
    let e = event(&live, "account.updated", "account", &id);
    let saved = db
        .update_account(acct.clone(), Audit::of(e))
        .await
        .expect("update");
    assert_eq!(saved, Written::Done(acct.clone()));
    let stored = db
        .get_account(&live, &id)
        .await
        .expect("get")
        .expect("found");
    assert_eq!(stored, acct, "{backend}");

    let mut foreign = acct.clone();
    foreign.livemode = false;
    let e = event(&live, "account.updated", "account", &id);
    let err = db
        .update_account(foreign, Audit::of(e))
        .await
        .expect_err("other mode");
    assert_eq!(err.code(), "resource_not_found");

    // An update with a key used before is the first one's replay: nothing changes
    // and nothing is charged again.
    let rec = record(&a.org.id, true, "update-key");
    let mut renamed = acct.clone();
    renamed.name = "Debtors".to_owned();
    let charge = || Some(crate::charge(&a, true, 1));
    let first = db
        .update_account(
            renamed.clone(),
            Audit {
                event: event(&live, "account.updated", "account", &id),
                idempotency: Some(rec.clone()),
                charge: charge(),
            },
        )
        .await
        .expect("keyed update");
    assert_eq!(first, Written::Done(renamed.clone()));
    let mut again = renamed.clone();
    again.name = "Other".to_owned();
    let second = db
        .update_account(
            again,
            Audit {
                event: event(&live, "account.updated", "account", &id),
                idempotency: Some(rec.clone()),
                charge: charge(),
            },
        )
        .await
        .expect("replayed update");
    assert_eq!(second, Written::Replay(rec), "{backend}");
    let stored = db
        .get_account(&live, &id)
        .await
        .expect("get")
        .expect("found");
    assert_eq!(stored.name, "Debtors", "{backend}");
    assert_eq!(credits_left(db, &a.org.id).await, 500 - 1, "{backend}");
}

contract!(deleted_accounts_disappear_and_free_their_code);
async fn deleted_accounts_disappear_and_free_their_code<S: Store>(db: &S, backend: &str) {
    let (a, live, [cash, sales, unused]) =
        sign_up_with_accounts(db, "A", true, ["1000", "4000", "5000"]).await;
    let txn = crate::transaction(&live, T0, TransactionStatus::Pending, &cash, &sales, 5);
    crate::journal::insert(db, &a, txn).await;

    // An account with entries (even of a pending transaction) is in use.
    let cmd = ledger_domain::jobs::JobCommand::DeleteAccount {
        account_id: cash.clone(),
    };
    let held = enqueue_and_claim(db, job(&a, true, cmd, 0)).await;
    let effect = Effect::DeleteAccount {
        account_id: cash.clone(),
        deletion: deletion(&live, "account", &cash),
    };
    let err = db
        .apply_job(&held, effect, vec![], json!({}), T0)
        .await
        .expect_err("in use");
    assert_eq!(err.code(), "resource_in_use", "{backend}");
    assert!(db.get_account(&live, &cash).await.expect("get").is_some());

    let cmd = ledger_domain::jobs::JobCommand::DeleteAccount {
        account_id: unused.clone(),
    };
    let held = enqueue_and_claim(db, job(&a, true, cmd, 0)).await;
    let effect = Effect::DeleteAccount {
        account_id: unused.clone(),
        deletion: deletion(&live, "account", &unused),
    };
    let deleted_event = event(&live, "account.deleted", "account", &unused);
    db.apply_job(
        &held,
        effect,
        vec![deleted_event],
        json!({ "deleted": true }),
        T0,
    )
    .await
    .expect("delete");
    assert!(db.get_account(&live, &unused).await.expect("get").is_none());
    let ids = vec![unused.clone(), cash.clone()];
    let got = db.get_accounts(&live, &ids).await.expect("get");
    assert_eq!(got.len(), 1);
    let listed = db
        .list_accounts(&live, &Default::default(), None)
        .await
        .expect("list");
    assert_eq!(listed.total_count, 6);
    let done = db
        .get_job(&live, &held.id)
        .await
        .expect("job")
        .expect("found");
    assert_eq!(done.result, Some(json!({ "deleted": true })));

    // The code of a deleted account can be used again.
    let again = account(&a.org.id, true, "5000", AccountType::Expense);
    let e = event(&live, "account.created", "account", &again.id);
    db.insert_account(again, Audit::of(e))
        .await
        .expect("code is free again");
}

contract!(concurrent_uses_of_one_key_write_once, multi_thread);
async fn concurrent_uses_of_one_key_write_once<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let live = a.tenant(true);
    let mut tasks = Vec::new();
    for n in 0..6 {
        let db = db.clone();
        let acct = account(&a.org.id, true, &format!("17{n:02}"), AccountType::Asset);
        let e = event(&live, "account.created", "account", &acct.id);
        let rec = record(&a.org.id, true, "same-key");
        tasks.push(tokio::spawn(async move {
            db.insert_account(
                acct,
                Audit {
                    event: e,
                    idempotency: Some(rec),
                    charge: None,
                },
            )
            .await
        }));
    }
    let mut done = 0;
    for task in tasks {
        match task.await.expect("task").expect("write or replay") {
            Written::Done(_) => done += 1,
            Written::Replay(r) => assert_eq!(r.key, "same-key"),
        }
    }
    assert_eq!(done, 1, "{backend}");
}
