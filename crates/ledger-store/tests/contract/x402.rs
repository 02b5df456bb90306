//! x402 authorizations: an authorization pays one purchase, across every organization;
//! the purchase is stored completed and its pool credited in the same transaction, and
//! two racing records of one authorization credit once.

use ledger_domain::credits::{CreditPurchase, PurchaseStatus};
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::{Store, X402Authorization};

use crate::{Org, T0, event, sign_up};

fn purchase(org: &Org) -> CreditPurchase {
    CreditPurchase {
        id: new_id(IdKind::CreditPurchase),
        organization_id: org.org.id.clone(),
        livemode: true,
        pool_id: org.org.id.clone(),
        package_id: "credits_1000".into(),
        credits: 1000,
        price_cents: 1000,
        currency: "usd".into(),
        provider: "x402".into(),
        provider_session_id: Some("0xabc".into()),
        checkout_url: "http://localhost/organizations/x/credits/x402".into(),
        status: PurchaseStatus::Pending,
        success_url: None,
        cancel_url: None,
        api_key_id: org.live_key.id.clone(),
        expires_at: T0,
        created_at: T0,
        completed_at: None,
    }
}

fn authorization(org: &Org, purchase: &CreditPurchase, nonce: &str) -> X402Authorization {
    X402Authorization {
        network: "eip155:84532".into(),
        asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e".into(),
        payer: "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23".into(),
        nonce: nonce.into(),
        organization_id: org.org.id.clone(),
        livemode: true,
        purchase_id: purchase.id.clone(),
        transaction: "0xabc".into(),
        amount: "10000000".into(),
        created_at: T0,
    }
}

async fn record<S: Store>(db: &S, org: &Org, nonce: &str) -> bool {
    let p = purchase(org);
    let tenant = org.tenant(true);
    let events = vec![
        event(&tenant, "credit_purchase.created", "credit_purchase", &p.id),
        event(
            &tenant,
            "credit_purchase.completed",
            "credit_purchase",
            &p.id,
        ),
    ];
    let auth = authorization(org, &p, nonce);
    db.record_x402_purchase(p, auth, events)
        .await
        .expect("recorded or refused")
}

async fn balance<S: Store>(db: &S, org: &Org) -> i64 {
    db.credit_pool(&org.org.id)
        .await
        .expect("pool")
        .expect("a root is a pool")
        .credits_remaining
}

contract!(an_authorization_pays_once, multi_thread);
async fn an_authorization_pays_once<S: Store>(db: &S, backend: &str) {
    let org = sign_up(db, "X402 Store").await;
    let other = sign_up(db, "X402 Other").await;
    let nonce = format!("0x{}", "01".repeat(32));
    let asset = "0x036cbd53842c5426634e7929541ec2318f3dcf7e";
    let payer = "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23";
    assert!(
        !db.x402_authorization_used("eip155:84532", asset, payer, &nonce)
            .await
            .expect("read")
    );
    assert!(record(db, &org, &nonce).await, "{backend}: first record");
    assert!(
        db.x402_authorization_used("eip155:84532", asset, payer, &nonce)
            .await
            .expect("read")
    );
    assert_eq!(balance(db, &org).await, 1500, "{backend}");
    assert_eq!(db.credit_ledger_sum(&org.org.id).await.expect("sum"), 1500);
    // Again, here or in another organization: nothing written.
    assert!(!record(db, &org, &nonce).await, "{backend}: replay");
    assert!(
        !record(db, &other, &nonce).await,
        "{backend}: replay elsewhere"
    );
    assert_eq!(balance(db, &org).await, 1500, "{backend}");
    assert_eq!(balance(db, &other).await, 500, "{backend}");
    let listed = db
        .list_purchases(&org.tenant(true), crate::page(10, 0))
        .await
        .expect("purchases");
    assert_eq!(listed.items.len(), 1, "{backend}");
    assert_eq!(listed.items[0].status, PurchaseStatus::Completed);
    assert_eq!(listed.items[0].completed_at, Some(T0));

    // Racing records of one new authorization: one credits.
    let nonce = format!("0x{}", "02".repeat(32));
    let results = futures::future::join_all((0..4).map(|_| record(db, &org, &nonce))).await;
    assert_eq!(
        results.iter().filter(|r| **r).count(),
        1,
        "{backend}: {results:?}"
    );
    assert_eq!(balance(db, &org).await, 2500, "{backend}");
    assert_eq!(db.credit_ledger_sum(&org.org.id).await.expect("sum"), 2500);
}
