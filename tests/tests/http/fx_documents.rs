//! Invoices and bills in a foreign currency: revenue and expenses booked in the base
//! currency at the issue date's rate, receivables and payables kept in the document's
//! currency, and each payment's realised gain or loss posted to Realised Currency Gains.

use ledger_tests::{Org, TestApp, both, refused};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

async fn contact(app: &TestApp, org: &Org, contact_type: &str, currency: &str) -> String {
    app.create_id_wait(&org.test_key,
            &org.path("contacts"),
            json!({"contact_type": contact_type, "name": format!("{contact_type} in {currency}"), "currency_id": currency})).await
}

async fn wait(app: &TestApp, org: &Org, method: Method, path: &str, body: Option<Value>) -> Value {
    let res = app
        .call(
            method,
            path,
            Some(&org.test_key),
            body,
            &[("Prefer", "wait=10")],
        )
        .await;
    assert!(res.status.is_success(), "{path}: {}", res.body);
    res.body
}

async fn transaction(app: &TestApp, org: &Org, id: &str) -> Value {
    app.read(&org.test_key, &org.path(&format!("transactions/{id}")))
        .await
}

async fn balanced(app: &TestApp, org: &Org, as_of: &str) {
    let res = app
        .read(
            &org.test_key,
            &org.path(&format!("reports/trial-balance?as_of={as_of}")),
        )
        .await;
    assert_eq!(res["total_debits"], res["total_credits"], "{}", res);
}

async fn a_foreign_invoice_realises_its_gains_on_payment(app: &TestApp) {
    let org = app.signup("FX Invoices").await;
    let invoices = org.path("invoices");
    app.usd_rate(&org, "EUR", "1.10", "2026-01-01").await;
    app.usd_rate(&org, "EUR", "1.15", "2026-02-01").await;
    app.usd_rate(&org, "EUR", "1.05", "2026-03-01").await;
    let customer = contact(app, &org, "customer", "EUR").await;
    let eur_bank = app
        .post(
            &org.test_key,
            &org.path("accounts"),
            json!({"code": "1050", "name": "Bank EUR", "account_type": "asset", "currency": "EUR"}),
        )
        .await;
    assert_eq!(eur_bank.status, StatusCode::CREATED, "{}", eur_bank.body);
    let eur_bank = eur_bank.id();
    let eur_revenue = app
        .post(
            &org.test_key,
            &org.path("accounts"),
            json!({"code": "4050", "name": "Sales EUR", "account_type": "revenue", "currency": "EUR"}),
        )
        .await;
    let eur_revenue = eur_revenue.id();

    // Items are booked in the base currency: an item account in EUR is refused.
    let res = app
        .post(
            &org.test_key,
            &invoices,
            json!({"contact_id": customer, "invoice_date": "2026-01-10", "due_date": "2026-02-10",
                   "items": [{"description": "Consulting", "quantity": 1, "unit_price": "100.00", "account_id": eur_revenue}]}),
        )
        .await;
    refused(&res, StatusCode::UNPROCESSABLE_ENTITY, "currency_mismatch");

    // No rate on the issue date: sending is refused and nothing is posted.
    let early = wait(
        app,
        &org,
        Method::POST,
        &invoices,
        Some(
            json!({"contact_id": customer, "invoice_date": "2025-12-15", "due_date": "2026-01-15",
                     "items": [{"description": "Advice", "quantity": 1, "unit_price": "10.00"}]}),
        ),
    )
    .await;
    let res = app
        .call(
            Method::POST,
            &format!("{invoices}/{}/send", early["id"].as_str().expect("id")),
            Some(&org.test_key),
            None,
            &[],
        )
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "exchange_rate_not_found",
    );

    // 100.00 EUR of consulting on 10 January, at 1.10: 110.00 USD of sales.
    let invoice = wait(
        app,
        &org,
        Method::POST,
        &invoices,
        Some(json!({"contact_id": customer, "invoice_date": "2026-01-10", "due_date": "2026-02-10",
                     "items": [{"description": "Consulting", "quantity": 2, "unit_price": "50.00"}]})),
    )
    .await;
    assert_eq!(invoice["currency"], "EUR");
    assert_eq!(invoice["total"], "100.00");
    let path = format!("{invoices}/{}", invoice["id"].as_str().expect("id"));
    let sent = wait(app, &org, Method::POST, &format!("{path}/send"), None).await;
    assert_ne!(sent["status"], "draft", "{sent}");
    assert_eq!(
        app.net_balance(&org, &org.test_key, "11978").await,
        "100.00"
    );
    assert_eq!(app.net_balance(&org, &org.test_key, "4000").await, "110.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "1100").await, "0.00");
    let receivable = app.account_id(&org, &org.test_key, "11978").await;
    let history = app
        .get(
            &org.test_key,
            &org.path(&format!("accounts/{receivable}/transactions")),
        )
        .await;
    let posting_id = history.body["transactions"][0]["transaction_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no posting on the receivable: {}", history.body));
    let posting = transaction(app, &org, posting_id).await;
    assert_eq!(posting["metadata"]["exchange_rate"], "1.1", "{posting}");
    assert_eq!(posting["metadata"]["booked_in_base"], "110.00", "{posting}");
    assert!(posting["exchange_rates"]["USD"].is_string(), "{posting}");

    // 40.00 EUR into the EUR bank on 5 February at 1.15: worth 46.00, booked at 44.00.
    let first = wait(
        app,
        &org,
        Method::POST,
        &format!("{path}/payments"),
        Some(json!({"amount": "40.00", "payment_date": "2026-02-05", "payment_method": "wire", "account_id": eur_bank})),
    )
    .await;
    let txn = transaction(app, &org, first["transaction_id"].as_str().expect("txn")).await;
    assert_eq!(txn["metadata"]["realised_gain"], "2.00", "{txn}");
    assert_eq!(txn["metadata"]["value_in_base"], "46.00", "{txn}");
    assert_eq!(app.net_balance(&org, &org.test_key, "4960").await, "2.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "1050").await, "40.00");

    // The other 60.00 EUR into Cash (USD) on 5 March at 1.05: 63.00 for 66.00 booked.
    let second = wait(
        app,
        &org,
        Method::POST,
        &format!("{path}/payments"),
        Some(json!({"amount": 60, "payment_date": "2026-03-05", "payment_method": "wire"})),
    )
    .await;
    let txn = transaction(app, &org, second["transaction_id"].as_str().expect("txn")).await;
    assert_eq!(txn["metadata"]["realised_gain"], "-3.00", "{txn}");
    assert_eq!(app.net_balance(&org, &org.test_key, "1000").await, "63.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "4960").await, "-1.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "11978").await, "0.00");
    let paid = app.get(&org.test_key, &path).await;
    assert_eq!(paid.body["status"], "paid", "{}", paid.body);
    // What is still open in the exchange accounts is the 40.00 EUR held, at its 46.00 cost.
    assert_eq!(app.net_balance(&org, &org.test_key, "39978").await, "40.00");
    assert_eq!(
        app.net_balance(&org, &org.test_key, "39840").await,
        "-46.00"
    );
    balanced(app, &org, "2026-03-31").await;

    // A payment dated before any rate is refused before it is queued.
    let another = wait(
        app,
        &org,
        Method::POST,
        &invoices,
        Some(
            json!({"contact_id": customer, "invoice_date": "2026-03-02", "due_date": "2026-04-02",
                     "items": [{"description": "Support", "quantity": 1, "unit_price": "30.00"}]}),
        ),
    )
    .await;
    let another_path = format!("{invoices}/{}", another["id"].as_str().expect("id"));
    wait(
        app,
        &org,
        Method::POST,
        &format!("{another_path}/send"),
        None,
    )
    .await;
    let res = app
        .post(
            &org.test_key,
            &format!("{another_path}/payments"),
            json!({"amount": "5", "payment_date": "2025-06-01", "payment_method": "cash"}),
        )
        .await;
    assert_eq!(res.code(), "exchange_rate_not_found", "{}", res.body);

    // Voiding an unpaid foreign invoice reverses every line in both currencies.
    let voided = wait(
        app,
        &org,
        Method::POST,
        &format!("{another_path}/void"),
        None,
    )
    .await;
    assert_eq!(voided["status"], "void", "{voided}");
    assert_eq!(app.net_balance(&org, &org.test_key, "11978").await, "0.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "4000").await, "110.00");
    balanced(app, &org, "2026-12-31").await;
}

both!(
    foreign_invoice_gains,
    a_foreign_invoice_realises_its_gains_on_payment
);

async fn a_yen_bill_rounds_to_whole_yen_and_cents(app: &TestApp) {
    let org = app.signup("FX Bills").await;
    let bills = org.path("bills");
    app.usd_rate(&org, "JPY", "0.0067", "2026-01-01").await;
    app.usd_rate(&org, "JPY", "0.007", "2026-02-01").await;
    let vendor = contact(app, &org, "vendor", "JPY").await;

    // A yen amount with decimals is refused: JPY has no minor unit.
    let res = app
        .post(
            &org.test_key,
            &bills,
            json!({"contact_id": vendor, "bill_date": "2026-01-20", "due_date": "2026-02-20",
                   "items": [{"description": "Parts", "quantity": 1, "unit_price": "10000.5"}]}),
        )
        .await;
    // The contact's currency decides the places; more is invalid input (400).
    assert_eq!(
        (res.status, res.code()),
        (reqwest::StatusCode::BAD_REQUEST, "invalid_field"),
        "{}",
        res.body
    );
    assert_eq!(
        res.body["error"]["type"], "validation_error",
        "{}",
        res.body
    );

    let bill = wait(
        app,
        &org,
        Method::POST,
        &bills,
        Some(
            json!({"contact_id": vendor, "bill_date": "2026-01-20", "due_date": "2026-02-20",
                     "items": [{"description": "Parts", "quantity": 1, "unit_price": "10000"}]}),
        ),
    )
    .await;
    assert_eq!(bill["total"], "10000", "{bill}");
    let path = format!("{bills}/{}", bill["id"].as_str().expect("id"));
    wait(app, &org, Method::POST, &format!("{path}/approve"), None).await;
    // 10 000 JPY at 0.0067: 67.00 USD of expenses, 10 000 JPY payable.
    assert_eq!(app.net_balance(&org, &org.test_key, "5000").await, "67.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "20392").await, "10000");

    // 3 333 JPY at 0.007 cost 23.33 (23.331) for 22.33 booked (22.3311): a 1.00 loss.
    let first = wait(
        app,
        &org,
        Method::POST,
        &format!("{path}/payments"),
        Some(json!({"amount": 3333, "payment_date": "2026-02-10", "payment_method": "wire"})),
    )
    .await;
    let txn = transaction(app, &org, first["transaction_id"].as_str().expect("txn")).await;
    assert_eq!(txn["metadata"]["realised_gain"], "-1.00", "{txn}");
    // The rest, 6 667 JPY, costs 46.67 (46.669) for the 44.67 still booked: 2.00 more.
    let second = wait(
        app,
        &org,
        Method::POST,
        &format!("{path}/payments"),
        Some(json!({"amount": "6667", "payment_date": "2026-02-11", "payment_method": "wire"})),
    )
    .await;
    let txn = transaction(app, &org, second["transaction_id"].as_str().expect("txn")).await;
    assert_eq!(txn["metadata"]["realised_gain"], "-2.00", "{txn}");
    // In all, 10 000 x (0.0067 - 0.007) = -3.00, and nothing is left open.
    assert_eq!(app.net_balance(&org, &org.test_key, "4960").await, "-3.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "20392").await, "0");
    assert_eq!(app.net_balance(&org, &org.test_key, "1000").await, "-70.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "39392").await, "0");
    assert_eq!(app.net_balance(&org, &org.test_key, "39840").await, "0.00");
    balanced(app, &org, "2026-02-28").await;
}

both!(
    foreign_bill_rounding,
    a_yen_bill_rounds_to_whole_yen_and_cents
);

async fn graphql_books_a_foreign_invoice_alike(app: &TestApp) {
    let org = app.signup("FX GraphQL").await;
    app.usd_rate(&org, "GBP", "1.25", "2026-01-01").await;
    app.usd_rate(&org, "GBP", "1.30", "2026-02-01").await;
    let customer = contact(app, &org, "customer", "GBP").await;
    let created = app.gql_data(&org.test_key, "mutation($c: ID!) { createInvoice(contactId: $c, invoiceDate: \"2026-01-05\", dueDate: \"2099-02-05\",
           items: [{description: \"Design\", quantity: \"4\", unitPrice: \"25.00\"}]) { id currency total } }",
        json!({ "c": customer }),
    )
    .await;
    assert_eq!(created["createInvoice"]["currency"], "GBP", "{created}");
    let id = created["createInvoice"]["id"].clone();
    let sent = app
        .gql_data(
            &org.test_key,
            "mutation($id: ID!) { sendInvoice(id: $id) { status } }",
            json!({ "id": id }),
        )
        .await;
    assert_eq!(sent["sendInvoice"]["status"], "sent", "{sent}");
    // 100.00 GBP at 1.25 is 125.00 USD of sales; paid at 1.30, it realises 5.00.
    assert_eq!(app.net_balance(&org, &org.test_key, "4000").await, "125.00");
    app.gql_data(&org.test_key, "mutation($id: ID!) { recordInvoicePayment(invoiceId: $id, amount: \"100\", paymentDate: \"2026-02-02\",
           paymentMethod: \"wire\") { id } }",
        json!({ "id": id }),
    )
    .await;
    assert_eq!(app.net_balance(&org, &org.test_key, "4960").await, "5.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "1000").await, "130.00");
    assert_eq!(app.net_balance(&org, &org.test_key, "11826").await, "0.00");
    balanced(app, &org, "2026-02-28").await;
}

both!(
    graphql_foreign_invoice,
    graphql_books_a_foreign_invoice_alike
);
