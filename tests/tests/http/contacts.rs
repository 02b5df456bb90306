//! Contacts: queued writes, validation, the bare-array list, disable vs delete, the
//! "in use" refusal, idempotency, tenancy and modes, events and the deletion trail.

use ledger_tests::{Answer, Org, TestApp, both, entries, refused, refused_on, strs};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn contacts(org: &Org) -> String {
    org.path("contacts")
}

/// Creates a contact, waiting for it; returns the contact object.
async fn create(app: &TestApp, org: &Org, key: &str, body: Value) -> Value {
    let res = app.post_wait(key, &contacts(org), body).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    res.body
}

async fn contact_create_is_queued_and_completes(app: &TestApp) {
    let org = app.signup("Contacts Queue").await;
    let key = &org.test_key;
    let res = app
        .post(
            key,
            &contacts(&org),
            json!({"contact_type": "customer", "name": "Acme Corp", "email": "billing@acme.example",
                   "website": "https://acme.example", "country": "de", "reference": "CUST-1",
                   "phone": "+49 30 123", "tax_number": "DE123", "address": "1 Main St",
                   "city": "Berlin", "state": "BE", "zip_code": "10115", "metadata": {"tier": "gold"}}),
        )
        .await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "{}", res.body);
    assert_eq!(res.body["credit_cost"], 1);
    assert_eq!(res.body["success"], true);
    assert_eq!(res.body["data"]["status"], "queued");
    assert_eq!(res.body["data"]["resource_type"], "contact");
    let id = res.body["data"]["resource_id"]
        .as_str()
        .expect("resource id")
        .to_owned();
    assert!(id.starts_with("con_"), "{id}");
    let request_id = res.request_id();
    let done = app.wait_request(&org, key, &request_id).await;
    assert_eq!(done["data"]["status"], "completed", "{done}");
    assert_eq!(done["data"]["result"]["id"], id.as_str());

    let res = app.read(key, &format!("{}/{id}", contacts(&org))).await;
    let c = &res;
    assert_eq!(c["object"], "contact");
    assert_eq!(c["organization_id"], org.id.as_str());
    assert_eq!(c["contact_type"], "customer");
    assert_eq!(c["name"], "Acme Corp");
    assert_eq!(c["email"], "billing@acme.example");
    assert_eq!(c["website"], "https://acme.example");
    assert_eq!(c["country"], "DE", "country is uppercased");
    assert_eq!(c["currency_id"], "USD", "inherited from the organization");
    assert_eq!(c["enabled"], true);
    assert_eq!(c["reference"], "CUST-1");
    assert_eq!(c["zip_code"], "10115");
    assert_eq!(c["metadata"]["tier"], "gold");
    assert!(
        c["created_by"]
            .as_str()
            .is_some_and(|k| k.starts_with("key_"))
    );
    assert!(c["created_at"].as_str().is_some_and(|t| t.ends_with('Z')));

    // Prefer: wait answers the final resource with 201.
    let c = create(
        app,
        &org,
        key,
        json!({"contact_type": "vendor", "name": "Supplies Ltd", "currency_id": "eur"}),
    )
    .await;
    assert_eq!(c["object"], "contact");
    assert_eq!(c["currency_id"], "EUR");
    assert_eq!(c["email"], Value::Null);

    // Events carry the after state.
    let res = app.read(key, &format!("/events/contact/{id}")).await;
    assert_eq!(res[0]["event_type"], "contact.created");
    assert_eq!(res[0]["after_state"]["name"], "Acme Corp");
}
both!(contact_create_is_queued_and_completes);

async fn contact_validation_refuses_synchronously(app: &TestApp) {
    let org = app.signup("Contacts Valid").await;
    let key = &org.test_key;
    let path = contacts(&org);
    let cases = [
        (json!({"name": "No type"}), "missing_field", "contact_type"),
        (json!({"contact_type": "customer"}), "missing_field", "name"),
        (
            json!({"contact_type": "customer", "name": "  "}),
            "missing_field",
            "name",
        ),
        (
            json!({"contact_type": "customer", "name": "x".repeat(256)}),
            "invalid_field",
            "name",
        ),
        (
            json!({"contact_type": "friend", "name": "A"}),
            "invalid_field",
            "contact_type",
        ),
        (
            json!({"contact_type": "customer", "name": "A", "email": "nope"}),
            "invalid_field",
            "email",
        ),
        (
            json!({"contact_type": "customer", "name": "A", "website": "ftp://x.example"}),
            "invalid_field",
            "website",
        ),
        (
            json!({"contact_type": "customer", "name": "A", "website": "not a url"}),
            "invalid_field",
            "website",
        ),
        (
            json!({"contact_type": "customer", "name": "A", "country": "XX"}),
            "invalid_field",
            "country",
        ),
        (
            json!({"contact_type": "customer", "name": "A", "country": "DEU"}),
            "invalid_field",
            "country",
        ),
        (
            json!({"contact_type": "customer", "name": "A", "currency_id": "ABC"}),
            "invalid_field",
            "currency_id",
        ),
        (
            json!({"contact_type": "customer", "name": "A", "nickname": "x"}),
            "unknown_field",
            "nickname",
        ),
        (
            json!({"contact_type": "customer", "name": "A", "metadata": [1]}),
            "invalid_field",
            "metadata",
        ),
    ];
    app.posts_refused(key, &path, cases).await;
    // 255 characters is fine.
    create(
        app,
        &org,
        key,
        json!({"contact_type": "other", "name": "x".repeat(255)}),
    )
    .await;
    // Duplicate reference: refused before the queue.
    create(
        app,
        &org,
        key,
        json!({"contact_type": "customer", "name": "A", "reference": "R-1"}),
    )
    .await;
    let res = app
        .post(
            key,
            &path,
            json!({"contact_type": "vendor", "name": "B", "reference": "R-1"}),
        )
        .await;
    refused_on(
        &res,
        StatusCode::BAD_REQUEST,
        "duplicate_value",
        "reference",
    );
    // Nothing refused entered the queue or cost credits: only the two creates exist.
    let res = app.get(key, &format!("{path}?enabled=all")).await;
    assert_eq!(res.body.as_array().map(Vec::len), Some(2), "{}", res.body);
    // The reference is per mode: the live side may use it.
    create(
        app,
        &org,
        &org.live_key,
        json!({"contact_type": "vendor", "name": "B", "reference": "R-1"}),
    )
    .await;
}
both!(contact_validation_refuses_synchronously);

async fn contact_list_filters_search_and_pages(app: &TestApp) {
    let org = app.signup("Contacts List").await;
    let key = &org.test_key;
    let path = contacts(&org);
    let names = [
        ("customer", "Alpha Shop", "alpha@shop.example", "C-100"),
        ("vendor", "Beta Supplies", "sales@beta.example", "V-200"),
        ("customer", "Gamma 100%", "gamma@x.example", "C_300"),
        ("employee", "Delta Person", "delta@corp.example", "E-400"),
    ];
    let mut ids = Vec::new();
    for (t, name, email, reference) in names {
        let c = create(
            app,
            &org,
            key,
            json!({"contact_type": t, "name": name, "email": email, "reference": reference}),
        )
        .await;
        ids.push(c["id"].as_str().expect("id").to_owned());
    }
    let res = app.get(key, &path).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let list = res.body.as_array().expect("a bare array");
    assert_eq!(list.len(), 4);
    let order: Vec<&str> = list.iter().filter_map(|c| c["id"].as_str()).collect();
    assert_eq!(
        order,
        ids.iter().map(String::as_str).collect::<Vec<_>>(),
        "by creation"
    );
    let mut keys: Vec<&String> = list[0].as_object().expect("object").keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "contact_type",
            "created_at",
            "email",
            "enabled",
            "id",
            "name",
            "phone",
            "reference"
        ]
    );
    let count = |res: &Answer| res.body.as_array().map_or(usize::MAX, Vec::len);
    assert_eq!(
        count(&app.get(key, &format!("{path}?contact_type=customer")).await),
        2
    );
    assert_eq!(
        count(&app.get(key, &format!("{path}?type=vendor")).await),
        1
    );
    refused(
        &app.get(key, &format!("{path}?contact_type=friend")).await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    // Search: case-insensitive substring of name, email or reference; % and _ literal.
    assert_eq!(
        count(&app.get(key, &format!("{path}?search=BETA")).await),
        1
    );
    assert_eq!(
        count(&app.get(key, &format!("{path}?search=corp.example")).await),
        1
    );
    assert_eq!(count(&app.get(key, &format!("{path}?search=c-1")).await), 1);
    assert_eq!(count(&app.get(key, &format!("{path}?search=%25")).await), 1);
    assert_eq!(count(&app.get(key, &format!("{path}?search=c_")).await), 1);
    assert_eq!(count(&app.get(key, &format!("{path}?search=zzz")).await), 0);
    // Pagination.
    let res = app.get(key, &format!("{path}?limit=2&offset=1")).await;
    let page = strs(&res.body, "id");
    assert_eq!(page, [ids[1].as_str(), ids[2].as_str()]);
    app.queries_refused(key, &path, &["limit=101", "enabled=maybe"])
        .await;
}
both!(contact_list_filters_search_and_pages);

async fn contact_update_disable_and_delete(app: &TestApp) {
    let org = app.signup("Contacts Update").await;
    let key = &org.test_key;
    let c = create(app, &org, key, json!({"contact_type": "customer", "name": "Old", "email": "old@x.example", "reference": "U-1"})).await;
    let id = c["id"].as_str().expect("id").to_owned();
    let one = format!("{}/{id}", contacts(&org));
    // Queued without Prefer.
    let res = app.put(key, &one, json!({"name": "New"})).await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "{}", res.body);
    let request_id = res.request_id();
    let done = app.wait_request(&org, key, &request_id).await;
    assert_eq!(done["data"]["result"]["name"], "New");
    // Omitted fields stay; an empty string clears an optional field.
    let res = app
        .put_wait(key, &one, json!({"phone": "555", "email": ""}))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (res.body["name"].as_str(), res.body["phone"].as_str()),
        (Some("New"), Some("555"))
    );
    assert_eq!(res.body["email"], Value::Null);
    assert_eq!(res.body["reference"], "U-1");
    refused(
        &app.put_wait(key, &one, json!({"contact_type": "vendor"}))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    refused(
        &app.put_wait(key, &one, json!({"email": "bad"})).await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    refused(
        &app.put_wait(key, &one, json!({"website": "x"})).await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    // Keeping one's own reference is fine; taking another's is not.
    create(
        app,
        &org,
        key,
        json!({"contact_type": "vendor", "name": "Other", "reference": "U-2"}),
    )
    .await;
    assert_eq!(
        app.put_wait(key, &one, json!({"reference": "U-1"}))
            .await
            .status,
        StatusCode::OK
    );
    refused(
        &app.put_wait(key, &one, json!({"reference": "U-2"})).await,
        StatusCode::BAD_REQUEST,
        "duplicate_value",
    );
    // Disable: hidden from the default list, still readable.
    let res = app.put_wait(key, &one, json!({"enabled": false})).await;
    assert_eq!(res.body["enabled"], false);
    let list = app.get(key, &contacts(&org)).await;
    assert!(
        list.body
            .as_array()
            .expect("array")
            .iter()
            .all(|c| c["id"] != id.as_str())
    );
    let list = app
        .get(key, &format!("{}?enabled=false", contacts(&org)))
        .await;
    assert_eq!(list.body[0]["id"], id.as_str());
    assert_eq!(app.get(key, &one).await.status, StatusCode::OK);
    // Delete: soft, into the deletion trail, then gone from reads.
    let res = app.delete_wait(key, &one).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["deleted"], true);
    assert_eq!(res.body["object"], "contact");
    app.item_refused_queued(
        key,
        &one,
        json!({"name": "x"}),
        StatusCode::NOT_FOUND,
        "resource_not_found",
    )
    .await;
    let trail = app.read(key, &org.path("recently-deleted")).await;
    let row = &trail["data"][0];
    assert_eq!(row["resource_type"], "contact");
    assert_eq!(row["resource_id"], id.as_str());
    assert_eq!(row["name"], "New");
    // Its reference is free again.
    create(
        app,
        &org,
        key,
        json!({"contact_type": "customer", "name": "Again", "reference": "U-1"}),
    )
    .await;
    let res = app.get(key, &format!("/events/contact/{id}")).await;
    let kinds = strs(&res.body, "event_type");
    assert_eq!(kinds.first(), Some(&"contact.created"));
    assert_eq!(kinds.last(), Some(&"contact.deleted"));
    assert!(kinds.contains(&"contact.updated"));
    let updated = res
        .body
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["event_type"] == "contact.updated")
        .expect("update event");
    assert_eq!(updated["before_state"]["name"], "Old");
    assert_eq!(updated["after_state"]["name"], "New");
}
both!(contact_update_disable_and_delete);

async fn contact_in_use_cannot_be_deleted(app: &TestApp) {
    let org = app.signup("Contacts InUse").await;
    let key = &org.test_key;
    let c = create(
        app,
        &org,
        key,
        json!({"contact_type": "customer", "name": "Buyer"}),
    )
    .await;
    let id = c["id"].as_str().expect("id").to_owned();
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let txns = org.path("transactions");
    let entries = entries(&cash, &sales, "5.00");
    // An unknown contact is refused on the transaction.
    let res = app
        .post_wait(key, &txns, json!({"description": "Sale", "date": "2026-03-01", "entries": entries, "contact_id": "con_01HZZZZZZZZZZZZZZZZZZZZZZZ"}))
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_found",
    );
    assert_eq!(
        res.body["error"]["details"],
        json!({"field": "contact_id", "resource": "contact", "id": "con_01HZZZZZZZZZZZZZZZZZZZZZZZ"})
    );
    let res = app
        .post_wait(key, &txns, json!({"description": "Sale", "date": "2026-03-01", "entries": entries, "contact_id": id}))
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["contact_id"], id.as_str());
    let txn_id = res.body["id"].as_str().expect("txn").to_owned();
    let one = format!("{}/{id}", contacts(&org));
    refused(
        &app.delete_wait(key, &one).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "resource_in_use",
    );
    // It can still be disabled; a disabled contact cannot be named on new transactions.
    assert_eq!(
        app.put_wait(key, &one, json!({"enabled": false}))
            .await
            .status,
        StatusCode::OK
    );
    let res = app
        .post(
            key,
            &txns,
            json!({"description": "Sale", "date": "2026-03-01", "entries": entries, "contact_id": id}),
        )
        .await;
    refused_on(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_usable",
        "contact_id",
    );
    // Once the (pending) transaction is deleted, the contact may go.
    let res = app.delete_wait(key, &format!("{txns}/{txn_id}")).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let res = app.delete_wait(key, &one).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    // A transaction update may name a contact too.
    let c2 = create(
        app,
        &org,
        key,
        json!({"contact_type": "vendor", "name": "Seller"}),
    )
    .await;
    let res = app
        .post_wait(
            key,
            &txns,
            json!({"description": "Buy", "date": "2026-03-02", "entries": entries}),
        )
        .await;
    let t2 = res.body["id"].as_str().expect("txn").to_owned();
    assert_eq!(res.body["contact_id"], Value::Null);
    let res = app
        .put_wait(
            key,
            &format!("{txns}/{t2}"),
            json!({"contact_id": c2["id"]}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["contact_id"], c2["id"]);
    refused(
        &app.delete_wait(
            key,
            &format!("{}/{}", contacts(&org), c2["id"].as_str().unwrap_or("")),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "resource_in_use",
    );
}
both!(contact_in_use_cannot_be_deleted);

async fn contact_idempotency_replays(app: &TestApp) {
    let org = app.signup("Contacts Idem").await;
    let key = &org.live_key;
    let body = json!({"contact_type": "customer", "name": "Once"});
    let path = contacts(&org);
    let send = |b: Value| {
        app.call(
            Method::POST,
            &path,
            Some(key),
            Some(b),
            &[("Idempotency-Key", "contact-1"), ("Prefer", "wait=10")],
        )
    };
    let first = send(body.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let again = send(body.clone()).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body["id"], first.body["id"]);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let other = send(json!({"contact_type": "customer", "name": "Twice"})).await;
    refused(&other, StatusCode::CONFLICT, "idempotency_key_reused");
    let list = app.get(key, &contacts(&org)).await;
    assert_eq!(list.body.as_array().map(Vec::len), Some(1));
    // One live credit was spent, once.
    let res = app.get(key, &format!("/organizations/{}", org.id)).await;
    assert_eq!(res.body["credits_remaining"], 499);
}
both!(contact_idempotency_replays);

async fn contact_tenancy_modes_and_permissions(app: &TestApp) {
    let a = app.signup("Contacts A").await;
    let b = app.signup("Contacts B").await;
    let c = create(
        app,
        &a,
        &a.test_key,
        json!({"contact_type": "customer", "name": "A's"}),
    )
    .await;
    let id = c["id"].as_str().expect("id").to_owned();
    // B's key on A's path: organization_not_found, for every endpoint.
    let on_a = format!("{}/{id}", contacts(&a));
    refused(
        &app.get(&b.test_key, &contacts(&a)).await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    refused(
        &app.get(&b.test_key, &on_a).await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    refused(
        &app.post(
            &b.test_key,
            &contacts(&a),
            json!({"contact_type": "customer", "name": "x"}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    refused(
        &app.put_wait(&b.test_key, &on_a, json!({"name": "x"})).await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    refused(
        &app.delete_wait(&b.test_key, &on_a).await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    // A's id on B's own path: resource_not_found.
    let on_b = format!("{}/{id}", contacts(&b));
    app.item_refused_queued(
        &b.test_key,
        &on_b,
        json!({"name": "x"}),
        StatusCode::NOT_FOUND,
        "resource_not_found",
    )
    .await;
    assert_eq!(app.get(&b.test_key, &contacts(&b)).await.body, json!([]));
    // Nothing changed for A.
    let res = app.get(&a.test_key, &on_a).await;
    assert_eq!(res.body["name"], "A's");
    // Live and test are apart.
    refused(
        &app.get(&a.live_key, &on_a).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    assert_eq!(app.get(&a.live_key, &contacts(&a)).await.body, json!([]));
    // A read-only key reads but cannot write; a write key cannot delete.
    let (_, read) = app.make_key(&a, &a.test_key, &["read"]).await;
    let (_, write) = app.make_key(&a, &a.test_key, &["write"]).await;
    let (read, write) = (&read, &write);
    assert_eq!(app.get(read, &on_a).await.status, StatusCode::OK);
    refused(
        &app.post(
            read,
            &contacts(&a),
            json!({"contact_type": "customer", "name": "x"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
    refused(
        &app.delete_wait(write, &on_a).await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
    assert_eq!(
        app.put_wait(write, &on_a, json!({"city": "Paris"}))
            .await
            .status,
        StatusCode::OK
    );
}
both!(contact_tenancy_modes_and_permissions);
