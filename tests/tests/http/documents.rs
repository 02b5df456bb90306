//! Invoices and bills: lifecycles that post to the ledger, payments, voids, history,
//! validation, numbering under concurrency, racing payments, tenancy, "in use" checks,
//! and the books balancing with A/R and A/P equal to what is still owed.

use ledger_tests::{Answer, Org, TestApp, both, refused, strs};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn invoices(org: &Org) -> String {
    org.path("invoices")
}

fn bills(org: &Org) -> String {
    org.path("bills")
}

async fn tax(
    app: &TestApp,
    org: &Org,
    key: &str,
    name: &str,
    rate: &str,
    compound: bool,
) -> String {
    app.create_id(
        key,
        &org.path("taxes"),
        json!({"name": name, "rate": rate, "tax_type": "sales_tax", "is_compound": compound}),
    )
    .await
}

async fn trial_balance_balances(app: &TestApp, org: &Org, key: &str) {
    let res = app.read(key, &org.path("reports/trial-balance")).await;
    assert_eq!(res["total_debits"], res["total_credits"], "{}", res);
}

async fn create_invoice(app: &TestApp, org: &Org, key: &str, body: Value) -> Value {
    let res = app.post_wait(key, &invoices(org), body).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    res.body
}

async fn act(app: &TestApp, key: &str, path: &str) -> Answer {
    app.call_wait(Method::POST, key, path, None).await
}

async fn pay(app: &TestApp, key: &str, path: &str, amount: &str) -> Answer {
    app.post(
        key,
        &format!("{path}/payments"),
        json!({"amount": amount, "payment_date": "2026-02-01", "payment_method": "bank_transfer", "reference": "WIRE-1"}),
    )
    .await
}

async fn invoice_lifecycle_posts_to_the_books(app: &TestApp) {
    let org = app.signup("Invoice Books").await;
    let key = &org.test_key;
    let customer = app.contact(&org, key, "customer", "Acme Corp").await;
    let vat = tax(app, &org, key, "State", "8", false).await;
    let surcharge = tax(app, &org, key, "City", "5", true).await;

    // Queued: 202 with the envelope, then the draft.
    let res = app
        .post(
            key,
            &invoices(&org),
            json!({"contact_id": customer, "invoice_date": "2026-01-10", "due_date": "2026-02-09T00:00:00Z",
                   "notes": "Thanks!",
                   "items": [
                       {"description": "Consulting", "quantity": 2, "unit_price": "50.00", "tax_ids": [vat, surcharge]},
                       {"description": "Setup", "quantity": "1", "unit_price": 100, "item_id": "SKU-1"},
                   ]}),
        )
        .await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "{}", res.body);
    assert_eq!(res.body["credit_cost"], 1);
    let id = res.body["data"]["resource_id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert!(id.starts_with("inv_"), "{id}");
    let path = format!("{}/{id}", invoices(&org));
    let mut draft = Value::Null;
    for _ in 0..200 {
        let got = app.get(key, &path).await;
        if got.status == StatusCode::OK {
            draft = got.body;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(draft["object"], "invoice");
    assert_eq!(draft["status"], "draft");
    assert_eq!(draft["invoice_number"], "INV-000001");
    assert_eq!(draft["invoice_date"], "2026-01-10");
    assert_eq!(draft["due_date"], "2026-02-09");
    assert_eq!(draft["currency"], "USD");
    // 100.00 + 8.00 + 5.40 (compound on 108.00) on the first line; nothing on the second.
    assert_eq!(draft["items"][0]["amount"], "100.00");
    assert_eq!(draft["items"][0]["tax_amount"], "13.40");
    assert_eq!(draft["items"][0]["line_total"], "113.40");
    assert_eq!(draft["items"][1]["item_id"], "SKU-1");
    assert_eq!(draft["subtotal"], "200.00");
    assert_eq!(draft["tax_amount"], "13.40");
    assert_eq!(draft["total"], "213.40");
    assert_eq!(draft["balance_due"], "213.40");
    assert_eq!(draft["taxes"].as_array().map(Vec::len), Some(2));
    // A draft posts nothing.
    assert_eq!(app.net_balance(&org, key, "1100").await, "0.00");

    // A payment on a draft is a business-rule error.
    refused(
        &pay(app, key, &path, "10").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_state_transition",
    );

    // Update the draft (queued): one item replaced.
    let res = app.call_wait(Method::PUT,
        key,
        &path,
        Some(json!({"items": [{"description": "Consulting", "quantity": "1.5", "unit_price": "100.00", "tax_ids": [vat]}]})),
    )
    .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["total"], "162.00");
    assert_eq!(res.body["notes"], "Thanks!");

    // Send: Dr A/R 162.00, Cr Sales 150.00, Cr Sales Tax Payable 12.00.
    let sent = act(app, key, &format!("{path}/send")).await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    assert!(
        matches!(sent.body["status"].as_str(), Some("sent" | "overdue")),
        "{}",
        sent.body
    );
    let posting = sent.body["posting_transaction_id"]
        .as_str()
        .expect("posting")
        .to_owned();
    let txn = app
        .get(key, &org.path(&format!("transactions/{posting}")))
        .await;
    assert_eq!(txn.body["status"], "posted");
    assert_eq!(txn.body["amount"], "162.00");
    assert_eq!(txn.body["reference"], "INV-000001");
    assert_eq!(txn.body["contact_id"], customer.as_str());
    assert_eq!(app.net_balance(&org, key, "1100").await, "162.00");
    assert_eq!(app.net_balance(&org, key, "4000").await, "150.00");
    assert_eq!(app.net_balance(&org, key, "2100").await, "12.00");

    // Sent: no more edits or deletes, no second send.
    refused(
        &app.call_wait(Method::PUT, key, &path, Some(json!({"notes": "x"})))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invoice_not_draft",
    );
    refused(
        &app.call_wait(Method::DELETE, key, &path, None).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invoice_not_draft",
    );
    refused(
        &act(app, key, &format!("{path}/send")).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invoice_not_draft",
    );

    // Payments: synchronous 201 with the payment; overpayment refused.
    let first = pay(app, key, &path, "100.00").await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    assert_eq!(first.body["object"], "payment");
    assert_eq!(first.body["invoice_id"], id.as_str());
    assert_eq!(first.body["amount"], "100.00");
    assert_eq!(first.body["payment_method"], "bank_transfer");
    assert!(
        first.body["id"]
            .as_str()
            .is_some_and(|p| p.starts_with("pay_"))
    );
    refused(
        &pay(app, key, &path, "62.01").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "overpayment",
    );
    // More places than the invoice's currency has: invalid input (400).
    let res = pay(app, key, &path, "1.001").await;
    refused(&res, StatusCode::BAD_REQUEST, "invalid_field");
    assert_eq!(
        res.body["error"]["details"]["field"], "amount",
        "{}",
        res.body
    );
    let got = app.get(key, &path).await;
    assert_eq!(got.body["amount_paid"], "100.00");
    assert_eq!(got.body["balance_due"], "62.00");
    assert_eq!(got.body["payments"].as_array().map(Vec::len), Some(1));
    assert!(matches!(
        got.body["status"].as_str(),
        Some("partially_paid" | "overdue")
    ));
    assert_eq!(app.net_balance(&org, key, "1100").await, "62.00");
    assert_eq!(app.net_balance(&org, key, "1000").await, "100.00");

    let last = pay(app, key, &path, "62").await;
    assert_eq!(last.status, StatusCode::CREATED, "{}", last.body);
    let got = app.get(key, &path).await;
    assert_eq!(got.body["status"], "paid");
    assert_eq!(got.body["balance_due"], "0.00");
    assert_eq!(app.net_balance(&org, key, "1100").await, "0.00");
    assert_eq!(app.net_balance(&org, key, "1000").await, "162.00");
    refused(
        &pay(app, key, &path, "1").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_state_transition",
    );
    refused(
        &act(app, key, &format!("{path}/void")).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_state_transition",
    );

    // History: every status change, with time and key.
    let history = app.read(key, &format!("{path}/history")).await;
    let statuses = strs(&history["data"], "status");
    assert_eq!(statuses, ["draft", "sent", "partially_paid", "paid"]);
    assert!(
        history["data"][0]["api_key_id"]
            .as_str()
            .is_some_and(|k| k.starts_with("key_"))
    );
    assert!(
        history["data"][2]["note"]
            .as_str()
            .is_some_and(|n| n.contains("100.00"))
    );

    // Events of the invoice.
    let events = app.read(key, &format!("/events/invoice/{id}")).await;
    let kinds = strs(&events, "event_type");
    for kind in [
        "invoice.created",
        "invoice.updated",
        "invoice.sent",
        "invoice.partially_paid",
        "invoice.paid",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }

    // The list shows it; filters work.
    let list = app
        .get(key, &format!("{}?status=paid", invoices(&org)))
        .await;
    assert_eq!(list.body["object"], "list");
    assert_eq!(list.body["total_count"], 1);
    let list = app
        .get(key, &format!("{}?status=draft", invoices(&org)))
        .await;
    assert_eq!(list.body["total_count"], 0);
    refused(
        &app.get(key, &format!("{}?status=nope", invoices(&org)))
            .await,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    trial_balance_balances(app, &org, key).await;
}
both!(invoice_lifecycle, invoice_lifecycle_posts_to_the_books);

async fn void_and_delete_follow_the_rules(app: &TestApp) {
    let org = app.signup("Invoice Void").await;
    let key = &org.test_key;
    let customer = app.contact(&org, key, "customer", "Void Co").await;
    let body = json!({"contact_id": customer, "invoice_date": "2026-03-01", "due_date": "2026-03-31",
                      "items": [{"description": "Widget", "quantity": 3, "unit_price": "9.99"}]});
    let one = create_invoice(app, &org, key, body.clone()).await;
    assert_eq!(one["total"], "29.97");
    let path = format!("{}/{}", invoices(&org), one["id"].as_str().expect("id"));
    let sent = act(app, key, &format!("{path}/send")).await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    assert_eq!(app.net_balance(&org, key, "1100").await, "29.97");
    // Void reverses the posting.
    let voided = act(app, key, &format!("{path}/void")).await;
    assert_eq!(voided.status, StatusCode::OK, "{}", voided.body);
    assert_eq!(voided.body["status"], "void");
    assert_eq!(voided.body["balance_due"], "0.00");
    assert_eq!(app.net_balance(&org, key, "1100").await, "0.00");
    assert_eq!(app.net_balance(&org, key, "4000").await, "0.00");
    let posting = voided.body["posting_transaction_id"]
        .as_str()
        .expect("posting");
    let txn = app
        .get(key, &org.path(&format!("transactions/{posting}")))
        .await;
    assert_eq!(txn.body["status"], "reversed");
    refused(
        &pay(app, key, &path, "1").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_state_transition",
    );

    // The posting of a live document is reversed by voiding it, never on its own.
    let again = create_invoice(app, &org, key, body.clone()).await;
    let again_path = format!("{}/{}", invoices(&org), again["id"].as_str().expect("id"));
    let sent_again = act(app, key, &format!("{again_path}/send")).await;
    let again_posting = sent_again.body["posting_transaction_id"]
        .as_str()
        .expect("posting");
    refused(
        &app.post(
            key,
            &org.path(&format!("transactions/{again_posting}/reverse")),
            json!({"reason": "oops"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "resource_in_use",
    );
    assert_eq!(
        act(app, key, &format!("{again_path}/void")).await.status,
        StatusCode::OK
    );

    // A draft can be deleted (queued soft delete) and is gone after.
    let two = create_invoice(app, &org, key, body.clone()).await;
    assert_eq!(two["invoice_number"], "INV-000003");
    let path = format!("{}/{}", invoices(&org), two["id"].as_str().expect("id"));
    let deleted = app.call_wait(Method::DELETE, key, &path, None).await;
    assert_eq!(deleted.status, StatusCode::OK, "{}", deleted.body);
    assert_eq!(deleted.body["deleted"], true);
    refused(
        &app.get(key, &path).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    let trail = app.get(key, &org.path("recently-deleted")).await;
    assert!(
        trail
            .body
            .to_string()
            .contains(two["id"].as_str().expect("id")),
        "{}",
        trail.body
    );
    // Numbers are never reused: the deleted draft keeps 000003.
    let three = create_invoice(app, &org, key, body).await;
    assert_eq!(three["invoice_number"], "INV-000004");
    trial_balance_balances(app, &org, key).await;
}
both!(invoice_void_and_delete, void_and_delete_follow_the_rules);

async fn bills_post_expenses_and_payables(app: &TestApp) {
    let org = app.signup("Bill Books").await;
    let key = &org.test_key;
    let vendor = app.contact(&org, key, "vendor", "Paper Supplies").await;
    let customer = app.contact(&org, key, "customer", "Not A Vendor").await;
    let vat = tax(app, &org, key, "VAT", "20", false).await;
    let body = json!({"contact_id": vendor, "bill_date": "2026-01-05", "due_date": "2026-01-20",
                      "items": [{"description": "Paper", "quantity": 10, "unit_price": "5.00", "tax_ids": [vat]}]});
    // A customer cannot be billed by us as a vendor.
    let mut wrong = body.clone();
    wrong["contact_id"] = json!(customer);
    refused(
        &app.post(key, &bills(&org), wrong).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_usable",
    );
    // invoice_date is not a bill field.
    let mut wrong = body.clone();
    wrong["invoice_date"] = json!("2026-01-05");
    refused(
        &app.post(key, &bills(&org), wrong).await,
        StatusCode::BAD_REQUEST,
        "unknown_field",
    );

    let res = app.post_wait(key, &bills(&org), body.clone()).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["object"], "bill");
    assert_eq!(res.body["bill_number"], "BILL-000001");
    assert_eq!(res.body["bill_date"], "2026-01-05");
    assert_eq!(res.body["total"], "60.00");
    let path = format!("{}/{}", bills(&org), res.body["id"].as_str().expect("id"));
    // Without a recoverable-tax account, the tax is part of the expense.
    let approved = act(app, key, &format!("{path}/approve")).await;
    assert_eq!(approved.status, StatusCode::OK, "{}", approved.body);
    assert!(
        matches!(approved.body["status"].as_str(), Some("open" | "overdue")),
        "{}",
        approved.body
    );
    assert_eq!(app.net_balance(&org, key, "5000").await, "60.00");
    assert_eq!(app.net_balance(&org, key, "2000").await, "60.00");

    // Bill payments are queued: 202, then the payment.
    let res = pay(app, key, &path, "25").await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "{}", res.body);
    let res = app
        .post_wait(
            key,
            &format!("{path}/payments"),
            json!({"amount": 35, "payment_date": "2026-01-21", "payment_method": "card"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["bill_id"], approved.body["id"]);
    let mut paid = Value::Null;
    for _ in 0..200 {
        paid = app.get(key, &path).await.body;
        if paid["status"] == "paid" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(paid["status"], "paid", "{paid}");
    assert_eq!(app.net_balance(&org, key, "2000").await, "0.00");
    assert_eq!(app.net_balance(&org, key, "1000").await, "-60.00");

    // With a recoverable-tax account set, bill tax is debited there.
    let recoverable = app.account_id(&org, key, "2100").await;
    let res = app
        .put(
            key,
            &org.path("settings/recoverable_tax_account_id"),
            json!({"value": recoverable}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let second = app.post_wait(key, &bills(&org), body).await;
    let path = format!(
        "{}/{}",
        bills(&org),
        second.body["id"].as_str().expect("id")
    );
    let approved = act(app, key, &format!("{path}/approve")).await;
    assert_eq!(approved.status, StatusCode::OK, "{}", approved.body);
    assert_eq!(app.net_balance(&org, key, "5000").await, "110.00");
    // Sales Tax Payable is a liability: a 10.00 debit shows as -10.00.
    assert_eq!(app.net_balance(&org, key, "2100").await, "-10.00");
    let history = app.get(key, &format!("{path}/history")).await;
    assert_eq!(history.body["data"][1]["status"], "open");
    let events = app
        .get(
            key,
            &format!("/events/bill/{}", second.body["id"].as_str().expect("id")),
        )
        .await;
    assert!(
        events.body.to_string().contains("bill.approved"),
        "{}",
        events.body
    );
    trial_balance_balances(app, &org, key).await;
}
both!(bill_lifecycle, bills_post_expenses_and_payables);

async fn bad_documents_are_refused_and_change_nothing(app: &TestApp) {
    let org = app.signup("Invoice Errors").await;
    let key = &org.test_key;
    let customer = app.contact(&org, key, "customer", "Errors Inc").await;
    let expense = app.account_id(&org, key, "5000").await;
    let item = json!({"description": "A", "quantity": 1, "unit_price": "10.00"});
    let cases = [
        (
            json!({"items": [item]}),
            StatusCode::BAD_REQUEST,
            "missing_field",
        ),
        (
            json!({"contact_id": customer}),
            StatusCode::BAD_REQUEST,
            "missing_field",
        ),
        (
            json!({"contact_id": customer, "items": []}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
        ),
        (
            json!({"contact_id": "con_nope", "items": [item]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "reference_not_found",
        ),
        (
            json!({"contact_id": customer, "items": [{"quantity": 1, "unit_price": 1}]}),
            StatusCode::BAD_REQUEST,
            "missing_field",
        ),
        (
            json!({"contact_id": customer, "items": [{"description": "A", "quantity": 0, "unit_price": 1}]}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
        ),
        (
            json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "1.001"}]}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
        ),
        (
            json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "-1"}]}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
        ),
        (
            json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "0"}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
        ),
        (
            json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "1", "account_id": expense}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "reference_not_usable",
        ),
        (
            json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "1", "tax_ids": ["tax_01J00000000000000000000000"]}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "reference_not_found",
        ),
        (
            json!({"contact_id": customer, "items": [item], "invoice_date": "2026-02-01", "due_date": "2026-01-01"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
        ),
        (
            json!({"contact_id": customer, "items": [item], "colour": "red"}),
            StatusCode::BAD_REQUEST,
            "unknown_field",
        ),
        (
            json!({"contact_id": customer, "items": [item], "invoice_date": "yesterday"}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
        ),
    ];
    for (body, status, code) in cases {
        let res = app.post(key, &invoices(&org), body.clone()).await;
        assert_eq!(
            (res.status, res.code()),
            (status, code),
            "{body}: {}",
            res.body
        );
        assert_eq!(
            res.body["error"]["request_id"].as_str(),
            res.header("x-request-id")
        );
    }
    let list = app.get(key, &invoices(&org)).await;
    assert_eq!(list.body["total_count"], 0, "{}", list.body);
    refused(
        &app.get(key, &format!("{}/inv_nope", invoices(&org))).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.get(
            key,
            &format!("{}/con_01J00000000000000000000000", invoices(&org)),
        )
        .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    // Credits: refused writes cost nothing.
    let billing = app.get(&org.live_key, &org.path("billing")).await;
    assert_eq!(billing.status, StatusCode::OK, "{}", billing.body);
}
both!(invoice_errors, bad_documents_are_refused_and_change_nothing);

async fn numbers_stay_gap_free_under_concurrency(app: &TestApp) {
    let org = app.signup("Invoice Numbers").await;
    let key = &org.test_key;
    let customer = app.contact(&org, key, "customer", "Many Invoices").await;
    let res = app
        .put(
            key,
            &org.path("settings/invoice_number_prefix"),
            json!({"value": "ACME-"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let body = json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "1.00"}]});
    let org = &org;
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let body = body.clone();
            async move { app.post_wait(key, &invoices(org), body).await }
        })
        .collect();
    let results = futures::future::join_all(tasks).await;
    let mut numbers: Vec<String> = results
        .iter()
        .map(|r| {
            assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
            r.body["invoice_number"]
                .as_str()
                .expect("number")
                .to_owned()
        })
        .collect();
    numbers.sort();
    let expected: Vec<String> = (1..=12).map(|n| format!("ACME-{n:06}")).collect();
    assert_eq!(numbers, expected);
}
both!(invoice_numbers, numbers_stay_gap_free_under_concurrency);

async fn racing_payments_never_overpay(app: &TestApp) {
    let org = app.signup("Invoice Race").await;
    let key = &org.test_key;
    let customer = app.contact(&org, key, "customer", "Racer").await;
    let inv = create_invoice(
        app,
        &org,
        key,
        json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "100.00"}]}),
    )
    .await;
    let path = format!("{}/{}", invoices(&org), inv["id"].as_str().expect("id"));
    assert_eq!(
        act(app, key, &format!("{path}/send")).await.status,
        StatusCode::OK
    );
    // Six payments of 30.00 race for a balance of 100.00: exactly three can succeed.
    let tasks: Vec<_> = (0..6).map(|_| pay(app, key, &path, "30.00")).collect();
    let results = futures::future::join_all(tasks).await;
    let ok = results
        .iter()
        .filter(|r| r.status == StatusCode::CREATED)
        .count();
    for r in &results {
        assert!(
            r.status == StatusCode::CREATED || r.code() == "overpayment",
            "{} {}",
            r.status,
            r.body
        );
    }
    assert_eq!(ok, 3);
    let got = app.get(key, &path).await;
    assert_eq!(got.body["amount_paid"], "90.00");
    assert_eq!(got.body["payments"].as_array().map(Vec::len), Some(3));
    assert_eq!(app.net_balance(&org, key, "1100").await, "10.00");
    trial_balance_balances(app, &org, key).await;
}
both!(invoice_payment_race, racing_payments_never_overpay);

async fn tenants_and_modes_are_isolated(app: &TestApp) {
    let a = app.signup("Invoice Tenant A").await;
    let b = app.signup("Invoice Tenant B").await;
    let customer = app
        .contact(&a, &a.test_key, "customer", "Shared Name")
        .await;
    let inv = create_invoice(
        app,
        &a,
        &a.test_key,
        json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "5.00"}]}),
    )
    .await;
    let id = inv["id"].as_str().expect("id");
    // B's key on A's path: organization_not_found; on B's path: resource_not_found.
    for path in [
        format!("{}/{id}", invoices(&a)),
        format!("{}/{id}/history", invoices(&a)),
        invoices(&a),
    ] {
        refused(
            &app.get(&b.test_key, &path).await,
            StatusCode::NOT_FOUND,
            "organization_not_found",
        );
    }
    refused(
        &app.get(&b.test_key, &format!("{}/{id}", invoices(&b)))
            .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &act(app, &b.test_key, &format!("{}/{id}/send", invoices(&b))).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &pay(app, &b.test_key, &format!("{}/{id}", invoices(&b)), "1").await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.call_wait(
            Method::DELETE,
            &b.test_key,
            &format!("{}/{id}", invoices(&b)),
            None,
        )
        .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    // B cannot invoice A's contact.
    refused(
        &app.post(&b.test_key, &invoices(&b), json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "5.00"}]})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_found",
    );
    // The live key of A sees none of A's test-mode invoices.
    refused(
        &app.get(&a.live_key, &format!("{}/{id}", invoices(&a)))
            .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    assert_eq!(
        app.get(&a.live_key, &invoices(&a)).await.body["total_count"],
        0
    );
    // A read-only key may read but not write.
    let (_, reader) = app.make_key(&a, &a.test_key, &["read"]).await;
    assert_eq!(
        app.get(&reader, &format!("{}/{id}", invoices(&a)))
            .await
            .status,
        StatusCode::OK
    );
    refused(
        &act(app, &reader, &format!("{}/{id}/send", invoices(&a))).await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
}
both!(invoice_tenancy, tenants_and_modes_are_isolated);

async fn contacts_and_taxes_in_use_cannot_be_deleted(app: &TestApp) {
    let org = app.signup("Invoice In Use").await;
    let key = &org.test_key;
    let customer = app.contact(&org, key, "customer", "Busy").await;
    let vat = tax(app, &org, key, "VAT", "10", false).await;
    create_invoice(
        app,
        &org,
        key,
        json!({"contact_id": customer, "items": [{"description": "A", "quantity": 1, "unit_price": "5.00", "tax_ids": [vat]}]}),
    )
    .await;
    refused(
        &app.call_wait(
            Method::DELETE,
            key,
            &org.path(&format!("contacts/{customer}")),
            None,
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "resource_in_use",
    );
    refused(
        &app.delete(key, &org.path(&format!("taxes/{vat}"))).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "resource_in_use",
    );
}
both!(invoice_in_use, contacts_and_taxes_in_use_cannot_be_deleted);

/// After a mixed set of invoices, bills and payments, the books balance and A/R and A/P
/// equal the balances still due.
async fn receivables_and_payables_match_open_documents(app: &TestApp) {
    let org = app.signup("Invoice Totals").await;
    let key = &org.test_key;
    let customer = app.contact(&org, key, "customer", "Buyer").await;
    let vendor = app.contact(&org, key, "vendor", "Seller").await;
    let gst = tax(app, &org, key, "GST", "7.5", false).await;
    let mut open_ar: i64 = 0;
    let mut open_ap: i64 = 0;
    let cents = |v: &Value| -> i64 {
        let text = v.as_str().expect("amount");
        let (whole, frac) = text.split_once('.').expect("two decimals");
        whole.parse::<i64>().expect("whole") * 100 + frac.parse::<i64>().expect("frac")
    };
    for i in 0..4 {
        let inv = create_invoice(
            app,
            &org,
            key,
            json!({"contact_id": customer, "items": [
                {"description": "Work", "quantity": format!("{}.25", i + 1), "unit_price": "33.33", "tax_ids": [gst]},
                {"description": "Fee", "quantity": 1, "unit_price": "10.01"}]}),
        )
        .await;
        let path = format!("{}/{}", invoices(&org), inv["id"].as_str().expect("id"));
        assert_eq!(
            act(app, key, &format!("{path}/send")).await.status,
            StatusCode::OK
        );
        if i % 2 == 0 {
            assert_eq!(
                pay(app, key, &path, "20.00").await.status,
                StatusCode::CREATED
            );
        }
        let got = app.get(key, &path).await;
        open_ar += cents(&got.body["balance_due"]);

        let bill = app
            .post_wait(
                key,
                &bills(&org),
                json!({"contact_id": vendor, "items": [{"description": "Stock", "quantity": i + 2, "unit_price": "12.34", "tax_ids": [gst]}]}),
            )
            .await;
        assert_eq!(bill.status, StatusCode::CREATED, "{}", bill.body);
        let path = format!("{}/{}", bills(&org), bill.body["id"].as_str().expect("id"));
        assert_eq!(
            act(app, key, &format!("{path}/approve")).await.status,
            StatusCode::OK
        );
        if i % 2 == 1 {
            let res = app
                .post_wait(key, &format!("{path}/payments"), json!({"amount": "5.00", "payment_date": "2026-03-01", "payment_method": "cash"}))
                .await;
            assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
        }
        let got = app.get(key, &path).await;
        open_ap += cents(&got.body["balance_due"]);
    }
    let ar = app.net_balance(&org, key, "1100").await;
    let ap = app.net_balance(&org, key, "2000").await;
    assert_eq!(cents(&json!(ar)), open_ar);
    assert_eq!(cents(&json!(ap)), open_ap);
    trial_balance_balances(app, &org, key).await;
}
both!(
    invoice_books_balance,
    receivables_and_payables_match_open_documents
);

/// Text of a PDF, read back with poppler's `pdftotext`.
fn pdf_text(bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("ledger-pdf-{}", ulid_like()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("doc.pdf");
    std::fs::write(&file, bytes).expect("write pdf");
    let out = std::process::Command::new("pdftotext")
        .arg("-layout")
        .arg(&file)
        .arg("-")
        .output()
        .expect("pdftotext runs (install poppler-utils)");
    assert!(
        out.status.success(),
        "pdftotext failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ulid_like() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    )
}

async fn invoice_pdf_renders_the_document(app: &TestApp) {
    let org = app.signup("PDF Seller").await;
    let key = &org.test_key;
    let customer = app
        .create_id_wait(
            key,
            &org.path("contacts"),
            json!({"contact_type": "customer", "name": "Müller GmbH", "address": "Königstraße 1",
                   "city": "Łódź", "country": "PL", "email": "ap@mueller.example"}),
        )
        .await;
    let vat = tax(app, &org, key, "VAT", "20", false).await;
    let inv = create_invoice(
        app,
        &org,
        key,
        json!({"contact_id": customer, "invoice_date": "2026-04-01", "due_date": "2026-04-30", "notes": "Pay within 30 days",
               "items": [{"description": "Design work", "quantity": 10, "unit_price": "125.50", "tax_ids": [vat]}]}),
    )
    .await;
    let path = format!("{}/{}", invoices(&org), inv["id"].as_str().expect("id"));
    assert_eq!(
        act(app, key, &format!("{path}/send")).await.status,
        StatusCode::OK
    );
    assert_eq!(
        pay(app, key, &path, "500.00").await.status,
        StatusCode::CREATED
    );
    let credits_before = app.get(&org.live_key, &org.path("billing")).await.body;

    let res = app.fetch_with(Some(key), &format!("{path}/pdf")).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("application/pdf")
    );
    let bytes = res.bytes().await.expect("pdf bytes");
    assert!(bytes.starts_with(b"%PDF-"));
    let text = pdf_text(&bytes);
    for expected in [
        "Invoice",
        "INV-000001",
        "PDF Seller",
        "Müller GmbH",
        "Łódź",
        "2026-04-01",
        "2026-04-30",
        "Design work",
        "1,255.00", // subtotal
        "251.00",   // VAT 20%
        "1,506.00", // total
        "500.00",   // paid
        "1,006.00", // balance due
        "Pay within 30 days",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} missing from:\n{text}"
        );
    }
    // Reading the PDF costs no credits.
    let credits_after = app.get(&org.live_key, &org.path("billing")).await.body;
    assert_eq!(credits_before, credits_after);
    // Another tenant cannot read it.
    let other = app.signup("PDF Other").await;
    refused(
        &app.get(&other.test_key, &format!("{path}/pdf")).await,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    refused(
        &app.get(
            &other.test_key,
            &format!(
                "{}/{}/pdf",
                invoices(&other),
                inv["id"].as_str().expect("id")
            ),
        )
        .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
}
both!(invoice_pdf, invoice_pdf_renders_the_document);
