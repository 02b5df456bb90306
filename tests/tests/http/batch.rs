//! Atomic bulk posting: `POST .../transactions/batch` writes up to 1 000 transactions
//! all or none under one `Idempotency-Key`, names a refused item by its index, and
//! charges one create per transaction; GraphQL's `createTransactions` does the same.

use ledger_tests::{Answer, Org, TestApp, both, entries, invalid, refused, strs};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn batch_path(org: &Org) -> String {
    org.path("transactions/batch")
}

fn item(debit: &str, credit: &str, amount: &str, auto_post: bool) -> Value {
    json!({"description": format!("batch {amount}"), "date": "2026-06-01", "auto_post": auto_post,
    "entries": entries(debit, credit, amount)})
}

async fn post_batch(app: &TestApp, org: &Org, body: Value, key: Option<&str>) -> Answer {
    let mut headers = vec![("Prefer", "wait=10")];
    if let Some(key) = key {
        headers.push(("Idempotency-Key", key));
    }
    app.call(
        Method::POST,
        &batch_path(org),
        Some(&org.test_key),
        Some(body),
        &headers,
    )
    .await
}

/// Transactions of the organization and test credits used so far.
async fn written(app: &TestApp, org: &Org) -> (Value, Value) {
    let count = app.get(&org.test_key, &org.path("transactions")).await.body["total_count"].clone();
    let billing = app.get(&org.test_key, &org.path("billing")).await.body;
    (count, billing["test_credits_used"].clone())
}

async fn a_batch_is_written_all_or_none(app: &TestApp) {
    let (org, [cash, sales]) = app.signup_with_accounts("Batches", ["1000", "4000"]).await;
    let key = &org.test_key;
    let (count0, used0) = written(app, &org).await;

    let body = json!({"transactions": [
        item(&cash, &sales, "10.00", true),
        item(&cash, &sales, "20.00", false),
        item(&cash, &sales, "30.00", true),
    ]});
    let res = post_batch(app, &org, body.clone(), Some("batch-1")).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(
        (&res.body["object"], &res.body["count"]),
        (&json!("transaction_batch"), &json!(3))
    );
    assert_eq!(
        strs(&res.body["transactions"], "status"),
        ["posted", "pending", "posted"]
    );
    assert!(res.body["id"].as_str().unwrap_or("").starts_with("bat_"));
    let (count1, used1) = written(app, &org).await;
    assert_eq!(count1.as_i64(), count0.as_i64().map(|c| c + 3));
    assert_eq!(
        used1.as_i64(),
        used0.as_i64().map(|c| c + 3),
        "one credit each"
    );
    let balance = app.balance(&org, key, &cash).await;
    assert_eq!(balance["debit"], "40.00", "{balance}");

    // The key replays the batch; another body with it is refused.
    let again = post_batch(app, &org, body, Some("batch-1")).await;
    assert_eq!(again.body["id"], res.body["id"], "{}", again.body);
    assert_eq!(written(app, &org).await, (count1.clone(), used1.clone()));
    let other = json!({"transactions": [item(&cash, &sales, "1.00", true)]});
    let res = post_batch(app, &org, other, Some("batch-1")).await;
    assert_eq!(res.code(), "idempotency_key_reused", "{}", res.body);

    // Two refused items: the first names the status, every one is listed by index, and
    // nothing of the batch is written or charged.
    let body = json!({"transactions": [
        item(&cash, &sales, "5.00", true),
        {"description": "short", "date": "2026-06-01", "entries": [
            {"account_id": cash, "entry_type": "debit", "amount": "5.00"},
            {"account_id": sales, "entry_type": "credit", "amount": "4.00"}]},
        item(&cash, "act_01JZZZZZZZZZZZZZZZZZZZZZZZ", "5.00", true),
    ]});
    let res = post_batch(app, &org, body, None).await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "unbalanced_transaction",
    );
    let details = &res.body["error"]["details"];
    assert_eq!(details["index"], 1, "{}", res.body);
    let indexes: Vec<i64> = details["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(|e| e["index"].as_i64())
        .collect();
    assert_eq!(indexes, [1, 2]);
    assert_eq!(details["errors"][1]["code"], "reference_not_found");
    assert_eq!(details["errors"][0]["details"]["difference"], "1.00");
    assert_eq!(written(app, &org).await, (count1.clone(), used1.clone()));

    // A validation error names the item's field.
    let body = json!({"transactions": [item(&cash, &sales, "1.00", true), item(&cash, &sales, "1.001", true)]});
    let res = post_batch(app, &org, body, None).await;
    invalid(
        &res,
        "invalid_field",
        "transactions[1].entries[0].amount",
        None,
    );
    let body = json!({"transactions": [{"date": "2026-06-01", "entries": []}]});
    let res = post_batch(app, &org, body, None).await;
    assert_eq!(
        (res.code(), &res.body["error"]["details"]["field"]),
        ("missing_field", &json!("transactions[0].description"))
    );
    for (body, code) in [
        (json!({"transactions": []}), "invalid_field"),
        (json!({}), "missing_field"),
        (json!({"transactions": [], "extra": 1}), "unknown_field"),
    ] {
        let res = post_batch(app, &org, body.clone(), None).await;
        assert_eq!(res.code(), code, "{body}: {}", res.body);
    }
    let many: Vec<Value> = (0..1001)
        .map(|_| item(&cash, &sales, "1.00", false))
        .collect();
    let res = post_batch(app, &org, json!({"transactions": many}), None).await;
    assert_eq!(
        (res.code(), &res.body["error"]["details"]["field"]),
        ("invalid_field", &json!("transactions"))
    );
    assert_eq!(written(app, &org).await, (count1, used1));

    // Another organization's key cannot post into this one.
    let stranger = app.signup("Batch Stranger").await;
    let res = app
        .post(
            &stranger.test_key,
            &batch_path(&org),
            json!({"transactions": [item(&cash, &sales, "1.00", true)]}),
        )
        .await;
    assert_eq!(res.code(), "organization_not_found", "{}", res.body);
}

both!(a_batch_is_written_all_or_none);

async fn graphql_creates_transactions_in_one_batch(app: &TestApp) {
    use crate::pipeline::graphql_reason;
    let (org, [cash, sales]) = app
        .signup_with_accounts("GraphQL Batches", ["1000", "4000"])
        .await;
    let key = &org.test_key;
    let query = "mutation($items: [TransactionInput!]!) { createTransactions(transactions: $items) { id status amount } }";
    let entry = |account: &str, side: &str, amount: &str| json!({"accountId": account, "entryType": side, "amount": amount});
    let items = json!([
        {"description": "g1", "date": "2026-06-02", "autoPost": true,
         "entries": [entry(&cash, "DEBIT", "7.00"), entry(&sales, "CREDIT", "7.00")]},
        {"description": "g2", "date": "2026-06-02",
         "entries": [entry(&cash, "DEBIT", "8.00"), entry(&sales, "CREDIT", "8.00")]},
    ]);
    let data = app.gql_data(key, query, json!({ "items": items })).await;
    let created = data["createTransactions"].as_array().expect("list");
    assert_eq!(created.len(), 2, "{data}");
    assert_eq!(
        (&created[0]["status"], &created[1]["amount"]),
        (&json!("POSTED"), &json!("8.00"))
    );
    let (count, used) = written(app, &org).await;
    assert_eq!(count, 2);
    assert_eq!(used, 4, "two credits per GraphQL create");
    let bad = json!([
        {"description": "ok", "date": "2026-06-02",
         "entries": [entry(&cash, "DEBIT", "1.00"), entry(&sales, "CREDIT", "1.00")]},
        {"description": "bad", "date": "2026-06-02",
         "entries": [entry(&cash, "DEBIT", "1.00"), entry(&sales, "CREDIT", "2.00")]},
    ]);
    let reason = graphql_reason(app, key, query, json!({ "items": bad })).await;
    assert_eq!(reason, "unbalanced_transaction");
    assert_eq!(written(app, &org).await, (json!(2), json!(4)));
}

both!(graphql_creates_transactions_in_one_batch);
