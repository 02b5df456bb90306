//! Sign-up, users, keys, events, health and tenant isolation.

use ledger_domain::accounts::AccountType;
use ledger_domain::ports::{AccountFilter, Audit, Store};
use ledger_domain::transactions::TransactionStatus;

use crate::absent;
use crate::hidden_from;
use crate::sign_up_each;
use crate::{T0, account, account_id, event, sign_up};

contract!(sign_up_writes_everything_in_one_go);
async fn sign_up_writes_everything_in_one_go<S: Store>(db: &S, backend: &str) {
    assert!(db.ping().await, "{backend}");
    let a = sign_up(db, "Acme").await;
    let stored = db
        .get_organization(&a.org.id)
        .await
        .expect("get")
        .expect("exists");
    assert_eq!(stored, a.org, "{backend}");
    assert_eq!(stored.credits_remaining, 500);
    assert_eq!(db.test_credits_used(&a.org.id).await.expect("usage"), 0);

    let user = db.find_user(&a.provider_id).await.expect("find user");
    assert_eq!(user.map(|u| u.id), Some(a.org.owner_user_id.clone()));
    assert!(db.find_user("nobody").await.expect("find").is_none());

    let key = db
        .find_key_by_hash(&a.live_key.key_hash)
        .await
        .expect("key")
        .expect("found");
    assert_eq!(key, a.live_key);
    let previous = a.test_key.previous_hash.clone().expect("rotated");
    let by_previous = db.find_key_by_hash(&previous).await.expect("key");
    assert_eq!(by_previous.map(|k| k.id), Some(a.test_key.id.clone()));
    assert!(db.find_key_by_hash("unknown").await.expect("key").is_none());
    // The per-request lookup: the key with its organization, by current or previous hash.
    let (key, org) = db
        .find_principal_by_hash(&a.live_key.key_hash)
        .await
        .expect("principal")
        .expect("found");
    assert_eq!((key, org), (a.live_key.clone(), a.org.clone()));
    let by_previous = db
        .find_principal_by_hash(&previous)
        .await
        .expect("principal");
    assert_eq!(by_previous.map(|(k, _)| k.id), Some(a.test_key.id.clone()));
    assert!(
        db.find_principal_by_hash("unknown")
            .await
            .expect("principal")
            .is_none()
    );

    for livemode in [true, false] {
        let page = db
            .list_accounts(&a.tenant(livemode), &AccountFilter::default(), None)
            .await
            .expect("list");
        assert_eq!(page.total_count, 7);
        let codes: Vec<_> = page.items.iter().map(|x| x.code.as_str()).collect();
        assert_eq!(
            codes,
            ["1000", "1100", "2000", "2100", "3000", "4000", "5000"]
        );
        assert!(
            page.items
                .iter()
                .all(|x| x.livemode == livemode && x.is_system)
        );
    }
    let filtered = db
        .list_accounts(
            &a.tenant(true),
            &AccountFilter {
                account_type: Some(AccountType::Liability),
                status: None,
                code: None,
            },
            Some(crate::page(1, 1)),
        )
        .await
        .expect("list");
    assert_eq!(filtered.total_count, 2);
    assert_eq!(filtered.items.len(), 1);
    assert_eq!(filtered.items[0].code, "2100");

    let events = db
        .list_events(&a.tenant(false), "organization", &a.org.id)
        .await
        .expect("events");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, "organization.created");
    assert_eq!(
        events[0].after_state,
        Some(serde_json::json!({ "id": a.org.id }))
    );
}

contract!(a_returning_user_owns_the_new_organization);
async fn a_returning_user_owns_the_new_organization<S: Store>(db: &S, backend: &str) {
    let first = sign_up(db, "First").await;
    let second = crate::sign_up_as(db, "Second", &first.provider_id).await;
    assert_eq!(
        second.org.owner_user_id, first.org.owner_user_id,
        "{backend}"
    );
    let stored = db
        .get_organization(&second.org.id)
        .await
        .expect("get")
        .expect("org");
    assert_eq!(stored.owner_user_id, first.org.owner_user_id);
}

contract!(other_organizations_and_the_other_mode_are_invisible);
async fn other_organizations_and_the_other_mode_are_invisible<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["A", "B"]).await;
    let a_live = a.tenant(true);
    let a_test = a.tenant(false);
    let b_live = b.tenant(true);

    let cash_a = account_id(db, &a_live, "1000").await;
    assert!(
        db.get_account(&a_live, &cash_a)
            .await
            .expect("get")
            .is_some()
    );
    assert!(
        db.get_account(&a_test, &cash_a)
            .await
            .expect("get")
            .is_none(),
        "{backend}"
    );
    absent(db.get_account(&b_live, &cash_a).await, backend);
    let both = db
        .get_accounts(&b_live, std::slice::from_ref(&cash_a))
        .await
        .expect("get");
    assert!(both.is_empty());

    let sales_a = account_id(db, &a_live, "4000").await;
    let txn = crate::transaction(
        &a_live,
        T0,
        TransactionStatus::Posted,
        &cash_a,
        &sales_a,
        10,
    );
    crate::journal::insert(db, &a, txn.clone()).await;
    assert!(
        db.get_transaction(&a_live, &txn.id)
            .await
            .expect("get")
            .is_some()
    );
    hidden_from(
        &[a_test.clone(), b_live.clone()],
        async |t| db.get_transaction(t, &txn.id).await,
        backend,
    )
    .await;
    let page = crate::page(10, 0);
    let listed = db
        .list_transactions(&b_live, None, None, None, page)
        .await
        .expect("list");
    assert_eq!(listed.total_count, 0);
    let totals = db
        .account_totals(&a_test, None, None, None)
        .await
        .expect("totals");
    assert!(totals.is_empty());
    let totals = db
        .account_totals(&b_live, None, None, None)
        .await
        .expect("totals");
    assert!(totals.is_empty());

    let own = account(&a.org.id, true, "1500", AccountType::Asset);
    let e = event(&a_live, "account.created", "account", &own.id);
    db.insert_account(own.clone(), Audit::of(e))
        .await
        .expect("insert");
    assert!(
        db.list_events(&b_live, "account", &own.id)
            .await
            .expect("events")
            .is_empty()
    );
    assert!(
        db.list_events(&a_test, "account", &own.id)
            .await
            .expect("events")
            .is_empty()
    );
    assert_eq!(
        db.list_events(&a_live, "account", &own.id)
            .await
            .expect("events")
            .len(),
        1
    );
}

// Db only: it checks the SQL backends configured and reruns their migrations.
#[tokio::test]
async fn every_configured_backend_is_tested_and_migrations_rerun_cleanly() {
    let all = ledger_store::testing::backends().await;
    let names: Vec<_> = all.iter().map(|t| t.backend()).collect();
    let pg = std::env::var(ledger_store::testing::PG_URL_VAR).is_ok_and(|v| !v.trim().is_empty());
    let expected = if pg {
        vec!["sqlite", "postgres"]
    } else {
        vec!["sqlite"]
    };
    assert_eq!(names, expected);
    for t in all {
        t.db.migrate().await.expect("migrating again is a no-op");
        assert!(t.url.starts_with(t.backend()));
        t.cleanup().await;
    }
}

// Db only: two processes starting together on an empty PostgreSQL database (a `serve` and
// a `worker`) both migrate without error: one waits for the other's advisory lock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_migrations_on_postgres_do_not_race() {
    let Some(t) = ledger_store::testing::TestDb::postgres_unmigrated().await else {
        return;
    };
    let mut stores = Vec::new();
    for _ in 0..3 {
        stores.push(ledger_store::Db::connect(&t.url, 4).await.expect("connect"));
    }
    let results = futures::future::join_all(stores.iter().map(|db| db.migrate())).await;
    for result in results {
        result.expect("every concurrent migration succeeds");
    }
    stores[0]
        .migrate()
        .await
        .expect("and a later one finds nothing to do");
    drop(stores);
    t.cleanup().await;
}
