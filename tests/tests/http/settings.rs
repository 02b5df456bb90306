//! Settings, the billing record and the organization's audit trail of deletions.

use ledger_tests::{Org, TestApp, both, refused};
use reqwest::{Method, StatusCode};
use serde_json::json;

fn setting_path(org: &Org, key: &str) -> String {
    org.path(&format!("settings/{key}"))
}

async fn settings_round_trip_and_refusals(app: &TestApp) {
    let org = app.signup("Settings Co").await;
    let path = setting_path(&org, "default_currency");
    let res = app.get(&org.test_key, &path).await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");

    let res = app.put(&org.test_key, &path, json!({"value": "eur"})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["object"], "setting");
    assert_eq!(res.body["key"], "default_currency");
    assert_eq!(res.body["value"], "EUR");
    assert!(res.body["updated_at"].is_string());
    let res = app.get(&org.test_key, &path).await;
    assert_eq!(
        (res.status, res.body["value"].clone()),
        (StatusCode::OK, json!("EUR"))
    );
    let res = app.put(&org.test_key, &path, json!({"value": "GBP"})).await;
    assert_eq!(res.body["value"], "GBP");
    assert_eq!(app.get(&org.test_key, &path).await.body["value"], "GBP");

    let note = setting_path(&org, "invoice_footer_2");
    let res = app
        .put(&org.test_key, &note, json!({"value": "Thank you!"}))
        .await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(
        app.get(&org.test_key, &note).await.body["value"],
        "Thank you!"
    );

    // Live mode has settings of its own.
    let res = app.get(&org.live_key, &path).await;
    assert_eq!(res.status, StatusCode::NOT_FOUND);

    let cases = [
        (path.clone(), json!({}), "missing_field", "value"),
        (path.clone(), json!({"value": 5}), "invalid_field", "value"),
        (
            path.clone(),
            json!({"value": "EUR", "x": 1}),
            "unknown_field",
            "x",
        ),
        (
            note.clone(),
            json!({"value": "x".repeat(10_001)}),
            "invalid_field",
            "value",
        ),
        (
            setting_path(&org, "Bad-Key"),
            json!({"value": "1"}),
            "invalid_field",
            "setting_key",
        ),
        (
            setting_path(&org, &"k".repeat(65)),
            json!({"value": "1"}),
            "invalid_field",
            "setting_key",
        ),
    ];
    for (p, body, code, field) in cases {
        let res = app.put(&org.test_key, &p, body).await;
        assert_eq!(
            (res.status, res.code()),
            (StatusCode::BAD_REQUEST, code),
            "{}",
            res.body
        );
        assert_eq!(res.body["error"]["details"]["field"], field);
    }
    // A string the key named in the path does not take, or a null where only
    // `period_lock_date` takes one: the body is well formed, the pair is not (422).
    for (p, body) in [
        (path.clone(), json!({"value": "EURO"})),
        (path.clone(), json!({"value": null})),
        (note.clone(), json!({"value": null})),
        (
            setting_path(&org, "invoice_number_prefix"),
            json!({"value": "INV 2026"}),
        ),
    ] {
        let res = app.put(&org.test_key, &p, body.clone()).await;
        assert_eq!(
            (res.status, res.code()),
            (StatusCode::UNPROCESSABLE_ENTITY, "inconsistent_fields"),
            "{body}: {}",
            res.body
        );
        assert_eq!(res.body["error"]["details"]["field"], "value");
    }
    let res = app
        .put(&org.test_key, &note, json!({"value": "x".repeat(10_000)}))
        .await;
    assert_eq!(res.status, StatusCode::OK);
    let res = app.get(&org.test_key, &setting_path(&org, "Bad-Key")).await;
    refused(&res, StatusCode::BAD_REQUEST, "invalid_field");

    // Reading needs read; writing needs admin.
    let (_, writer) = app.make_key(&org, &org.test_key, &["write"]).await;
    assert_eq!(app.get(&writer, &path).await.status, StatusCode::OK);
    let res = app.put(&writer, &path, json!({"value": "USD"})).await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    assert_eq!(res.body["error"]["details"]["required"], "admin");
    let res = app.call(Method::GET, &path, None, None, &[]).await;
    assert_eq!(res.code(), "missing_api_key");

    // Another organization reaches none of it.
    let other = app.signup("Other Settings").await;
    for key in [&other.test_key, &other.live_key] {
        let res = app.get(key, &path).await;
        refused(&res, StatusCode::NOT_FOUND, "organization_not_found");
        let res = app.put(key, &path, json!({"value": "USD"})).await;
        refused(&res, StatusCode::NOT_FOUND, "organization_not_found");
    }
    let res = app
        .get(&other.test_key, &setting_path(&other, "default_currency"))
        .await;
    assert_eq!(res.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&org.test_key, &path).await.body["value"], "GBP");
}
both!(settings_round_trip_and_refusals);

async fn billing_reports_the_root_pool(app: &TestApp) {
    let org = app.signup("Billing Co").await;
    let path = org.path("billing");
    let res = app.read(&org.live_key, &path).await;
    assert_eq!(
        res,
        json!({
            "object": "billing",
            "organization_id": org.id,
            "credits_remaining": 500,
            "credits_total": 500,
            "auto_recharge_enabled": false,
            "billing_email": "billingco@example.com",
            "test_credits_used": 0,
        })
    );
    // A test-mode write is counted apart and never takes live credits.
    let [cash, sales] = app.account_ids(&org, &org.test_key, ["1000", "4000"]).await;
    app.post_transfer(&org, &org.test_key, &cash, &sales, "5.00")
        .await;
    let res = app.get(&org.test_key, &path).await;
    assert_eq!(res.body["test_credits_used"], 1);
    assert_eq!(res.body["credits_remaining"], 500);
    // A live write takes a live credit.
    let [cash, sales] = app.account_ids(&org, &org.live_key, ["1000", "4000"]).await;
    app.post_transfer(&org, &org.live_key, &cash, &sales, "5.00")
        .await;
    let res = app.get(&org.live_key, &path).await;
    assert_eq!(res.body["credits_remaining"], 499);

    // A sub-organization shows its root's pool.
    let (sub_id, sub_key) = app.sub_org(&org.live_key, &org.id, "Shop", "owned").await;
    let res = app
        .read(&sub_key, &format!("/organizations/{sub_id}/billing"))
        .await;
    assert_eq!(res["organization_id"], org.id.as_str());
    assert_eq!(res["credits_remaining"], 499);
    assert_eq!(res["billing_email"], "billingco@example.com");
    let res = app.get(&sub_key, &path).await;
    refused(&res, StatusCode::NOT_FOUND, "organization_not_found");

    let other = app.signup("Other Billing").await;
    let res = app.get(&other.live_key, &path).await;
    refused(&res, StatusCode::NOT_FOUND, "organization_not_found");
    let res = app.call(Method::GET, &path, None, None, &[]).await;
    refused(&res, StatusCode::UNAUTHORIZED, "missing_api_key");
}
both!(billing_reports_the_root_pool);

async fn recently_deleted_lists_the_organizations_deletions(app: &TestApp) {
    let org = app.signup("Trail Co").await;
    let accounts = org.path("accounts");
    let mut ids = Vec::new();
    for code in ["6100", "6200"] {
        let id = app
            .create_id(
                &org.test_key,
                &accounts,
                json!({"code": code, "name": format!("Expense {code}"), "account_type": "expense"}),
            )
            .await;
        let res = app
            .delete_wait(&org.test_key, &format!("{accounts}/{id}"))
            .await;
        assert!(res.status.is_success(), "{}", res.body);
        ids.push(id);
    }
    let path = org.path("recently-deleted");
    let res = app.read(&org.test_key, &path).await;
    assert_eq!(res["total_count"], 2);
    let rows = res["data"].as_array().expect("rows");
    assert_eq!(rows[0]["resource_id"], ids[1].as_str(), "newest first");
    assert_eq!(rows[0]["resource_type"], "account");
    assert_eq!(rows[0]["name"], "Expense 6200");
    for field in ["deleted_at", "deleted_by", "recoverable_until"] {
        assert!(rows[0][field].is_string(), "{field}");
    }
    let res = app
        .get(&org.test_key, &format!("{path}?limit=1&offset=1"))
        .await;
    assert_eq!(res.body["data"][0]["resource_id"], ids[0].as_str());
    assert_eq!(res.body["has_more"], false);
    let res = app.get(&org.test_key, &format!("{path}?limit=0")).await;
    refused(&res, StatusCode::BAD_REQUEST, "invalid_field");
    // The deleting key finds them under /recently-deleted too.
    let res = app.get(&org.test_key, "/recently-deleted").await;
    assert_eq!(res.body["total_count"], 2);
    // Live mode saw no deletion.
    assert_eq!(app.get(&org.live_key, &path).await.body["total_count"], 0);
}
both!(recently_deleted_lists_the_organizations_deletions);
