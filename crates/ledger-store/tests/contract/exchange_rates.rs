//! Exchange rates: writes with events and credits, one live rate per pair and date,
//! tenant-scoped reads, filters and order, the "latest on or before" lookup, soft
//! deletes and idempotent replays.

use ledger_domain::StoreError;
use ledger_domain::exchange::ExchangeRate;
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::Taken;
use ledger_domain::ports::{
    Audit, ExchangeRateFilter, IdempotencyRecord, PageRequest, Store, Tenant, Written,
};
use serde_json::json;
use time::Date;
use time::macros::date;

use crate::{T0, at_minute, charge, deletion, event, sign_up};

const PAGE: PageRequest = PageRequest {
    limit: 20,
    offset: 0,
};

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

async fn insert<S: Store>(db: &S, r: &ExchangeRate) {
    let tenant = Tenant {
        organization_id: r.organization_id.clone(),
        livemode: r.livemode,
    };
    db.insert_exchange_rate(
        r.clone(),
        Audit::of(event(
            &tenant,
            "exchange_rate.created",
            "exchange_rate",
            &r.id,
        )),
    )
    .await
    .expect("insert");
}

contract!(rates_are_written_read_listed_and_deleted_per_tenant);
async fn rates_are_written_read_listed_and_deleted_per_tenant<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Fx A").await;
    let b = sign_up(db, "Fx B").await;
    let live = a.tenant(true);
    let jan = rate(&live, "EUR", "USD", "1.0825", date!(2026 - 01 - 01));
    let written = db
        .insert_exchange_rate(
            jan.clone(),
            Audit {
                event: event(&live, "exchange_rate.created", "exchange_rate", &jan.id),
                idempotency: None,
                charge: Some(charge(&a, true, 1)),
            },
        )
        .await
        .expect("insert");
    assert_eq!(written, Written::Done(jan.clone()), "{backend}");
    let feb = rate(&live, "EUR", "USD", "1.09", date!(2026 - 02 - 01));
    let yen = rate(&live, "USD", "JPY", "151.235", date!(2026 - 01 - 15));
    insert(db, &feb).await;
    insert(db, &yen).await;
    insert(
        db,
        &rate(&a.tenant(false), "EUR", "USD", "2", date!(2026 - 01 - 01)),
    )
    .await;

    assert_eq!(
        db.get_exchange_rate(&live, &jan.id).await.expect("get"),
        Some(jan.clone()),
        "{backend}"
    );
    assert!(
        db.get_exchange_rate(&a.tenant(false), &jan.id)
            .await
            .expect("get")
            .is_none()
    );
    assert!(
        db.get_exchange_rate(&b.tenant(true), &jan.id)
            .await
            .expect("get")
            .is_none()
    );
    let org = db
        .get_organization(&a.org.id)
        .await
        .expect("org")
        .expect("exists");
    assert_eq!(org.credits_remaining, 499, "{backend}");

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
        .list_exchange_rates(
            &live,
            &euros,
            PageRequest {
                limit: 1,
                offset: 1,
            },
        )
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
    db.update_exchange_rate(
        changed.clone(),
        Audit::of(at_minute(
            event(&live, "exchange_rate.updated", "exchange_rate", &jan.id),
            1,
        )),
    )
    .await
    .expect("update");
    assert_eq!(
        db.get_exchange_rate(&live, &jan.id).await.expect("get"),
        Some(changed.clone()),
        "{backend}"
    );
    let mut foreign = changed.clone();
    foreign.organization_id = b.org.id.clone();
    let err = db
        .update_exchange_rate(
            foreign,
            Audit::of(event(
                &b.tenant(true),
                "exchange_rate.updated",
                "exchange_rate",
                &jan.id,
            )),
        )
        .await
        .expect_err("other tenant");
    assert_eq!(err.code(), "resource_not_found", "{backend}");

    // Delete: hidden, audited, charged; twice or by another tenant is not found.
    let err = db
        .delete_exchange_rate(
            &jan.id,
            deletion(&b.tenant(true), "exchange_rate", &jan.id),
            Audit::of(event(
                &b.tenant(true),
                "exchange_rate.deleted",
                "exchange_rate",
                &jan.id,
            )),
        )
        .await
        .expect_err("other tenant");
    assert_eq!(err.code(), "resource_not_found");
    db.delete_exchange_rate(
        &jan.id,
        deletion(&live, "exchange_rate", &jan.id),
        Audit {
            event: at_minute(
                event(&live, "exchange_rate.deleted", "exchange_rate", &jan.id),
                2,
            ),
            idempotency: None,
            charge: Some(charge(&a, true, 1)),
        },
    )
    .await
    .expect("delete");
    assert!(
        db.get_exchange_rate(&live, &jan.id)
            .await
            .expect("get")
            .is_none()
    );
    let again = db
        .delete_exchange_rate(
            &jan.id,
            deletion(&live, "exchange_rate", &jan.id),
            Audit::of(event(
                &live,
                "exchange_rate.deleted",
                "exchange_rate",
                &jan.id,
            )),
        )
        .await
        .expect_err("deleted");
    assert_eq!(again.code(), "resource_not_found");
    let trail = db.list_deletions(&live, PAGE).await.expect("trail");
    assert_eq!(trail.items[0].resource_id, jan.id, "{backend}");
    let kinds: Vec<String> = db
        .list_events(&live, "exchange_rate", &jan.id)
        .await
        .expect("events")
        .into_iter()
        .map(|e| e.event_type)
        .collect();
    assert_eq!(
        kinds,
        [
            "exchange_rate.created",
            "exchange_rate.updated",
            "exchange_rate.deleted"
        ]
    );
    let org = db
        .get_organization(&a.org.id)
        .await
        .expect("org")
        .expect("exists");
    assert_eq!(org.credits_remaining, 498, "{backend}");
}

contract!(one_live_rate_per_pair_and_date);
async fn one_live_rate_per_pair_and_date<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Fx Dup").await;
    let b = sign_up(db, "Fx Dup B").await;
    let live = a.tenant(true);
    let first = rate(&live, "EUR", "USD", "1.1", date!(2026 - 01 - 01));
    insert(db, &first).await;
    let twin = rate(&live, "EUR", "USD", "1.2", date!(2026 - 01 - 01));
    let err = db
        .insert_exchange_rate(
            twin.clone(),
            Audit {
                event: event(&live, "exchange_rate.created", "exchange_rate", &twin.id),
                idempotency: None,
                charge: Some(charge(&a, true, 1)),
            },
        )
        .await
        .expect_err("duplicate");
    assert!(
        matches!(&err, StoreError::Taken(Taken::ExchangeRate { .. })),
        "{backend}: {err:?}"
    );
    assert_eq!(err.code(), "duplicate_value");
    let org = db
        .get_organization(&a.org.id)
        .await
        .expect("org")
        .expect("exists");
    assert_eq!(
        org.credits_remaining, 500,
        "{backend}: a refusal costs nothing"
    );
    assert!(
        db.list_events(&live, "exchange_rate", &twin.id)
            .await
            .expect("events")
            .is_empty()
    );
    // Another date, the reversed pair, the other mode and another organization are free.
    insert(db, &rate(&live, "EUR", "USD", "1.2", date!(2026 - 01 - 02))).await;
    insert(db, &rate(&live, "USD", "EUR", "0.9", date!(2026 - 01 - 01))).await;
    insert(
        db,
        &rate(&a.tenant(false), "EUR", "USD", "1.2", date!(2026 - 01 - 01)),
    )
    .await;
    insert(
        db,
        &rate(&b.tenant(true), "EUR", "USD", "1.2", date!(2026 - 01 - 01)),
    )
    .await;
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
    db.delete_exchange_rate(
        &first.id,
        deletion(&live, "exchange_rate", &first.id),
        Audit::of(event(
            &live,
            "exchange_rate.deleted",
            "exchange_rate",
            &first.id,
        )),
    )
    .await
    .expect("delete");
    insert(db, &twin).await;
}

contract!(the_latest_rate_on_or_before_a_date);
async fn the_latest_rate_on_or_before_a_date<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Fx Latest").await;
    let b = sign_up(db, "Fx Latest B").await;
    let live = a.tenant(true);
    let jan = rate(&live, "EUR", "USD", "1.05", date!(2026 - 01 - 01));
    let mar = rate(&live, "EUR", "USD", "1.2", date!(2026 - 03 - 01));
    let deleted = rate(&live, "EUR", "USD", "1.1", date!(2026 - 02 - 01));
    for r in [&jan, &mar, &deleted] {
        insert(db, r).await;
    }
    insert(db, &rate(&live, "USD", "EUR", "0.5", date!(2026 - 02 - 15))).await;
    insert(
        db,
        &rate(&a.tenant(false), "EUR", "USD", "9", date!(2026 - 02 - 10)),
    )
    .await;
    insert(
        db,
        &rate(&b.tenant(true), "EUR", "USD", "8", date!(2026 - 02 - 10)),
    )
    .await;
    db.delete_exchange_rate(
        &deleted.id,
        deletion(&live, "exchange_rate", &deleted.id),
        Audit::of(event(
            &live,
            "exchange_rate.deleted",
            "exchange_rate",
            &deleted.id,
        )),
    )
    .await
    .expect("delete");
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
    let record = |result| IdempotencyRecord {
        organization_id: a.org.id.clone(),
        livemode: true,
        key: "fx-1".into(),
        request_hash: "h".into(),
        job_id: None,
        result: Some(result),
        created_at: T0,
    };
    let first = rate(&live, "EUR", "USD", "1.1", date!(2026 - 01 - 01));
    db.insert_exchange_rate(
        first.clone(),
        Audit {
            event: event(&live, "exchange_rate.created", "exchange_rate", &first.id),
            idempotency: Some(record(json!({"id": first.id}))),
            charge: Some(charge(&a, true, 1)),
        },
    )
    .await
    .expect("insert");
    let second = rate(&live, "EUR", "USD", "1.2", date!(2026 - 01 - 02));
    let replay = db
        .insert_exchange_rate(
            second.clone(),
            Audit {
                event: event(&live, "exchange_rate.created", "exchange_rate", &second.id),
                idempotency: Some(record(json!({"id": second.id}))),
                charge: Some(charge(&a, true, 1)),
            },
        )
        .await
        .expect("replay");
    match replay {
        Written::Replay(stored) => {
            assert_eq!(stored.result, Some(json!({"id": first.id})), "{backend}")
        }
        Written::Done(_) => panic!("{backend}: the key was used"),
    }
    assert!(
        db.get_exchange_rate(&live, &second.id)
            .await
            .expect("get")
            .is_none()
    );
    let org = db
        .get_organization(&a.org.id)
        .await
        .expect("org")
        .expect("exists");
    assert_eq!(org.credits_remaining, 499, "{backend}");
}
