//! The journal through jobs: insert, replace, post, reverse, delete; totals and history.

use ledger_domain::accounts::Totals;
use ledger_domain::ports::{Audit, Effect, PageRequest, Store, Tenant};
use ledger_domain::transactions::{Transaction, TransactionStatus};
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;

use crate::absent;
use crate::sign_up_with_accounts;
use crate::{Org, deletion, enqueue_and_claim, job, post_command, sign_up};

/// Writes `txn` through a claimed job and `InsertTransaction`.
pub async fn insert<S: Store>(db: &S, org: &Org, txn: Transaction) {
    let cmd = post_command(&txn.id);
    let held = enqueue_and_claim(db, job(org, txn.livemode, cmd, 0)).await;
    db.apply_job(
        &held,
        Effect::InsertTransaction(txn),
        vec![],
        json!({}),
        crate::T0,
    )
    .await
    .expect("insert transaction");
}

/// Applies `effect` through a fresh claimed job.
async fn apply<S: Store>(db: &S, org: &Org, livemode: bool, effect: Effect) -> Result<(), String> {
    let held = enqueue_and_claim(db, job(org, livemode, post_command("txn"), 0)).await;
    db.apply_job(&held, effect, vec![], json!({}), crate::T0)
        .await
        .map_err(|e| e.code().as_str().to_owned())
}

fn day(d: u8) -> OffsetDateTime {
    datetime!(2026-03-01 12:00 UTC).replace_day(d).expect("day")
}

fn debit(units: i64) -> Totals {
    Totals {
        debit: units,
        credit: 0,
    }
}

async fn cash_totals<S: Store>(
    db: &S,
    tenant: &Tenant,
    cash: &str,
    from: Option<u8>,
    until: Option<u8>,
) -> Totals {
    let rows = db
        .account_totals(tenant, Some(cash), from.map(day), until.map(day))
        .await
        .expect("totals");
    assert!(rows.len() <= 1);
    rows.into_iter().next().map(|(_, t)| t).unwrap_or_default()
}

contract!(posting_reversing_and_replacing_keep_balances_exact);
async fn posting_reversing_and_replacing_keep_balances_exact<S: Store>(db: &S, backend: &str) {
    let (a, live, [cash, sales]) = sign_up_with_accounts(db, "A", true, ["1000", "4000"]).await;
    let mk =
        |d: u8, status, amount| crate::transaction(&live, day(d), status, &cash, &sales, amount);

    let first = mk(1, TransactionStatus::Posted, 100);
    insert(db, &a, first.clone()).await;
    insert(db, &a, mk(2, TransactionStatus::Posted, 200)).await;
    insert(db, &a, mk(3, TransactionStatus::Posted, 300)).await;
    let pending = mk(2, TransactionStatus::Pending, 999);
    insert(db, &a, pending.clone()).await;

    let stored = db
        .get_transaction(&live, &first.id)
        .await
        .expect("get")
        .expect("found");
    assert_eq!(stored, first, "{backend}");

    assert_eq!(cash_totals(db, &live, &cash, None, None).await, debit(600));
    assert_eq!(
        cash_totals(db, &live, &cash, Some(2), None).await,
        debit(500)
    );
    assert_eq!(
        cash_totals(db, &live, &cash, None, Some(3)).await,
        debit(300)
    );
    let all = db
        .account_totals(&live, None, None, None)
        .await
        .expect("totals");
    assert_eq!(all.len(), 2);
    let sales_totals = all.iter().find(|(id, _)| *id == sales).map(|(_, t)| *t);
    assert_eq!(
        sales_totals,
        Some(Totals {
            debit: 0,
            credit: 600
        })
    );

    // Posting counts the pending entries; posting twice is refused and rolls back.
    let posted_at = day(4);
    let post = || Effect::PostTransaction {
        transaction_id: pending.id.clone(),
        posted_at,
    };
    apply(db, &a, true, post()).await.expect("post");
    assert_eq!(cash_totals(db, &live, &cash, None, None).await, debit(1599));
    assert_eq!(
        apply(db, &a, true, post()).await,
        Err("transaction_not_pending".into())
    );
    let now_posted = db
        .get_transaction(&live, &pending.id)
        .await
        .expect("get")
        .expect("found");
    assert_eq!(now_posted.status, TransactionStatus::Posted);
    assert_eq!(now_posted.posted_at, Some(posted_at));

    // Reversal: the original stays counted beside its posted mirror.
    let mut mirror =
        crate::transaction(&live, day(5), TransactionStatus::Posted, &sales, &cash, 100);
    mirror.reversal_of = Some(first.id.clone());
    let reverse = || Effect::ReverseTransaction {
        transaction_id: first.id.clone(),
        reason: "typo".into(),
        mirror: mirror.clone(),
    };
    apply(db, &a, true, reverse()).await.expect("reverse");
    assert_eq!(
        cash_totals(db, &live, &cash, None, None).await,
        Totals {
            debit: 1599,
            credit: 100
        }
    );
    let original = db
        .get_transaction(&live, &first.id)
        .await
        .expect("get")
        .expect("found");
    assert_eq!(original.status, TransactionStatus::Reversed);
    assert_eq!(original.reversed_by.as_deref(), Some(mirror.id.as_str()));
    assert_eq!(original.reversal_reason.as_deref(), Some("typo"));
    assert_eq!(
        apply(db, &a, true, reverse()).await,
        Err("transaction_not_posted".into())
    );

    // Replacing works on pending transactions only, and moves the entries' date.
    let draft = mk(6, TransactionStatus::Pending, 7);
    insert(db, &a, draft.clone()).await;
    let mut replaced =
        crate::transaction(&live, day(7), TransactionStatus::Pending, &cash, &sales, 50);
    replaced.id = draft.id.clone();
    replaced.description = "corrected".into();
    apply(db, &a, true, Effect::ReplaceTransaction(replaced.clone()))
        .await
        .expect("replace");
    let got = db
        .get_transaction(&live, &draft.id)
        .await
        .expect("get")
        .expect("found");
    assert_eq!(got.amount, 50);
    assert_eq!(got.description, "corrected");
    assert_eq!(got.entries, replaced.entries);
    let post_draft = Effect::PostTransaction {
        transaction_id: draft.id.clone(),
        posted_at: day(8),
    };
    apply(db, &a, true, post_draft)
        .await
        .expect("post replaced");
    assert_eq!(
        cash_totals(db, &live, &cash, Some(7), Some(8)).await,
        debit(50)
    );
    let mut late = replaced.clone();
    late.description = "too late".into();
    assert_eq!(
        apply(db, &a, true, Effect::ReplaceTransaction(late)).await,
        Err("transaction_not_pending".into())
    );
}

contract!(history_pages_carry_the_totals_before_them);
async fn history_pages_carry_the_totals_before_them<S: Store>(db: &S, backend: &str) {
    let (a, live, [cash, sales]) = sign_up_with_accounts(db, "A", true, ["1000", "4000"]).await;
    for (d, amount) in [(1, 100), (2, 200), (3, 300), (4, 400)] {
        insert(
            db,
            &a,
            crate::transaction(
                &live,
                day(d),
                TransactionStatus::Posted,
                &cash,
                &sales,
                amount,
            ),
        )
        .await;
    }
    insert(
        db,
        &a,
        crate::transaction(&live, day(2), TransactionStatus::Pending, &cash, &sales, 5),
    )
    .await;
    let page = |limit, offset| PageRequest { limit, offset };

    let h = db
        .account_history(&live, &cash, None, None, page(2, 1))
        .await
        .expect("history");
    assert_eq!(h.total_count, 4, "{backend}");
    let amounts: Vec<i64> = h.rows.iter().map(|r| r.debit).collect();
    assert_eq!(amounts, [200, 300]);
    assert_eq!(h.before, debit(100));
    assert_eq!(h.rows[0].date, day(2));
    assert_eq!(h.rows[0].description, "sale of 200");

    let h = db
        .account_history(&live, &cash, Some(day(2)), Some(day(4)), page(1, 1))
        .await
        .expect("h");
    assert_eq!(h.total_count, 2);
    assert_eq!(h.rows.iter().map(|r| r.debit).collect::<Vec<_>>(), [300]);
    assert_eq!(h.before, debit(300));

    let h = db
        .account_history(&live, &cash, None, Some(day(4)), page(10, 10))
        .await
        .expect("h");
    assert!(h.rows.is_empty());
    assert_eq!(h.before, debit(600));

    let h = db
        .account_history(&live, &sales, None, None, page(100, 0))
        .await
        .expect("h");
    assert_eq!(
        h.rows.iter().map(|r| r.credit).collect::<Vec<_>>(),
        [100, 200, 300, 400]
    );
    assert_eq!(h.before, Totals::default());
}

contract!(lists_are_newest_first_and_deleted_transactions_are_hidden);
async fn lists_are_newest_first_and_deleted_transactions_are_hidden<S: Store>(
    db: &S,
    backend: &str,
) {
    let (a, test, [cash, sales]) = sign_up_with_accounts(db, "A", false, ["1000", "4000"]).await;
    let mut ids = Vec::new();
    for d in 1..=5u8 {
        let status = if d % 2 == 0 {
            TransactionStatus::Pending
        } else {
            TransactionStatus::Posted
        };
        let txn = crate::transaction(&test, day(d), status, &cash, &sales, i64::from(d));
        ids.push(txn.id.clone());
        insert(db, &a, txn).await;
    }
    let page = crate::page(2, 1);
    let listed = db
        .list_transactions(&test, None, None, None, page)
        .await
        .expect("list");
    assert_eq!(listed.total_count, 5, "{backend}");
    let got: Vec<_> = listed.items.iter().map(|x| x.id.clone()).collect();
    assert_eq!(got, [ids[3].clone(), ids[2].clone()]);
    assert!(listed.items.iter().all(|x| x.entries.len() == 2));
    let all = crate::page(100, 0);
    let pending = db
        .list_transactions(
            &test,
            Some(TransactionStatus::Pending),
            Some(day(1)),
            Some(day(4)),
            all,
        )
        .await
        .expect("list");
    assert_eq!(pending.total_count, 1);
    assert_eq!(pending.items[0].id, ids[1]);

    let delete = |id: &str| Effect::DeleteTransaction {
        transaction_id: id.to_owned(),
        deletion: deletion(&test, "transaction", id),
    };
    apply(db, &a, false, delete(&ids[1]))
        .await
        .expect("delete pending");
    absent(db.get_transaction(&test, &ids[1]).await, backend);
    let listed = db
        .list_transactions(&test, None, None, None, all)
        .await
        .expect("list");
    assert_eq!(listed.total_count, 4);
    assert_eq!(
        apply(db, &a, false, delete(&ids[0])).await,
        Err("transaction_not_pending".into())
    );
    assert_eq!(
        apply(db, &a, false, delete(&ids[1])).await,
        Err("transaction_not_pending".into())
    );
    assert!(
        db.get_transaction(&test, &ids[0])
            .await
            .expect("get")
            .is_some()
    );
}

contract!(entries_need_live_active_accounts_at_apply_time);
async fn entries_need_live_active_accounts_at_apply_time<S: Store>(db: &S, backend: &str) {
    use ledger_domain::accounts::AccountStatus;
    let (a, live, [cash, sales]) = sign_up_with_accounts(db, "Locks", true, ["1000", "4000"]).await;
    // A fresh account, deleted before a job that posts to it is applied.
    let spare = crate::account(
        &a.org.id,
        true,
        "1999",
        ledger_domain::accounts::AccountType::Asset,
    );
    let spare_id = spare.id.clone();
    let ev = crate::event(&live, "account.created", "account", &spare_id);
    db.insert_account(spare, Audit::of(ev))
        .await
        .expect("spare");
    let del = deletion(&live, "account", &spare_id);
    apply(
        db,
        &a,
        true,
        Effect::DeleteAccount {
            account_id: spare_id.clone(),
            deletion: del,
        },
    )
    .await
    .expect("delete the unused account");
    let late = crate::transaction(
        &live,
        day(4),
        TransactionStatus::Posted,
        &spare_id,
        &sales,
        50,
    );
    assert_eq!(
        apply(db, &a, true, Effect::InsertTransaction(late)).await,
        Err("resource_in_use".to_owned()),
        "{backend}"
    );
    // An account suspended after validation refuses the posting.
    let mut acct = db
        .get_account(&live, &sales)
        .await
        .expect("read")
        .expect("sales");
    acct.status = AccountStatus::Suspended;
    let ev = crate::event(&live, "account.updated", "account", &sales);
    db.update_account(acct.clone(), Audit::of(ev))
        .await
        .expect("suspend");
    let txn = crate::transaction(&live, day(5), TransactionStatus::Posted, &cash, &sales, 70);
    assert_eq!(
        apply(db, &a, true, Effect::InsertTransaction(txn)).await,
        Err("account_inactive".to_owned())
    );
    let pending = crate::transaction(&live, day(5), TransactionStatus::Pending, &cash, &sales, 70);
    // Reactivate to create a pending transaction, suspend again, then posting fails.
    acct.status = AccountStatus::Active;
    db.update_account(
        acct.clone(),
        Audit::of(crate::event(&live, "account.updated", "account", &sales)),
    )
    .await
    .expect("activate");
    insert(db, &a, pending.clone()).await;
    acct.status = AccountStatus::Suspended;
    db.update_account(
        acct.clone(),
        Audit::of(crate::event(&live, "account.updated", "account", &sales)),
    )
    .await
    .expect("suspend");
    let post = Effect::PostTransaction {
        transaction_id: pending.id.clone(),
        posted_at: crate::T0,
    };
    assert_eq!(
        apply(db, &a, true, post).await,
        Err("account_inactive".to_owned())
    );
    // Nothing of the refused effects reached the balances.
    assert_eq!(
        cash_totals(db, &live, &cash, None, None).await,
        Totals::default()
    );
}

contract!(daily_totals_are_per_account_and_day_of_counted_entries);
async fn daily_totals_are_per_account_and_day_of_counted_entries<S: Store>(db: &S, backend: &str) {
    let (a, live, [cash, sales]) = sign_up_with_accounts(db, "A", true, ["1000", "4000"]).await;
    let mk =
        |d: u8, status, amount| crate::transaction(&live, day(d), status, &cash, &sales, amount);
    insert(db, &a, mk(1, TransactionStatus::Posted, 100)).await;
    insert(db, &a, mk(1, TransactionStatus::Posted, 20)).await;
    insert(db, &a, mk(3, TransactionStatus::Posted, 300)).await;
    insert(db, &a, mk(2, TransactionStatus::Pending, 999)).await;
    let on = |d: u8| day(d).date();
    let rows = db
        .daily_totals(&live, std::slice::from_ref(&sales), None, None)
        .await
        .expect("daily");
    let credit = |units| Totals {
        debit: 0,
        credit: units,
    };
    assert_eq!(
        rows,
        vec![
            (sales.clone(), on(1), credit(120)),
            (sales.clone(), on(3), credit(300)),
        ],
        "{backend}: pending entries count on no day"
    );
    let rows = db
        .daily_totals(
            &live,
            &[cash.clone(), sales.clone()],
            Some(on(2)),
            Some(on(4)),
        )
        .await
        .expect("window");
    // By account id (ids made in one millisecond sort in no fixed order), then day.
    let mut expected = vec![
        (cash.clone(), on(3), debit(300)),
        (sales.clone(), on(3), credit(300)),
    ];
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        rows, expected,
        "{backend}: [from, until) by day, by account then day"
    );
    // Another mode and another organization see nothing of it.
    let b = sign_up(db, "B").await;
    for tenant in [a.tenant(false), b.tenant(true)] {
        let rows = db
            .daily_totals(&tenant, std::slice::from_ref(&cash), None, None)
            .await
            .expect("isolated");
        assert!(rows.is_empty(), "{backend}");
    }
    assert!(
        db.daily_totals(&live, &[], None, None)
            .await
            .expect("none")
            .is_empty()
    );
}
