//! Reports' charts kept in memory (`Db`'s chart cache): a kept chart serves only while
//! the database's count of the tenant's chart changes is the count it was read at, so
//! a change made through another handle on the same database (another server, a worker
//! process) shows at once. Database stores only: the memory store keeps nothing.

use ledger_domain::accounts::AccountType;
use ledger_domain::ports::{Accounts, Audit, Tenant};
use ledger_store::Db;

use crate::harness::Probe;
use crate::{account, event, sign_up};

#[tokio::test]
async fn sqlite() {
    let t = ledger_store::testing::TestDb::sqlite().await;
    let other = Db::connect(&t.url, 2).await.expect("second handle");
    a_kept_chart_serves_only_until_the_chart_changes(&t.db, &other, t.backend()).await;
    t.cleanup().await;
}

#[tokio::test]
async fn postgres() {
    let Some(t) = ledger_store::testing::TestDb::postgres().await else {
        eprintln!(
            "{} unset: PostgreSQL skipped",
            ledger_store::testing::PG_URL_VAR
        );
        return;
    };
    let other = Db::connect(&t.url, 2).await.expect("second handle");
    a_kept_chart_serves_only_until_the_chart_changes(&t.db, &other, t.backend()).await;
    drop(other);
    t.cleanup().await;
}

/// The chart as `chart_with_totals` reads it, and the statements that took.
async fn chart(db: &Db, tenant: &Tenant) -> (Vec<(String, String, String)>, u64) {
    let before = Probe::queries_executed(db).expect("a database store");
    let lines = db
        .chart_with_totals(tenant, None, None)
        .await
        .expect("chart");
    let spent = Probe::queries_executed(db).expect("a database store") - before;
    let lines = lines
        .into_iter()
        .map(|l| (l.account.id, l.account.code, l.account.name))
        .collect();
    (lines, spent)
}

/// The chart as the account list shows it (not deleted, by code).
async fn listed(db: &Db, tenant: &Tenant) -> Vec<(String, String, String)> {
    db.list_accounts(tenant, &Default::default(), None)
        .await
        .expect("accounts")
        .items
        .into_iter()
        .map(|a| (a.id, a.code, a.name))
        .collect()
}

async fn a_kept_chart_serves_only_until_the_chart_changes(db: &Db, other: &Db, backend: &str) {
    let a = sign_up(db, "A").await;
    let live = a.tenant(true);
    // First read: the count, the chart, the totals; then the chart comes from memory.
    let (first, spent) = chart(db, &live).await;
    assert_eq!(spent, 3, "{backend}");
    assert_eq!(first, listed(db, &live).await, "{backend}");
    let (again, spent) = chart(db, &live).await;
    assert_eq!(spent, 2, "{backend}: the chart is not read again");
    assert_eq!(again, first, "{backend}");

    // An account added through the other handle shows on this one at once.
    let added = account(&a.org.id, true, "1500", AccountType::Asset);
    other
        .insert_account(
            added.clone(),
            Audit::of(event(&live, "account.created", "account", &added.id)),
        )
        .await
        .expect("insert");
    let (after_insert, spent) = chart(db, &live).await;
    assert_eq!(spent, 3, "{backend}: read again");
    assert_eq!(after_insert, listed(db, &live).await, "{backend}");
    assert!(after_insert.iter().any(|(id, _, _)| *id == added.id));

    // Renamed there: the new name here.
    let mut renamed = added.clone();
    renamed.name = "Petty cash".to_owned();
    other
        .update_account(
            renamed.clone(),
            Audit::of(event(&live, "account.updated", "account", &added.id)),
        )
        .await
        .expect("rename");
    let (after_rename, _) = chart(db, &live).await;
    assert_eq!(after_rename, listed(db, &live).await, "{backend}");
    assert!(
        after_rename
            .iter()
            .any(|(id, _, name)| *id == added.id && name == "Petty cash"),
        "{backend}"
    );

    // A change a report does not show (the description, the metadata) keeps the chart.
    let mut described = renamed.clone();
    described.description = Some("the drawer".to_owned());
    described.metadata = serde_json::json!({ "drawer": 2 });
    other
        .update_account(
            described,
            Audit::of(event(&live, "account.updated", "account", &added.id)),
        )
        .await
        .expect("describe");
    let (kept, spent) = chart(db, &live).await;
    assert_eq!(spent, 2, "{backend}: still the kept chart");
    assert_eq!(kept, after_rename, "{backend}");

    // Another organization's changes, and the other mode's chart, are their own.
    let b = sign_up(other, "B").await;
    let theirs = account(&b.org.id, true, "1500", AccountType::Asset);
    other
        .insert_account(
            theirs.clone(),
            Audit::of(event(
                &b.tenant(true),
                "account.created",
                "account",
                &theirs.id,
            )),
        )
        .await
        .expect("insert B");
    let (still, spent) = chart(db, &live).await;
    assert_eq!(spent, 2, "{backend}: B's account leaves A's chart kept");
    assert_eq!(still, after_rename, "{backend}");
    let test_mode = a.tenant(false);
    let (test_chart, _) = chart(db, &test_mode).await;
    assert_eq!(test_chart, listed(db, &test_mode).await, "{backend}");
    assert!(test_chart.iter().all(|(id, _, _)| *id != added.id));
    let (b_chart, _) = chart(db, &b.tenant(true)).await;
    assert!(b_chart.iter().any(|(id, _, _)| *id == theirs.id));
    assert!(b_chart.iter().all(|(id, _, _)| *id != added.id));
}
