//! Sign-up, keys, tenant isolation and live/test separation.

use ledger_tests::{TestApp, both, entries, refused, refused_case, strs};
use reqwest::{Method, StatusCode};
use serde_json::json;

async fn signup_gives_keys_and_default_chart(app: &TestApp) {
    let org = app.signup("Acme").await;
    assert!(org.id.starts_with("org_"));
    assert!(org.test_key.starts_with("ha_test_"));
    assert!(org.live_key.starts_with("ha_live_"));
    for key in [&org.test_key, &org.live_key] {
        let res = app.get(key, &org.path("accounts")).await;
        assert_eq!(res.status, StatusCode::OK);
        let codes = strs(&res.body["data"], "code");
        assert_eq!(
            codes,
            ["1000", "1100", "2000", "2100", "3000", "4000", "5000"]
        );
        assert_eq!(res.body["data"][0]["is_system"], true);
        assert_eq!(res.body["total_count"], 7);
    }
}
both!(signup_gives_keys_and_default_chart);

async fn bad_or_missing_keys_are_refused(app: &TestApp) {
    let org = app.signup("Keys").await;
    let path = org.path("accounts");
    let res = app.call(Method::GET, &path, None, None, &[]).await;
    refused(&res, StatusCode::UNAUTHORIZED, "missing_api_key");
    assert_eq!(res.body["error"]["type"], "authentication_error");
    let header = res.header("x-request-id").expect("request id header");
    assert_eq!(res.body["error"]["request_id"], header);
    let res = app.get("ha_test_notarealkey", &path).await;
    refused(&res, StatusCode::UNAUTHORIZED, "invalid_api_key");
    let res = app.get("sk_something", &path).await;
    refused(&res, StatusCode::UNAUTHORIZED, "invalid_api_key");
}
both!(bad_or_missing_keys_are_refused);

async fn another_organization_is_invisible(app: &TestApp) {
    let a = app.signup("Alpha").await;
    let b = app.signup("Beta").await;
    let [cash_a, sales_a] = app.account_ids(&a, &a.test_key, ["1000", "4000"]).await;
    let txn = app
        .post_transfer(&a, &a.test_key, &cash_a, &sales_a, "10.00")
        .await;
    let txn_id = txn["id"].as_str().expect("id");
    // B's key on A's paths: the organization does not exist for it.
    for path in [
        a.path("accounts"),
        a.path(&format!("accounts/{cash_a}")),
        a.path(&format!("transactions/{txn_id}")),
        a.path("reports/trial-balance"),
    ] {
        let res = app.get(&b.test_key, &path).await;
        refused_case(&path, &res, StatusCode::NOT_FOUND, "organization_not_found");
    }
    let res = app
        .post(
            &b.test_key,
            &a.path("accounts"),
            json!({"code": "1500", "name": "X", "account_type": "asset"}),
        )
        .await;
    assert_eq!(res.code(), "organization_not_found");
    let res = app
        .post(
            &b.test_key,
            &a.path(&format!("transactions/{txn_id}/reverse")),
            json!({"reason": "x"}),
        )
        .await;
    assert_eq!(res.code(), "organization_not_found");
    // B's key on its own path with A's ids: no such resource.
    let res = app
        .get(&b.test_key, &b.path(&format!("accounts/{cash_a}")))
        .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let res = app
        .get(&b.test_key, &b.path(&format!("transactions/{txn_id}")))
        .await;
    assert_eq!(res.code(), "resource_not_found");
    let res = app
        .get(&b.test_key, &format!("/events/transaction/{txn_id}"))
        .await;
    assert_eq!(res.body, json!([]));
    // A unknown organization id answers the same as a foreign one.
    let res = app
        .get(
            &b.test_key,
            "/organizations/org_01ARZ3NDEKTSV4RRFFQ69G5FAV/accounts",
        )
        .await;
    assert_eq!(res.code(), "organization_not_found");
    // Nothing of A changed.
    let res = app
        .get(&a.test_key, &a.path(&format!("accounts/{cash_a}")))
        .await;
    assert_eq!(res.body["balance"]["net"], "10.00");
}
both!(another_organization_is_invisible);

async fn live_and_test_data_are_separate(app: &TestApp) {
    let org = app.signup("Modes").await;
    let test_cash = app.account_id(&org, &org.test_key, "1000").await;
    let live_cash = app.account_id(&org, &org.live_key, "1000").await;
    assert_ne!(test_cash, live_cash);
    let res = app
        .get(&org.live_key, &org.path(&format!("accounts/{test_cash}")))
        .await;
    assert_eq!(res.code(), "resource_not_found");
    let sales = app.account_id(&org, &org.test_key, "4000").await;
    app.post_transfer(&org, &org.test_key, &test_cash, &sales, "5.00")
        .await;
    let res = app.get(&org.live_key, &org.path("transactions")).await;
    assert_eq!(res.body["total_count"], 0);
    // Test writes never touch the live credit pool.
    let res = app
        .get(&org.live_key, &format!("/organizations/{}", org.id))
        .await;
    assert_eq!(res.body["credits_remaining"], 500);
}
both!(live_and_test_data_are_separate);

async fn sub_organizations_are_reached_from_the_parent_only(app: &TestApp) {
    let parent = app.signup("Parent").await;
    let res = app
        .post(&parent.test_key, "/accounts/sub", json!({"parent_organization_id": parent.id, "name": "Child", "relationship_type": "owned"}))
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let child_id = res.body["organization"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let child_key = res.body["api_key"]["key"].as_str().expect("key").to_owned();
    assert_eq!(
        res.body["organization"]["parent_organization_id"],
        parent.id.as_str()
    );
    assert!(child_key.starts_with("ha_test_"));
    // The parent's key reaches the child; the child's key does not reach the parent.
    let res = app
        .get(
            &parent.test_key,
            &format!("/organizations/{child_id}/accounts"),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK);
    let res = app.get(&child_key, &parent.path("accounts")).await;
    assert_eq!(res.code(), "organization_not_found");
    let res = app
        .get(&child_key, &format!("/organizations/{child_id}/accounts"))
        .await;
    assert_eq!(res.body["total_count"], 7);
    let res = app.post(&parent.test_key, "/accounts/sub", json!({"parent_organization_id": parent.id, "name": "Bad", "relationship_type": "cousin"})).await;
    refused(&res, StatusCode::BAD_REQUEST, "invalid_field");
    let other = app.signup("Other").await;
    let res = app.post(&other.test_key, "/accounts/sub", json!({"parent_organization_id": parent.id, "name": "Sneaky", "relationship_type": "owned"})).await;
    assert_eq!(res.code(), "organization_not_found");
}
both!(sub_organizations_are_reached_from_the_parent_only);

async fn live_writes_spend_credits_and_stop_at_zero(app: &TestApp) {
    let org = app.signup("Credits").await;
    let [cash, sales] = app.account_ids(&org, &org.live_key, ["1000", "4000"]).await;
    app.post_transfer(&org, &org.live_key, &cash, &sales, "1.00")
        .await;
    let res = app
        .get(&org.live_key, &format!("/organizations/{}", org.id))
        .await;
    assert_eq!(res.body["credits_remaining"], 499);
    // Synchronous writes cost a credit too; a refused one costs nothing.
    let accounts = org.path("accounts");
    let res = app
        .post(
            &org.live_key,
            &accounts,
            json!({"code": "1500", "name": "Savings", "account_type": "asset"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED);
    let id = res.id();
    let res = app
        .post(
            &org.live_key,
            &accounts,
            json!({"code": "1500", "name": "Again", "account_type": "asset"}),
        )
        .await;
    assert_eq!(res.code(), "duplicate_value");
    let res = app
        .put(
            &org.live_key,
            &format!("{accounts}/{id}"),
            json!({"name": "Savings 2"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK);
    let res = app
        .get(&org.live_key, &format!("/organizations/{}", org.id))
        .await;
    assert_eq!(res.body["credits_remaining"], 497);
}
both!(live_writes_spend_credits_and_stop_at_zero);

async fn exhausted_pool_refuses_with_402(app: &TestApp) {
    let org = app.signup("Broke").await;
    let [cash, sales] = app.account_ids(&org, &org.live_key, ["1000", "4000"]).await;
    app.post_transfer(&org, &org.live_key, &cash, &sales, "1.00")
        .await;
    app.post_transfer(&org, &org.live_key, &cash, &sales, "1.00")
        .await;
    let body =
        json!({"description": "x", "date": "2026-01-01", "entries": entries(&cash, &sales, 1)});
    let res = app
        .post(&org.live_key, &org.path("transactions"), body.clone())
        .await;
    refused(&res, StatusCode::PAYMENT_REQUIRED, "insufficient_credits");
    assert_eq!(
        res.body["error"]["details"],
        json!({"required": 1, "available": 0})
    );
    let res = app
        .post(
            &org.live_key,
            &org.path("accounts"),
            json!({"code": "1500", "name": "X", "account_type": "asset"}),
        )
        .await;
    refused(&res, StatusCode::PAYMENT_REQUIRED, "insufficient_credits");
    let res = app
        .get(&org.live_key, &org.path("accounts?limit=100"))
        .await;
    assert_eq!(
        res.body["total_count"], 7,
        "the refused account was not created"
    );
    // Test keys are never refused for credits.
    let [tcash, tsales] = app.account_ids(&org, &org.test_key, ["1000", "4000"]).await;
    app.post_transfer(&org, &org.test_key, &tcash, &tsales, "1.00")
        .await;
}

both!(
    exhausted_pool_refuses_with_402,
    exhausted_pool_refuses_with_402,
    |c| c.signup_credits = 2
);
