//! Credits on the memory store: the monthly reset from the clock, purchases through the
//! development provider (live credits once, test mode never), refused inputs, and the
//! ledger summing to the balance throughout.

use crate::credits::PurchaseStatus;
use crate::ports::{Credits, DevPayments, NoPayments, PageRequest};

use super::World;
use crate::services::PurchaseInput;

const PAGE: PageRequest = PageRequest {
    limit: 100,
    offset: 0,
};

async fn dev_world() -> World {
    let mut world = World::new().await;
    let dev = DevPayments {
        base_url: "http://ledger.test".into(),
    };
    world.ledger = world
        .ledger
        .clone()
        .with_payments(std::sync::Arc::new(dev.clone()), dev);
    world
}

async fn sums(world: &World) -> i64 {
    let pool = &world.live.organization.id;
    let sum = world.store().credit_ledger_sum(pool).await.expect("sum");
    assert_eq!(sum, world.credits(), "the ledger sums to the balance");
    sum
}

fn buy(credits: i64) -> PurchaseInput {
    PurchaseInput {
        credit_amount: Some(credits),
        ..PurchaseInput::default()
    }
}

#[tokio::test]
async fn purchases_credit_once_and_survive_the_reset() {
    let world = dev_world().await;
    assert_eq!(sums(&world).await, 500);
    let purchase = world
        .ledger
        .purchase_credits(&world.live, buy(5000))
        .await
        .expect("purchase");
    assert_eq!(purchase.price_cents, 4500);
    assert_eq!(
        purchase.checkout_url,
        format!(
            "http://ledger.test/checkout/dev/{}/{}",
            world.live.organization.id, purchase.id
        )
    );
    for _ in 0..3 {
        let done = world
            .ledger
            .complete_dev_checkout(&world.live.organization.id, &purchase.id)
            .await
            .expect("paid");
        assert_eq!(done.status, PurchaseStatus::Completed);
    }
    assert_eq!(sums(&world).await, 5500);

    // Nothing due this month; next month the allowance restarts and the purchase stays.
    assert_eq!(
        world.ledger.reset_monthly_credits().await.expect("sweep"),
        0
    );
    world.clock.advance(time::Duration::days(20));
    assert_eq!(
        world.ledger.reset_monthly_credits().await.expect("sweep"),
        1
    );
    assert_eq!(
        world.ledger.reset_monthly_credits().await.expect("sweep"),
        0
    );
    let balance = world
        .ledger
        .credit_balance(&world.live)
        .await
        .expect("balance");
    assert_eq!(balance.pool.period, "2026-02");
    assert_eq!(balance.pool.purchased_remaining, 5000);
    assert_eq!(sums(&world).await, 5500);
    let rows = world
        .ledger
        .credit_ledger(&world.live, PAGE)
        .await
        .expect("ledger");
    let kinds: Vec<&str> = rows.items.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(kinds, vec!["reset", "purchase", "grant"]);
}

#[tokio::test]
async fn test_mode_purchases_never_fill_the_live_pool() {
    let world = dev_world().await;
    let purchase = world
        .ledger
        .purchase_credits(&world.test, buy(1000))
        .await
        .expect("purchase");
    assert!(!purchase.livemode);
    world
        .ledger
        .complete_dev_checkout(&world.test.organization.id, &purchase.id)
        .await
        .expect("paid");
    assert_eq!(sums(&world).await, 500);
}

#[tokio::test]
async fn refusals() {
    let world = dev_world().await;
    for (input, field) in [
        (buy(3), "credit_amount"),
        (PurchaseInput::default(), "credit_amount"),
        (
            PurchaseInput {
                package_id: Some("credits_9".into()),
                ..PurchaseInput::default()
            },
            "package_id",
        ),
        (
            PurchaseInput {
                success_url: Some("ftp://x".into()),
                ..buy(1000)
            },
            "success_url",
        ),
    ] {
        let err = world
            .ledger
            .purchase_credits(&world.live, input)
            .await
            .expect_err("refused");
        assert!(
            err.to_string().starts_with(field) || err.to_string().contains(field),
            "{err}"
        );
    }
    // An expired checkout cannot be paid.
    let purchase = world
        .ledger
        .purchase_credits(&world.live, buy(1000))
        .await
        .expect("purchase");
    world.clock.advance(time::Duration::hours(2));
    let err = world
        .ledger
        .complete_dev_checkout(&world.live.organization.id, &purchase.id)
        .await
        .expect_err("expired");
    assert_eq!(err.code().as_str(), "invalid_state_transition");
    // Without a provider, live purchases are unavailable; test mode still works.
    let mut world = World::new().await;
    world.ledger = world.ledger.clone().with_payments(
        std::sync::Arc::new(NoPayments),
        DevPayments {
            base_url: "http://ledger.test".into(),
        },
    );
    let err = world
        .ledger
        .purchase_credits(&world.live, buy(1000))
        .await
        .expect_err("no provider");
    assert_eq!(err.code().as_str(), "service_unavailable");
    assert!(
        world
            .ledger
            .purchase_credits(&world.test, buy(1000))
            .await
            .is_ok()
    );
    // A notification without a provider is refused.
    assert!(world.ledger.confirm_payment(None, b"{}").await.is_err());
}
