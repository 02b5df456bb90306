//! GraphQL invoices and bills (spec 2.8, 4.12) on both databases: create, send/approve,
//! pay and read back with payments and contact; the 4.12 credit costs charged and
//! refused; overpayment and state errors; tenant isolation; contacts of a list loaded in
//! a fixed number of store queries.

use ledger_tests::{TestApp, both};
use serde_json::{Value, json};

use super::credits;

const CREATE_INVOICE: &str = "mutation($c: ID!, $items: [InvoiceItemInput!]!, $notes: String) {
  createInvoice(contactId: $c, invoiceDate: \"2026-03-01\", dueDate: \"2099-03-31T12:30:00Z\",
                items: $items, notes: $notes) {
    id invoiceNumber contactId invoiceDate dueDate status currency subtotal taxAmount total
    amountPaid balanceDue notes createdAt
    items { description quantity unitPrice amount taxAmount lineTotal accountId taxIds itemId }
    payments { id }
    contact { name email }
  }
}";

const CREATE_BILL: &str = "mutation($c: ID!, $items: [BillItemInput!]!) {
  createBill(contactId: $c, billDate: \"2026-04-02\", dueDate: \"2099-05-01\", items: $items) {
    id billNumber contactId billDate dueDate status total balanceDue
    items { description quantity unitPrice lineTotal accountId }
  }
}";

const PAY_INVOICE: &str = "mutation($id: ID!, $amount: Decimal!) {
  recordInvoicePayment(invoiceId: $id, amount: $amount, paymentDate: \"2026-03-15\",
                       paymentMethod: \"bank_transfer\", reference: \"WIRE-1\", notes: \"first\") {
    id invoiceId billId amount paymentDate paymentMethod reference notes createdAt
  }
}";

const PAY_BILL: &str = "mutation($id: ID!, $amount: Decimal!) {
  recordBillPayment(billId: $id, amount: $amount, paymentDate: \"2026-04-10\",
                    paymentMethod: \"check\") {
    id invoiceId billId amount paymentDate paymentMethod
  }
}";

const READ_INVOICE: &str = "query($id: ID!) {
  invoice(id: $id) {
    invoiceNumber status total amountPaid balanceDue
    contact { name email }
    payments { id invoiceId amount paymentDate paymentMethod reference notes }
  }
}";

/// Creates a customer (or vendor) through GraphQL (1 credit); returns its id.
async fn contact(app: &TestApp, key: &str, name: &str, vendor: bool) -> String {
    let query = format!(
        "mutation($n: String!) {{ createContact(name: $n, contactType: {}, email: \"ap@example.com\") {{ id }} }}",
        if vendor { "VENDOR" } else { "CUSTOMER" }
    );
    let d = app.gql_data(key, &query, json!({ "n": name })).await;
    d["createContact"]["id"]
        .as_str()
        .expect("contact id")
        .to_owned()
}

fn items() -> Value {
    json!([
        { "description": "Consulting", "quantity": "2", "unitPrice": "50.00", "itemId": "SKU-1" },
        { "description": "Travel", "quantity": "1.5", "unitPrice": "10.00" },
    ])
}

async fn invoice_flow(app: &TestApp) {
    let org = app.signup("Gql Invoices").await;
    let key = &org.live_key;
    let customer = contact(app, key, "Acme Corp", false).await;
    let start = credits(app, key).await;

    // Create: 5 credits (spec 4.12), a draft with the priced items.
    let d = app
        .gql_data(
            key,
            CREATE_INVOICE,
            json!({ "c": customer, "items": items(), "notes": "Thanks" }),
        )
        .await;
    let inv = &d["createInvoice"];
    let id = inv["id"].as_str().expect("invoice id").to_owned();
    assert!(id.starts_with("inv_"), "{inv}");
    assert_eq!(inv["invoiceNumber"], "INV-000001");
    assert_eq!(inv["contactId"], customer.as_str());
    assert_eq!(inv["invoiceDate"], "2026-03-01T00:00:00Z");
    // A date-time input keeps its UTC date; output is midnight UTC.
    assert_eq!(inv["dueDate"], "2099-03-31T00:00:00Z");
    assert_eq!(inv["status"], "draft");
    assert_eq!(inv["currency"], "USD");
    assert_eq!(inv["subtotal"], "115.00");
    assert_eq!(inv["taxAmount"], "0.00");
    assert_eq!(inv["total"], "115.00");
    assert_eq!(inv["amountPaid"], "0.00");
    assert_eq!(inv["balanceDue"], "115.00");
    assert_eq!(inv["notes"], "Thanks");
    assert_eq!(inv["items"][0]["quantity"], "2");
    assert_eq!(inv["items"][0]["unitPrice"], "50.00");
    assert_eq!(inv["items"][0]["lineTotal"], "100.00");
    assert_eq!(inv["items"][0]["itemId"], "SKU-1");
    assert_eq!(inv["items"][1]["quantity"], "1.5");
    assert_eq!(inv["items"][1]["lineTotal"], "15.00");
    assert_eq!(inv["items"][1]["itemId"], Value::Null);
    assert_eq!(inv["items"][0]["taxIds"], json!([]));
    let sales = app.account_id(&org, key, "4000").await;
    assert_eq!(inv["items"][0]["accountId"], sales.as_str());
    assert_eq!(inv["payments"], json!([]));
    assert_eq!(inv["contact"]["name"], "Acme Corp");
    assert_eq!(credits(app, key).await, start - 5);

    // A payment on a draft is refused and costs nothing.
    let res = app
        .gql_refused(
            Some(key),
            PAY_INVOICE,
            json!({ "id": id, "amount": "10.00" }),
            "BUSINESS_RULE_VIOLATION",
        )
        .await;
    assert_eq!(res.gql_reason(), "invalid_state_transition", "{}", res.body);
    assert_eq!(res.body["data"]["recordInvoicePayment"], Value::Null);
    assert_eq!(credits(app, key).await, start - 5);

    // Send (1 credit, as REST).
    let d = app
        .gql_data(
            key,
            "mutation($id: ID!) { sendInvoice(id: $id) { status } }",
            json!({ "id": id }),
        )
        .await;
    assert_eq!(d["sendInvoice"]["status"], "sent");
    assert_eq!(credits(app, key).await, start - 6);

    // Pay part: 2 credits; the client reads the payment it wrote.
    let d = app
        .gql_data(key, PAY_INVOICE, json!({ "id": id, "amount": "40.00" }))
        .await;
    let p = &d["recordInvoicePayment"];
    assert!(
        p["id"].as_str().is_some_and(|s| s.starts_with("pay_")),
        "{p}"
    );
    assert_eq!(p["invoiceId"], id.as_str());
    assert_eq!(p["billId"], Value::Null);
    assert_eq!(p["amount"], "40.00");
    assert_eq!(p["paymentDate"], "2026-03-15T00:00:00Z");
    assert_eq!(p["paymentMethod"], "bank_transfer");
    assert_eq!(p["reference"], "WIRE-1");
    assert_eq!(p["notes"], "first");
    assert_eq!(credits(app, key).await, start - 8);

    // Overpaying is a business rule; nothing is charged or written.
    let res = app
        .gql_refused(
            Some(key),
            PAY_INVOICE,
            json!({ "id": id, "amount": "75.01" }),
            "BUSINESS_RULE_VIOLATION",
        )
        .await;
    assert_eq!(res.gql_reason(), "overpayment", "{}", res.body);
    // A bad amount is a validation error.
    app.gql_refused(
        Some(key),
        PAY_INVOICE,
        json!({ "id": id, "amount": "-1" }),
        "VALIDATION_ERROR",
    )
    .await;
    // A float amount never reaches the resolver.
    app.gql_refused(Some(key),
        "mutation($id: ID!) { recordInvoicePayment(invoiceId: $id, amount: 1.5, paymentDate: \"2026-03-15\", paymentMethod: \"cash\") { id } }",
        json!({ "id": id }), "GRAPHQL_VALIDATION_FAILED").await;
    assert_eq!(credits(app, key).await, start - 8);

    let d = app.gql_data(key, READ_INVOICE, json!({ "id": id })).await;
    let inv = &d["invoice"];
    assert_eq!(inv["status"], "partially_paid");
    assert_eq!(inv["amountPaid"], "40.00");
    assert_eq!(inv["balanceDue"], "75.00");
    assert_eq!(
        inv["contact"],
        json!({ "name": "Acme Corp", "email": "ap@example.com" })
    );
    assert_eq!(inv["payments"].as_array().map(Vec::len), Some(1));
    assert_eq!(inv["payments"][0]["amount"], "40.00");
    assert_eq!(inv["payments"][0]["paymentMethod"], "bank_transfer");

    // The rest pays it; a further payment is an invalid transition.
    app.gql_data(key, PAY_INVOICE, json!({ "id": id, "amount": "75.00" }))
        .await;
    let d = app.gql_data(key, READ_INVOICE, json!({ "id": id })).await;
    assert_eq!(d["invoice"]["status"], "paid");
    assert_eq!(d["invoice"]["balanceDue"], "0.00");
    assert_eq!(d["invoice"]["payments"].as_array().map(Vec::len), Some(2));
    let res = app
        .gql_refused(
            Some(key),
            PAY_INVOICE,
            json!({ "id": id, "amount": "1.00" }),
            "BUSINESS_RULE_VIOLATION",
        )
        .await;
    assert_eq!(res.gql_reason(), "invalid_state_transition", "{}", res.body);
    assert_eq!(credits(app, key).await, start - 10);

    // The books: receivable paid off, cash in.
    let d = app
        .gql_data(
            key,
            "query($id: ID!) { account(id: $id) { balance { amount } } }",
            json!({ "id": app.account_id(&org, key, "1000").await }),
        )
        .await;
    assert_eq!(d["account"]["balance"]["amount"], "115.00");

    // Lists, by stored status.
    let d = app.gql_data(key,
        "{ organization { paid: invoices(status: \"paid\") { invoiceNumber } draft: invoices(status: \"draft\") { id } bills { id } } }",
        json!({}),
    )
    .await;
    assert_eq!(
        d["organization"]["paid"],
        json!([{ "invoiceNumber": "INV-000001" }])
    );
    assert_eq!(d["organization"]["draft"], json!([]));
    assert_eq!(d["organization"]["bills"], json!([]));
    app.gql_refused(
        Some(key),
        "{ organization { invoices(status: \"open\") { id } } }",
        json!({}),
        "VALIDATION_ERROR",
    )
    .await;

    // Input errors: unknown contact, zero quantity; nothing is charged.
    let before = credits(app, key).await;
    let res = app
        .gql_refused(
            Some(key),
            CREATE_INVOICE,
            json!({ "c": "con_nothing", "items": items() }),
            "BUSINESS_RULE_VIOLATION",
        )
        .await;
    assert_eq!(res.gql_reason(), "reference_not_found", "{}", res.body);
    app.gql_refused(Some(key),
        CREATE_INVOICE,
        json!({ "c": customer, "items": [{ "description": "x", "quantity": "0", "unitPrice": "1.00" }] }), "VALIDATION_ERROR").await;
    assert_eq!(credits(app, key).await, before);
    // `invoice` of an unknown id is null, not an error.
    let d = app
        .gql_data(key, READ_INVOICE, json!({ "id": "inv_unknown" }))
        .await;
    assert_eq!(d["invoice"], Value::Null);
}
both!(graphql_invoice_flow, invoice_flow);

async fn bill_flow(app: &TestApp) {
    let org = app.signup("Gql Bills").await;
    let key = &org.live_key;
    let vendor = contact(app, key, "Paper Supply", true).await;
    let start = credits(app, key).await;
    let d = app.gql_data(key,
        CREATE_BILL,
        json!({ "c": vendor, "items": [{ "description": "Paper", "quantity": "3", "unitPrice": "20.00" }] }),
    )
    .await;
    let bill = &d["createBill"];
    let id = bill["id"].as_str().expect("bill id").to_owned();
    assert!(id.starts_with("bil_"), "{bill}");
    assert_eq!(bill["billNumber"], "BILL-000001");
    assert_eq!(bill["billDate"], "2026-04-02T00:00:00Z");
    assert_eq!(bill["status"], "draft");
    assert_eq!(bill["total"], "60.00");
    assert_eq!(
        bill["items"][0]["accountId"],
        app.account_id(&org, key, "5000").await.as_str()
    );
    assert_eq!(credits(app, key).await, start - 5);

    let d = app
        .gql_data(
            key,
            "mutation($id: ID!) { approveBill(id: $id) { status balanceDue } }",
            json!({ "id": id }),
        )
        .await;
    assert_eq!(d["approveBill"]["status"], "open");
    assert_eq!(credits(app, key).await, start - 6);

    let d = app
        .gql_data(key, PAY_BILL, json!({ "id": id, "amount": "60.00" }))
        .await;
    let p = &d["recordBillPayment"];
    assert_eq!(p["billId"], id.as_str());
    assert_eq!(p["invoiceId"], Value::Null);
    assert_eq!(p["amount"], "60.00");
    assert_eq!(p["paymentDate"], "2026-04-10T00:00:00Z");
    assert_eq!(p["paymentMethod"], "check");
    assert_eq!(credits(app, key).await, start - 8);
    app.gql_refused(
        Some(key),
        PAY_BILL,
        json!({ "id": id, "amount": "1.00" }),
        "BUSINESS_RULE_VIOLATION",
    )
    .await;

    let d = app.gql_data(key,
        "query($id: ID!) { bill(id: $id) { billNumber status amountPaid balanceDue contact { name }
           payments { billId amount } } }",
        json!({ "id": id }),
    )
    .await;
    assert_eq!(d["bill"]["status"], "paid");
    assert_eq!(d["bill"]["amountPaid"], "60.00");
    assert_eq!(d["bill"]["balanceDue"], "0.00");
    assert_eq!(d["bill"]["contact"]["name"], "Paper Supply");
    assert_eq!(d["bill"]["payments"][0]["billId"], id.as_str());
    // A bill id is not an invoice id.
    let d = app.gql_data(key, READ_INVOICE, json!({ "id": id })).await;
    assert_eq!(d["invoice"], Value::Null);
    let d = app
        .gql_data(
            key,
            "{ organization { bills(status: \"paid\") { billNumber } } }",
            json!({}),
        )
        .await;
    assert_eq!(
        d["organization"]["bills"],
        json!([{ "billNumber": "BILL-000001" }])
    );
}
both!(graphql_bill_flow, bill_flow);

async fn isolation(app: &TestApp) {
    let a = app.signup("Gql Doc Owner").await;
    let b = app.signup("Gql Doc Other").await;
    let customer = contact(app, &a.live_key, "Owner Customer", false).await;
    let d = app
        .gql_data(
            &a.live_key,
            CREATE_INVOICE,
            json!({ "c": customer, "items": items() }),
        )
        .await;
    let id = d["createInvoice"]["id"].as_str().expect("id").to_owned();
    app.gql_data(
        &a.live_key,
        "mutation($id: ID!) { sendInvoice(id: $id) { id } }",
        json!({ "id": id }),
    )
    .await;

    // The other organization sees nothing and changes nothing.
    let d = app
        .gql_data(&b.live_key, READ_INVOICE, json!({ "id": id }))
        .await;
    assert_eq!(d["invoice"], Value::Null);
    let d = app
        .gql_data(
            &b.live_key,
            "{ organization { invoices { id } } }",
            json!({}),
        )
        .await;
    assert_eq!(d["organization"]["invoices"], json!([]));
    app.gql_refused(
        Some(&b.live_key),
        "query($org: ID!) { organizationById(id: $org) { invoices { id } } }",
        json!({ "org": a.id }),
        "FORBIDDEN",
    )
    .await;
    let b_start = credits(app, &b.live_key).await;
    let res = app
        .gql_refused(
            Some(&b.live_key),
            PAY_INVOICE,
            json!({ "id": id, "amount": "1.00" }),
            "VALIDATION_ERROR",
        )
        .await;
    assert_eq!(res.gql_reason(), "resource_not_found", "{}", res.body);
    app.gql_refused(
        Some(&b.live_key),
        "mutation($id: ID!) { sendInvoice(id: $id) { id } }",
        json!({ "id": id }),
        "VALIDATION_ERROR",
    )
    .await;
    // Another organization's contact cannot be invoiced: none of B's contacts.
    let res = app
        .gql_refused(
            Some(&b.live_key),
            CREATE_INVOICE,
            json!({ "c": customer, "items": items() }),
            "BUSINESS_RULE_VIOLATION",
        )
        .await;
    assert_eq!(res.gql_reason(), "reference_not_found", "{}", res.body);
    assert_eq!(credits(app, &b.live_key).await, b_start);
    // The test mode of the owner does not see live documents either.
    let d = app
        .gql_data(&a.test_key, READ_INVOICE, json!({ "id": id }))
        .await;
    assert_eq!(d["invoice"], Value::Null);
    let d = app
        .gql_data(&a.live_key, READ_INVOICE, json!({ "id": id }))
        .await;
    assert_eq!(d["invoice"]["amountPaid"], "0.00");
    assert_eq!(d["invoice"]["status"], "sent");
}
both!(graphql_document_isolation, isolation);

/// Store queries of one list of invoices with their contacts and payments, and how many
/// invoices it listed. The counter is the pool's, which the server's background work
/// (job claims, sweeps) also moves, so the fewest of three reads is the list's own cost.
async fn count_list_queries(app: &TestApp, key: &str) -> (u64, usize) {
    let query = "{ organization { invoices(limit: 100) { invoiceNumber contact { name } payments { amount } } } }";
    let mut fewest = (u64::MAX, 0);
    for _ in 0..3 {
        let before = app.queries_executed();
        let d = app.gql_data(key, query, json!({})).await;
        let n = app.queries_executed() - before;
        let list = d["organization"]["invoices"].as_array().expect("invoices");
        assert!(list.iter().all(|i| i["contact"]["name"].is_string()), "{d}");
        fewest = fewest.min((n, list.len()));
    }
    fewest
}

async fn batched_contacts(app: &TestApp) {
    let org = app.signup("Gql Doc Batch").await;
    let key = &org.live_key;
    for i in 0..2 {
        let c = contact(app, key, &format!("Customer {i}"), false).await;
        app.gql_data(key, CREATE_INVOICE, json!({ "c": c, "items": items() }))
            .await;
    }
    let (small, listed) = count_list_queries(app, key).await;
    assert_eq!(listed, 2);
    assert_eq!(count_list_queries(app, key).await, (small, 2));
    for i in 2..7 {
        let c = contact(app, key, &format!("Customer {i}"), false).await;
        app.gql_data(key, CREATE_INVOICE, json!({ "c": c, "items": items() }))
            .await;
    }
    let (large, listed) = count_list_queries(app, key).await;
    assert_eq!(listed, 7);
    assert_eq!(
        large, small,
        "7 invoices took {large} queries, 2 took {small}"
    );
}
both!(graphql_document_batch, batched_contacts);

async fn document_credit_refusals(app: &TestApp) {
    // 7 credits: a contact (1), an invoice (5), sending it (1); then nothing is left.
    let org = app.signup("Gql Doc Poor").await;
    let key = &org.live_key;
    let customer = contact(app, key, "Poor Customer", false).await;
    let d = app
        .gql_data(
            key,
            CREATE_INVOICE,
            json!({ "c": customer, "items": items() }),
        )
        .await;
    let id = d["createInvoice"]["id"].as_str().expect("id").to_owned();
    assert_eq!(credits(app, key).await, 1);
    // A second invoice costs 5 with 1 left.
    let res = app
        .gql_refused(
            Some(key),
            CREATE_INVOICE,
            json!({ "c": customer, "items": items() }),
            "CREDIT_LIMIT_EXCEEDED",
        )
        .await;
    assert_eq!(res.body["errors"][0]["extensions"]["required"], 5);
    assert_eq!(res.body["errors"][0]["extensions"]["available"], 1);
    app.gql_data(
        key,
        "mutation($id: ID!) { sendInvoice(id: $id) { id } }",
        json!({ "id": id }),
    )
    .await;
    // A payment costs 2 with none left; nothing is written.
    let res = app
        .gql_refused(
            Some(key),
            PAY_INVOICE,
            json!({ "id": id, "amount": "1.00" }),
            "CREDIT_LIMIT_EXCEEDED",
        )
        .await;
    assert_eq!(res.body["errors"][0]["extensions"]["required"], 2);
    let d = app
        .gql_data(
            key,
            "{ organization { invoices { id amountPaid payments { id } } } }",
            json!({}),
        )
        .await;
    assert_eq!(
        d["organization"]["invoices"],
        json!([{ "id": id, "amountPaid": "0.00", "payments": [] }])
    );
}

both!(
    graphql_document_credit_refusals,
    document_credit_refusals,
    |c| c.signup_credits = 7
);
