//! Credit pools: the sign-up grant, charges and refunds as ledger rows summing to the
//! balance, the monthly reset exactly once per period (purchased credits kept), and a
//! purchase credited once however often it is completed.

use ledger_domain::credits::{CreditPool, CreditPurchase, LedgerEntry, LedgerKind, PurchaseStatus};
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::{PageRequest, Store};

use crate::absent;
use crate::{Org, T0, charge, event, sign_up};

const PAGE: PageRequest = crate::page(100, 0);

/// The rows of `kind` on the first page of the org's credit ledger.
async fn ledger_rows<S: Store>(db: &S, org: &Org, kind: LedgerKind) -> Vec<LedgerEntry> {
    let rows = db.credit_ledger(&org.org.id, PAGE).await.expect("ledger");
    rows.items.into_iter().filter(|r| r.kind == kind).collect()
}

/// The organization's credit pool (a root organization is a pool).
async fn pool_of<S: Store>(db: &S, org: &Org) -> CreditPool {
    db.credit_pool(&org.org.id)
        .await
        .expect("pool")
        .expect("a root is a pool")
}

/// Stores the pending `purchase` of `org` with its `credit_purchase.created` event.
async fn insert<S: Store>(db: &S, org: &Org, purchase: &CreditPurchase) {
    let tenant = org.tenant(purchase.livemode);
    let created = event(
        &tenant,
        "credit_purchase.created",
        "credit_purchase",
        &purchase.id,
    );
    db.insert_purchase(purchase.clone(), created)
        .await
        .expect("insert");
}

/// Completes the `purchase` of `org` (with the provider's `session` id, when there is
/// one): the stored purchase and whether this call is the one that completed it.
async fn complete<S: Store>(
    db: &S,
    org: &Org,
    purchase: &CreditPurchase,
    session: Option<String>,
) -> (CreditPurchase, bool) {
    let tenant = org.tenant(purchase.livemode);
    let completed = event(
        &tenant,
        "credit_purchase.completed",
        "credit_purchase",
        &purchase.id,
    );
    db.complete_purchase(&org.org.id, &purchase.id, session, T0, completed)
        .await
        .expect("complete")
}

async fn assert_ledger_sums<S: Store>(db: &S, org: &Org, backend: &str) -> i64 {
    let pool = pool_of(db, org).await;
    let sum = db.credit_ledger_sum(&org.org.id).await.expect("sum");
    assert_eq!(
        sum, pool.credits_remaining,
        "{backend}: ledger sum = balance"
    );
    pool.credits_remaining
}

fn purchase(org: &Org, livemode: bool, credits: i64) -> CreditPurchase {
    CreditPurchase {
        id: new_id(IdKind::CreditPurchase),
        organization_id: org.org.id.clone(),
        livemode,
        pool_id: org.org.id.clone(),
        package_id: format!("credits_{credits}"),
        credits,
        price_cents: credits,
        currency: "usd".into(),
        provider: "dev".into(),
        provider_session_id: None,
        checkout_url: "http://localhost/checkout".into(),
        status: PurchaseStatus::Pending,
        success_url: None,
        cancel_url: None,
        api_key_id: org.live_key.id.clone(),
        expires_at: T0 + time::Duration::hours(1),
        created_at: T0,
        completed_at: None,
    }
}

contract!(grants_charges_and_resets_keep_the_ledger_summing);
async fn grants_charges_and_resets_keep_the_ledger_summing<S: Store>(db: &S, backend: &str) {
    let org = sign_up(db, "Credit Pool").await;
    let pool = pool_of(db, &org).await;
    assert_eq!(pool.period, "2026-01", "{backend}");
    assert_eq!(pool.purchased_remaining, 0);
    let rows = db.credit_ledger(&org.org.id, PAGE).await.expect("ledger");
    assert_eq!(rows.items.len(), 1, "{backend}");
    assert_eq!(rows.items[0].kind, LedgerKind::Grant);
    assert_eq!(rows.items[0].credits, 500);

    // Charges (one live, one test) and a paid read.
    db.spend_credits(charge(&org, true, 7), &new_id(IdKind::Request), T0)
        .await
        .expect("live charge");
    db.spend_credits(charge(&org, false, 3), &new_id(IdKind::Request), T0)
        .await
        .expect("test charge");
    assert_eq!(assert_ledger_sums(db, &org, backend).await, 493);

    // A purchase, completed twice: credited once.
    let bought = purchase(&org, true, 1000);
    insert(db, &org, &bought).await;
    for (n, expect_new) in [(0, true), (1, false)] {
        let (done, new) = complete(db, &org, &bought, Some(format!("session_{n}"))).await;
        assert_eq!(new, expect_new, "{backend}: completion {n}");
        assert_eq!(done.status, PurchaseStatus::Completed);
        assert_eq!(done.provider_session_id.as_deref(), Some("session_0"));
    }
    assert_eq!(assert_ledger_sums(db, &org, backend).await, 1493);
    let pool = pool_of(db, &org).await;
    assert_eq!(pool.purchased_remaining, 1000, "{backend}");
    // A test-mode purchase completes without touching the live pool.
    let test_purchase = purchase(&org, false, 5000);
    insert(db, &org, &test_purchase).await;
    let (_, new) = complete(db, &org, &test_purchase, None).await;
    assert!(new);
    assert_eq!(assert_ledger_sums(db, &org, backend).await, 1493);
    // Tenancy: the live tenant does not see the test purchase.
    let tenant = org.tenant(true);
    absent(db.get_purchase(&tenant, &test_purchase.id).await, backend);
    assert_eq!(
        db.list_purchases(&tenant, PAGE)
            .await
            .expect("list")
            .total_count,
        1
    );

    // The reset: due next month, once, purchased credits kept, the free part at 500.
    assert_eq!(
        db.pools_due("2026-01", 10).await.expect("due"),
        Vec::<String>::new()
    );
    assert!(
        db.pools_due("2026-02", 10)
            .await
            .expect("due")
            .contains(&org.org.id)
    );
    let change = db
        .reset_pool(&org.org.id, "2026-02", 500, T0)
        .await
        .expect("reset");
    assert_eq!(change, Some(1500 - 1493), "{backend}");
    assert_eq!(
        db.reset_pool(&org.org.id, "2026-02", 500, T0)
            .await
            .expect("again"),
        None,
        "{backend}: one reset per month"
    );
    assert_eq!(
        db.reset_pool(&org.org.id, "2026-01", 500, T0)
            .await
            .expect("earlier"),
        None,
        "{backend}: never back"
    );
    assert_eq!(assert_ledger_sums(db, &org, backend).await, 1500);
    let pool = pool_of(db, &org).await;
    assert_eq!(
        (
            pool.period.as_str(),
            pool.purchased_remaining,
            pool.credits_total
        ),
        ("2026-02", 1000, 1500)
    );
    // Spend into the purchased part, then reset again: only what is left of it survives.
    db.spend_credits(charge(&org, true, 700), &new_id(IdKind::Request), T0)
        .await
        .expect("spend");
    db.reset_pool(&org.org.id, "2026-03", 500, T0)
        .await
        .expect("reset")
        .expect("due");
    let pool = pool_of(db, &org).await;
    assert_eq!(
        (pool.credits_remaining, pool.purchased_remaining),
        (1300, 800),
        "{backend}"
    );
    assert_eq!(assert_ledger_sums(db, &org, backend).await, 1300);
    let resets = ledger_rows(db, &org, LedgerKind::Reset).await;
    assert_eq!(resets.len(), 2, "{backend}");
}

contract!(concurrent_resets_reset_once, multi_thread);
async fn concurrent_resets_reset_once<S: Store>(db: &S, backend: &str) {
    let org = sign_up(db, "Credit Race").await;
    let resets = (0..6).map(|_| db.reset_pool(&org.org.id, "2026-02", 500, T0));
    let ids: Vec<String> = (0..6).map(|_| new_id(IdKind::Request)).collect();
    let charges = ids
        .iter()
        .map(|id| db.spend_credits(charge(&org, true, 1), id, T0));
    let (resets, charges) = futures::join!(
        futures::future::join_all(resets),
        futures::future::join_all(charges)
    );
    let done = resets
        .into_iter()
        .map(|r| r.expect("reset"))
        .filter(Option::is_some)
        .count();
    assert_eq!(done, 1, "{backend}: one reset");
    for c in charges {
        c.expect("charge");
    }
    // The charges before the reset lapsed with the old allowance (the reset's change
    // says how many: it moved 500 less those back to 500); the others draw on the new one.
    let reset = ledger_rows(db, &org, LedgerKind::Reset).await;
    assert_eq!(reset.len(), 1, "{backend}: one reset row");
    let before = reset[0].credits;
    assert!((0..=6).contains(&before), "{backend}: {reset:?}");
    assert_eq!(
        assert_ledger_sums(db, &org, backend).await,
        500 - (6 - before),
        "{backend}"
    );
}
