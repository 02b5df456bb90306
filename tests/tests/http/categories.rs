//! Categories (spec 2.6, 4.8): create, read with subcategories, list, update, soft delete,
//! the transaction link, refusals, tenancy, modes, credits and events.

use ledger_tests::{Answer, Org, TestApp, both, entries, refused, strs};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn categories_path(org: &Org) -> String {
    org.path("categories")
}

async fn create(app: &TestApp, key: &str, org: &Org, body: Value) -> String {
    app.create_id(key, &categories_path(org), body).await
}

fn names(list: &Answer) -> Vec<&str> {
    strs(&list.body["data"], "name")
}

async fn create_read_update_and_list(app: &TestApp) {
    let org = app.signup("Categorised").await;
    let key = &org.live_key;
    let base = categories_path(&org);
    let before = app.credits(&org).await;
    let res = app.post(key, &base, json!({"name": "Travel", "category_type": "expense", "description": "Trips", "color": "#a1b2c3"})).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["object"], "category");
    assert_eq!(res.body["color"], "#A1B2C3");
    assert_eq!(res.body["category_type"], "expense");
    assert_eq!(res.body["is_active"], true);
    assert_eq!(res.body["parent_id"], Value::Null);
    assert_eq!(res.body["subcategories"], json!([]));
    let travel = res.id();
    assert!(travel.starts_with("cat_"));
    // Without a colour, one is derived from the name: the same name, the same colour.
    let res = app
        .post(
            key,
            &base,
            json!({"name": "Flights", "category_type": "expense", "parent_id": travel}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let color = res.body["color"].as_str().expect("color").to_owned();
    assert!(color.len() == 7 && color.starts_with('#'), "{color}");
    assert_eq!(res.body["parent_id"], travel.as_str());
    let flights = res.id();
    let other = app.signup("Other Colours").await;
    let res = app
        .post(
            &other.test_key,
            &categories_path(&other),
            json!({"name": "Flights", "category_type": "expense"}),
        )
        .await;
    assert_eq!(res.body["color"], color.as_str());
    let hotels = create(app, key, &org, json!({"name": "Hotels", "category_type": "expense", "parent_id": travel.replacen("cat_", "CAT_", 1)})).await;
    create(
        app,
        key,
        &org,
        json!({"name": "Consulting", "category_type": "income"}),
    )
    .await;
    create(
        app,
        key,
        &org,
        json!({"name": "Archive", "category_type": "other", "is_active": false}),
    )
    .await;
    assert_eq!(app.credits(&org).await, before - 5);

    // The complete category lists its direct children.
    let res = app.read(key, &format!("{base}/{travel}")).await;
    let kids = strs(&res["subcategories"], "id");
    assert_eq!(kids, [flights.as_str(), hotels.as_str()]);
    assert_eq!(res["subcategories"][0]["object"], "category");

    // Update: name, colour, active flag; then move Hotels to the top level.
    let res = app
        .put(
            key,
            &format!("{base}/{flights}"),
            json!({"name": "Air travel", "color": "#000000", "description": "Planes"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (
            res.body["name"].as_str(),
            res.body["color"].as_str(),
            res.body["description"].as_str()
        ),
        (Some("Air travel"), Some("#000000"), Some("Planes"))
    );
    assert_eq!(res.body["parent_id"], travel.as_str());
    let res = app
        .put(
            key,
            &format!("{base}/{hotels}"),
            json!({"parent_id": null, "is_active": false}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (
            res.body["parent_id"].clone(),
            res.body["is_active"].as_bool()
        ),
        (Value::Null, Some(false))
    );
    assert_eq!(app.credits(&org).await, before - 7);

    // Lists: active by default, by name, with the list fields; filters; pagination.
    let res = app.get(key, &base).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["object"], "list");
    assert_eq!(names(&res), ["Air travel", "Consulting", "Travel"]);
    let first = &res.body["data"][0];
    assert_eq!(first["category_type"], "expense");
    assert_eq!(first["parent_id"], travel.as_str());
    assert_eq!(first["color"], "#000000");
    assert_eq!(
        names(&app.get(key, &format!("{base}?is_active=false")).await),
        ["Archive", "Hotels"]
    );
    assert_eq!(
        names(&app.get(key, &format!("{base}?category_type=income")).await),
        ["Consulting"]
    );
    assert_eq!(
        names(&app.get(key, &format!("{base}?parent_id={travel}")).await),
        ["Air travel"]
    );
    let res = app.get(key, &format!("{base}?limit=2&offset=2")).await;
    assert_eq!(names(&res), ["Travel"]);
    assert_eq!(res.page(), (Some(false), Some(3)));
    let res = app.get(key, &format!("{base}?limit=2")).await;
    assert_eq!(res.body["has_more"], true);
    app.queries_refused(
        key,
        &base,
        &["category_type=cost", "parent_id=nope", "limit=0"],
    )
    .await;

    assert_eq!(
        app.event_kinds(key, "category", &flights).await,
        ["category.created", "category.updated"]
    );
}
both!(create_read_update_and_list);

async fn refusals(app: &TestApp) {
    let org = app.signup("Category Refusals").await;
    let key = &org.test_key;
    let base = categories_path(&org);
    let top = create(
        app,
        key,
        &org,
        json!({"name": "Top", "category_type": "expense"}),
    )
    .await;
    let child = create(
        app,
        key,
        &org,
        json!({"name": "Child", "category_type": "expense", "parent_id": top}),
    )
    .await;
    let grandchild = create(
        app,
        key,
        &org,
        json!({"name": "Grandchild", "category_type": "expense", "parent_id": child}),
    )
    .await;
    let income = create(
        app,
        key,
        &org,
        json!({"name": "Income", "category_type": "income"}),
    )
    .await;
    let long = "x".repeat(256);
    let cases = [
        (json!({"category_type": "expense"}), "missing_field", "name"),
        (json!({"name": "X"}), "missing_field", "category_type"),
        (
            json!({"name": long, "category_type": "expense"}),
            "invalid_field",
            "name",
        ),
        (
            json!({"name": "  ", "category_type": "expense"}),
            "invalid_field",
            "name",
        ),
        (
            json!({"name": "X", "category_type": "cost"}),
            "invalid_field",
            "category_type",
        ),
        (
            json!({"name": "X", "category_type": "expense", "color": "red"}),
            "invalid_field",
            "color",
        ),
        (
            json!({"name": "X", "category_type": "expense", "color": "#12345"}),
            "invalid_field",
            "color",
        ),
        (
            json!({"name": "X", "category_type": "expense", "parent": top}),
            "unknown_field",
            "parent",
        ),
    ];
    app.posts_refused(key, &base, cases).await;
    // A parent that is not there, or of the other type: well formed, refused by the
    // books (422).
    for (body, code) in [
        (
            json!({"name": "X", "category_type": "expense", "parent_id": "cat_01HZZZZZZZZZZZZZZZZZZZZZZZ"}),
            "reference_not_found",
        ),
        (
            json!({"name": "X", "category_type": "expense", "parent_id": income}),
            "reference_not_usable",
        ),
    ] {
        let res = app.post(key, &base, body.clone()).await;
        refused(&res, StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(res.body["error"]["details"]["field"], "parent_id", "{body}");
    }
    // No loops: a category is not its own parent, nor its descendant's child.
    let item = format!("{base}/{top}");
    refused(
        &app.put(key, &item, json!({"parent_id": top})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "inconsistent_fields",
    );
    refused(
        &app.put(key, &item, json!({"parent_id": grandchild})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "inconsistent_fields",
    );
    refused(
        &app.put(key, &item, json!({"color": "#GGGGGG"})).await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    refused(
        &app.put(key, &item, json!({"category_type": "income"}))
            .await,
        StatusCode::BAD_REQUEST,
        "unknown_field",
    );
    assert_eq!(app.get(key, &item).await.body["parent_id"], Value::Null);
    // A category with subcategories is in use.
    refused(
        &app.delete(key, &item).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "resource_in_use",
    );
    refused(
        &app.get(key, &format!("{base}/nope")).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );

    let (_, reader) = app.make_key(&org, key, &["read"]).await;
    let (_, writer) = app.make_key(&org, key, &["read", "write"]).await;
    assert_eq!(app.get(&reader, &item).await.status, StatusCode::OK);
    refused(
        &app.post(
            &reader,
            &base,
            json!({"name": "R", "category_type": "other"}),
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
    refused(
        &app.delete(&writer, &format!("{base}/{grandchild}")).await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
}
both!(refusals);

async fn soft_delete(app: &TestApp) {
    let org = app.signup("Category Delete").await;
    let key = &org.live_key;
    let base = categories_path(&org);
    let parent = create(
        app,
        key,
        &org,
        json!({"name": "Parent", "category_type": "expense"}),
    )
    .await;
    let child = create(
        app,
        key,
        &org,
        json!({"name": "Child", "category_type": "expense", "parent_id": parent}),
    )
    .await;
    let before = app.credits(&org).await;
    refused(
        &app.delete(key, &format!("{base}/{parent}")).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "resource_in_use",
    );
    app.soft_delete(key, &format!("{base}/{child}"), &child, "category")
        .await;
    assert_eq!(
        app.get(key, &format!("{base}/{parent}")).await.body["subcategories"],
        json!([])
    );
    let res = app.delete(key, &format!("{base}/{parent}")).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        app.credits(&org).await,
        before - 2,
        "the refused delete cost nothing"
    );
    refused(
        &app.get(key, &format!("{base}/{parent}")).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.delete(key, &format!("{base}/{parent}")).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    // A deleted category is no parent.
    refused(
        &app.post(
            key,
            &base,
            json!({"name": "Orphan", "category_type": "expense", "parent_id": parent}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_found",
    );
    assert_eq!(app.get(key, &base).await.body["total_count"], 0);

    let trail = app.read(key, &org.path("recently-deleted")).await;
    assert_eq!(trail["total_count"], 2);
    let rows: Vec<(&str, &str)> = trail["data"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["resource_type"].as_str().unwrap_or(""),
                r["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(
        rows.contains(&("category", "Parent")) && rows.contains(&("category", "Child")),
        "{rows:?}"
    );
    assert_eq!(
        app.event_kinds(key, "category", &child).await,
        ["category.created", "category.deleted"]
    );
}
both!(soft_delete);

async fn tenants_and_modes_are_isolated(app: &TestApp) {
    let a = app.signup("Cat A").await;
    let b = app.signup("Cat B").await;
    let id = create(
        app,
        &a.test_key,
        &a,
        json!({"name": "A cat", "category_type": "other"}),
    )
    .await;
    let item_a = format!("{}/{id}", categories_path(&a));
    refused(
        &app.get(&b.test_key, &categories_path(&a)).await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    app.foreign_item_refused(&b, &a, ("categories", &id), json!({"name": "stolen"}))
        .await;
    // Another tenant's category is no parent.
    refused(
        &app.post(
            &b.test_key,
            &categories_path(&b),
            json!({"name": "x", "category_type": "other", "parent_id": id}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_found",
    );
    assert_eq!(
        app.get(&b.test_key, &categories_path(&b)).await.body["total_count"],
        0
    );
    // Live and test are separate.
    refused(
        &app.get(&a.live_key, &item_a).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.post(
            &a.live_key,
            &categories_path(&a),
            json!({"name": "x", "category_type": "other", "parent_id": id}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_found",
    );
    assert_eq!(
        app.get(&a.live_key, &categories_path(&a)).await.body["total_count"],
        0
    );
    assert_eq!(app.get(&a.test_key, &item_a).await.body["name"], "A cat");
    assert_eq!(app.credits(&a).await, 500);
}
both!(tenants_and_modes_are_isolated);

async fn transactions_carry_a_category(app: &TestApp) {
    let org = app.signup("Categorised Txns").await;
    let other = app.signup("Other Txns").await;
    let key = &org.test_key;
    let base = categories_path(&org);
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let consulting = create(
        app,
        key,
        &org,
        json!({"name": "Consulting", "category_type": "income"}),
    )
    .await;
    let spare = create(
        app,
        key,
        &org,
        json!({"name": "Spare", "category_type": "income"}),
    )
    .await;
    let dormant = create(
        app,
        key,
        &org,
        json!({"name": "Dormant", "category_type": "income", "is_active": false}),
    )
    .await;
    let foreign = create(
        app,
        &other.test_key,
        &other,
        json!({"name": "Theirs", "category_type": "income"}),
    )
    .await;
    let live_twin = create(
        app,
        &org.live_key,
        &org,
        json!({"name": "Live", "category_type": "income"}),
    )
    .await;
    let txns = org.path("transactions");
    let body = |category: &str| json!({"description": "Advice", "date": "2026-02-01", "category_id": category, "entries": entries(&cash, &sales, "50.00")});
    let res = app
        .post_wait(key, &txns, body(&consulting.replacen("cat_", "CAT_", 1)))
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["category_id"], consulting.as_str());
    let txn = res.id();
    let res = app.get(key, &format!("{txns}/{txn}")).await;
    assert_eq!(res.body["category_id"], consulting.as_str());
    // Unknown, inactive, another tenant's or the other mode's category: refused, not queued.
    for bad in [
        "cat_01HZZZZZZZZZZZZZZZZZZZZZZZ",
        "nope",
        dormant.as_str(),
        foreign.as_str(),
        live_twin.as_str(),
    ] {
        let res = app.post(key, &txns, body(bad)).await;
        let code = if bad == dormant.as_str() {
            "reference_not_usable"
        } else {
            "reference_not_found"
        };
        refused(&res, StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(
            res.body["error"]["details"]["field"], "category_id",
            "{bad}"
        );
    }
    // A pending transaction's category can be changed; the old one is free again.
    let res = app
        .put_wait(key, &format!("{txns}/{txn}"), json!({"category_id": spare}))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["category_id"], spare.as_str());
    let res = app
        .put(
            key,
            &format!("{txns}/{txn}"),
            json!({"category_id": dormant}),
        )
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_usable",
    );
    // A category a transaction uses is in use; deleting the transaction frees it.
    let res = app.delete(key, &format!("{base}/{spare}")).await;
    refused(&res, StatusCode::UNPROCESSABLE_ENTITY, "resource_in_use");
    assert_eq!(
        app.delete(key, &format!("{base}/{consulting}"))
            .await
            .status,
        StatusCode::OK
    );
    let res = app.delete_wait(key, &format!("{txns}/{txn}")).await;
    assert!(res.status.is_success(), "{}", res.body);
    assert_eq!(
        app.delete(key, &format!("{base}/{spare}")).await.status,
        StatusCode::OK
    );
}
both!(transactions_carry_a_category);
