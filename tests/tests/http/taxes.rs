//! Taxes (spec 2.7, 4.9): create, read, list, update, soft delete, refusals, tenancy,
//! modes, credits and events.

use ledger_tests::{Org, TestApp, both, refused, strs};
use reqwest::{Method, StatusCode};
use serde_json::json;

fn taxes_path(org: &Org) -> String {
    org.path("taxes")
}

async fn create_read_update_and_list(app: &TestApp) {
    let org = app.signup("Taxing").await;
    let key = &org.live_key;
    let base = taxes_path(&org);
    let before = app.credits(&org).await;
    // A JSON number is read from its text: 8.25 stays exactly 8.25.
    let res = app
        .post(key, &base, json!({"name": "State sales tax", "rate": 8.25, "tax_type": "sales_tax", "description": "CA"}))
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["object"], "tax");
    assert_eq!(res.body["rate"], "8.2500");
    assert_eq!(res.body["tax_type"], "sales_tax");
    assert_eq!(res.body["is_compound"], false);
    assert_eq!(res.body["is_active"], true);
    assert_eq!(res.body["organization_id"], org.id.as_str());
    assert_eq!(res.body["description"], "CA");
    let id = res.id();
    assert!(id.starts_with("tax_"));
    let res = app
        .post(
            key,
            &base,
            json!({"name": "GST", "rate": "5", "tax_type": "vat", "is_compound": true}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(
        (res.body["rate"].as_str(), res.body["is_compound"].as_bool()),
        (Some("5.0000"), Some(true))
    );
    let res = app
        .post(
            key,
            &base,
            json!({"name": "Old duty", "rate": "0.0001", "tax_type": "excise", "is_active": false}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(app.credits(&org).await, before - 3);

    // Read in any prefix case.
    let res = app
        .read(key, &format!("{base}/{}", id.replacen("tax_", "TAX_", 1)))
        .await;
    assert_eq!(res["id"], id.as_str());

    // Update: rate and name; unchanged fields stay.
    let res = app
        .put(
            key,
            &format!("{base}/{id}"),
            json!({"rate": "8.875", "name": "City sales tax"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["rate"], "8.8750");
    assert_eq!(res.body["name"], "City sales tax");
    assert_eq!(res.body["tax_type"], "sales_tax");
    assert_eq!(app.credits(&org).await, before - 4);

    // The list shows active taxes by default, sorted by name, with the list fields.
    let res = app.read(key, &base).await;
    assert_eq!(res["object"], "list");
    assert_eq!(res["total_count"], 2);
    assert_eq!(res["has_more"], false);
    let names = strs(&res["data"], "name");
    assert_eq!(names, ["City sales tax", "GST"]);
    assert_eq!(res["data"][0]["rate"], "8.8750");
    let res = app.get(key, &format!("{base}?is_active=false")).await;
    assert_eq!(res.body["total_count"], 1);
    assert_eq!(res.body["data"][0]["name"], "Old duty");
    let res = app.get(key, &format!("{base}?tax_type=vat")).await;
    assert_eq!(res.body["total_count"], 1);
    assert_eq!(res.body["data"][0]["tax_type"], "vat");
    let res = app.get(key, &format!("{base}?limit=1&offset=0")).await;
    assert_eq!(res.body["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(res.page(), (Some(true), Some(2)));
    app.queries_refused(
        key,
        &base,
        &["limit=101", "tax_type=gst", "is_active=maybe"],
    )
    .await;

    assert_eq!(
        app.event_kinds(key, "tax", &id).await,
        ["tax.created", "tax.updated"]
    );
}
both!(create_read_update_and_list);

async fn refusals(app: &TestApp) {
    let org = app.signup("Tax Refusals").await;
    let key = &org.test_key;
    let base = taxes_path(&org);
    let cases = [
        (
            json!({"rate": "5", "tax_type": "vat"}),
            "missing_field",
            "name",
        ),
        (
            json!({"name": "X", "tax_type": "vat"}),
            "missing_field",
            "rate",
        ),
        (
            json!({"name": "X", "rate": "5"}),
            "missing_field",
            "tax_type",
        ),
        (
            json!({"name": "", "rate": "5", "tax_type": "vat"}),
            "invalid_field",
            "name",
        ),
        (
            json!({"name": "X", "rate": "100.0001", "tax_type": "vat"}),
            "invalid_field",
            "rate",
        ),
        (
            json!({"name": "X", "rate": -1, "tax_type": "vat"}),
            "invalid_field",
            "rate",
        ),
        (
            json!({"name": "X", "rate": "8.12345", "tax_type": "vat"}),
            "invalid_field",
            "rate",
        ),
        (
            json!({"name": "X", "rate": "eight", "tax_type": "vat"}),
            "invalid_field",
            "rate",
        ),
        (
            json!({"name": "X", "rate": true, "tax_type": "vat"}),
            "invalid_field",
            "rate",
        ),
        (
            json!({"name": "X", "rate": "5", "tax_type": "gst"}),
            "invalid_field",
            "tax_type",
        ),
        (
            json!({"name": "X", "rate": "5", "tax_type": "vat", "colour": "red"}),
            "unknown_field",
            "colour",
        ),
    ];
    app.posts_refused(key, &base, cases).await;
    // The bounds are accepted.
    for rate in ["0", "100", "100.0000"] {
        let res = app
            .post(
                key,
                &base,
                json!({"name": "Edge", "rate": rate, "tax_type": "other"}),
            )
            .await;
        assert_eq!(res.status, StatusCode::CREATED, "{rate}: {}", res.body);
    }
    assert_eq!(app.get(key, &base).await.body["total_count"], 3);
    let id = app.get(key, &base).await.body["data"][0]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let item = format!("{base}/{id}");
    refused(
        &app.put(key, &item, json!({"rate": "101"})).await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    refused(
        &app.put(key, &item, json!({"tax_type": "vat"})).await,
        StatusCode::BAD_REQUEST,
        "unknown_field",
    );
    refused(
        &app.get(key, &format!("{base}/tax_01HZZZZZZZZZZZZZZZZZZZZZZZ"))
            .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.get(key, &format!("{base}/not-an-id")).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.put(key, &format!("{base}/not-an-id"), json!({"name": "x"}))
            .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );

    // Permissions: read reads, write creates and updates, only admin deletes.
    let (_, reader) = app.make_key(&org, key, &["read"]).await;
    let (_, writer) = app.make_key(&org, key, &["read", "write"]).await;
    assert_eq!(app.get(&reader, &item).await.status, StatusCode::OK);
    refused(
        &app.post(
            &reader,
            &base,
            json!({"name": "R", "rate": "1", "tax_type": "vat"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
    refused(
        &app.put(&reader, &item, json!({"name": "R"})).await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
    assert_eq!(
        app.put(&writer, &item, json!({"name": "W"})).await.status,
        StatusCode::OK
    );
    let res = app.delete(&writer, &item).await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    assert_eq!(res.body["error"]["details"]["required"], "admin");
    refused(
        &app.call(Method::GET, &base, None, None, &[]).await,
        StatusCode::UNAUTHORIZED,
        "missing_api_key",
    );
}
both!(refusals);

async fn soft_delete(app: &TestApp) {
    let org = app.signup("Tax Delete").await;
    let key = &org.live_key;
    let base = taxes_path(&org);
    let id = app
        .create_id(
            key,
            &base,
            json!({"name": "Doomed", "rate": "7", "tax_type": "vat"}),
        )
        .await;
    let item = format!("{base}/{id}");
    let before = app.credits(&org).await;
    app.soft_delete(key, &item, &id, "tax").await;
    assert_eq!(app.credits(&org).await, before - 1);
    app.item_refused(
        key,
        &item,
        json!({"name": "back"}),
        StatusCode::NOT_FOUND,
        "resource_not_found",
    )
    .await;
    assert_eq!(app.get(key, &base).await.body["total_count"], 0);
    assert_eq!(
        app.get(key, &format!("{base}?is_active=false")).await.body["total_count"],
        0
    );
    assert_eq!(app.credits(&org).await, before - 1, "refusals cost nothing");

    let trail = app.deleted_last(&org, key, ("tax", &id, "Doomed")).await;
    assert_eq!(trail["total_count"], 1);
    let row = &trail["data"][0];
    assert!(row["recoverable_until"].as_str() > row["deleted_at"].as_str());
    assert_eq!(
        app.event_kinds(key, "tax", &id).await,
        ["tax.created", "tax.deleted"]
    );
}
both!(soft_delete);

async fn tenants_and_modes_are_isolated(app: &TestApp) {
    let a = app.signup("Tax A").await;
    let b = app.signup("Tax B").await;
    let id = app
        .create_id(
            &a.test_key,
            &taxes_path(&a),
            json!({"name": "A tax", "rate": "3", "tax_type": "vat"}),
        )
        .await;
    let item_a = format!("{}/{id}", taxes_path(&a));
    // Another organization's key: its path is not found, and the id is not on its own path.
    refused(
        &app.get(&b.test_key, &taxes_path(&a)).await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    app.foreign_item_refused(&b, &a, ("taxes", &id), json!({"name": "stolen"}))
        .await;
    refused(
        &app.post(
            &b.test_key,
            &taxes_path(&a),
            json!({"name": "x", "rate": "1", "tax_type": "vat"}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    assert_eq!(
        app.get(&b.test_key, &taxes_path(&b)).await.body["total_count"],
        0
    );
    // The live key of the same organization does not see test data, nor change it.
    app.item_hidden(&a.live_key, &item_a).await;
    assert_eq!(
        app.get(&a.live_key, &taxes_path(&a)).await.body["total_count"],
        0
    );
    let res = app.get(&a.test_key, &item_a).await;
    assert_eq!(
        (
            res.status,
            res.body["name"].as_str(),
            res.body["livemode"].as_bool()
        ),
        (StatusCode::OK, Some("A tax"), Some(false))
    );
    // Test-mode writes never spend the live pool.
    assert_eq!(app.credits(&a).await, 500);
}
both!(tenants_and_modes_are_isolated);

async fn idempotent_create(app: &TestApp) {
    let org = app.signup("Tax Idem").await;
    let key = &org.live_key;
    let base = taxes_path(&org);
    let before = app.credits(&org).await;
    let body = json!({"name": "VAT", "rate": "20", "tax_type": "vat"});
    let create = (Method::POST, base.as_str(), Some(body));
    app.replayed(key, create, "tax-1", StatusCode::CREATED)
        .await;
    let headers = [("Idempotency-Key", "tax-1")];
    let other = json!({"name": "VAT", "rate": "21", "tax_type": "vat"});
    let res = app
        .call(Method::POST, &base, Some(key), Some(other), &headers)
        .await;
    refused(&res, StatusCode::CONFLICT, "idempotency_key_reused");
    assert_eq!(app.get(key, &base).await.body["total_count"], 1);
    assert_eq!(app.credits(&org).await, before - 1);
    // Categories replay the same way.
    let cats = org.path("categories");
    let body = json!({"name": "Sales", "category_type": "income"});
    let create = (Method::POST, cats.as_str(), Some(body));
    app.replayed(key, create, "cat-1", StatusCode::CREATED)
        .await;
    assert_eq!(app.get(key, &cats).await.body["total_count"], 1);
}
both!(idempotent_create);
