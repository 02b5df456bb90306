//! Exchange rates (spec 2.9, 4.11): create, read, list, update and soft delete, the
//! duplicate refusal, refusals in the envelope that change nothing, permissions, tenancy,
//! modes and idempotency. Currencies and conversions are in `currencies`.

use ledger_tests::{Answer, Org, TestApp, both, refused};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

pub(crate) fn rates_path(org: &Org) -> String {
    org.path("exchange-rates")
}

/// Creates a rate and answers its id.
pub(crate) async fn create(app: &TestApp, org: &Org, key: &str, body: Value) -> String {
    app.create_id(key, &rates_path(org), body).await
}

pub(crate) async fn convert(app: &TestApp, key: &str, body: Value) -> Answer {
    app.post(key, "/currencies/convert", body).await
}

async fn create_read_update_list_and_delete(app: &TestApp) {
    let org = app.signup("Fx Crud").await;
    let key = &org.live_key;
    let base = rates_path(&org);
    let before = app.credits(&org).await;
    // A JSON number is read from its text; ids in any prefix case or codes both work.
    let res = app
        .post(key, &base, json!({"from_currency_id": "CUR_eur", "to_currency_id": "cur_USD", "rate": 1.0825, "effective_date": "2026-01-01"}))
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let id = res.id();
    assert!(id.starts_with("fx_"), "{id}");
    let created_at = res.body["created_at"].clone();
    assert_eq!(
        res.body,
        json!({"id": id, "object": "exchange_rate", "from_currency": "EUR", "to_currency": "USD",
            "from_currency_id": "cur_EUR", "to_currency_id": "cur_USD", "rate": "1.0825",
            "effective_date": "2026-01-01", "created_at": created_at, "updated_at": created_at})
    );
    let feb = create(app, &org, key, json!({"from_currency": "eur", "to_currency": "USD", "rate": "1.09000", "effective_date": "2026-02-01"})).await;
    let yen = create(app, &org, key, json!({"from_currency_id": "USD", "to_currency": "JPY", "rate": "151.235", "effective_date": "2026-01-15"})).await;
    assert_eq!(app.credits(&org).await, before - 3);

    let item = format!("{base}/{id}");
    let res = app
        .get(key, &format!("{base}/{}", id.replacen("fx_", "FX_", 1)))
        .await;
    assert_eq!(
        (res.status, res.body["rate"].as_str()),
        (StatusCode::OK, Some("1.0825"))
    );

    // Newest effective date first; filters by currency (code or id); pages.
    let ids = |res: &Answer| -> Vec<String> {
        res.body["data"]
            .as_array()
            .expect("data")
            .iter()
            .filter_map(|r| r["id"].as_str().map(str::to_owned))
            .collect()
    };
    let res = app.get(key, &base).await;
    assert_eq!(res.body["object"], "list");
    assert_eq!(ids(&res), [feb.clone(), yen.clone(), id.clone()]);
    assert_eq!(res.body["data"][0]["rate"], "1.09");
    let res = app.get(key, &format!("{base}?from_currency=EUR")).await;
    assert_eq!(ids(&res), [feb.clone(), id.clone()]);
    let res = app.get(key, &format!("{base}?to_currency=cur_JPY")).await;
    assert_eq!(ids(&res), std::slice::from_ref(&yen));
    let res = app.get(key, &format!("{base}?limit=1&offset=1")).await;
    assert_eq!(ids(&res), std::slice::from_ref(&yen));
    assert_eq!(res.page(), (Some(true), Some(3)));
    refused(
        &app.get(key, &format!("{base}?from_currency=XYZ")).await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );

    // Update: rate and date; the pair is fixed.
    let res = app
        .put(
            key,
            &item,
            json!({"rate": "1.0800", "effective_date": "2025-12-31"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (
            res.body["rate"].as_str(),
            res.body["effective_date"].as_str()
        ),
        (Some("1.08"), Some("2025-12-31"))
    );
    assert_eq!(res.body["from_currency"], "EUR");
    refused(
        &app.put(key, &item, json!({"from_currency_id": "GBP"}))
            .await,
        StatusCode::BAD_REQUEST,
        "unknown_field",
    );
    assert_eq!(app.credits(&org).await, before - 4);

    // Delete: soft, audited, charged; then gone.
    app.soft_delete(key, &item, &id, "exchange_rate").await;
    assert_eq!(app.credits(&org).await, before - 5);
    app.item_refused(
        key,
        &item,
        json!({"rate": "2"}),
        StatusCode::NOT_FOUND,
        "resource_not_found",
    )
    .await;
    assert_eq!(app.get(key, &base).await.body["total_count"], 2);
    app.deleted_last(&org, key, ("exchange_rate", &id, "EUR/USD 2025-12-31"))
        .await;
    assert_eq!(
        app.event_kinds(key, "exchange_rate", &id).await,
        [
            "exchange_rate.created",
            "exchange_rate.updated",
            "exchange_rate.deleted"
        ]
    );
    assert_eq!(app.credits(&org).await, before - 5, "refusals cost nothing");
}
both!(create_read_update_list_and_delete);

async fn refusals_change_nothing(app: &TestApp) {
    let org = app.signup("Fx Refusals").await;
    let key = &org.live_key;
    let base = rates_path(&org);
    let ok = json!({"from_currency_id": "EUR", "to_currency_id": "USD", "rate": "1.1", "effective_date": "2026-01-01"});
    let id = create(app, &org, key, ok.clone()).await;
    let before = app.credits(&org).await;
    let with = |field: &str, value: Value| {
        let mut body = ok.clone();
        body[field] = value;
        body
    };
    let without = |field: &str| {
        let mut body = ok.clone();
        body.as_object_mut().map(|o| o.remove(field));
        body
    };
    let cases = [
        (ok.clone(), "duplicate_value", "effective_date"),
        (
            without("from_currency_id"),
            "missing_field",
            "from_currency_id",
        ),
        (without("to_currency_id"), "missing_field", "to_currency_id"),
        (without("rate"), "missing_field", "rate"),
        (without("effective_date"), "missing_field", "effective_date"),
        (
            with("to_currency_id", json!("XYZ")),
            "invalid_field",
            "to_currency_id",
        ),
        (
            with("from_currency_id", json!(7)),
            "invalid_field",
            "from_currency_id",
        ),
        (with("rate", json!(0)), "invalid_field", "rate"),
        (with("rate", json!("-1.5")), "invalid_field", "rate"),
        (
            with("rate", json!("1.0000000000001")),
            "invalid_field",
            "rate",
        ),
        (
            with("rate", json!("1000000000000")),
            "invalid_field",
            "rate",
        ),
        (with("rate", json!("1e3")), "invalid_field", "rate"),
        (with("rate", json!(true)), "invalid_field", "rate"),
        (
            with("effective_date", json!("2026-02-30")),
            "invalid_field",
            "effective_date",
        ),
        (
            with("effective_date", json!("2026-01-01T00:00:00Z")),
            "invalid_field",
            "effective_date",
        ),
        (with("note", json!("x")), "unknown_field", "note"),
    ];
    app.posts_refused(key, &base, cases).await;
    // Members that are each valid but contradict each other: 422 `inconsistent_fields`.
    for (body, field) in [
        (with("to_currency_id", json!("EUR")), "to_currency_id"),
        (with("from_currency", json!("GBP")), "from_currency_id"),
    ] {
        let res = app.post(key, &base, body.clone()).await;
        refused(
            &res,
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
        );
        assert_eq!(res.body["error"]["type"], "business_rule_error", "{body}");
        assert_eq!(res.body["error"]["details"]["field"], field, "{body}");
    }
    let res = app
        .call(
            Method::POST,
            &base,
            Some(key),
            None,
            &[("Content-Type", "application/json")],
        )
        .await;
    refused(&res, StatusCode::BAD_REQUEST, "missing_field");
    // The bounds are accepted.
    let mut edge = with("rate", json!("999999999999.999999999999"));
    edge["effective_date"] = json!("2026-06-01");
    create(app, &org, key, edge).await;
    let item = format!("{base}/{id}");
    for (body, code) in [
        (json!({"rate": "0"}), "invalid_field"),
        (json!({"effective_date": "soon"}), "invalid_field"),
    ] {
        refused(
            &app.put(key, &item, body).await,
            StatusCode::BAD_REQUEST,
            code,
        );
    }
    assert_eq!(
        app.credits(&org).await,
        before - 1,
        "only the accepted write"
    );
    let res = app.get(key, &item).await;
    assert_eq!(
        (
            res.body["rate"].as_str(),
            res.body["effective_date"].as_str()
        ),
        (Some("1.1"), Some("2026-01-01"))
    );
    refused(
        &app.get(key, &format!("{base}/fx_01HZZZZZZZZZZZZZZZZZZZZZZZ"))
            .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.get(key, &format!("{base}/tax_01HZZZZZZZZZZZZZZZZZZZZZZZ"))
            .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );

    // Permissions: read reads, write creates and updates, only admin deletes.
    let (_, reader) = app.make_key(&org, key, &["read"]).await;
    let (_, writer) = app.make_key(&org, key, &["read", "write"]).await;
    assert_eq!(app.get(&reader, &item).await.status, StatusCode::OK);
    let res = app
        .post(&reader, &base, with("effective_date", json!("2026-03-01")))
        .await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    assert_eq!(
        app.put(&writer, &item, json!({"rate": "1.2"})).await.status,
        StatusCode::OK
    );
    let res = app.delete(&writer, &item).await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    assert_eq!(res.body["error"]["details"]["required"], "admin");
}
both!(refusals_change_nothing);

async fn tenants_and_modes_are_isolated(app: &TestApp) {
    let a = app.signup("Fx A").await;
    let b = app.signup("Fx B").await;
    let body = json!({"from_currency_id": "EUR", "to_currency_id": "USD", "rate": "1.1", "effective_date": "2026-01-01"});
    let id = create(app, &a, &a.test_key, body.clone()).await;
    let item_a = format!("{}/{id}", rates_path(&a));
    app.foreign_item_refused(&b, &a, ("exchange-rates", &id), json!({"rate": "9"}))
        .await;
    assert_eq!(
        app.get(&b.test_key, &rates_path(&b)).await.body["total_count"],
        0
    );
    // The same pair and date are free in another organization and in the other mode.
    create(app, &b, &b.test_key, body.clone()).await;
    create(app, &a, &a.live_key, body).await;
    // The live key does not see the test rate, nor change it.
    app.item_hidden(&a.live_key, &item_a).await;
    assert_eq!(
        app.get(&a.live_key, &rates_path(&a)).await.body["total_count"],
        1
    );
    let res = app.get(&a.test_key, &item_a).await;
    assert_eq!(
        (res.status, res.body["rate"].as_str()),
        (StatusCode::OK, Some("1.1"))
    );
    // Conversions read the caller's organization and mode only.
    let res = convert(
        app,
        &b.live_key,
        json!({"from_currency": "EUR", "to_currency": "USD", "amount": "10"}),
    )
    .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "exchange_rate_not_found",
    );
    assert_eq!(res.body["error"]["type"], "business_rule_error");
    // Test-mode writes never spend the live pool (one live write here).
    assert_eq!(app.credits(&a).await, 499);
}
both!(tenants_and_modes_are_isolated);

async fn idempotent_writes(app: &TestApp) {
    let org = app.signup("Fx Idem").await;
    let key = &org.live_key;
    let base = rates_path(&org);
    let before = app.credits(&org).await;
    let body = json!({"from_currency_id": "GBP", "to_currency_id": "USD", "rate": "1.27", "effective_date": "2026-01-01"});
    let headers = [("Idempotency-Key", "fx-1")];
    // A replay answers the first outcome, not the duplicate refusal.
    let create = (Method::POST, base.as_str(), Some(body));
    let first = app.replayed(key, create, "fx-1", StatusCode::CREATED).await;
    let other = json!({"from_currency_id": "GBP", "to_currency_id": "USD", "rate": "1.28", "effective_date": "2026-01-02"});
    let res = app
        .call(Method::POST, &base, Some(key), Some(other), &headers)
        .await;
    refused(&res, StatusCode::CONFLICT, "idempotency_key_reused");
    let item = format!("{base}/{}", first.body["id"].as_str().expect("id"));
    app.replayed(key, (Method::DELETE, &item, None), "fx-del", StatusCode::OK)
        .await;
    assert_eq!(app.credits(&org).await, before - 2);
}
both!(idempotent_writes);
