//! Transactions: queued writes, the state machine, reversal, idempotency, events.

use ledger_tests::{TestApp, both, entries, invalid, refused, refused_case, strs};
use reqwest::{Method, StatusCode};
use serde_json::json;

async fn queued_create_answers_the_envelope(app: &TestApp) {
    let org = app.signup("Queue").await;
    let [cash, sales] = app.account_ids(&org, &org.test_key, ["1000", "4000"]).await;
    let res = app
        .post(&org.test_key, &org.path("transactions"), json!({"description": "Sale", "date": "2026-03-01T10:00:00Z", "entries": entries(&cash, &sales, json!(0.1))}))
        .await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "{}", res.body);
    let request_id = res.request_id();
    assert!(request_id.starts_with("req_"));
    assert_eq!(res.body["success"], true);
    assert_eq!(res.body["credit_cost"], 1);
    assert_eq!(res.body["data"]["status"], "queued");
    let txn_id = res.body["data"]["resource_id"]
        .as_str()
        .expect("resource id")
        .to_owned();
    assert!(txn_id.starts_with("txn_"));
    assert_eq!(
        res.body["data"]["status_url"],
        org.path(&format!("requests/{request_id}"))
    );
    let done = app.wait_request(&org, &org.test_key, &request_id).await;
    assert_eq!(done["data"]["status"], "completed");
    assert_eq!(done["data"]["result"]["id"], txn_id.as_str());
    let res = app
        .get(&org.test_key, &org.path(&format!("transactions/{txn_id}")))
        .await;
    assert_eq!(res.body["status"], "pending");
    assert_eq!(res.body["amount"], "0.10", "0.1 stays exactly 0.1");
    assert_eq!(res.body["entries"][0]["amount"], "0.10");
}
both!(queued_create_answers_the_envelope);

async fn lifecycle_create_post_reverse(app: &TestApp) {
    let org = app.signup("Life").await;
    let key = &org.test_key;
    let base = org.path("transactions");
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let res = app.post_wait(key, &base, json!({"description": "Invoice 1", "date": "2026-03-01", "entries": entries(&cash, &sales, json!("250.00"))})).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["status"], "pending");
    let id = res.id();
    // Pending transactions do not move balances.
    let res = app.get(key, &org.path(&format!("accounts/{cash}"))).await;
    assert_eq!(res.body["balance"]["net"], "0.00");
    // Update while pending.
    let res = app.put_wait(key, &format!("{base}/{id}"), json!({"description": "Invoice 1 (fixed)", "entries": entries(&cash, &sales, json!("200.00"))}))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (
            res.body["amount"].as_str(),
            res.body["description"].as_str()
        ),
        (Some("200.00"), Some("Invoice 1 (fixed)"))
    );
    let res = app
        .post_wait(key, &format!("{base}/{id}/post"), json!({}))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["status"], "posted");
    let res = app.get(key, &org.path(&format!("accounts/{cash}"))).await;
    assert_eq!(res.body["balance"]["net"], "200.00");
    // Posted transactions are final.
    let res = app
        .post_wait(key, &format!("{base}/{id}/post"), json!({}))
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "transaction_not_pending",
    );
    let res = app
        .put(key, &format!("{base}/{id}"), json!({"description": "no"}))
        .await;
    assert_eq!(res.code(), "transaction_not_pending");
    let res = app.delete(key, &format!("{base}/{id}")).await;
    assert_eq!(res.code(), "transaction_not_pending");
    // Reverse needs a reason.
    let res = app
        .post_wait(key, &format!("{base}/{id}/reverse"), json!({}))
        .await;
    refused(&res, StatusCode::BAD_REQUEST, "missing_field");
    let res = app
        .post_wait(
            key,
            &format!("{base}/{id}/reverse"),
            json!({"reason": "billed twice"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["status"], "reversed");
    let mirror = res.body["reversed_by"].as_str().expect("mirror").to_owned();
    let res = app.get(key, &format!("{base}/{mirror}")).await;
    assert_eq!(
        (
            res.body["status"].as_str(),
            res.body["reversal_of"].as_str()
        ),
        (Some("posted"), Some(id.as_str()))
    );
    assert_eq!(res.body["entries"][0]["entry_type"], "credit");
    let res = app.get(key, &org.path(&format!("accounts/{cash}"))).await;
    assert_eq!(
        res.body["balance"],
        json!({"debit": "200.00", "credit": "200.00", "net": "0.00"})
    );
    let res = app
        .post_wait(
            key,
            &format!("{base}/{id}/reverse"),
            json!({"reason": "again"}),
        )
        .await;
    assert_eq!(res.code(), "transaction_not_posted");
    let res = app.get(key, &format!("/events/transaction/{id}")).await;
    let kinds = strs(&res.body, "event_type");
    assert_eq!(
        kinds,
        [
            "transaction.created",
            "transaction.updated",
            "transaction.posted",
            "transaction.reversed"
        ]
    );
    let posted = &res.body[2];
    assert_eq!(posted["after_state"]["status"], "posted");
    assert_eq!(posted["after_state"]["id"], id.as_str());
    assert!(
        posted["api_key_id"]
            .as_str()
            .is_some_and(|k| k.starts_with("key_"))
    );
    let res = app.get(key, &format!("{base}?status=posted")).await;
    assert_eq!(res.body["total_count"], 1);
    let res = app.get(key, &base).await;
    assert_eq!(res.body["total_count"], 2);
}
both!(lifecycle_create_post_reverse);

async fn pending_transactions_can_be_deleted(app: &TestApp) {
    let org = app.signup("Del").await;
    let key = &org.test_key;
    let base = org.path("transactions");
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let id = app.create_id_wait(key, &base, json!({"description": "Draft", "date": "2026-03-01", "entries": entries(&cash, &sales, json!(5))})).await;
    let res = app.delete_wait(key, &format!("{base}/{id}")).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["deleted"], true);
    let res = app.get(key, &format!("{base}/{id}")).await;
    assert_eq!(res.code(), "resource_not_found");
    let res = app.get(key, &base).await;
    assert_eq!(res.body["total_count"], 0);
}
both!(pending_transactions_can_be_deleted);

async fn unbalanced_and_invalid_entries_change_nothing(app: &TestApp) {
    let org = app.signup("Unbalanced").await;
    let key = &org.live_key;
    let base = org.path("transactions");
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let res = app
        .post(key, &base, json!({"description": "Bad", "date": "2026-03-01", "entries": [
            {"account_id": cash, "entry_type": "debit", "amount": "100.00"}, {"account_id": sales, "entry_type": "credit", "amount": "90.00"}]}))
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "unbalanced_transaction",
    );
    assert_eq!(res.body["error"]["type"], "business_rule_error");
    assert_eq!(
        res.body["error"]["details"],
        json!({"currency": "USD", "total_debits": "100.00", "total_credits": "90.00", "difference": "10.00"})
    );
    let message = res.body["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("100.00") && message.contains("90.00"),
        "{message}"
    );
    let cases = [
        (
            json!({"description": "x", "date": "2026-03-01", "entries": entries(&cash, &sales, json!(-5))}),
            "invalid_field",
        ),
        (
            json!({"description": "x", "date": "2026-03-01", "entries": entries(&cash, &sales, json!(0))}),
            "invalid_field",
        ),
        (
            json!({"description": "x", "date": "yesterday", "entries": entries(&cash, &sales, json!(1))}),
            "invalid_field",
        ),
        (
            json!({"description": "x", "entries": entries(&cash, &sales, json!(1))}),
            "missing_field",
        ),
        (
            json!({"date": "2026-03-01", "entries": entries(&cash, &sales, json!(1))}),
            "missing_field",
        ),
        (
            json!({"description": "x", "date": "2026-03-01", "entries": entries(&cash, &sales, json!(1)), "colour": "red"}),
            "unknown_field",
        ),
        (
            json!({"description": "x", "date": "2026-03-01", "entries": [{"account_id": cash, "entry_type": "sideways", "amount": 1}, {"account_id": sales, "entry_type": "credit", "amount": 1}]}),
            "invalid_field",
        ),
        (
            json!({"description": "x", "date": "2026-03-01", "entries": [{"account_id": cash, "entry_type": "debit", "amount": 1}]}),
            "invalid_field",
        ),
    ];
    for (body, code) in cases {
        let res = app.post(key, &base, body.clone()).await;
        refused_case(&body, &res, StatusCode::BAD_REQUEST, code);
    }
    // More places than the accounts' currency has: invalid input (DECISIONS 2), 400
    // `invalid_field` on the line's amount, in the currency's words.
    let body = json!({"description": "x", "date": "2026-03-01", "entries": entries(&cash, &sales, json!("1.005"))});
    let res = app.post(key, &base, body.clone()).await;
    invalid(
        &res,
        "invalid_field",
        "entries[0].amount",
        Some("entries[0].amount: USD allows at most 2 decimal places"),
    );
    // A line naming no account of the organization, whatever the id's shape, is a
    // well-formed request the books refuse: 422 `reference_not_found` on the line.
    for missing in ["act_01ARZ3NDEKTSV4RRFFQ69G5FAV", "1000"] {
        let body = json!({"description": "x", "date": "2026-03-01", "entries": entries(&sales, missing, json!(1))});
        let res = app.post(key, &base, body.clone()).await;
        refused_case(
            &body,
            &res,
            StatusCode::UNPROCESSABLE_ENTITY,
            "reference_not_found",
        );
        assert_eq!(res.body["error"]["type"], "business_rule_error");
        assert_eq!(
            res.body["error"]["details"],
            json!({"field": "entries[1].account_id", "resource": "account", "id": missing})
        );
    }
    // Nothing was queued, posted or charged.
    let res = app.get(key, &base).await;
    assert_eq!(res.body["total_count"], 0);
    let res = app.get(key, &format!("/organizations/{}", org.id)).await;
    assert_eq!(res.body["credits_remaining"], 500);
}
both!(unbalanced_and_invalid_entries_change_nothing);

async fn idempotency_key_replays_and_refuses_reuse(app: &TestApp) {
    let org = app.signup("Idem").await;
    let key = &org.live_key;
    let base = org.path("transactions");
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let body = json!({"description": "Once", "date": "2026-03-01", "auto_post": true, "entries": entries(&cash, &sales, json!(7))});
    let first = app
        .call(
            Method::POST,
            &base,
            Some(key),
            Some(body.clone()),
            &[("Idempotency-Key", "order-42"), ("Prefer", "wait=10")],
        )
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let again = app
        .call(
            Method::POST,
            &base,
            Some(key),
            Some(body.clone()),
            &[("Idempotency-Key", "order-42"), ("Prefer", "wait=10")],
        )
        .await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body["id"], first.body["id"]);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    // Without waiting, the replay is the envelope of the same request.
    let envelope = app
        .call(
            Method::POST,
            &base,
            Some(key),
            Some(body.clone()),
            &[("Idempotency-Key", "order-42")],
        )
        .await;
    assert_eq!(envelope.body["data"]["resource_id"], first.body["id"]);
    let mut other = body.clone();
    other["description"] = json!("Twice");
    let res = app
        .call(
            Method::POST,
            &base,
            Some(key),
            Some(other),
            &[("Idempotency-Key", "order-42")],
        )
        .await;
    refused(&res, StatusCode::CONFLICT, "idempotency_key_reused");
    assert_eq!(res.body["error"]["type"], "idempotency_error");
    let res = app.get(key, &base).await;
    assert_eq!(res.body["total_count"], 1, "posted once");
    let res = app.get(key, &org.path(&format!("accounts/{cash}"))).await;
    assert_eq!(res.body["balance"]["net"], "7.00");
    let res = app.get(key, &format!("/organizations/{}", org.id)).await;
    assert_eq!(res.body["credits_remaining"], 499, "charged once");
    // Account creation replays its first answer too.
    let acct = json!({"code": "1400", "name": "Deposits", "account_type": "asset"});
    let accounts = org.path("accounts");
    let create = (Method::POST, accounts.as_str(), Some(acct));
    app.replayed(key, create, "acct-1", StatusCode::CREATED)
        .await;
}
both!(idempotency_key_replays_and_refuses_reuse);

async fn concurrent_retries_with_one_key_post_once(app: &TestApp) {
    let org = app.signup("Retry").await;
    let key = org.test_key.clone();
    let base = org.path("transactions");
    let [cash, sales] = app.account_ids(&org, &key, ["1000", "4000"]).await;
    let body = json!({"description": "Retry", "date": "2026-03-01", "auto_post": true, "entries": entries(&cash, &sales, json!(3))});
    let calls = (0..8).map(|_| {
        app.call(
            Method::POST,
            &base,
            Some(&key),
            Some(body.clone()),
            &[("Idempotency-Key", "same"), ("Prefer", "wait=10")],
        )
    });
    let answers = futures::future::join_all(calls).await;
    for a in &answers {
        assert!(a.status == StatusCode::CREATED, "{} {}", a.status, a.body);
    }
    let res = app.get(&key, &org.path(&format!("accounts/{cash}"))).await;
    assert_eq!(res.body["balance"]["net"], "3.00");
}
both!(concurrent_retries_with_one_key_post_once);
