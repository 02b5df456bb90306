//! Exchange rates: writes with events and credits, one live rate per pair and date,
//! tenant-scoped reads, filters and order, the "latest on or before" lookup, soft
//! deletes and idempotent replays.

use ledger_domain::StoreError;
use ledger_domain::exchange::ExchangeRate;
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::Taken;
use ledger_domain::ports::{Audit, ExchangeRateFilter, Store, Tenant};
use time::Date;
use time::macros::date;

use crate::PAGE;
use crate::credits_left;
use crate::lifecycle;
use crate::sign_up_each;
use crate::{T0, event, sign_up};

fn rate(tenant: &Tenant, from: &str, to: &str, value: &str, day: Date) -> ExchangeRate {
    ExchangeRate {
        id: new_id(IdKind::ExchangeRate),
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        from_currency: from.to_owned(),
        to_currency: to.to_owned(),
        rate: value.to_owned(),
        effective_date: day,
        created_at: T0,
        updated_at: T0,
    }
}

contract!(rates_are_written_read_listed_and_deleted_per_tenant);
async fn rates_are_written_read_listed_and_deleted_per_tenant<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Fx A", "Fx B"]).await;
    let live = a.tenant(true);
    let jan = rate(&live, "EUR", "USD", "1.0825", date!(2026 - 01 - 01));
    lifecycle::insert_charged(db, backend, &a, &jan).await;
    let feb = rate(&live, "EUR", "USD", "1.09", date!(2026 - 02 - 01));
    let yen = rate(&live, "USD", "JPY", "151.235", date!(2026 - 01 - 15));
    let test_mode = rate(&a.tenant(false), "EUR", "USD", "2", date!(2026 - 01 - 01));
    for r in [&feb, &yen, &test_mode] {
        lifecycle::insert(db, r).await;
    }

    lifecycle::read_only_by_its_tenant(db, backend, (&a, &b), &jan).await;
    assert_eq!(credits_left(db, &a.org.id).await, 499, "{backend}");

    // Newest effective date first, then by id; filters by currency; pages.
    let all = db
        .list_exchange_rates(&live, &ExchangeRateFilter::default(), PAGE)
        .await
        .expect("list");
    let ids: Vec<&str> = all.items.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, [&feb.id, &yen.id, &jan.id], "{backend}");
    assert_eq!(all.total_count, 3);
    let euros = ExchangeRateFilter {
        from_currency: Some("EUR".into()),
        ..ExchangeRateFilter::default()
    };
    let page = db
        .list_exchange_rates(&live, &euros, crate::page(1, 1))
        .await
        .expect("list");
    assert_eq!((page.items.len(), page.total_count), (1, 2));
    assert_eq!(page.items[0].id, jan.id);
    let to_yen = ExchangeRateFilter {
        to_currency: Some("JPY".into()),
        ..ExchangeRateFilter::default()
    };
    assert_eq!(
        db.list_exchange_rates(&live, &to_yen, PAGE)
            .await
            .expect("list")
            .items,
        std::slice::from_ref(&yen)
    );
    assert_eq!(
        db.list_exchange_rates(&b.tenant(true), &ExchangeRateFilter::default(), PAGE)
            .await
            .expect("list")
            .total_count,
        0
    );

    // Update saves rate and date; another tenant's copy is not found.
    let mut changed = jan.clone();
    changed.rate = "1.07".into();
    changed.effective_date = date!(2025 - 12 - 31);
    changed.updated_at = T0 + time::Duration::minutes(1);
    lifecycle::update_only_by_its_tenant(db, backend, (&a, &b), &changed).await;

    // Delete: hidden, audited, charged; twice or by another tenant is not found.
    lifecycle::delete_once_only_by_its_tenant(db, backend, (&a, &b), &changed).await;
    assert_eq!(
        lifecycle::event_kinds(db, &live, "exchange_rate", &jan.id).await,
        [
            "exchange_rate.created",
            "exchange_rate.updated",
            "exchange_rate.deleted"
        ]
    );
    assert_eq!(credits_left(db, &a.org.id).await, 498, "{backend}");
}

contract!(one_live_rate_per_pair_and_date);
async fn one_live_rate_per_pair_and_date<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Fx Dup", "Fx Dup B"]).await;
    let live = a.tenant(true);
    let first = rate(&live, "EUR", "USD", "1.1", date!(2026 - 01 - 01));
    lifecycle::insert(db, &first).await;
    let twin = rate(&live, "EUR", "USD", "1.2", date!(2026 - 01 - 01));
    let err = lifecycle::insert_paid(db, &a, &twin, 1)
        .await
        .expect_err("duplicate");
    assert!(
        matches!(&err, StoreError::Taken(Taken::ExchangeRate { .. })),
        "{backend}: {err:?}"
    );
    assert_eq!(err.code(), "duplicate_value");
    assert_eq!(
        credits_left(db, &a.org.id).await,
        500,
        "{backend}: a refusal costs nothing"
    );
    assert!(
        db.list_events(&live, "exchange_rate", &twin.id)
            .await
            .expect("events")
            .is_empty()
    );
    // Another date, the reversed pair, the other mode and another organization are free.
    for free in [
        rate(&live, "EUR", "USD", "1.2", date!(2026 - 01 - 02)),
        rate(&live, "USD", "EUR", "0.9", date!(2026 - 01 - 01)),
        rate(&a.tenant(false), "EUR", "USD", "1.2", date!(2026 - 01 - 01)),
        rate(&b.tenant(true), "EUR", "USD", "1.2", date!(2026 - 01 - 01)),
    ] {
        lifecycle::insert(db, &free).await;
    }
    // An update onto a taken date is a duplicate too; the row keeps its date.
    let mut moved = first.clone();
    moved.effective_date = date!(2026 - 01 - 02);
    let err = db
        .update_exchange_rate(
            moved,
            Audit::of(event(
                &live,
                "exchange_rate.updated",
                "exchange_rate",
                &first.id,
            )),
        )
        .await
        .expect_err("duplicate");
    assert_eq!(err.code(), "duplicate_value", "{backend}");
    assert_eq!(
        db.get_exchange_rate(&live, &first.id)
            .await
            .expect("get")
            .map(|r| r.effective_date),
        Some(date!(2026 - 01 - 01))
    );
    // A deleted rate frees its date.
    lifecycle::delete(db, &first).await;
    lifecycle::insert(db, &twin).await;
}

contract!(the_latest_rate_on_or_before_a_date);
async fn the_latest_rate_on_or_before_a_date<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Fx Latest", "Fx Latest B"]).await;
    let live = a.tenant(true);
    let jan = rate(&live, "EUR", "USD", "1.05", date!(2026 - 01 - 01));
    let mar = rate(&live, "EUR", "USD", "1.2", date!(2026 - 03 - 01));
    let deleted = rate(&live, "EUR", "USD", "1.1", date!(2026 - 02 - 01));
    for r in [
        &jan,
        &mar,
        &deleted,
        &rate(&live, "USD", "EUR", "0.5", date!(2026 - 02 - 15)),
        &rate(&a.tenant(false), "EUR", "USD", "9", date!(2026 - 02 - 10)),
        &rate(&b.tenant(true), "EUR", "USD", "8", date!(2026 - 02 - 10)),
    ] {
        lifecycle::insert(db, r).await;
    }
    lifecycle::delete(db, &deleted).await;
    let latest = |day| db.latest_exchange_rate(&live, "EUR", "USD", day);
    let id_on = |r: Option<ExchangeRate>| r.map(|r| r.id);
    assert_eq!(
        id_on(latest(date!(2025 - 12 - 31)).await.expect("read")),
        None,
        "{backend}"
    );
    assert_eq!(
        id_on(latest(date!(2026 - 01 - 01)).await.expect("read")),
        Some(jan.id.clone()),
        "{backend}: on the effective date"
    );
    assert_eq!(
        id_on(latest(date!(2026 - 02 - 28)).await.expect("read")),
        Some(jan.id.clone()),
        "{backend}: the deleted February rate, the other mode and organization do not count"
    );
    assert_eq!(
        id_on(latest(date!(2026 - 03 - 01)).await.expect("read")),
        Some(mar.id.clone())
    );
    assert_eq!(
        id_on(latest(date!(2030 - 01 - 01)).await.expect("read")),
        Some(mar.id.clone())
    );
    // The pair is directed: USD to EUR is a pair of its own.
    let back = db
        .latest_exchange_rate(&live, "USD", "EUR", date!(2026 - 03 - 01))
        .await
        .expect("read")
        .expect("a rate");
    assert_eq!(back.rate, "0.5", "{backend}");
    assert!(
        db.latest_exchange_rate(&live, "GBP", "USD", date!(2030 - 01 - 01))
            .await
            .expect("read")
            .is_none()
    );
}

contract!(a_used_key_replays_the_first_rate);
async fn a_used_key_replays_the_first_rate<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Fx Replay").await;
    let live = a.tenant(true);
    let first = rate(&live, "EUR", "USD", "1.1", date!(2026 - 01 - 01));
    let second = rate(&live, "EUR", "USD", "1.2", date!(2026 - 01 - 02));
    lifecycle::a_used_key_replays_the_first(db, backend, (&a, "fx-1"), [first, second]).await;
}
