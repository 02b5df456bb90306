//! API-key management and settings.

use ledger_domain::ports::{Setting, Store};

use crate::PAGE;
use crate::absent;
use crate::hidden_from;
use crate::sign_up_each;
use crate::{T0, deletion, event};

contract!(keys_are_managed_per_tenant);
async fn keys_are_managed_per_tenant<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Acme", "Beta"]).await;
    let test = a.tenant(false);

    let mut made = crate::key(&a.org.id, false);
    made.name = "ci".to_owned();
    made.previous_hash = None;
    made.previous_expires_at = None;
    made.created_at = T0 + time::Duration::seconds(1);
    let ev = event(&test, "api_key.created", "api_key", &made.id);
    db.insert_key(made.clone(), ev).await.expect("insert");

    let got = db.get_key(&test, &made.id).await.expect("get");
    assert_eq!(got.as_ref(), Some(&made), "{backend}");
    // Another mode or organization does not see it.
    hidden_from(
        &[a.tenant(true), b.tenant(false)],
        async |t| db.get_key(t, &made.id).await,
        backend,
    )
    .await;

    let page = db.list_keys(&test, PAGE).await.expect("list");
    assert_eq!(page.total_count, 2);
    assert_eq!(page.items[0].id, made.id, "newest first");
    let one = crate::page(1, 1);
    let second = db.list_keys(&test, one).await.expect("list");
    assert_eq!(second.items.len(), 1);
    assert_eq!(second.items[0].id, a.test_key.id);

    // Update: rotation fields, name and disabled are saved; the old hash still finds it.
    let mut changed = made.clone();
    changed.name = "renamed".to_owned();
    changed.disabled = true;
    changed.previous_hash = Some(made.key_hash.clone());
    changed.previous_expires_at = Some(T0 + time::Duration::hours(24));
    changed.key_hash = format!("new-{}", made.key_hash);
    changed.last4 = "wxyz".to_owned();
    let ev = event(&test, "api_key.rotated", "api_key", &made.id);
    db.update_key(changed.clone(), ev).await.expect("update");
    assert_eq!(
        db.get_key(&test, &made.id).await.expect("get"),
        Some(changed.clone())
    );
    let by_old = db.find_key_by_hash(&made.key_hash).await.expect("find");
    assert_eq!(by_old.map(|k| k.id), Some(made.id.clone()));

    // Updates outside the tenant refuse.
    let mut foreign = changed.clone();
    foreign.organization_id = b.org.id.clone();
    let ev = event(&b.tenant(false), "api_key.updated", "api_key", &made.id);
    let refused = db.update_key(foreign, ev).await.expect_err("foreign");
    assert_eq!(refused.code(), "resource_not_found");

    // Delete: gone from every read, recorded in the audit trail, twice is not found.
    let gone = deletion(&test, "api_key", &made.id);
    let ev = event(&test, "api_key.deleted", "api_key", &made.id);
    db.delete_key(&made.id, gone.clone(), ev.clone())
        .await
        .expect("delete");
    assert!(db.get_key(&test, &made.id).await.expect("get").is_none());
    assert!(
        db.find_key_by_hash(&changed.key_hash)
            .await
            .expect("find")
            .is_none()
    );
    assert_eq!(
        db.list_keys(&test, PAGE).await.expect("list").total_count,
        1
    );
    let again = db
        .delete_key(&made.id, deletion(&test, "api_key", &made.id), ev)
        .await
        .expect_err("twice");
    assert_eq!(again.code(), "resource_not_found");
    let trail = db.list_deletions(&test, PAGE).await.expect("trail");
    assert_eq!(trail.items, vec![gone]);
    let ev = event(&test, "api_key.updated", "api_key", &made.id);
    let refused = db.update_key(changed, ev).await.expect_err("deleted");
    assert_eq!(refused.code(), "resource_not_found");
}

contract!(settings_are_per_tenant_and_upserted);
async fn settings_are_per_tenant_and_upserted<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Acme", "Beta"]).await;
    let live = a.tenant(true);
    let setting = |value: &str, minutes: i64| Setting {
        organization_id: a.org.id.clone(),
        livemode: true,
        key: "default_currency".to_owned(),
        value: value.to_owned(),
        updated_at: T0 + time::Duration::minutes(minutes),
    };
    absent(db.get_setting(&live, "default_currency").await, backend);
    let ev = event(&live, "setting.updated", "setting", "default_currency");
    db.put_setting(setting("EUR", 0), ev.clone())
        .await
        .expect("put");
    let mut ev2 = ev.clone();
    ev2.id = format!("{}2", ev.id);
    db.put_setting(setting("GBP", 5), ev2).await.expect("put");
    let got = db
        .get_setting(&live, "default_currency")
        .await
        .expect("get");
    assert_eq!(got, Some(setting("GBP", 5)), "{backend}");
    for other in [a.tenant(false), b.tenant(true)] {
        absent(db.get_setting(&other, "default_currency").await, backend);
    }
}
