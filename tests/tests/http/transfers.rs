//! Account-to-account transfers and multi-currency journals: a transfer is a pending
//! transaction written by `transfer`, posted and reversed like one; between currencies
//! it passes through an exchange account per currency, so every currency balances on
//! its own and the rate used is read back; amounts follow each currency's minor unit.

use ledger_tests::mcp::tool_ok;
use ledger_tests::{Org, TestApp, both, entries, refused_case};
use reqwest::{Method, StatusCode};
use serde_json::json;

fn transfers(org: &Org) -> String {
    org.path("transfers")
}

/// Creates an account of `currency`; its id.
async fn account(app: &TestApp, org: &Org, code: &str, currency: &str) -> String {
    app.create_id(&org.test_key,
            &org.path("accounts"),
            json!({"code": code, "name": format!("Bank {currency} {code}"), "account_type": "asset", "currency": currency})).await
}

async fn a_transfer_is_created_pending_then_posted_and_reversed(app: &TestApp) {
    let org = app.signup("Transfers").await;
    let key = &org.test_key;
    let cash = app.account_id(&org, key, "1000").await;
    let checking = account(app, &org, "1010", "USD").await;

    let res = app
        .post_wait(
            key,
            &transfers(&org),
            json!({"from_account_id": cash, "to_account_id": checking, "amount": "250.00",
                   "date": "2026-03-01", "reference": "T-1"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let transfer = res.body.clone();
    assert_eq!(transfer["object"], "transfer");
    assert_eq!(transfer["status"], "pending");
    assert_eq!(
        (
            &transfer["amount"],
            &transfer["to_amount"],
            &transfer["exchange_rate"]
        ),
        (&json!("250.00"), &json!("250.00"), &json!("1"))
    );
    assert_eq!(transfer["from_account_id"], json!(cash));
    assert_eq!(transfer["to_account_id"], json!(checking));
    assert_eq!(
        transfer["description"],
        "Transfer from Cash to Bank USD 1010"
    );
    let id = transfer["id"].as_str().expect("id").to_owned();
    // Pending moves nothing.
    assert_eq!(app.balance(&org, key, &checking).await["debit"], "0.00");

    let res = app.get(key, &format!("{}/{id}", transfers(&org))).await;
    assert_eq!(res.body, transfer, "a read answers what the create did");
    let list = app.get(key, &transfers(&org)).await;
    assert_eq!(list.body["total_count"], 1, "{}", list.body);
    assert_eq!(list.body["data"][0]["id"], json!(id));
    // A plain transaction is not a transfer.
    let plain = app.post_transfer(&org, key, &checking, &cash, "1.00").await;
    let res = app
        .get(
            key,
            &format!("{}/{}", transfers(&org), plain["id"].as_str().unwrap()),
        )
        .await;
    refused_case("plain", &res, StatusCode::NOT_FOUND, "resource_not_found");
    let res = app
        .call(
            Method::POST,
            &format!("{}/{}/post", transfers(&org), plain["id"].as_str().unwrap()),
            Some(key),
            None,
            &[("Prefer", "wait=10")],
        )
        .await;
    refused_case(
        "post plain",
        &res,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    assert_eq!(
        app.get(key, &transfers(&org)).await.body["total_count"],
        1,
        "transfers list only transfers"
    );

    // Another organization's key reaches none of it.
    let other = app.signup("Transfers Other").await;
    let res = app
        .get(&other.test_key, &format!("{}/{id}", transfers(&org)))
        .await;
    refused_case(
        "foreign org",
        &res,
        StatusCode::NOT_FOUND,
        "organization_not_found",
    );
    let res = app
        .get(&other.test_key, &format!("{}/{id}", transfers(&other)))
        .await;
    refused_case(
        "foreign id",
        &res,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    let res = app
        .call(
            Method::POST,
            &format!("{}/{id}/post", transfers(&other)),
            Some(&other.test_key),
            None,
            &[("Prefer", "wait=10")],
        )
        .await;
    refused_case(
        "foreign post",
        &res,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );

    let res = app
        .call(
            Method::POST,
            &format!("{}/{id}/post", transfers(&org)),
            Some(key),
            None,
            &[("Prefer", "wait=10")],
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (&res.body["object"], &res.body["status"]),
        (&json!("transfer"), &json!("posted"))
    );
    assert_eq!(app.balance(&org, key, &checking).await["debit"], "251.00");
    assert_eq!(app.balance(&org, key, &cash).await["credit"], "251.00");

    let res = app
        .post_wait(key, &format!("{}/{id}/reverse", transfers(&org)), json!({}))
        .await;
    refused_case("no reason", &res, StatusCode::BAD_REQUEST, "missing_field");
    let res = app
        .post_wait(
            key,
            &format!("{}/{id}/reverse", transfers(&org)),
            json!({"reason": "wrong account"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["status"], "reversed");
    let mirror = res.body["reversed_by"].as_str().expect("mirror").to_owned();
    let net = app.balance(&org, key, &checking).await;
    assert_eq!(
        (&net["debit"], &net["credit"]),
        (&json!("251.00"), &json!("250.00"))
    );
    let res = app
        .get(key, &org.path(&format!("transactions/{mirror}")))
        .await;
    assert_eq!(res.body["reversal_of"], json!(id));
    let res = app
        .get(key, &format!("{}?status=reversed", transfers(&org)))
        .await;
    assert_eq!(res.body["total_count"], 1, "{}", res.body);
}

both!(a_transfer_is_created_pending_then_posted_and_reversed);

async fn bad_transfers_are_refused_and_change_nothing(app: &TestApp) {
    let org = app.signup("Bad Transfers").await;
    let key = &org.test_key;
    let cash = app.account_id(&org, key, "1000").await;
    let euro = account(app, &org, "1020", "EUR").await;
    let yen = account(app, &org, "1030", "JPY").await;
    // Malformed input is 400; well-formed input that names no account, or whose members
    // contradict each other or the accounts' currencies, is 422 (docs/decisions.md).
    let (bad, rule) = (StatusCode::BAD_REQUEST, StatusCode::UNPROCESSABLE_ENTITY);
    let cases = [
        (
            json!({"to_account_id": euro, "amount": "1"}),
            bad,
            "missing_field",
            "from_account_id",
        ),
        (
            json!({"from_account_id": cash, "to_account_id": cash, "amount": "1"}),
            rule,
            "inconsistent_fields",
            "to_account_id",
        ),
        (
            json!({"from_account_id": cash, "to_account_id": "act_nope", "amount": "1"}),
            rule,
            "reference_not_found",
            "to_account_id",
        ),
        (
            json!({"from_account_id": cash, "to_account_id": euro, "amount": "1.00"}),
            rule,
            "inconsistent_fields",
            "to_amount",
        ),
        // More places than the account's currency has: invalid input (400).
        (
            json!({"from_account_id": cash, "to_account_id": euro, "amount": "1.001", "to_amount": "1"}),
            bad,
            "invalid_field",
            "amount",
        ),
        (
            json!({"from_account_id": cash, "to_account_id": yen, "amount": "10.00", "to_amount": "1500.5"}),
            bad,
            "invalid_field",
            "to_amount",
        ),
        (
            json!({"from_account_id": cash, "to_account_id": euro, "amount": "-5", "to_amount": "1"}),
            bad,
            "invalid_field",
            "amount",
        ),
        (
            json!({"from_account_id": cash, "to_account_id": euro, "amount": "5", "to_amount": "1", "color": "red"}),
            bad,
            "unknown_field",
            "color",
        ),
    ];
    for (body, status, code, field) in cases {
        let res = app.post_wait(key, &transfers(&org), body.clone()).await;
        refused_case(&body, &res, status, code);
        assert_eq!(res.body["error"]["details"]["field"], field, "{body}");
    }
    let unknown = app
        .post_wait(
            key,
            &transfers(&org),
            json!({"from_account_id": cash, "to_account_id": "act_nope", "amount": "1"}),
        )
        .await;
    assert_eq!(unknown.body["error"]["type"], "business_rule_error");
    assert_eq!(unknown.body["error"]["status"], 422);
    assert_eq!(
        unknown.body["error"]["details"],
        json!({"field": "to_account_id", "resource": "account", "id": "act_nope"})
    );
    assert_eq!(app.get(key, &transfers(&org)).await.body["total_count"], 0);
    // Nothing was written: no exchange account either.
    let accounts = app.get(key, &org.path("accounts?limit=100")).await;
    assert!(
        accounts.body["data"]
            .as_array()
            .expect("accounts")
            .iter()
            .all(|a| !a["code"].as_str().unwrap_or("").starts_with("39")),
        "{}",
        accounts.body
    );
}

both!(bad_transfers_are_refused_and_change_nothing);

async fn transfers_between_currencies_balance_in_each(app: &TestApp) {
    let org = app.signup("FX Transfers").await;
    let key = &org.test_key;
    let cash = app.account_id(&org, key, "1000").await;
    let euro = account(app, &org, "1020", "EUR").await;
    let yen = account(app, &org, "1030", "JPY").await;
    let dinar = account(app, &org, "1040", "KWD").await;

    let res = app
        .post_wait(
            key,
            &transfers(&org),
            json!({"from_account_id": cash, "to_account_id": euro, "amount": 100,
                   "to_amount": "92.50", "date": "2026-04-01", "auto_post": true}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(
        (
            &res.body["status"],
            &res.body["currency"],
            &res.body["to_currency"]
        ),
        (&json!("posted"), &json!("USD"), &json!("EUR"))
    );
    assert_eq!(res.body["exchange_rate"], "0.925");
    let txn = app
        .get(
            key,
            &format!(
                "/organizations/{}/transactions/{}",
                org.id,
                res.body["id"].as_str().unwrap()
            ),
        )
        .await
        .body;
    let entries = txn["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 4, "{txn}");
    let currencies: Vec<&str> = entries
        .iter()
        .map(|e| e["currency"].as_str().unwrap())
        .collect();
    assert_eq!(currencies, ["USD", "USD", "EUR", "EUR"]);
    assert_eq!(txn["exchange_rates"], json!({"EUR": "0.925"}));
    assert_eq!(app.balance(&org, key, &euro).await["debit"], "92.50");
    assert_eq!(app.balance(&org, key, &cash).await["credit"], "100.00");
    // The exchange accounts are system equity accounts, one per currency.
    let [usd_exchange, eur_exchange] = app.account_ids(&org, key, ["39840", "39978"]).await;
    assert_eq!(
        app.balance(&org, key, &usd_exchange).await["debit"],
        "100.00"
    );
    assert_eq!(
        app.balance(&org, key, &eur_exchange).await["credit"],
        "92.50"
    );
    let res = app
        .get(key, &org.path(&format!("accounts/{eur_exchange}")))
        .await;
    assert_eq!(
        (
            &res.body["is_system"],
            &res.body["type"],
            &res.body["currency"]
        ),
        (&json!(true), &json!("equity"), &json!("EUR")),
        "{}",
        res.body
    );

    // Minor units: JPY has none, KWD three. The USD exchange account is reused.
    let res = app
        .post_wait(
            key,
            &transfers(&org),
            json!({"from_account_id": cash, "to_account_id": yen, "amount": "10.00",
                   "to_amount": 1503, "date": "2026-04-02", "auto_post": true}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(
        (&res.body["to_amount"], &res.body["exchange_rate"]),
        (&json!("1503"), &json!("150.3"))
    );
    let res = app
        .post_wait(
            key,
            &transfers(&org),
            json!({"from_account_id": yen, "to_account_id": dinar, "amount": 1000,
                   "to_amount": "2.046", "date": "2026-04-03", "auto_post": true}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(
        (&res.body["amount"], &res.body["to_amount"]),
        (&json!("1000"), &json!("2.046"))
    );
    assert_eq!(res.body["exchange_rate"], "0.002046");
    assert_eq!(app.balance(&org, key, &yen).await["net"], "503");
    assert_eq!(app.balance(&org, key, &dinar).await["debit"], "2.046");
    assert_eq!(
        app.balance(&org, key, &usd_exchange).await["debit"],
        "110.00"
    );

    // A journal transaction may span currencies only when each balances.
    let res = app
        .post_wait(
            key,
            &org.path("transactions"),
            json!({"description": "crossed", "date": "2026-04-04", "entries": ledger_tests::entries(&euro, &cash, "10.00")}),
        )
        .await;
    refused_case(
        "crossed",
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "unbalanced_transaction",
    );
    assert_eq!(
        res.body["error"]["details"]["currency"], "EUR",
        "{}",
        res.body
    );
    let res = app
        .post_wait(
            key,
            &org.path("transactions"),
            json!({"description": "euro only", "date": "2026-04-04", "auto_post": true, "entries": [
                {"account_id": euro, "entry_type": "credit", "amount": "5.00"},
                {"account_id": eur_exchange, "entry_type": "debit", "amount": "5.00"},
            ]}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(
        res.body["currency"], "EUR",
        "a one-currency journal takes its currency"
    );
    assert_eq!(res.body["exchange_rates"], json!({}));
    let res = app
        .post_wait(
            key,
            &org.path("transactions"),
            json!({"description": "yen decimals", "date": "2026-04-04", "entries": ledger_tests::entries(&yen, &dinar, "5.5")}),
        )
        .await;
    refused_case(
        "yen decimals",
        &res,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    assert_eq!(res.body["error"]["details"]["field"], "entries[0].amount");
}

both!(transfers_between_currencies_balance_in_each);

async fn transfers_and_dry_runs_on_graphql_and_mcp(app: &TestApp) {
    use crate::pipeline::graphql_reason;
    use ledger_tests::mcp;
    let org = app.signup("Transfer Agents").await;
    let key = &org.test_key;
    let cash = app.account_id(&org, key, "1000").await;
    let euro = account(app, &org, "1020", "EUR").await;

    // GraphQL: create pending, post, read, reverse.
    let data = app.gql_data(key,
        "mutation($from: ID!, $to: ID!) { createTransfer(fromAccountId: $from, toAccountId: $to, amount: \"40.00\", toAmount: \"37.00\", date: \"2026-05-01\") { id status amount toAmount exchangeRate currency { code } toCurrency { code } transaction { exchangeRates { currency rate } entries { currency amount } } } }",
        json!({"from": cash, "to": euro}),
    )
    .await;
    let created = &data["createTransfer"];
    assert_eq!(created["status"], "PENDING", "{data}");
    assert_eq!(
        (
            &created["amount"],
            &created["toAmount"],
            &created["exchangeRate"]
        ),
        (&json!("40.00"), &json!("37.00"), &json!("0.925"))
    );
    assert_eq!(created["toCurrency"]["code"], "EUR");
    assert_eq!(
        created["transaction"]["exchangeRates"],
        json!([{"currency": "EUR", "rate": "0.925"}])
    );
    assert_eq!(
        created["transaction"]["entries"][3],
        json!({"currency": "EUR", "amount": "37.00"})
    );
    let id = created["id"].as_str().expect("id").to_owned();
    let data = app
        .gql_data(
            key,
            "mutation($id: ID!) { postTransfer(id: $id) { status } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(data["postTransfer"]["status"], "POSTED");
    let data = app.gql_data(key,
        "query($id: ID!) { transfer(id: $id) { id fromAccountId } transfers(status: POSTED) { id } }",
        json!({"id": id}),
    )
    .await;
    assert_eq!(data["transfer"]["fromAccountId"], json!(cash));
    assert_eq!(data["transfers"], json!([{"id": id}]));
    let reason = graphql_reason(
        app,
        key,
        "mutation($from: ID!, $to: ID!) { createTransfer(fromAccountId: $from, toAccountId: $to, amount: \"1.00\") { id } }",
        json!({"from": cash, "to": euro}),
    )
    .await;
    // Between currencies `toAmount` is needed: a rule across the accounts (as in REST).
    assert_eq!(reason, "inconsistent_fields");
    let data = app.gql_data(key,
        "mutation($id: ID!) { reverseTransfer(id: $id, reason: \"duplicate\") { status reversedBy } }",
        json!({"id": id}),
    )
    .await;
    assert_eq!(data["reverseTransfer"]["status"], "REVERSED");

    // MCP: the five transfer tools.
    let transfer = tool_ok(
        app,
        key,
        "create_transfer",
        json!({"fromAccountId": cash, "toAccountId": euro, "amount": "10.00", "toAmount": "9.20", "autoPost": true}),
    )
    .await;
    assert_eq!(
        (
            &transfer["object"],
            &transfer["status"],
            &transfer["exchange_rate"]
        ),
        (&json!("transfer"), &json!("posted"), &json!("0.92")),
        "{created}"
    );
    let mcp_id = transfer["id"].as_str().expect("id").to_owned();
    let got = mcp::tool(app, key, "get_transfer", json!({"transferId": mcp_id})).await;
    assert_eq!(got["structuredContent"]["to_amount"], "9.20", "{got}");
    let listed = mcp::tool(app, key, "list_transfers", json!({"status": "posted"})).await;
    assert_eq!(listed["structuredContent"]["total_count"], 1, "{listed}");
    let posted_again = mcp::tool(app, key, "post_transfer", json!({"transferId": mcp_id})).await;
    assert_eq!(
        mcp::code(&posted_again),
        "transaction_not_pending",
        "{posted_again}"
    );
    let reversed = mcp::tool(
        app,
        key,
        "reverse_transfer",
        json!({"transferId": mcp_id, "reason": "test"}),
    )
    .await;
    assert_eq!(
        reversed["structuredContent"]["status"], "reversed",
        "{reversed}"
    );

    // dry_run: validated like a create, answered, never written nor charged.
    let billing = org.path("billing");
    let used_before = app.get(key, &billing).await.body;
    let before = app.get(key, &org.path("transactions")).await.body["total_count"].clone();
    let body = json!({"description": "what if", "date": "2026-05-02", "auto_post": true, "entries": entries(&cash, &euro, "3.00")});
    let res = app
        .post(key, &org.path("transactions?dry_run=true"), body.clone())
        .await;
    refused_case(
        "dry crossed",
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "unbalanced_transaction",
    );
    let cash_only = app.account_id(&org, key, "4000").await;
    let good = json!({"description": "what if", "date": "2026-05-02", "auto_post": true, "dry_run": true, "entries": entries(&cash, &cash_only, "3.00")});
    let res = app.post(key, &org.path("transactions"), good).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (
            &res.body["dry_run"],
            &res.body["status"],
            &res.body["amount"]
        ),
        (&json!(true), &json!("posted"), &json!("3.00"))
    );
    let dry_id = res.id();
    let res = app
        .get(key, &org.path(&format!("transactions/{dry_id}")))
        .await;
    assert_eq!(
        res.status,
        StatusCode::NOT_FOUND,
        "a dry run stores nothing"
    );
    let res = app
        .post(key, &org.path("transactions?dry_run=maybe"), body)
        .await;
    refused_case(
        "dry_run flag",
        &res,
        StatusCode::BAD_REQUEST,
        "invalid_field",
    );
    let data = app.gql_data(key,
        "mutation($a: ID!, $b: ID!) { createTransaction(description: \"g\", date: \"2026-05-02\", dryRun: true, entries: [{accountId: $a, entryType: DEBIT, amount: \"1.00\"}, {accountId: $b, entryType: CREDIT, amount: \"1.00\"}]) { id status } }",
        json!({"a": cash, "b": cash_only}),
    )
    .await;
    assert_eq!(data["createTransaction"]["status"], "PENDING", "{data}");
    let dry = mcp::tool(
        app,
        key,
        "create_transaction",
        json!({"description": "m", "date": "2026-05-02", "dryRun": true, "entries": [
            {"accountId": cash, "entryType": "debit", "amount": "2.00"},
            {"accountId": cash_only, "entryType": "credit", "amount": "2.00"},
        ]}),
    )
    .await;
    assert_eq!(dry["structuredContent"]["dry_run"], true, "{dry}");
    let after = app.get(key, &org.path("transactions")).await.body["total_count"].clone();
    assert_eq!(before, after, "dry runs wrote nothing");
    let used_after = app.get(key, &billing).await.body;
    assert_eq!(
        used_before["test_credits_used"], used_after["test_credits_used"],
        "dry runs cost nothing: {used_before} {used_after}"
    );
}

both!(transfers_and_dry_runs_on_graphql_and_mcp);
