//! `GET /system`: who may call it and what it reports.

use ledger_tests::{TestApp, both, refused};
use reqwest::{Method, StatusCode};
use serde_json::json;

async fn system_needs_the_system_permission(app: &TestApp) {
    let org = app.signup("System Co").await;
    let res = app.call(Method::GET, "/system", None, None, &[]).await;
    refused(&res, StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(res.body["error"]["type"], "authentication_error");
    for bogus in ["ha_test_nope", "sk_live_x"] {
        let res = app.get(bogus, "/system").await;
        refused(&res, StatusCode::UNAUTHORIZED, "unauthorized");
    }
    // A valid key without `system`, even admin, is refused.
    for key in [&org.test_key, &org.live_key] {
        let res = app.get(key, "/system").await;
        refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
        assert_eq!(res.body["error"]["details"]["required"], "system");
    }
    let (system_id, system_key) = app.make_key(&org, &org.test_key, &["system"]).await;
    // `system` covers only /system.
    let res = app.get(&system_key, &org.path("accounts")).await;
    assert_eq!(res.status, StatusCode::FORBIDDEN);
    // A disabled system key keeps its precise code.
    let item = org.path(&format!("api-keys/{system_id}"));
    let res = app
        .put(&org.test_key, &item, json!({"disabled": true}))
        .await;
    assert_eq!(res.status, StatusCode::OK);
    let res = app.get(&system_key, "/system").await;
    refused(&res, StatusCode::UNAUTHORIZED, "disabled_api_key");
}
both!(system_needs_the_system_permission);

async fn system_reports_real_figures(app: &TestApp) {
    let org = app.signup("Figures Co").await;
    let other = app.signup("Elsewhere Co").await;
    // Activity in the caller's tree (a sub-organization included) and elsewhere.
    app.sub_org(&org.test_key, &org.id, "Sub", "owned").await;
    for (who, setting, value) in [
        (&org, "default_currency", "EUR"),
        (&other, "other_only", "x"),
    ] {
        let path = who.path(&format!("settings/{setting}"));
        let res = app
            .put(&who.test_key, &path, json!({ "value": value }))
            .await;
        assert_eq!(res.status, StatusCode::OK, "{setting}");
    }
    let [cash, sales] = app.account_ids(&org, &org.test_key, ["1000", "4000"]).await;
    app.post_transfer(&org, &org.test_key, &cash, &sales, "1.00")
        .await;
    let (_, system_key) = app.make_key(&org, &org.test_key, &["system", "read"]).await;

    let res = app.read(&system_key, "/system").await;
    let body = &res;
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["status"], "healthy");
    assert!(body["uptime"].as_str().expect("uptime").ends_with('s'));
    assert!(
        body["timestamp"]
            .as_str()
            .expect("timestamp")
            .ends_with('Z')
    );

    let stats = &body["event_stats"];
    let by_type = stats["events_by_type"].as_object().expect("by type");
    // Test mode of the tree only: the root's and the sub's organization.created, the
    // setting, the key, the transaction's events; nothing of the other organization.
    assert_eq!(by_type["organization.created"], 2, "{stats}");
    assert_eq!(by_type["setting.updated"], 1);
    assert_eq!(by_type["api_key.created"], 1);
    assert!(
        by_type.contains_key("transaction.posted") || by_type.contains_key("transaction.created")
    );
    let total: i64 = by_type.values().filter_map(serde_json::Value::as_i64).sum();
    assert_eq!(stats["total_events"], total);
    assert_eq!(stats["events_last_24h"], total);
    let recent = stats["recent_events"].as_array().expect("recent");
    assert!(!recent.is_empty() && recent.len() <= 10);
    assert_eq!(recent[0]["event_type"], "api_key.created", "newest first");
    for field in ["id", "event_type", "entity_type", "entity_id", "timestamp"] {
        assert!(recent[0][field].is_string(), "{field}");
    }

    let db = &body["database"];
    assert_eq!(db["status"], "connected");
    assert!(db["connection_pool_size"].as_u64().expect("pool") >= 1);
    assert!(db["active_connections"].as_u64().is_some());
    assert!(db["pending_queries"].as_u64().is_some());
    let workers = &body["workers"];
    assert_eq!(workers["active_workers"], 2);
    assert_eq!(workers["status"], "running");
    assert!(workers["completed_jobs_24h"].as_i64().expect("completed") >= 1);
    assert!(workers["queued_jobs"].as_i64().is_some());
    assert!(workers["failed_jobs_24h"].as_i64().is_some());
    assert_eq!(
        body["cache"],
        json!({"status": "disabled", "hit_rate": 0, "memory_usage": 0, "keys_count": 0})
    );
}
both!(system_reports_real_figures);
