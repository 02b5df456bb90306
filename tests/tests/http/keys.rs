//! API-key management: create, list, get, rotate (with grace), update, delete, and every
//! refusal, under both path prefixes.

use std::time::Duration;

use ledger_tests::{Org, TestApp, both, refused, refused_case, refused_on, strs};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn keys_path(org: &Org) -> String {
    org.path("api-keys")
}

/// Every route of the key API, on the list `path` and the key `item`: each method with
/// its path and body.
fn key_routes(path: &str, item: &str) -> Vec<(Method, String, Option<Value>)> {
    vec![
        (Method::GET, path.to_owned(), None),
        (
            Method::POST,
            path.to_owned(),
            Some(json!({"name": "x", "permissions": ["read"]})),
        ),
        (Method::GET, item.to_owned(), None),
        (
            Method::PUT,
            item.to_owned(),
            Some(json!({"disabled": true})),
        ),
        (Method::POST, format!("{item}/rotate"), None),
        (Method::DELETE, item.to_owned(), None),
    ]
}

/// POSTs to the key list `path` with `key` a new key `name` asking for `permissions`.
async fn create_key(
    app: &TestApp,
    key: &str,
    path: &str,
    name: &str,
    permissions: &[&str],
) -> ledger_tests::Answer {
    app.post(key, path, json!({"name": name, "permissions": permissions}))
        .await
}

async fn create_list_and_get(app: &TestApp) {
    let org = app.signup("Keys Co").await;
    let res = app
        .post(
            &org.test_key,
            &keys_path(&org),
            json!({ "name": "CI reader", "permissions": ["read"], "expires_at": "2999-01-01" }),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let secret = res.body["key"].as_str().expect("secret").to_owned();
    let id = res.id();
    assert!(secret.starts_with("ha_test_"));
    assert!(id.starts_with("key_"));
    assert_eq!(res.body["object"], "api_key");
    assert_eq!(res.body["mode"], "test");
    assert_eq!(res.body["permissions"], json!(["read"]));
    assert_eq!(res.body["last4"], secret[secret.len() - 4..]);
    assert_eq!(res.body["expires_at"], "2999-01-01T00:00:00Z");
    assert!(res.body.get("key_hash").is_none());

    // The new key reads but cannot write.
    let accounts = org.path("accounts");
    assert_eq!(app.get(&secret, &accounts).await.status, StatusCode::OK);
    let res = app
        .post(
            &secret,
            &accounts,
            json!({"code": "6000", "name": "X", "account_type": "expense"}),
        )
        .await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");

    // Lists and gets, with the secret never shown again; both prefixes.
    for prefix in ["", "/api/v1"] {
        let res = app
            .read(&org.test_key, &format!("{prefix}{}", keys_path(&org)))
            .await;
        assert_eq!(res["object"], "list");
        assert_eq!(res["total_count"], 2);
        assert_eq!(res["has_more"], false);
        assert_eq!(res["data"][0]["id"], id.as_str(), "newest first");
        assert!(res["data"][0].get("key").is_none());
        let res = app
            .get(&org.test_key, &format!("{prefix}{}/{id}", keys_path(&org)))
            .await;
        assert_eq!(res.status, StatusCode::OK);
        assert_eq!(res.body["name"], "CI reader");
        assert!(res.body.get("key").is_none());
    }
    let res = app
        .get(
            &org.test_key,
            &format!("{}?limit=1&offset=0", keys_path(&org)),
        )
        .await;
    assert_eq!(res.body["has_more"], true);

    // Live keys see live keys only, and test keys never see them.
    let res = app.get(&org.live_key, &keys_path(&org)).await;
    assert_eq!(res.body["total_count"], 1);
    assert_eq!(res.body["data"][0]["mode"], "live");
    let live_id = res.body["data"][0]["id"].as_str().expect("id").to_owned();
    let res = app
        .get(&org.test_key, &format!("{}/{live_id}", keys_path(&org)))
        .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let res = app
        .get(&org.live_key, &format!("{}/{id}", keys_path(&org)))
        .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");

    // A live admin key may make a test key; a test key never makes a live one.
    let res = app
        .post(
            &org.live_key,
            &format!("/api/v1{}", keys_path(&org)),
            json!({ "name": "from live", "permissions": ["write"], "mode": "test" }),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert!(
        res.body["key"]
            .as_str()
            .expect("secret")
            .starts_with("ha_test_")
    );
    let res = app
        .post(
            &org.test_key,
            &keys_path(&org),
            json!({ "name": "to live", "permissions": ["read"], "mode": "live" }),
        )
        .await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    let res = app
        .post(
            &org.live_key,
            &keys_path(&org),
            json!({ "name": "live reader", "permissions": ["read"] }),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED);
    assert!(
        res.body["key"]
            .as_str()
            .expect("secret")
            .starts_with("ha_live_")
    );
}
both!(create_list_and_get);

async fn creation_refusals(app: &TestApp) {
    let org = app.signup("Refuse Co").await;
    let path = keys_path(&org);
    let cases = [
        (json!({ "permissions": ["read"] }), "missing_field", "name"),
        (json!({ "name": "x" }), "missing_field", "permissions"),
        (
            json!({ "name": "x", "permissions": [] }),
            "invalid_field",
            "permissions",
        ),
        (
            json!({ "name": "x", "permissions": ["read", "owner"] }),
            "invalid_field",
            "permissions",
        ),
        (
            json!({ "name": "x", "permissions": ["read"], "mode": "prod" }),
            "invalid_field",
            "mode",
        ),
        (
            json!({ "name": "x", "permissions": ["read"], "expires_at": "soon" }),
            "invalid_field",
            "expires_at",
        ),
        (
            json!({ "name": "", "permissions": ["read"] }),
            "invalid_field",
            "name",
        ),
        (
            json!({ "name": "x", "permissions": ["read"], "colour": "red" }),
            "unknown_field",
            "colour",
        ),
    ];
    for (body, code, field) in cases {
        let res = app.post(&org.test_key, &path, body.clone()).await;
        refused(&res, StatusCode::BAD_REQUEST, code);
        assert_eq!(res.body["error"]["details"]["field"], field, "{body}");
    }
    // An expiry in the past is a well-formed date the present contradicts: 422.
    let res = app
        .post(
            &org.test_key,
            &path,
            json!({ "name": "x", "permissions": ["read"], "expires_at": "2001-01-01" }),
        )
        .await;
    refused_on(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "inconsistent_fields",
        "expires_at",
    );

    // Without admin, nothing about keys is reachable.
    let (_, reader) = app.make_key(&org, &org.test_key, &["read", "write"]).await;
    let (other_id, _) = app.make_key(&org, &org.test_key, &["read"]).await;
    let item = format!("{path}/{other_id}");
    for (method, p, body) in key_routes(&path, &item) {
        let res = app.call(method.clone(), &p, Some(&reader), body, &[]).await;
        let case = format!("{method} {p}");
        refused_case(
            case,
            &res,
            StatusCode::FORBIDDEN,
            "insufficient_permissions",
        );
    }
    // A key narrowed to api_keys may manage keys but grants nothing wider than it holds.
    let (_, narrow) = app.make_key(&org, &org.test_key, &["api_keys:admin"]).await;
    let res = create_key(app, &narrow, &path, "w", &["write"]).await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    assert_eq!(res.body["error"]["details"]["required"], "write");
    let res = create_key(app, &narrow, &path, "r", &["api_keys:read"]).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let (_, writer) = app
        .make_key(&org, &org.test_key, &["write", "accounts:admin"])
        .await;
    let res = create_key(app, &writer, &path, "a", &["read"]).await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");

    // `system` only from an admin key of a root organization.
    let res = create_key(app, &narrow, &path, "s", &["system"]).await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    let res = create_key(app, &org.test_key, &path, "s", &["system"]).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let (sub_id, sub_key) = app.sub_org(&org.test_key, &org.id, "Branch", "owned").await;
    let sub_path = format!("/organizations/{sub_id}/api-keys");
    let res = create_key(app, &sub_key, &sub_path, "s", &["system"]).await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    // The parent's admin key manages the sub-organization's keys; the sub's key does
    // not reach the parent.
    let res = app.get(&org.test_key, &sub_path).await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(res.body["total_count"], 1);
    let res = app.get(&sub_key, &path).await;
    refused(&res, StatusCode::NOT_FOUND, "organization_not_found");

    // Unknown and malformed key ids.
    for id in ["key_01J00000000000000000000000", "nonsense"] {
        let res = app.get(&org.test_key, &format!("{path}/{id}")).await;
        refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    }
}
both!(creation_refusals);

async fn another_organization_reaches_nothing(app: &TestApp) {
    let a = app.signup("Alpha Keys").await;
    let b = app.signup("Beta Keys").await;
    let (id, _) = app.make_key(&a, &a.test_key, &["read"]).await;
    let path = keys_path(&a);
    let item = format!("{path}/{id}");
    let mut routes = key_routes(&path, &item);
    routes.push((Method::GET, format!("/api/v1{item}"), None));
    for (method, p, body) in routes {
        for key in [&b.test_key, &b.live_key] {
            let res = app
                .call(method.clone(), &p, Some(key), body.clone(), &[])
                .await;
            let case = format!("{method} {p}");
            refused_case(case, &res, StatusCode::NOT_FOUND, "organization_not_found");
        }
    }
    // B's own path does not find A's key either.
    let res = app
        .get(&b.test_key, &format!("{}/{id}", keys_path(&b)))
        .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let res = app.get(&a.test_key, &item).await;
    assert_eq!(res.body["disabled"], false, "untouched");
}
both!(another_organization_reaches_nothing);

async fn rotate(app: &TestApp, org: &Org, id: &str) -> Value {
    let res = app
        .call(
            Method::POST,
            &format!("{}/{id}/rotate", keys_path(org)),
            Some(&org.test_key),
            None,
            &[],
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    res.body
}

async fn rotation_keeps_the_old_secret_for_the_grace_period(app: &TestApp) {
    let org = app.signup("Rotate Co").await;
    let (id, old) = app.make_key(&org, &org.test_key, &["read"]).await;
    let body = rotate(app, &org, &id).await;
    let new = body["key"].as_str().expect("secret").to_owned();
    assert_ne!(new, old);
    assert_eq!(body["id"], id.as_str());
    assert_eq!(body["last4"], new[new.len() - 4..]);
    assert!(body["previous_key_expires_at"].is_string());
    let accounts = org.path("accounts");
    // Default grace is 24 hours: both secrets work.
    assert_eq!(app.get(&old, &accounts).await.status, StatusCode::OK);
    assert_eq!(app.get(&new, &accounts).await.status, StatusCode::OK);
    // A second rotation ends the first secret at once.
    let newest = rotate(app, &org, &id).await["key"]
        .as_str()
        .expect("secret")
        .to_owned();
    refused(
        &app.get(&old, &accounts).await,
        StatusCode::UNAUTHORIZED,
        "invalid_api_key",
    );
    assert_eq!(app.get(&new, &accounts).await.status, StatusCode::OK);
    assert_eq!(app.get(&newest, &accounts).await.status, StatusCode::OK);
    let events = app
        .get(&org.test_key, &format!("/events/api_key/{id}"))
        .await;
    let types = strs(&events.body, "event_type");
    assert_eq!(
        types,
        ["api_key.created", "api_key.rotated", "api_key.rotated"]
    );
    assert!(
        !events.body.to_string().contains(&newest),
        "secrets never reach events"
    );
}
both!(rotation_keeps_the_old_secret_for_the_grace_period);

async fn grace_ends(backend: ledger_tests::Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| c.key_grace_seconds = 1).await else {
        return;
    };
    let org = app.signup("Grace Co").await;
    let (id, old) = app.make_key(&org, &org.test_key, &["read"]).await;
    let new = rotate(&app, &org, &id).await["key"]
        .as_str()
        .expect("secret")
        .to_owned();
    let accounts = org.path("accounts");
    assert_eq!(app.get(&old, &accounts).await.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    refused(
        &app.get(&old, &accounts).await,
        StatusCode::UNAUTHORIZED,
        "expired_api_key",
    );
    assert_eq!(app.get(&new, &accounts).await.status, StatusCode::OK);
    app.finish().await;
}

mod rotation_grace_ends {
    ledger_tests::on_backends!(super::grace_ends);
}

async fn disable_enable_rename_and_delete(app: &TestApp) {
    let org = app.signup("Disable Co").await;
    let (id, secret) = app.make_key(&org, &org.test_key, &["read"]).await;
    let item = format!("{}/{id}", keys_path(&org));
    let accounts = org.path("accounts");
    let put = |body: Value| app.put(&org.test_key, &item, body);

    // Used first, so the server holds a copy of the key (LEDGER_KEY_CACHE_MS): disabling
    // it through the server must still refuse the very next request.
    assert_eq!(app.get(&secret, &accounts).await.status, StatusCode::OK);
    let res = put(json!({"disabled": true})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["disabled"], true);
    refused(
        &app.get(&secret, &accounts).await,
        StatusCode::UNAUTHORIZED,
        "disabled_api_key",
    );
    let res = put(json!({"disabled": false, "name": "Renamed"})).await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(
        (res.body["disabled"].clone(), res.body["name"].clone()),
        (json!(false), json!("Renamed"))
    );
    assert_eq!(app.get(&secret, &accounts).await.status, StatusCode::OK);
    refused(
        &put(json!({"name": ""})).await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    refused(
        &put(json!({"permissions": ["admin"]})).await,
        StatusCode::BAD_REQUEST,
        "unknown_field",
    );
    refused(
        &put(json!({"disabled": "yes"})).await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );

    let res = app.delete(&org.test_key, &item).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        res.body,
        json!({"id": id, "object": "api_key", "deleted": true})
    );
    refused(
        &app.get(&secret, &accounts).await,
        StatusCode::UNAUTHORIZED,
        "invalid_api_key",
    );
    refused(
        &app.get(&org.test_key, &item).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &put(json!({"disabled": true})).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    let again = app.delete(&org.test_key, &item).await;
    refused(&again, StatusCode::NOT_FOUND, "resource_not_found");
    let list = app.get(&org.test_key, &keys_path(&org)).await;
    assert_eq!(list.body["total_count"], 1);

    // The deletion is in the organization's audit trail and in the deleting key's.
    let trail = app.read(&org.test_key, &org.path("recently-deleted")).await;
    assert_eq!(trail["object"], "list");
    assert_eq!(trail["total_count"], 1);
    let row = &trail["data"][0];
    assert_eq!(row["resource_type"], "api_key");
    assert_eq!(row["resource_id"], id.as_str());
    assert_eq!(row["name"], "Renamed");
    assert!(
        row["deleted_by"]
            .as_str()
            .expect("key id")
            .starts_with("key_")
    );
    assert!(row["recoverable_until"].as_str() > row["deleted_at"].as_str());
    let mine = app.read(&org.test_key, "/recently-deleted").await;
    assert_eq!(mine["total_count"], 1);
    assert_eq!(mine["data"][0]["resource_id"], id.as_str());
    // Other keys and the other mode did not delete it.
    let live = app.get(&org.live_key, "/recently-deleted").await;
    assert_eq!(live.body["total_count"], 0);
    let live_trail = app.get(&org.live_key, &org.path("recently-deleted")).await;
    assert_eq!(live_trail.body["total_count"], 0);
    let (_, reader) = app.make_key(&org, &org.test_key, &["read"]).await;
    assert_eq!(
        app.get(&reader, "/recently-deleted").await.body["total_count"],
        0
    );
    refused(
        &app.call(Method::GET, "/recently-deleted", None, None, &[])
            .await,
        StatusCode::UNAUTHORIZED,
        "missing_api_key",
    );
    let other = app.signup("Other Deleter").await;
    refused(
        &app.get(&other.test_key, &org.path("recently-deleted"))
            .await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    assert_eq!(
        app.event_kinds(&org.test_key, "api_key", &id).await,
        [
            "api_key.created",
            "api_key.updated",
            "api_key.updated",
            "api_key.deleted"
        ]
    );
}
both!(disable_enable_rename_and_delete);
