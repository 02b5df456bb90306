//! MCP: protocol rules, auth, every listed tool against its real REST route, tenant
//! isolation, prompts and resources.

use std::collections::HashSet;

use ledger_tests::{Answer, TestApp, both, strs};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use ledger_tests::mcp::{self, MODERN, meta, modern, ok, tool, tool_ok, tool_refused};

async fn raw(app: &TestApp, key: Option<&str>, body: Value, headers: &[(&str, &str)]) -> Answer {
    app.call(Method::POST, "/mcp", key, Some(body), headers)
        .await
}

/// Posts `body` as it is to `/mcp` with exactly these headers (no JSON encoding, no
/// defaults), for the transport-level refusals.
async fn post_text(
    app: &TestApp,
    key: &str,
    headers: &[(&str, &str)],
    body: &'static str,
) -> reqwest::Response {
    let mut req = app
        .client
        .post(format!("{}/mcp", app.base))
        .bearer_auth(key);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.body(body).send().await.expect("post")
}

/// The first content of the resource `uri`, read through `resources/read`.
///
/// # Panics
/// When the read is not answered 200.
async fn read_resource(app: &TestApp, key: &str, uri: &str) -> Value {
    let res = modern(app, key, "resources/read", json!({"uri": uri})).await;
    assert_eq!(res.status, StatusCode::OK, "{uri}: {}", res.body);
    res.body["result"]["contents"][0].clone()
}

/// The JSON document held in the text of a resource's `content`.
///
/// # Panics
/// When the text is missing or not JSON.
fn json_text(content: &Value) -> Value {
    let text = content["text"].as_str().expect("text");
    serde_json::from_str(text).expect("the text is JSON")
}

/// The text of the first message of the prompt `params` (its name and arguments) asks for.
///
/// # Panics
/// When the answer holds no such text.
async fn prompt_text(app: &TestApp, key: &str, params: Value) -> String {
    let res = modern(app, key, "prompts/get", params).await;
    res.body["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a prompt text: {}", res.body))
        .to_owned()
}

fn rpc_code(res: &Answer) -> i64 {
    res.body["error"]["code"].as_i64().unwrap_or(0)
}

/// Asserts that `res`, the answer to `case`, is a JSON-RPC error with the HTTP `status`
/// and the error `code`.
///
/// # Panics
/// When the status or the code differ (the case and the body are printed).
#[track_caller]
fn rpc_refused(case: impl std::fmt::Display, res: &Answer, status: StatusCode, code: i64) {
    assert_eq!(
        (res.status, rpc_code(res)),
        (status, code),
        "{case}: {}",
        res.body
    );
}

const READ_ONLY: &[&str] = &[
    "list_accounts",
    "get_account",
    "get_account_transactions",
    "get_account_balance",
    "list_transactions",
    "get_transaction",
    "list_contacts",
    "get_contact",
    "list_invoices",
    "get_invoice",
    "generate_invoice_pdf",
    "get_invoice_history",
    "list_bills",
    "get_bill",
    "get_organization",
    "list_sub_organizations",
    "list_organization_transfers",
    "list_incoming_organization_transfers",
    "get_trial_balance",
    "get_balance_sheet",
    "get_income_statement",
    "health_check",
    "get_system_info",
    "get_entity_events",
    "list_api_keys",
    "get_api_key",
    "get_credit_balance",
    "list_credit_packages",
    "list_currencies",
    "get_currency",
    "list_exchange_rates",
    "get_exchange_rate",
    "convert_currency",
    "list_transfers",
    "get_transfer",
    "list_recurring_schedules",
    "get_recurring_schedule",
    "list_recurring_runs",
    "list_reconciliations",
    "get_reconciliation",
];
const DESTRUCTIVE: &[&str] = &[
    "delete_account",
    "post_transaction",
    "reverse_transaction",
    "delete_transaction",
    "delete_invoice",
    "delete_bill",
    "rotate_api_key",
    "delete_api_key",
    "delete_exchange_rate",
    "post_transfer",
    "reverse_transfer",
    "delete_recurring_schedule",
    "complete_reconciliation",
    "delete_reconciliation",
];

/// A placeholder value of a schema's type, enough to reach the route.
fn sample(name: &str, schema: &Value) -> Value {
    if let Some(options) = schema["enum"].as_array() {
        return options[0].clone();
    }
    match schema["type"].as_str() {
        Some("integer") => json!(5),
        Some("boolean") => json!(false),
        Some("array") if schema["items"]["type"] == "string" => json!(["read"]),
        Some("array") if name == "items" => {
            json!([{"description": "Work", "quantity": 1, "unitPrice": "1.00"}])
        }
        Some("array") => json!([
            {"accountId": "acc_01NOPE", "entryType": "debit", "amount": "1.00"},
            {"accountId": "acc_02NOPE", "entryType": "credit", "amount": "1.00"},
        ]),
        _ if schema["format"] == "date" || name.ends_with("Date") || name == "date" => {
            json!("2026-01-31")
        }
        _ if name == "code" => json!("9876"),
        _ => json!(format!("x_{name}")),
    }
}

async fn mcp_tools_follow_the_rules_and_reach_their_routes(app: &TestApp) {
    let org = app.signup("Mcp Tools").await;
    let key = &org.test_key;
    let res = modern(app, key, "tools/list", json!({})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["result"]["cacheScope"], "public");
    assert!(res.body["result"]["ttlMs"].is_u64());
    let tools = res.body["result"]["tools"]
        .as_array()
        .expect("tools")
        .clone();
    assert!(tools.len() >= 30, "{} tools", tools.len());
    let directory = app
        .call(
            Method::POST,
            "/mcp/directory",
            Some(key),
            Some(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                "params": {"_meta": meta()}})),
            &[
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/list"),
            ],
        )
        .await;
    // The directory variant lists the same tools without the credit purchases.
    let without_purchases: Vec<Value> = tools
        .iter()
        .filter(|t| {
            ![
                "purchase_credits",
                "start_x402_credit_purchase",
                "complete_x402_credit_purchase",
            ]
            .contains(&t["name"].as_str().unwrap_or_default())
        })
        .cloned()
        .collect();
    assert_eq!(tools.len(), without_purchases.len() + 3);
    assert_eq!(directory.body["result"]["tools"], json!(without_purchases));
    let mut names = HashSet::new();
    for t in &tools {
        let name = t["name"].as_str().expect("name");
        assert!(names.insert(name.to_owned()), "duplicate {name}");
        let description = t["description"].as_str().expect("description");
        let n = description.chars().count();
        assert!(
            (80..=250).contains(&n),
            "{name}: description has {n} characters"
        );
        let a = &t["annotations"];
        assert!(a["title"].as_str().is_some_and(|s| !s.is_empty()), "{name}");
        assert_eq!(
            a["readOnlyHint"],
            READ_ONLY.contains(&name),
            "{name} readOnlyHint"
        );
        assert_eq!(
            a["destructiveHint"],
            DESTRUCTIVE.contains(&name),
            "{name} destructiveHint"
        );
        assert!(a["idempotentHint"].is_boolean(), "{name}");
        assert_eq!(a["openWorldHint"], false, "{name}");
        let schema = &t["inputSchema"];
        assert_eq!(schema["type"], "object", "{name}");
        let properties = schema["properties"].as_object().expect("properties");
        for prop in properties.keys() {
            assert!(
                !prop.contains('_') && prop.chars().next().is_some_and(|c| c.is_ascii_lowercase()),
                "{name}: {prop} is not camelCase"
            );
        }
        // Every listed tool reaches a real REST route with its required arguments.
        let mut args = json!({});
        for required in schema["required"].as_array().expect("required") {
            let prop = required.as_str().expect("name");
            args[prop] = sample(prop, &properties[prop]);
        }
        let result = tool(app, key, name, args).await;
        let text = result["content"][0]["text"].as_str().expect("text");
        assert_eq!(result["content"][0]["type"], "text");
        assert!(
            !text.contains("route_not_found"),
            "{name} reached no route: {text}"
        );
    }
    // All of DECISIONS 7 that exists in REST today.
    for expected in [
        "create_account",
        "list_accounts",
        "get_account",
        "update_account",
        "delete_account",
        "get_account_transactions",
        "get_account_balance",
        "list_transactions",
        "create_transaction",
        "get_transaction",
        "update_transaction",
        "post_transaction",
        "reverse_transaction",
        "delete_transaction",
        "list_contacts",
        "get_contact",
        "create_contact",
        "list_invoices",
        "create_invoice",
        "get_invoice",
        "update_invoice",
        "delete_invoice",
        "send_invoice",
        "generate_invoice_pdf",
        "record_invoice_payment",
        "get_invoice_history",
        "list_bills",
        "create_bill",
        "get_bill",
        "update_bill",
        "delete_bill",
        "approve_bill",
        "record_bill_payment",
        "get_organization",
        "create_sub_organization",
        "list_sub_organizations",
        "initiate_organization_transfer",
        "list_organization_transfers",
        "list_incoming_organization_transfers",
        "accept_organization_transfer",
        "reject_organization_transfer",
        "cancel_organization_transfer",
        "get_trial_balance",
        "get_balance_sheet",
        "get_income_statement",
        "health_check",
        "get_system_info",
        "get_entity_events",
        "list_api_keys",
        "get_api_key",
        "create_api_key",
        "rotate_api_key",
        "delete_api_key",
        "get_credit_balance",
        "list_credit_packages",
        "purchase_credits",
        "start_x402_credit_purchase",
        "complete_x402_credit_purchase",
        "list_currencies",
        "get_currency",
        "list_exchange_rates",
        "get_exchange_rate",
        "create_exchange_rate",
        "update_exchange_rate",
        "delete_exchange_rate",
        "convert_currency",
        "list_recurring_schedules",
        "get_recurring_schedule",
        "list_recurring_runs",
        "create_recurring_schedule",
        "update_recurring_schedule",
        "run_recurring_schedule",
        "delete_recurring_schedule",
    ] {
        assert!(names.contains(expected), "{expected} is not listed");
    }
}
both!(
    mcp_tools_rules,
    mcp_tools_follow_the_rules_and_reach_their_routes
);

async fn mcp_keeps_the_books_end_to_end(app: &TestApp) {
    let org = app.signup("Mcp Books").await;
    let key = &org.test_key;
    let bank = tool_ok(
        app,
        key,
        "create_account",
        json!({"code": "1010", "name": "Checking", "accountType": "asset"}),
    )
    .await;
    let bank_id = bank["id"].as_str().expect("id").to_owned();
    let listed = tool_ok(app, key, "list_accounts", json!({"account_type": "asset"})).await;
    assert!(
        listed["data"]
            .as_array()
            .expect("data")
            .iter()
            .any(|a| a["code"] == "1010")
    );
    let sales = app.account_id(&org, key, "4000").await;
    let contact = tool_ok(
        app,
        key,
        "create_contact",
        json!({"contactType": "customer", "name": "Acme Ltd", "reference": "C-1"}),
    )
    .await;
    let contact_id = contact["id"].as_str().expect("contact id").to_owned();
    let txn = tool(
        app,
        key,
        "create_transaction",
        json!({
            "description": "Consulting", "date": "2026-03-10", "contactId": contact_id,
            "entries": [
                {"accountId": bank_id, "entryType": "debit", "amount": "250.50"},
                {"account_id": sales, "entry_type": "credit", "amount": 250.50},
            ],
        }),
    )
    .await;
    let txn = ok(&txn).clone();
    assert_eq!(txn["status"], "pending", "{txn}");
    let txn_id = txn["id"].as_str().expect("txn id").to_owned();
    let posted = tool_ok(
        app,
        key,
        "post_transaction",
        json!({"transactionId": txn_id}),
    )
    .await;
    assert_eq!(posted["status"], "posted");
    let balance = tool_ok(
        app,
        key,
        "get_account_balance",
        json!({"accountId": bank_id}),
    )
    .await;
    assert_eq!(balance["balance"]["net"], "250.50");
    let tb = tool(app, key, "get_trial_balance", json!({"asOf": "2026-03-31"})).await;
    let tb = ok(&tb);
    assert_eq!(tb["total_debits"], "250.50");
    assert_eq!(tb["total_credits"], "250.50");
    let history = tool_ok(
        app,
        key,
        "get_account_transactions",
        json!({"accountId": bank_id}),
    )
    .await;
    assert_eq!(history["transactions"].as_array().map(Vec::len), Some(1));
    // An unbalanced entry is a business error as a tool result, and changes nothing.
    let bad = tool(
        app,
        key,
        "create_transaction",
        json!({"description": "bad", "date": "2026-03-11", "entries": [
            {"accountId": bank_id, "entryType": "debit", "amount": "10.00"},
            {"accountId": sales, "entryType": "credit", "amount": "9.00"},
        ]}),
    )
    .await;
    assert_eq!(bad["isError"], true);
    assert_eq!(mcp::code(&bad), "unbalanced_transaction", "{bad}");
    // A line naming no account of the organization: the REST refusal, 422
    // `reference_not_found` on the line's member, as a tool error.
    let ghost = tool(
        app,
        key,
        "create_transaction",
        json!({"description": "ghost", "date": "2026-03-11", "entries": [
            {"accountId": bank_id, "entryType": "debit", "amount": "10.00"},
            {"accountId": "act_01HZZZZZZZZZZZZZZZZZZZZZZZ", "entryType": "credit", "amount": "10.00"},
        ]}),
    )
    .await;
    assert_eq!(ghost["isError"], true);
    let error = &ghost["structuredContent"]["error"];
    assert_eq!(
        (&error["status"], &error["type"], &error["code"]),
        (
            &json!(422),
            &json!("business_rule_error"),
            &json!("reference_not_found")
        ),
        "{error}"
    );
    assert_eq!(
        error["details"],
        json!({"field": "entries[1].account_id", "resource": "account", "id": "act_01HZZZZZZZZZZZZZZZZZZZZZZZ"})
    );
    let reversed = tool_ok(
        app,
        key,
        "reverse_transaction",
        json!({"transactionId": txn_id, "reason": "billed twice"}),
    )
    .await;
    assert_eq!(reversed["status"], "reversed");
    assert!(reversed["reversed_by"].is_string(), "{reversed}");
    let balance = tool_ok(
        app,
        key,
        "get_account_balance",
        json!({"accountId": bank_id}),
    )
    .await;
    assert_eq!(balance["balance"]["net"], "0.00");
    let list = tool_ok(app, key, "list_transactions", json!({})).await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(2));
    let contacts = tool_ok(app, key, "list_contacts", json!({"search": "acme"})).await;
    assert_eq!(contacts["items"][0]["name"], "Acme Ltd");
    let events = tool_ok(
        app,
        key,
        "get_entity_events",
        json!({"entityType": "transaction", "entityId": txn_id}),
    )
    .await;
    assert!(!events["items"].as_array().expect("events").is_empty());
    let health = tool(app, key, "health_check", json!({})).await;
    assert_eq!(health["content"][0]["text"], "OK");
    assert!(health.get("structuredContent").is_none());
}
both!(mcp_books, mcp_keeps_the_books_end_to_end);

async fn mcp_protocol_errors_are_exact(app: &TestApp) {
    let org = app.signup("Mcp Protocol").await;
    let key = org.test_key.as_str();
    let url = format!("{}/mcp", app.base);
    // Not POST.
    let res = app
        .client
        .get(&url)
        .bearer_auth(key)
        .send()
        .await
        .expect("get");
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(res.headers()["allow"], "POST");
    // Accept and Content-Type, and the Origin of a foreign page.
    let cases = [
        (
            "an Accept without JSON",
            &[
                ("accept", "text/html"),
                ("content-type", "application/json"),
            ],
            "{}",
            StatusCode::NOT_ACCEPTABLE,
        ),
        (
            "a Content-Type other than JSON",
            &[
                ("accept", "application/json, text/event-stream"),
                ("content-type", "text/plain"),
            ],
            "{}",
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            "a foreign Origin",
            &[
                ("content-type", "application/json"),
                ("origin", "https://evil.example"),
            ],
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            StatusCode::FORBIDDEN,
        ),
    ];
    for (case, headers, body, status) in cases {
        let res = post_text(app, key, headers, body).await;
        assert_eq!(res.status(), status, "{case}");
    }
    // Parse error.
    let res = post_text(
        app,
        key,
        &[("content-type", "application/json")],
        "{not json",
    )
    .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"]["code"], -32700);
    assert_eq!(body["id"], Value::Null);
    // Batches and responses are invalid requests.
    for body in [
        json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
    ] {
        let res = raw(app, Some(key), body.clone(), &[]).await;
        rpc_refused(&body, &res, StatusCode::BAD_REQUEST, -32600);
    }
    // Notifications get 202 and no body.
    let res = raw(
        app,
        Some(key),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        &[("MCP-Protocol-Version", "2025-06-18")],
    )
    .await;
    assert_eq!(res.status, StatusCode::ACCEPTED);
    assert_eq!(res.body, Value::Null);
    // Modern: _meta is required.
    let res = raw(
        app,
        Some(key),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}),
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/list"),
        ],
    )
    .await;
    rpc_refused("no _meta", &res, StatusCode::BAD_REQUEST, -32602);
    // Headers must agree with the body.
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "list_accounts", "_meta": meta()}});
    for headers in [
        vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "list_accounts")],
        vec![
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Name", "list_accounts"),
        ],
        vec![
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
        ],
        vec![
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/list"),
            ("Mcp-Name", "list_accounts"),
        ],
        vec![
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "get_account"),
        ],
    ] {
        let res = raw(app, Some(key), body.clone(), &headers).await;
        rpc_refused(
            format!("{headers:?}"),
            &res,
            StatusCode::BAD_REQUEST,
            -32020,
        );
    }
    // A base64-encoded Mcp-Name is decoded first.
    let res = raw(
        app,
        Some(key),
        body.clone(),
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "=?base64?bGlzdF9hY2NvdW50cw==?="),
        ],
    )
    .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["result"]["isError"], false);
    // Unsupported version: explicit, with the supported ones.
    let mut old = body.clone();
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let res = raw(
        app,
        Some(key),
        old,
        &[
            ("MCP-Protocol-Version", "2099-01-01"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "list_accounts"),
        ],
    )
    .await;
    rpc_refused(
        "an unsupported version",
        &res,
        StatusCode::BAD_REQUEST,
        -32022,
    );
    assert_eq!(
        res.body["error"]["data"]["supported"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );
    assert_eq!(res.body["error"]["data"]["requested"], "2099-01-01");
    let res = raw(
        app,
        Some(key),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
        &[("MCP-Protocol-Version", "2024-11-05")],
    )
    .await;
    assert_eq!(rpc_code(&res), -32022, "{}", res.body);
    // Unknown method: 404 modern, 200 legacy.
    let res = modern(app, key, "tools/frobnicate", json!({})).await;
    rpc_refused(
        "an unknown method (modern)",
        &res,
        StatusCode::NOT_FOUND,
        -32601,
    );
    let res = raw(
        app,
        Some(key),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/frobnicate"}),
        &[("MCP-Protocol-Version", "2025-06-18")],
    )
    .await;
    rpc_refused("an unknown method (legacy)", &res, StatusCode::OK, -32601);
    // An unknown tool, or arguments that are not an object, do not fit the request:
    // -32602.
    for params in [
        json!({"name": "make_coffee", "arguments": {}}),
        json!({"name": "get_account", "arguments": [1]}),
    ] {
        let res = modern(app, key, "tools/call", params.clone()).await;
        rpc_refused(&params, &res, StatusCode::BAD_REQUEST, -32602);
    }
    // What the arguments say is the tool's business: a tool result with isError and the
    // REST validation envelope, naming the argument and the MCP request's id.
    for (args, code, argument) in [
        (json!({"accountId": 7}), "invalid_field", "accountId"),
        (json!({"nope": 1}), "unknown_field", "nope"),
        (json!({}), "missing_field", "accountId"),
        (
            json!({"accountId": "a", "account_id": "b"}),
            "invalid_field",
            "accountId",
        ),
    ] {
        let res = modern(
            app,
            key,
            "tools/call",
            json!({"name": "get_account", "arguments": args}),
        )
        .await;
        assert_eq!(res.status, StatusCode::OK, "{args}: {}", res.body);
        let result = &res.body["result"];
        assert_eq!(result["isError"], true, "{args}: {result}");
        assert_eq!(result["resultType"], "complete");
        let error = &result["structuredContent"]["error"];
        assert_eq!(error["code"], code, "{args}: {error}");
        assert_eq!(error["type"], "validation_error");
        assert_eq!(error["details"]["argument"], argument, "{error}");
        assert_eq!(
            error["request_id"],
            res.headers["x-request-id"].to_str().expect("ascii"),
            "{error}"
        );
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
                .expect("json text");
        assert_eq!(text, result["structuredContent"]);
    }
    // A REST refusal carries the same request id as the MCP response, and the argument.
    let res = modern(
        app,
        key,
        "tools/call",
        json!({"name": "get_account", "arguments": {"accountId": "acc_01NOPE"}}),
    )
    .await;
    let error = &res.body["result"]["structuredContent"]["error"];
    assert_eq!(res.body["result"]["isError"], true);
    assert_eq!(error["code"], "resource_not_found", "{error}");
    assert_eq!(
        error["request_id"],
        res.headers["x-request-id"].to_str().expect("ascii")
    );
    // 2026-07-28 removed ping and initialize: unknown methods there (404), and
    // resources/templates/list answers an empty list with cache hints.
    for method in ["ping", "initialize"] {
        let mut params = json!({});
        if method == "initialize" {
            params = json!({"protocolVersion": MODERN, "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}});
        }
        let res = modern(app, key, method, params).await;
        rpc_refused(method, &res, StatusCode::NOT_FOUND, -32601);
        assert!(!res.headers.contains_key("mcp-session-id"));
    }
    let res = modern(app, key, "resources/templates/list", json!({})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["result"]["resourceTemplates"], json!([]));
    assert_eq!(res.body["result"]["cacheScope"], "public");
    assert!(res.body["result"]["ttlMs"].is_u64());
    let res = raw(
        app,
        Some(key),
        json!({"jsonrpc": "2.0", "id": 8, "method": "resources/templates/list"}),
        &[("MCP-Protocol-Version", "2025-11-25")],
    )
    .await;
    assert_eq!(res.body["result"], json!({"resourceTemplates": []}));
    // Legacy handshake: version negotiation, a session id that is never required.
    for (offered, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", "2025-11-25"),
    ] {
        let res = raw(
            app,
            Some(key),
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": offered, "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
            &[],
        )
        .await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
        assert_eq!(res.body["id"], 0);
        assert_eq!(res.body["result"]["protocolVersion"], answered);
        assert_eq!(res.body["result"]["serverInfo"]["name"], "ledger");
        assert!(res.headers.contains_key("mcp-session-id"));
        assert!(res.body["result"].get("resultType").is_none());
    }
    let res = raw(
        app,
        Some(key),
        json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}),
        &[("MCP-Protocol-Version", "2025-11-25")],
    )
    .await;
    assert_eq!(res.body["result"], json!({}));
    assert_eq!(res.body["id"], "p");
    // Discovery.
    let res = modern(app, key, "server/discover", json!({})).await;
    let result = &res.body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "ledger"
    );
}
both!(mcp_protocol, mcp_protocol_errors_are_exact);

async fn mcp_needs_a_token_and_points_to_metadata(app: &TestApp) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let metadata = format!("{}/.well-known/oauth-protected-resource", app.base);
    let res = raw(app, None, body.clone(), &[]).await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    let challenge = res.headers["www-authenticate"].to_str().expect("ascii");
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(
        challenge.contains(&format!("resource_metadata=\"{metadata}\"")),
        "{challenge}"
    );
    assert!(!challenge.contains("invalid_token"));
    let res = raw(app, Some("ha_test_wrongwrongwrong"), body, &[]).await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    let challenge = res.headers["www-authenticate"].to_str().expect("ascii");
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(challenge.contains(&metadata), "{challenge}");
    let res = app.client.get(&metadata).send().await.expect("metadata");
    assert_eq!(res.status(), StatusCode::OK);
    let doc: Value = res.json().await.expect("json");
    assert_eq!(doc["resource"], format!("{}/mcp", app.base));
    assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    assert_eq!(
        doc["scopes_supported"],
        json!(["ledger:read", "ledger:write", "ledger:admin"])
    );
    let res = app
        .client
        .get(format!("{metadata}/mcp/directory"))
        .send()
        .await
        .expect("metadata");
    let doc: Value = res.json().await.expect("json");
    assert_eq!(doc["resource"], format!("{}/mcp/directory", app.base));
}
both!(mcp_auth, mcp_needs_a_token_and_points_to_metadata);

async fn mcp_keeps_tenants_apart(app: &TestApp) {
    let a = app.signup("Mcp Tenant A").await;
    let b = app.signup("Mcp Tenant B").await;
    let b_cash = app.account_id(&b, &b.test_key, "1000").await;
    for (name, args) in [
        (
            "get_account",
            json!({"organizationId": b.id, "accountId": b_cash}),
        ),
        ("list_accounts", json!({"organizationId": b.id})),
        ("get_trial_balance", json!({"organizationId": b.id})),
        (
            "create_account",
            json!({"organizationId": b.id, "code": "1999", "name": "Sneaky", "accountType": "asset"}),
        ),
        (
            "delete_account",
            json!({"organizationId": b.id, "accountId": b_cash}),
        ),
        ("list_api_keys", json!({"organizationId": b.id})),
    ] {
        let result = tool(app, &a.test_key, name, args).await;
        assert_eq!(result["isError"], true, "{name}: {result}");
        assert_eq!(mcp::code(&result), "organization_not_found", "{result}");
        assert_eq!(
            result["structuredContent"]["error"]["status"], 404,
            "{name}"
        );
    }
    // Organization B is unchanged; A's default organization is its own.
    let res = app.get(&b.test_key, &b.path("accounts?limit=100")).await;
    let accounts = res.body["data"].as_array().expect("accounts");
    assert!(accounts.iter().all(|acc| acc["code"] != "1999"));
    assert!(accounts.iter().any(|acc| acc["id"] == b_cash.as_str()));
    let org = tool_ok(app, &a.test_key, "get_organization", json!({})).await;
    assert_eq!(org["id"], a.id.as_str());
    // A sub-organization defaults to the caller's organization as parent, and the parent's
    // key reaches it by naming it; B's key does not.
    let sub = tool_ok(
        app,
        &a.test_key,
        "create_sub_organization",
        json!({"name": "A Branch", "relationshipType": "owned"}),
    )
    .await;
    let sub_id = sub["organization"]["id"]
        .as_str()
        .expect("sub id")
        .to_owned();
    let sub_org = tool_ok(
        app,
        &a.test_key,
        "get_organization",
        json!({"organizationId": sub_id}),
    )
    .await;
    assert_eq!(
        sub_org["parent_organization_id"],
        a.id.as_str(),
        "{sub_org}"
    );
    tool_refused(
        app,
        &b.test_key,
        "list_accounts",
        json!({"organizationId": sub_id}),
        "organization_not_found",
    )
    .await;
    // Resources and prompts read only the caller's books.
    let chart = read_resource(app, &a.test_key, "ledger://chart-of-accounts").await;
    let text = chart["text"].as_str().expect("text");
    assert!(!text.contains(&b_cash));
}
both!(mcp_tenants, mcp_keeps_tenants_apart);

async fn mcp_prompts_and_resources_read_real_data(app: &TestApp) {
    let (org, [cash, equity]) = app
        .signup_with_accounts("Mcp Prompts", ["1000", "3000"])
        .await;
    let key = &org.test_key;
    app.post_transfer(&org, key, &cash, &equity, "1234.56")
        .await;
    let res = modern(app, key, "resources/list", json!({})).await;
    let uris = strs(&res.body["result"]["resources"], "uri");
    assert!(
        uris.contains(&"ledger://chart-of-accounts")
            && uris.contains(&"ledger://reports/trial-balance")
            && uris.contains(&"ledger://recent-activity")
    );
    let recent = json_text(&read_resource(app, key, "ledger://recent-activity").await);
    let latest = &recent["data"][0];
    assert_eq!(latest["entries"][0]["amount"], "1234.56", "{recent}");
    assert_eq!(recent["data"].as_array().map(Vec::len), Some(1), "{recent}");
    let content = read_resource(app, key, "ledger://reports/trial-balance").await;
    assert_eq!(content["mimeType"], "application/json");
    assert_eq!(json_text(&content)["total_debits"], "1234.56");
    let chart = read_resource(app, key, "ledger://chart-of-accounts").await;
    assert!(chart["text"].as_str().expect("text").contains(&cash));
    let res = modern(app, key, "resources/read", json!({"uri": "ledger://nope"})).await;
    assert_eq!(rpc_code(&res), -32002);
    let res = modern(app, key, "prompts/list", json!({})).await;
    let names = strs(&res.body["result"]["prompts"], "name");
    assert_eq!(
        names,
        [
            "close_the_month",
            "post_balanced_transaction",
            "record_customer_payment"
        ]
    );
    // Each prompt with its arguments and what its text must say.
    let prompts = [
        (
            "post_balanced_transaction",
            json!({"description": "the March rent"}),
            vec!["Record the March rent", cash.as_str(), equity.as_str()],
        ),
        (
            "close_the_month",
            json!({"month": "2026-01"}),
            vec!["2026-01-31", "1234.56"],
        ),
        (
            "record_customer_payment",
            json!({"customer": "Acme", "amount": "10.00"}),
            vec![cash.as_str()],
        ),
    ];
    for (name, arguments, says) in prompts {
        let params = json!({"name": name, "arguments": arguments});
        let text = prompt_text(app, key, params).await;
        for words in says {
            assert!(text.contains(words), "{name}: no {words:?} in {text}");
        }
    }
    // A missing or malformed argument does not fit the request.
    for arguments in [json!({}), json!({"month": "January"})] {
        let params = json!({"name": "close_the_month", "arguments": arguments});
        let res = modern(app, key, "prompts/get", params).await;
        assert_eq!(rpc_code(&res), -32602, "{arguments}: {}", res.body);
    }
}
both!(mcp_prompts, mcp_prompts_and_resources_read_real_data);

async fn mcp_tool_calls_run_concurrently(app: &TestApp) {
    let (org, [cash, sales]) = app
        .signup_with_accounts("Mcp Concurrent", ["1000", "4000"])
        .await;
    let key = &org.test_key;
    let calls = (1..=20).map(|i| {
        let (cash, sales) = (cash.clone(), sales.clone());
        async move {
            let amount = format!("{i}.01");
            tool(
                app,
                key,
                "create_transaction",
                json!({"description": format!("sale {i}"), "date": "2026-04-01", "autoPost": true,
                "entries": [
                    {"accountId": cash, "entryType": "debit", "amount": amount},
                    {"accountId": sales, "entryType": "credit", "amount": amount},
                ]}),
            )
            .await
        }
    });
    for result in futures::future::join_all(calls).await {
        assert_eq!(ok(&result)["status"], "posted", "{result}");
    }
    // 1.01 + 2.01 + ... + 20.01 = 210.20
    let tb = tool_ok(app, key, "get_trial_balance", json!({})).await;
    assert_eq!(tb["total_debits"], "210.20");
    // The legacy era gets the same tool result, without resultType.
    let res = raw(
        app,
        Some(key),
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "get_account_balance", "arguments": {"account_id": cash}}}),
        &[("MCP-Protocol-Version", "2025-06-18")],
    )
    .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert!(res.body["result"].get("resultType").is_none());
    assert_eq!(
        res.body["result"]["structuredContent"]["balance"]["net"],
        "210.20"
    );
    let text = res.body["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    let parsed: Value = serde_json::from_str(text).expect("text is the REST JSON");
    assert_eq!(parsed, res.body["result"]["structuredContent"]);
}
both!(mcp_concurrent, mcp_tool_calls_run_concurrently);

/// Creates a contact `name` of `contact_type` through the `create_contact` tool; its id.
async fn tool_contact(app: &TestApp, key: &str, contact_type: &str, name: &str) -> String {
    let arguments = json!({"contactType": contact_type, "name": name});
    let contact = tool_ok(app, key, "create_contact", arguments).await;
    contact["id"].as_str().expect("contact id").to_owned()
}

/// An agent invoices a customer and records the payment through MCP tools only.
async fn mcp_invoices_and_bills_reach_the_books(app: &TestApp) {
    let org = app.signup("Mcp Invoices").await;
    let key = &org.test_key;
    let customer = tool_contact(app, key, "customer", "Agent Customer").await;
    let invoice = tool(
        app,
        key,
        "create_invoice",
        json!({"contactId": customer, "invoiceDate": "2026-05-01", "dueDate": "2026-05-31",
               "items": [{"description": "Advice", "quantity": "2", "unitPrice": "75.00"}]}),
    )
    .await;
    let invoice = ok(&invoice).clone();
    assert_eq!(invoice["status"], "draft");
    assert_eq!(invoice["total"], "150.00");
    let id = invoice["id"].as_str().expect("id").to_owned();
    let sent = tool_ok(app, key, "send_invoice", json!({"invoiceId": id})).await;
    assert!(sent["posting_transaction_id"].is_string(), "{sent}");
    let paid = tool_ok(
        app,
        key,
        "record_invoice_payment",
        json!({"invoiceId": id, "amount": "150.00", "paymentDate": "2026-05-10", "paymentMethod": "card"}),
    )
    .await;
    assert_eq!(paid["invoice_id"], id.as_str());
    let got = tool_ok(app, key, "get_invoice", json!({"invoiceId": id})).await;
    assert_eq!(got["status"], "paid");
    let history = tool_ok(app, key, "get_invoice_history", json!({"invoiceId": id})).await;
    assert_eq!(history["data"].as_array().map(Vec::len), Some(3));
    // Overpaying is the REST business-rule error, as a tool error.
    let again = tool(
        app,
        key,
        "record_invoice_payment",
        json!({"invoiceId": id, "amount": "1", "paymentDate": "2026-05-10", "paymentMethod": "card"}),
    )
    .await;
    assert_eq!(again["isError"], true, "{again}");
    assert!(
        again["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("invalid_state_transition"))
    );
    // The PDF arrives as an embedded resource.
    let pdf = tool(app, key, "generate_invoice_pdf", json!({"invoiceId": id})).await;
    assert_eq!(pdf["isError"], false, "{pdf}");
    let resource = &pdf["content"][1]["resource"];
    assert_eq!(resource["mimeType"], "application/pdf");
    assert!(
        resource["blob"]
            .as_str()
            .is_some_and(|b| b.starts_with("JVBER")),
        "base64 of %PDF"
    );
    // A bill, approved and listed.
    let vendor = tool_contact(app, key, "vendor", "Agent Vendor").await;
    let bill = tool_ok(
        app,
        key,
        "create_bill",
        json!({"contactId": vendor, "billDate": "2026-05-02", "dueDate": "2026-06-01",
               "items": [{"description": "Rent", "quantity": 1, "unitPrice": "900.00"}]}),
    )
    .await;
    let bill_id = bill["id"].as_str().expect("bill").to_owned();
    let approved = tool_ok(app, key, "approve_bill", json!({"billId": bill_id})).await;
    assert!(matches!(
        approved["status"].as_str(),
        Some("open" | "overdue")
    ));
    let listed = tool_ok(app, key, "list_bills", json!({})).await;
    assert_eq!(listed["total_count"], 1);
    let tb = tool_ok(app, key, "get_trial_balance", json!({})).await;
    assert_eq!(tb["total_debits"], tb["total_credits"]);
}
both!(mcp_invoices, mcp_invoices_and_bills_reach_the_books);
