//! Period locks: the `period_lock_date` setting closes the books up to and including a
//! date; posting, changing or reversing anything dated inside is refused `period_locked`
//! on REST, GraphQL and MCP alike and changes nothing, a queued write is decided again
//! when its job runs, and clearing the lock opens the period again.

use std::time::Duration;

use ledger_tests::{Answer, Backend, Org, TestApp, both, entries};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::pipeline::graphql_reason;
use ledger_tests::mcp::{self, tool_ok};

const LOCK: &str = "2026-01-10";

fn lock_path(org: &Org) -> String {
    org.path("settings/period_lock_date")
}

async fn put_lock(app: &TestApp, org: &Org, value: Value) -> Answer {
    app.put(&org.test_key, &lock_path(org), json!({ "value": value }))
        .await
}

async fn lock(app: &TestApp, org: &Org, value: Value) {
    let res = put_lock(app, org, value).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
}

/// Creates a transaction of 10.00 from sales to cash dated `date`, waiting; its id.
async fn transaction(
    app: &TestApp,
    org: &Org,
    cash: &str,
    sales: &str,
    date: &str,
    auto_post: bool,
) -> String {
    app.create_id_wait(&org.test_key,
            &org.path("transactions"),
            json!({"description": "sale", "date": date, "auto_post": auto_post, "entries": entries(cash, sales, "10.00")})).await
}

/// The debit total of `account`, as decimal text.
async fn debits(app: &TestApp, org: &Org, account: &str) -> Value {
    app.balance(org, &org.test_key, account).await["debit"].clone()
}

/// A REST refusal: 422 `business_rule_error` `period_locked` naming the lock date.
fn refused(res: &Answer, what: &str) {
    assert_eq!(
        (res.status, res.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "period_locked"),
        "{what}: {}",
        res.body
    );
    assert_eq!(res.body["error"]["type"], "business_rule_error", "{what}");
    assert_eq!(res.body["error"]["details"]["lock_date"], LOCK, "{what}");
}

async fn the_lock_setting_validates(app: &TestApp) {
    let org = app.signup("Lock Setting").await;
    // A string that is no date is well formed for the body (a setting's value is a
    // string) but not for this key (422); a number is no string at all (400).
    for (bad, status, code) in [
        (
            json!("soon"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
        ),
        (
            json!("2026-02-30"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
        ),
        (
            json!("2026-01-10T00:00:00Z"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
        ),
        (json!(5), StatusCode::BAD_REQUEST, "invalid_field"),
    ] {
        let res = put_lock(app, &org, bad.clone()).await;
        assert_eq!(
            (res.status, res.code()),
            (status, code),
            "{bad}: {}",
            res.body
        );
        assert_eq!(res.body["error"]["details"]["field"], "value");
    }
    let res = app.put(&org.test_key, &lock_path(&org), json!({})).await;
    assert_eq!(res.code(), "missing_field", "{}", res.body);
    // Null is only a value for the lock.
    let res = app
        .put(
            &org.test_key,
            &org.path("settings/default_currency"),
            json!({"value": null}),
        )
        .await;
    assert_eq!(res.code(), "inconsistent_fields", "{}", res.body);

    let res = put_lock(app, &org, json!(LOCK)).await;
    assert_eq!(
        (res.status, res.body["value"].clone()),
        (StatusCode::OK, json!(LOCK))
    );
    assert_eq!(
        app.get(&org.test_key, &lock_path(&org)).await.body["value"],
        LOCK
    );
    // Live mode has a lock of its own.
    let res = app.get(&org.live_key, &lock_path(&org)).await;
    assert_eq!(res.status, StatusCode::NOT_FOUND, "{}", res.body);
    for clear in [json!(null), json!("")] {
        lock(app, &org, json!(LOCK)).await;
        let res = put_lock(app, &org, clear).await;
        assert_eq!(
            (res.status, res.body["value"].clone()),
            (StatusCode::OK, json!(""))
        );
    }
}

both!(the_lock_setting_validates);

/// A draft invoice of 100.00 issued on `date`; its id.
async fn invoice(app: &TestApp, org: &Org, customer: &str, date: &str) -> String {
    let body = json!({"contact_id": customer, "invoice_date": date, "items": [
        {"description": "Advice", "quantity": 1, "unit_price": "100.00"},
    ]});
    app.create_id_wait(&org.test_key, &org.path("invoices"), body)
        .await
}

/// Moves the transaction at `path` to `date`, waiting.
async fn redate(app: &TestApp, key: &str, path: &str, date: &str) -> Answer {
    app.put_wait(key, path, json!({ "date": date })).await
}

/// GraphQL refusal: `BUSINESS_RULE_VIOLATION` with the domain code and the lock date.
async fn graphql_refused(app: &TestApp, key: &str, query: &str, variables: Value) {
    let res = app.gql(Some(key), query, variables).await;
    let ext = &res.body["errors"][0]["extensions"];
    assert_eq!(
        ext["code"], "BUSINESS_RULE_VIOLATION",
        "{query}: {}",
        res.body
    );
    assert_eq!(ext["reason"], "period_locked", "{query}");
    assert_eq!(ext["lockDate"], LOCK, "{query}");
}

async fn a_closed_period_is_refused_on_every_interface(app: &TestApp) {
    let (org, [cash, sales]) = app
        .signup_with_accounts("Closed Books", ["1000", "4000"])
        .await;
    let key = &org.test_key;
    let posted = transaction(app, &org, &cash, &sales, "2026-01-05", true).await;
    let pending = transaction(app, &org, &cash, &sales, "2026-01-10T23:59:00Z", false).await;
    let pending_after = transaction(app, &org, &cash, &sales, "2026-01-20", false).await;
    let customer = app
        .post_wait(
            key,
            &org.path("contacts"),
            json!({"contact_type": "customer", "name": "Acme"}),
        )
        .await;
    let customer = customer.body["id"].as_str().expect("contact").to_owned();
    let draft = invoice(app, &org, &customer, "2026-01-05").await;
    let sent = invoice(app, &org, &customer, "2026-01-06").await;
    let send = |id: &str| format!("{}/{id}/send", org.path("invoices"));
    let res = app.post_wait(key, &send(&sent), json!({})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);

    lock(app, &org, json!(LOCK)).await;
    let cash_before = debits(app, &org, &cash).await;
    let entries = entries(&cash, &sales, "10.00");

    // REST.
    let create =
        json!({"description": "late", "date": "2026-01-08", "auto_post": true, "entries": entries});
    refused(
        &app.post_wait(key, &org.path("transactions"), create).await,
        "create",
    );
    let txn = |id: &str| format!("{}/{id}", org.path("transactions"));
    refused(
        &app.post_wait(key, &format!("{}/post", txn(&pending)), json!({}))
            .await,
        "post",
    );
    refused(
        &redate(app, key, &txn(&pending), "2026-01-25").await,
        "update out of",
    );
    refused(
        &redate(app, key, &txn(&pending_after), "2026-01-08").await,
        "update into",
    );
    let reverse = json!({"reason": "mistake"});
    refused(
        &app.post_wait(key, &format!("{}/reverse", txn(&posted)), reverse)
            .await,
        "reverse",
    );
    refused(&app.post_wait(key, &send(&draft), json!({})).await, "send");
    let payment =
        json!({"amount": "10.00", "payment_date": "2026-01-08", "payment_method": "bank_transfer"});
    let payments = format!("{}/{sent}/payments", org.path("invoices"));
    refused(&app.post_wait(key, &payments, payment).await, "pay");
    refused(
        &app.post_wait(
            key,
            &format!("{}/{sent}/void", org.path("invoices")),
            json!({}),
        )
        .await,
        "void",
    );

    // GraphQL.
    let gql_entries = json!([
        {"accountId": cash, "entryType": "DEBIT", "amount": "10.00"},
        {"accountId": sales, "entryType": "CREDIT", "amount": "10.00"},
    ]);
    graphql_refused(
        app,
        key,
        "mutation($e: [LedgerEntryInput!]!) { createTransaction(description: \"late\", date: \"2026-01-08\", autoPost: true, entries: $e) { id } }",
        json!({"e": gql_entries}),
    )
    .await;
    graphql_refused(
        app,
        key,
        "mutation($id: ID!) { sendInvoice(id: $id) { id } }",
        json!({"id": draft}),
    )
    .await;
    graphql_refused(
        app,
        key,
        "mutation($id: ID!) { recordInvoicePayment(invoiceId: $id, amount: \"10.00\", paymentDate: \"2026-01-08\", paymentMethod: \"card\") { id } }",
        json!({"id": sent}),
    )
    .await;

    // MCP.
    let mcp_entries = json!([
        {"accountId": cash, "entryType": "debit", "amount": "10.00"},
        {"accountId": sales, "entryType": "credit", "amount": "10.00"},
    ]);
    let calls = [
        (
            "create_transaction",
            json!({"description": "late", "date": "2026-01-08", "autoPost": true, "entries": mcp_entries}),
        ),
        ("post_transaction", json!({"transactionId": pending})),
        (
            "update_transaction",
            json!({"transactionId": pending, "date": "2026-01-25"}),
        ),
        (
            "update_transaction",
            json!({"transactionId": pending_after, "date": "2026-01-08"}),
        ),
        (
            "reverse_transaction",
            json!({"transactionId": posted, "reason": "mistake"}),
        ),
        ("send_invoice", json!({"invoiceId": draft})),
        (
            "record_invoice_payment",
            json!({"invoiceId": sent, "amount": "10.00", "paymentDate": "2026-01-08", "paymentMethod": "card"}),
        ),
    ];
    for (tool, arguments) in calls {
        let result = mcp::tool(app, key, tool, arguments).await;
        assert_eq!(mcp::code(&result), "period_locked", "{tool}: {result}");
        assert_eq!(
            result["structuredContent"]["error"]["details"]["lock_date"],
            LOCK
        );
    }

    // Nothing changed.
    assert_eq!(debits(app, &org, &cash).await, cash_before);
    assert_eq!(app.get(key, &txn(&pending)).await.body["status"], "pending");
    assert_eq!(
        app.get(key, &txn(&pending_after)).await.body["date"],
        "2026-01-20T00:00:00Z"
    );
    assert_eq!(app.get(key, &txn(&posted)).await.body["status"], "posted");
    let invoice_of = |id: &str| format!("{}/{id}", org.path("invoices"));
    assert_eq!(
        app.get(key, &invoice_of(&draft)).await.body["status"],
        "draft"
    );
    let sent_now = app.get(key, &invoice_of(&sent)).await.body;
    // Still issued (it reads overdue by now), unpaid and not void.
    assert_eq!(sent_now["amount_paid"], "0.00", "{sent_now}");
    assert_eq!(sent_now["payments"], json!([]), "{sent_now}");
    assert_ne!(sent_now["status"], "void", "{sent_now}");

    // After the lock date, the books are open, on every interface.
    transaction(app, &org, &cash, &sales, "2026-01-11", true).await;
    let data = app.gql_data(key,
        "mutation($e: [LedgerEntryInput!]!) { createTransaction(description: \"open\", date: \"2026-01-11\", autoPost: true, entries: $e) { status } }",
        json!({"e": gql_entries}),
    )
    .await;
    assert_eq!(data["createTransaction"]["status"], "POSTED", "{data}");
    tool_ok(
        app,
        key,
        "post_transaction",
        json!({"transactionId": pending_after}),
    )
    .await;
    let payment =
        json!({"amount": "10.00", "payment_date": "2026-01-11", "payment_method": "bank_transfer"});
    let res = app.post_wait(key, &payments, payment).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);

    // Clearing the lock opens the period again.
    lock(app, &org, Value::Null).await;
    let res = app
        .post_wait(key, &format!("{}/post", txn(&pending)), json!({}))
        .await;
    assert_eq!(
        (res.status, res.body["status"].clone()),
        (StatusCode::OK, json!("posted")),
        "{}",
        res.body
    );
    assert_eq!(
        graphql_reason(
            app,
            key,
            "mutation($id: ID!) { sendInvoice(id: $id) { id } }",
            json!({"id": draft})
        )
        .await,
        ""
    );
}

both!(a_closed_period_is_refused_on_every_interface);

/// A post accepted while the period was open fails when a lock set meanwhile closes it
/// before a worker runs the job.
async fn a_queued_post_meets_the_lock_set_before_it_runs(backend: Backend) {
    // No workers and no inline runs: the post stays queued until a second server's
    // workers take it.
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.workers = 0;
        c.inline_jobs = false;
    })
    .await
    else {
        return;
    };
    let (org, [cash, sales]) = app
        .signup_with_accounts("Late Lock", ["1000", "4000"])
        .await;
    let key = &org.test_key;
    // The pending transaction is written by a server that runs its jobs inline.
    let inline = app.replica(|c| c.workers = 0).await;
    let pending = transaction(&inline, &org, &cash, &sales, "2026-01-05", false).await;
    inline.finish().await;
    let res = app
        .post(
            key,
            &format!("{}/{pending}/post", org.path("transactions")),
            json!({}),
        )
        .await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "{}", res.body);
    let request_id = res.request_id();
    lock(&app, &org, json!(LOCK)).await;

    let workers = app.replica(|_| {}).await;
    let path = org.path(&format!("requests/{request_id}"));
    let mut job = Value::Null;
    for _ in 0..400 {
        job = app.get(key, &path).await.body;
        if job["data"]["status"] == "failed" || job["data"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(job["data"]["status"], "failed", "{job}");
    assert_eq!(job["error"]["code"], "period_locked", "{job}");
    assert_eq!(job["error"]["details"]["lock_date"], LOCK, "{job}");
    let txn = app
        .get(key, &format!("{}/{pending}", org.path("transactions")))
        .await;
    assert_eq!(txn.body["status"], "pending", "{}", txn.body);
    assert_eq!(debits(&app, &org, &cash).await, json!("0.00"));
    workers.finish().await;
    app.finish().await;
}

mod period_lock_set_before_a_queued_post_runs {
    ledger_tests::on_backends!(super::a_queued_post_meets_the_lock_set_before_it_runs);
}
