//! The one write pipeline, seen from outside: the same refusal answers the same code on
//! REST, GraphQL and MCP; `Idempotency-Key` replays within its window and is free again
//! after it; and the contract gaps closed with it (suspension is an admin act, items name
//! categories, bill deletes answer synchronously, `HEAD` answers like `GET`).

use std::sync::Arc;

use ledger_tests::{Answer, Backend, Org, ShiftedClock, TestApp, both, entries, refused};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use ledger_tests::mcp::{self, tool_ok};

/// Sends one GraphQL operation.
pub(crate) async fn graphql(app: &TestApp, key: &str, query: &str, variables: Value) -> Value {
    let res = app.gql(Some(key), query, variables).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    res.body
}

/// A GraphQL operation; returns the first error's domain code (`extensions.reason`), or
/// `""` when it succeeded.
pub(crate) async fn graphql_reason(
    app: &TestApp,
    key: &str,
    query: &str,
    variables: Value,
) -> String {
    let body = graphql(app, key, query, variables).await;
    body["errors"][0]["extensions"]["reason"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

fn accounts(org: &Org) -> String {
    org.path("accounts")
}

async fn new_account(app: &TestApp, org: &Org, code: &str, account_type: &str) -> String {
    app.create_id(
        &org.test_key,
        &accounts(org),
        json!({"code": code, "name": format!("Account {code}"), "account_type": account_type}),
    )
    .await
}

/// The same refusals, driven through each interface, answer the same code.
async fn one_refusal_one_code_on_every_interface(app: &TestApp) {
    let (org, [cash, sales]) = app.signup_with_accounts("Parity", ["1000", "4000"]).await;
    let key = &org.test_key;

    // Unbalanced: 422 unbalanced_transaction everywhere.
    let rest = app
        .post(
            key,
            &org.path("transactions"),
            json!({"description": "lopsided", "date": "2026-01-15", "entries": [
                {"account_id": cash, "entry_type": "debit", "amount": "10.00"},
                {"account_id": sales, "entry_type": "credit", "amount": "9.00"},
            ]}),
        )
        .await;
    assert_eq!(
        rest.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        rest.body
    );
    let gql = graphql_reason(
        app,
        key,
        "mutation($e: [LedgerEntryInput!]!) { createTransaction(description: \"lopsided\", date: \"2026-01-15\", entries: $e) { id } }",
        json!({"e": [
            {"accountId": cash, "entryType": "DEBIT", "amount": "10.00"},
            {"accountId": sales, "entryType": "CREDIT", "amount": "9.00"},
        ]}),
    )
    .await;
    let mcp = mcp::code(
        &mcp::tool(
            app,
            key,
            "create_transaction",
            json!({"description": "lopsided", "date": "2026-01-15", "entries": [
                {"accountId": cash, "entryType": "debit", "amount": "10.00"},
                {"accountId": sales, "entryType": "credit", "amount": "9.00"},
            ]}),
        )
        .await,
    );
    assert_eq!(
        (rest.code(), gql.as_str(), mcp.as_str()),
        (
            "unbalanced_transaction",
            "unbalanced_transaction",
            "unbalanced_transaction"
        )
    );

    // An account with entries (even only pending ones) is in use: resource_in_use.
    let used = new_account(app, &org, "1010", "asset").await;
    let res = app
        .post_wait(
            key,
            &org.path("transactions"),
            json!({"description": "pending", "date": "2026-01-15", "entries": entries(&used, &sales, "5.00")}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["status"], "pending");
    let rest = app.delete(key, &format!("{}/{used}", accounts(&org))).await;
    let gql = graphql_reason(
        app,
        key,
        "mutation($id: ID!) { deleteAccount(id: $id) }",
        json!({"id": used}),
    )
    .await;
    let mcp = mcp::code(&mcp::tool(app, key, "delete_account", json!({"accountId": used})).await);
    assert_eq!(
        (rest.status, rest.code(), gql.as_str(), mcp.as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "resource_in_use",
            "resource_in_use",
            "resource_in_use"
        ),
        "{}",
        rest.body
    );
    assert_eq!(
        rest.body["error"]["message"],
        format!("account {used} has ledger entries; set it inactive instead of deleting it")
    );

    // Suspending an account needs admin (DECISIONS 10): 403 insufficient_permissions.
    let (_, writer) = app.make_key(&org, key, &["read", "write"]).await;
    let target = new_account(app, &org, "1020", "asset").await;
    let rest = app
        .put(
            &writer,
            &format!("{}/{target}", accounts(&org)),
            json!({"status": "suspended"}),
        )
        .await;
    let gql = graphql_reason(
        app,
        &writer,
        "mutation($id: ID!) { updateAccount(id: $id, status: SUSPENDED) { id status } }",
        json!({"id": target}),
    )
    .await;
    let mcp = mcp::code(
        &mcp::tool(
            app,
            &writer,
            "update_account",
            json!({"accountId": target, "status": "suspended"}),
        )
        .await,
    );
    assert_eq!(
        (rest.status, rest.code(), gql.as_str(), mcp.as_str()),
        (
            StatusCode::FORBIDDEN,
            "insufficient_permissions",
            "insufficient_permissions",
            "insufficient_permissions"
        ),
        "{}",
        rest.body
    );
    assert_eq!(rest.body["error"]["details"]["required"], "admin");
    // The writer may still rename it and set it inactive; an admin key may suspend it.
    let res = app
        .put(
            &writer,
            &format!("{}/{target}", accounts(&org)),
            json!({"name": "Renamed", "status": "inactive"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let res = app
        .put(
            key,
            &format!("{}/{target}", accounts(&org)),
            json!({"status": "suspended"}),
        )
        .await;
    assert_eq!(
        (res.status, &res.body["status"]),
        (StatusCode::OK, &json!("suspended")),
        "{}",
        res.body
    );
    // Lifting the suspension is an admin act too.
    let res = app
        .put(
            &writer,
            &format!("{}/{target}", accounts(&org)),
            json!({"status": "active"}),
        )
        .await;
    assert_eq!(res.code(), "insufficient_permissions", "{}", res.body);
}

both!(one_refusal_one_code_on_every_interface);

async fn category(app: &TestApp, org: &Org, name: &str) -> String {
    app.create_id(
        &org.test_key,
        &org.path("categories"),
        json!({"name": name, "category_type": "income"}),
    )
    .await
}

/// Items name a category on every interface, and a category an item names is in use.
async fn items_name_categories(app: &TestApp) {
    let org = app.signup("Item Categories").await;
    let key = &org.test_key;
    let customer = app.contact(&org, &org.test_key, "customer", "Acme").await;
    let by_rest = category(app, &org, "Consulting").await;
    let by_graphql = category(app, &org, "Training").await;
    let by_mcp = category(app, &org, "Support").await;
    let unused = category(app, &org, "Unused").await;

    let res = app
        .post_wait(
            key,
            &org.path("invoices"),
            json!({"contact_id": customer, "invoice_date": "2026-01-10", "items": [
                {"description": "Advice", "quantity": 1, "unit_price": "100.00", "category_id": by_rest},
            ]}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["items"][0]["category_id"], json!(by_rest));

    let data = app.gql_data(key,
        "mutation($c: ID!, $items: [InvoiceItemInput!]!) {
           createInvoice(contactId: $c, invoiceDate: \"2026-01-10\", dueDate: \"2026-02-10\", items: $items) {
             id items { categoryId }
           }
         }",
        json!({"c": customer, "items": [
            {"description": "Course", "quantity": "1", "unitPrice": "50.00", "categoryId": by_graphql},
        ]}),
    )
    .await;
    assert_eq!(
        data["createInvoice"]["items"][0]["categoryId"],
        json!(by_graphql)
    );

    let result = tool_ok(
        app,
        key,
        "create_invoice",
        json!({"contactId": customer, "invoiceDate": "2026-01-10", "dueDate": "2026-02-10", "items": [
            {"description": "Hotline", "quantity": 1, "unitPrice": "20.00", "categoryId": by_mcp},
        ]}),
    )
    .await;
    assert_eq!(result["items"][0]["category_id"], json!(by_mcp));

    // An unknown category is refused before anything is queued.
    let res = app
        .post(
            key,
            &org.path("invoices"),
            json!({"contact_id": customer, "items": [
                {"description": "Ghost", "quantity": 1, "unit_price": "1.00", "category_id": "cat_01JAAAAAAAAAAAAAAAAAAAAAAA"},
            ]}),
        )
        .await;
    assert_eq!(
        (
            res.status,
            res.code(),
            &res.body["error"]["details"]["field"]
        ),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "reference_not_found",
            &json!("items[0].category_id")
        ),
        "{}",
        res.body
    );

    // Categories the items name are in use; the unused one deletes.
    for used in [&by_rest, &by_graphql, &by_mcp] {
        let res = app
            .delete(key, &org.path(&format!("categories/{used}")))
            .await;
        refused(&res, StatusCode::UNPROCESSABLE_ENTITY, "resource_in_use");
        assert!(
            res.body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("is used by invoices or bills")),
            "{}",
            res.body
        );
    }
    let res = app
        .delete(key, &org.path(&format!("categories/{unused}")))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
}

both!(items_name_categories);

/// A draft bill's delete answers 200 with the deletion, synchronously.
async fn bill_deletes_answer_synchronously(app: &TestApp) {
    let org = app.signup("Bill Deletes").await;
    let key = &org.test_key;
    let vendor = app.contact(&org, &org.test_key, "vendor", "Paper Co").await;
    let id = app
        .create_id_wait(
            key,
            &org.path("bills"),
            json!({"contact_id": vendor, "bill_date": "2026-01-10", "items": [
                {"description": "Paper", "quantity": 1, "unit_price": "5.00"},
            ]}),
        )
        .await;
    // No Prefer header: still the final answer, not a 202 envelope.
    let res = app.delete(key, &org.path(&format!("bills/{id}"))).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (&res.body["id"], &res.body["object"], &res.body["deleted"]),
        (&json!(id), &json!("bill"), &json!(true)),
        "{}",
        res.body
    );
    let gone = app.get(key, &org.path(&format!("bills/{id}"))).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND, "{}", gone.body);
}

both!(bill_deletes_answer_synchronously);

/// `HEAD` answers like `GET`, without a body.
async fn head_answers_like_get(app: &TestApp) {
    for path in ["/health", "/graphql/playground"] {
        let get = app.fetch(path).await;
        let head = app
            .client
            .head(format!("{}{path}", app.base))
            .send()
            .await
            .expect("HEAD");
        assert_eq!(head.status(), get.status(), "{path}");
        assert_eq!(
            head.headers().get("content-type"),
            get.headers().get("content-type"),
            "{path}"
        );
        assert!(head.headers().contains_key("x-request-id"), "{path}");
        let body = head.bytes().await.expect("body");
        assert!(body.is_empty(), "{path}: HEAD answered a body");
    }
}

both!(head_answers_like_get);

/// An `Idempotency-Key` answers its first outcome for 24 hours (the domain's window),
/// refuses another request, and is free again afterwards, on both kinds of write.
async fn idempotency_keys_live_for_their_window(app: &TestApp, clock: &ShiftedClock) {
    let org = app.signup("Windows").await;
    let key = &org.test_key;
    let taxes = org.path("taxes");
    let body = json!({"name": "VAT", "rate": "20", "tax_type": "sales_tax"});
    let send = |body: Value, idem: &'static str| {
        let taxes = taxes.clone();
        async move {
            app.call(
                Method::POST,
                &taxes,
                Some(key),
                Some(body),
                &[("Idempotency-Key", idem)],
            )
            .await
        }
    };
    let first = send(body.clone(), "tax-once").await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let again = send(body.clone(), "tax-once").await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body, first.body);
    assert_eq!(replayed(&again), Some("true"));
    let other = send(
        json!({"name": "GST", "rate": "5", "tax_type": "sales_tax"}),
        "tax-once",
    )
    .await;
    refused(&other, StatusCode::CONFLICT, "idempotency_key_reused");

    // A queued write with a key.
    let contacts = org.path("contacts");
    let queued = |idem: &'static str| {
        let contacts = contacts.clone();
        async move {
            app.call(
                Method::POST,
                &contacts,
                Some(key),
                Some(json!({"contact_type": "vendor", "name": "Ink Ltd"})),
                &[("Idempotency-Key", idem), ("Prefer", "wait=10")],
            )
            .await
        }
    };
    let first_contact = queued("contact-once").await;
    assert_eq!(
        first_contact.status,
        StatusCode::CREATED,
        "{}",
        first_contact.body
    );
    let again_contact = queued("contact-once").await;
    assert_eq!(again_contact.body["id"], first_contact.body["id"]);
    assert_eq!(replayed(&again_contact), Some("true"));

    // 23 hours on: still the same answers.
    clock.advance(time::Duration::hours(23));
    let still = send(body.clone(), "tax-once").await;
    assert_eq!(
        (still.body["id"].clone(), replayed(&still)),
        (first.body["id"].clone(), Some("true"))
    );

    // 25 hours after the first use the keys are free: new writes, not replays.
    clock.advance(time::Duration::hours(2));
    let fresh = send(body.clone(), "tax-once").await;
    assert_eq!(fresh.status, StatusCode::CREATED, "{}", fresh.body);
    assert_ne!(fresh.body["id"], first.body["id"]);
    assert_eq!(replayed(&fresh), None);
    let fresh_contact = queued("contact-once").await;
    assert_eq!(
        fresh_contact.status,
        StatusCode::CREATED,
        "{}",
        fresh_contact.body
    );
    assert_ne!(fresh_contact.body["id"], first_contact.body["id"]);
    assert_eq!(replayed(&fresh_contact), None);
    // And the new use replays from now on.
    let replay = send(body, "tax-once").await;
    assert_eq!(replay.body["id"], fresh.body["id"]);
    let list = app.get(key, &taxes).await;
    assert_eq!(
        list.body["data"].as_array().map(Vec::len),
        Some(2),
        "{}",
        list.body
    );
}

fn replayed(answer: &Answer) -> Option<&str> {
    answer.header("idempotent-replayed")
}

async fn window_on(backend: Backend) {
    let clock = Arc::new(ShiftedClock::default());
    if let Some(app) = TestApp::spawn_with_clock(backend, clock.clone()).await {
        idempotency_keys_live_for_their_window(&app, &clock).await;
        app.finish().await;
    }
}

mod idempotency_window {
    ledger_tests::on_backends!(super::window_on);
}

/// Updates and deletes of accounts, taxes and categories go through the pipeline too: an
/// `Idempotency-Key` replays their first answer, and reused with another body is refused.
async fn synchronous_updates_and_deletes_take_keys(app: &TestApp) {
    let org = app.signup("Keyed Updates").await;
    let key = &org.test_key;
    let account = new_account(app, &org, "6100", "expense").await;
    let path = org.path(&format!("accounts/{account}"));
    let put = |body: Value, idem: &'static str| {
        let path = path.clone();
        async move {
            app.call(
                Method::PUT,
                &path,
                Some(key),
                Some(body),
                &[("Idempotency-Key", idem)],
            )
            .await
        }
    };
    let first = put(json!({"name": "Travel"}), "acct-rename").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.body["name"], "Travel", "{}", first.body);
    assert!(first.headers.get("idempotent-replayed").is_none());
    let again = put(json!({"name": "Travel"}), "acct-rename").await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.body, first.body);
    assert_eq!(
        again
            .headers
            .get("idempotent-replayed")
            .map(|v| v.as_bytes()),
        Some(&b"true"[..])
    );
    let reused = put(json!({"name": "Trips"}), "acct-rename").await;
    assert_eq!(reused.status, StatusCode::CONFLICT, "{}", reused.body);
    assert_eq!(reused.body["error"]["code"], "idempotency_key_reused");
    let stored = app.get(key, &path).await;
    assert_eq!(stored.body["name"], "Travel", "{}", stored.body);

    // A category delete answers what was deleted and until when; its replay answers the
    // same, though the category is gone.
    let cat = category(app, &org, "Consulting").await;
    let cat_path = org.path(&format!("categories/{cat}"));
    let delete = || {
        app.call(
            Method::DELETE,
            &cat_path,
            Some(key),
            None,
            &[("Idempotency-Key", "cat-delete")],
        )
    };
    let deleted = delete().await;
    assert_eq!(deleted.status, StatusCode::OK, "{}", deleted.body);
    assert_eq!(
        (
            &deleted.body["id"],
            &deleted.body["object"],
            &deleted.body["deleted"]
        ),
        (&json!(cat), &json!("category"), &json!(true)),
        "{}",
        deleted.body
    );
    assert!(
        deleted.body["recoverable_until"].is_string(),
        "{}",
        deleted.body
    );
    let replayed = delete().await;
    assert_eq!(replayed.status, StatusCode::OK, "{}", replayed.body);
    assert_eq!(replayed.body, deleted.body);
    // Without the key, the second delete finds nothing.
    let gone = app.delete(key, &cat_path).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND, "{}", gone.body);
}

both!(synchronous_updates_and_deletes_take_keys);

/// A retry under the same `Idempotency-Key` is the same request when it means the same:
/// another spacing and member order replays the first answer and writes nothing more;
/// another value is refused (docs/decisions.md, "An idempotency key compares what the
/// request means").
async fn idempotency_keys_compare_meaning(app: &TestApp) {
    let org = app.signup("Idem Meaning").await;
    let key = &org.live_key;
    let taxes = org.path("taxes");
    let send = |body: &'static str| {
        let url = format!("{}{taxes}", app.base);
        async move {
            let res = app
                .client
                .post(url)
                .bearer_auth(key)
                .header("Idempotency-Key", "tax-meaning")
                .header("Content-Type", "application/json")
                .body(body)
                .send()
                .await
                .expect("request reaches the server");
            let status = res.status();
            let replayed = res
                .headers()
                .get("idempotent-replayed")
                .map(|v| v.to_str().unwrap_or_default().to_owned());
            let body: Value = res.json().await.unwrap_or(Value::Null);
            (status, replayed, body)
        }
    };
    let (status, _, first) = send(r#"{"name":"VAT","rate":"20","tax_type":"sales_tax"}"#).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let (status, replayed, again) =
        send("{\n  \"tax_type\": \"sales_tax\",\n  \"rate\": \"20\",\n  \"name\": \"VAT\"\n}")
            .await;
    assert_eq!(
        (status, replayed.as_deref()),
        (StatusCode::CREATED, Some("true")),
        "{again}"
    );
    assert_eq!(again, first);
    let (status, _, other) = send(r#"{"name":"VAT","rate":"21","tax_type":"sales_tax"}"#).await;
    assert_eq!(status, StatusCode::CONFLICT, "{other}");
    assert_eq!(other["error"]["code"], "idempotency_key_reused", "{other}");
    let listed = app.get(key, &taxes).await;
    let vat = listed.body["data"]
        .as_array()
        .expect("a page")
        .iter()
        .filter(|t| t["name"] == "VAT")
        .count();
    assert_eq!(vat, 1, "{}", listed.body);
}
both!(idempotency_keys_compare_meaning);

/// An MCP write tool takes `idempotencyKey` (the REST `Idempotency-Key`): a retry with the
/// same key and arguments answers the first result and writes nothing again; other
/// arguments under the key are refused; a read tool has no such argument.
async fn mcp_writes_take_idempotency_keys(app: &TestApp) {
    let org = app.signup("Mcp Idem").await;
    let key = &org.live_key;
    let rate = |rate: &str| {
        json!({"fromCurrencyId": "EUR", "toCurrencyId": "USD", "rate": rate,
               "effectiveDate": "2026-03-01", "idempotencyKey": "mcp-rate-1"})
    };
    let arguments = rate("1.08");
    let first = tool_ok(app, key, "create_exchange_rate", arguments.clone()).await;
    let again = tool_ok(app, key, "create_exchange_rate", arguments).await;
    assert_eq!(again, first);
    mcp::tool_refused(
        app,
        key,
        "create_exchange_rate",
        rate("1.09"),
        "idempotency_key_reused",
    )
    .await;
    let listed = app.get(key, &org.path("exchange-rates")).await;
    let rates = listed.body["data"].as_array().expect("a page");
    assert_eq!(rates.len(), 1, "{}", listed.body);
    mcp::tool_refused(
        app,
        key,
        "list_exchange_rates",
        json!({"idempotencyKey": "mcp-read"}),
        "unknown_field",
    )
    .await;
}
both!(mcp_writes_take_idempotency_keys);

/// A GraphQL request's `Idempotency-Key` keys each of its writes in order: the same request
/// again replays them (the same ids, nothing written twice); another request under the key
/// is refused with the reason `idempotency_key_reused`.
async fn graphql_requests_take_idempotency_keys(app: &TestApp) {
    let org = app.signup("Gql Idem").await;
    let key = &org.live_key;
    let query = "mutation($a: String!, $b: String!) {
        first: createContact(name: $a, contactType: CUSTOMER) { id name }
        second: createContact(name: $b, contactType: VENDOR) { id name } }";
    let send = |variables: Value, idem: &'static str| {
        let body = json!({"query": query, "variables": variables});
        async move {
            app.call(
                Method::POST,
                "/graphql",
                Some(key),
                Some(body),
                &[("Idempotency-Key", idem)],
            )
            .await
        }
    };
    let names = json!({"a": "Acme", "b": "Bolt"});
    let first = send(names.clone(), "gql-two").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert!(first.body["errors"].is_null(), "{}", first.body);
    let again = send(json!({"b": "Bolt", "a": "Acme"}), "gql-two").await;
    assert_eq!(again.body["data"], first.body["data"], "{}", again.body);
    assert_ne!(
        first.body["data"]["first"]["id"],
        first.body["data"]["second"]["id"]
    );
    let other = send(json!({"a": "Acme", "b": "Other"}), "gql-two").await;
    assert_eq!(
        other.gql_reason(),
        "idempotency_key_reused",
        "{}",
        other.body
    );
    let contacts = app.get(key, &org.path("contacts")).await;
    // The specification answers the contact list as a bare array.
    let names: Vec<&str> = contacts
        .body
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(
        (
            names.iter().filter(|n| **n == "Acme").count(),
            names.contains(&"Other")
        ),
        (1, false),
        "{names:?}"
    );
}
both!(graphql_requests_take_idempotency_keys);
