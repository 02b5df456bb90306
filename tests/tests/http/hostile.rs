//! Hostile input (issue 21 item 4): malformed, oversized, deeply nested, invalid UTF-8 and
//! random bodies on REST, GraphQL and MCP, and clients that send their request slowly.
//! Every answer is a clear 4xx (or a JSON-RPC / GraphQL error) in the documented shape —
//! never a 5xx, a dropped connection or a panic — and nothing is written.

use std::time::Duration;

use ledger_tests::{Org, TestApp, both, entries};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRng, TestRunner};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends `body` as it is, with `content_type`, and returns the status and the JSON body
/// (Null when the body is not JSON).
async fn send(
    app: &TestApp,
    key: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
    extra: &[(&str, &str)],
) -> (StatusCode, Value) {
    let mut req = app
        .client
        .post(format!("{}{path}", app.base))
        .bearer_auth(key)
        .header("content-type", content_type);
    for (name, value) in extra {
        req = req.header(*name, *value);
    }
    let res = req
        .body(body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{path}: the server dropped the request: {e}"));
    let status = res.status();
    let text = res.text().await.expect("a readable body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A REST refusal: a 4xx with the error envelope.
fn assert_refused(what: &str, status: StatusCode, body: &Value) {
    assert!(
        status.is_client_error(),
        "{what}: expected a 4xx, got {status}: {body}"
    );
    assert!(
        body["error"]["code"]
            .as_str()
            .is_some_and(|c| !c.is_empty()),
        "{what}: no error code in {body}"
    );
    assert!(
        body["error"]["message"].as_str().is_some(),
        "{what}: no message in {body}"
    );
}

fn nested_arrays(depth: usize) -> Vec<u8> {
    let mut s = "[".repeat(depth).into_bytes();
    s.extend(std::iter::repeat_n(b']', depth));
    s
}

fn nested_objects(depth: usize) -> Vec<u8> {
    let mut s = r#"{"a":"#.repeat(depth).into_bytes();
    s.extend_from_slice(b"1");
    s.extend(std::iter::repeat_n(b'}', depth));
    s
}

/// Bodies no endpoint may accept, each with what it exercises.
fn hostile_bodies() -> Vec<(&'static str, Vec<u8>)> {
    let mut huge_array = b"{\"lines\": [".to_vec();
    for i in 0..100_000 {
        if i > 0 {
            huge_array.push(b',');
        }
        huge_array.extend_from_slice(b"{}");
    }
    huge_array.extend_from_slice(b"]}");
    vec![
        ("empty body", Vec::new()),
        ("null", b"null".to_vec()),
        ("a string", b"\"x\"".to_vec()),
        ("a number", b"1e999999".to_vec()),
        ("deep arrays", nested_arrays(100_000)),
        ("deep objects", nested_objects(50_000)),
        ("100 000 empty lines", huge_array),
        (
            "invalid UTF-8",
            b"{\"name\": \"\xff\xfe\xc3\x28\"}".to_vec(),
        ),
        ("lone surrogate", br#"{"name": "\ud800"}"#.to_vec()),
        ("NUL in a key", b"{\"na\x00me\": 1}".to_vec()),
        ("truncated", br#"{"name": "x", "lines": [{"#.to_vec()),
        ("trailing garbage", br#"{"name": "x"} {"#.to_vec()),
        ("BOM", b"\xef\xbb\xbf{\"name\": \"x\"}".to_vec()),
        (
            "duplicate keys",
            br#"{"name": "a", "name": "b", "code": "1", "code": "2"}"#.to_vec(),
        ),
        (
            "numbers too large",
            br#"{"amount": 1e400, "code": 99999999999999999999999999999999999999}"#.to_vec(),
        ),
    ]
}

/// Write endpoints of one organization, with a plausible but wrong body of each shape.
fn write_paths(org: &Org) -> Vec<String> {
    let o = &org.id;
    vec![
        format!("/organizations/{o}/accounts"),
        format!("/organizations/{o}/transactions"),
        format!("/organizations/{o}/contacts"),
        format!("/organizations/{o}/invoices"),
        format!("/organizations/{o}/bills"),
        format!("/organizations/{o}/exchange-rates"),
        format!("/organizations/{o}/transfers"),
        format!("/organizations/{o}/taxes"),
        format!("/organizations/{o}/categories"),
    ]
}

/// What the organization holds, to prove that nothing was written.
async fn counts(app: &TestApp, org: &Org) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for path in write_paths(org) {
        let res = app.get(&org.test_key, &path).await;
        assert_eq!(res.status, StatusCode::OK, "{path}: {}", res.body);
        out.push((path, res.body["total_count"].clone()));
    }
    out
}

async fn rest_hostile_bodies(app: &TestApp) {
    let org = app.signup("Hostile Rest").await;
    let before = counts(app, &org).await;
    for path in write_paths(&org) {
        for (what, body) in hostile_bodies() {
            let (status, answer) = send(
                app,
                &org.test_key,
                &path,
                "application/json",
                body,
                &[("Prefer", "wait=5")],
            )
            .await;
            assert_refused(&format!("{path} {what}"), status, &answer);
        }
    }
    // Hostile values in otherwise well-formed bodies.
    let tx = org.path("transactions");
    let [cash, sales] = app.account_ids(&org, &org.test_key, ["1000", "4000"]).await;
    let line = |account: &str, debit: &str, credit: &str| json!({"account_id": account, "debit": debit, "credit": credit});
    let amounts = [
        "1e3",
        "NaN",
        "Infinity",
        "-0.00",
        "0x10",
        "1,000.00",
        " 10.00",
        "10.001",
        &"9".repeat(400),
        "99999999999999999999999999999999.99",
        "١٠.٠٠",
    ];
    for amount in amounts {
        let (status, answer) = send(
            app,
            &org.test_key,
            &tx,
            "application/json",
            serde_json::to_vec(&json!({
                "date": "2026-01-10",
                "description": "hostile amount",
                "lines": [line(&cash, amount, "0"), line(&sales, "0", amount)],
            }))
            .expect("json"),
            &[("Prefer", "wait=5")],
        )
        .await;
        assert_refused(&format!("amount {amount:?}"), status, &answer);
    }
    let dates = [
        "2026-02-30",
        "2026-13-01",
        "2026-1-1",
        "20260101",
        "+999999-01-01",
        "-0001-01-01",
        "0000-00-00",
        "2026-01-01T25:00:00Z",
        "9999-12-31T23:59:59-23:59",
        "0999-12-31",
        "",
    ];
    for date in dates {
        let (status, answer) = send(
            app,
            &org.test_key,
            &tx,
            "application/json",
            serde_json::to_vec(&json!({
                "date": date,
                "description": "hostile date",
                "lines": [line(&cash, "1.00", "0"), line(&sales, "0", "1.00")],
            }))
            .expect("json"),
            &[("Prefer", "wait=5")],
        )
        .await;
        assert_refused(&format!("date {date:?}"), status, &answer);
    }
    // Query strings: hostile values are refused the same way.
    for (path, query) in [
        ("transactions", "limit=-1"),
        ("transactions", "limit=99999999999999999999"),
        ("transactions", "offset=-5"),
        ("transactions", "start_date=%00"),
        ("transactions", "end_date=2026-02-30"),
        ("transactions", "end_date=9999-12-31"),
        ("transactions", "start_date=9999-12-31T23:59:59-23:59"),
        ("transactions", "limit=%ff%fe"),
        ("transactions", "status=%00"),
        ("reports/trial-balance", "as_of=2026-02-30"),
        ("reports/trial-balance", "as_of=+999999-01-01"),
        (
            "reports/income-statement",
            "start_date=2026-01-01&end_date=x",
        ),
        ("reports/balance-sheet", "currency=%ff"),
    ] {
        let res = app
            .get(&org.test_key, &org.path(&format!("{path}?{query}")))
            .await;
        assert_refused(&format!("query {query}"), res.status, &res.body);
    }
    assert_eq!(
        counts(app, &org).await,
        before,
        "a hostile body wrote something"
    );
}
both!(rest_hostile_bodies);

/// NUL is refused in every string of a body but inside `metadata`: free JSON kept as JSON
/// text, where it is stored escaped and reads back as it was sent, on either database.
async fn metadata_keeps_any_json_string(app: &TestApp) {
    let (org, [cash, sales]) = app
        .signup_with_accounts("Metadata NUL", ["1000", "4000"])
        .await;
    let key = &org.test_key;
    let tx = org.path("transactions");
    let entries = entries(&cash, &sales, "1.00");
    let metadata = json!({"k\u{0}": "v\u{0}", "deep": [{"x": "\u{0}"}]});
    let id = app.create_id_wait(key,
            &tx,
            json!({"description": "Sale", "date": "2026-01-05", "entries": entries, "auto_post": true, "metadata": metadata})).await;
    let read = app.read(key, &format!("{tx}/{id}")).await;
    assert_eq!(read["metadata"], metadata);
    // Beside metadata, NUL is still refused and nothing is written.
    let res = app
        .post_wait(
            key,
            &tx,
            json!({"description": "Sale\u{0}", "date": "2026-01-05", "entries": entries, "metadata": metadata}),
        )
        .await;
    assert_eq!(res.status, StatusCode::BAD_REQUEST, "{}", res.body);
    assert_eq!(res.body["error"]["details"]["field"], "description");
    let list = app.get(key, &tx).await;
    assert_eq!(list.body["total_count"], 1, "{}", list.body);
}

both!(metadata_nul, metadata_keeps_any_json_string);

/// Random JSON documents of every shape, posted to every write endpoint: never a 5xx, and
/// nothing written unless the document happened to be valid (it never is: every valid body
/// needs fields with specific names this generator cannot produce).
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map("[A-Z]{1,6}|\\PC{0,8}", inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

async fn rest_random_json(app: &TestApp) {
    let org = app.signup("Hostile Random").await;
    let before = counts(app, &org).await;
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let strategy = any_json();
    let paths = write_paths(&org);
    for round in 0..120 {
        let value = strategy
            .new_tree(&mut runner)
            .expect("a generated value")
            .current();
        let path = &paths[round % paths.len()];
        let (status, answer) = send(
            app,
            &org.test_key,
            path,
            "application/json",
            serde_json::to_vec(&value).expect("json"),
            &[],
        )
        .await;
        assert_refused(&format!("{path} {value}"), status, &answer);
    }
    assert_eq!(
        counts(app, &org).await,
        before,
        "a random body wrote something"
    );
}
both!(rest_random_json);

/// GraphQL: malformed, deep and wide documents get an error answer, never a 5xx.
async fn graphql_hostile_documents(app: &TestApp) {
    let org = app.signup("Hostile Graphql").await;
    let deep_selection = format!(
        "{{ organization {} }}",
        "{ parent ".repeat(5_000) + &"}".repeat(5_000)
    );
    let many_aliases = format!(
        "{{ {} }}",
        (0..20_000)
            .map(|i| format!("a{i}: __typename"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let deep_list = format!("{{ x(a: {}1{}) }}", "[".repeat(50_000), "]".repeat(50_000));
    let deep_object = format!(
        "{{ x(a: {}1{}) }}",
        "{a: ".repeat(30_000),
        "}".repeat(30_000)
    );
    let fragment_cycle = "query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }";
    let documents: Vec<(&str, Value)> = vec![
        ("deep selection", json!({"query": deep_selection})),
        ("many aliases", json!({"query": many_aliases})),
        ("deep list value", json!({"query": deep_list})),
        ("deep object value", json!({"query": deep_object})),
        ("fragment cycle", json!({"query": fragment_cycle})),
        ("unterminated", json!({"query": "{ organization { id "})),
        ("not a string", json!({"query": 42})),
        ("no query", json!({"variables": {}})),
        (
            "bad variables",
            json!({"query": "query($id: ID!) { node(id: $id) { id } }", "variables": {"id": {"x": [1]}}}),
        ),
        (
            "unknown operation",
            json!({"query": "{ __typename }", "operationName": "Nope"}),
        ),
        (
            "mutation with hostile amount",
            json!({"query": "mutation { createTransaction(input: {date: \"2026-02-30\", description: \"x\", lines: []}) { id } }"}),
        ),
    ];
    for (what, body) in documents {
        let (status, answer) = send(
            app,
            &org.test_key,
            "/graphql",
            "application/json",
            serde_json::to_vec(&body).expect("json"),
            &[],
        )
        .await;
        assert!(
            status.is_success() || status.is_client_error(),
            "graphql {what}: {status} {answer}"
        );
        assert!(
            answer["errors"].as_array().is_some_and(|e| !e.is_empty())
                || answer["error"]["code"].is_string(),
            "graphql {what}: no error in {answer}"
        );
    }
    for (what, body) in hostile_bodies() {
        let (status, answer) = send(
            app,
            &org.test_key,
            "/graphql",
            "application/json",
            body,
            &[],
        )
        .await;
        assert!(
            status.is_client_error() || status.is_success(),
            "graphql body {what}: {status} {answer}"
        );
        assert!(!answer.is_null(), "graphql body {what}: not JSON");
    }
}
both!(graphql_hostile_documents);

/// MCP: hostile JSON-RPC frames get a JSON-RPC error or a 4xx, never a 5xx.
async fn mcp_hostile_frames(app: &TestApp) {
    let org = app.signup("Hostile Mcp").await;
    let modern = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let big_batch = Value::Array(
        (0..10_000)
            .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "ping"}))
            .collect(),
    );
    let frames: Vec<(&str, Vec<u8>)> = vec![
        ("big batch", serde_json::to_vec(&big_batch).expect("json")),
        ("empty batch", b"[]".to_vec()),
        ("wrong version", br#"{"jsonrpc": "1.0", "id": 1, "method": "ping"}"#.to_vec()),
        ("object id", br#"{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}"#.to_vec()),
        ("no method", br#"{"jsonrpc": "2.0", "id": 1}"#.to_vec()),
        ("method not a string", br#"{"jsonrpc": "2.0", "id": 1, "method": 7}"#.to_vec()),
        (
            "params not an object",
            br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"}"#.to_vec(),
        ),
        (
            "unknown tool",
            br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "rm -rf", "arguments": {}}}"#.to_vec(),
        ),
        (
            "deep arguments",
            {
                let mut f = br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_accounts", "arguments": "#.to_vec();
                f.extend(nested_objects(20_000));
                f.extend_from_slice(b"}}");
                f
            },
        ),
    ];
    let mut all: Vec<(&str, Vec<u8>)> = frames;
    all.extend(hostile_bodies());
    for (what, frame) in all {
        let (status, answer) = send(
            app,
            &org.test_key,
            "/mcp",
            "application/json",
            frame,
            &modern,
        )
        .await;
        assert!(!status.is_server_error(), "mcp {what}: {status} {answer}");
        if status.is_success() {
            let has_error = answer["error"].is_object()
                || answer["result"]["isError"] == true
                || answer
                    .as_array()
                    .is_some_and(|items| items.iter().all(|i| i["error"].is_object()));
            assert!(has_error, "mcp {what}: accepted: {answer}");
        }
    }
    // Nothing was written by any of it.
    let res = app.get(&org.test_key, &org.path("accounts")).await;
    let fresh = app.signup("Hostile Mcp Fresh").await;
    let reference = app.get(&fresh.test_key, &fresh.path("accounts")).await;
    assert_eq!(res.body["total_count"], reference.body["total_count"]);
}
both!(mcp_hostile_frames);

/// A client that sends its request head a byte at a time and then stalls is cut off by the
/// server's request timeout, and serves nobody else any worse meanwhile.
async fn slow_clients_are_cut_off(app: &TestApp) {
    let org = app.signup("Hostile Slow").await;
    let addr = app.base.trim_start_matches("http://").to_owned();
    let mut stallers = Vec::new();
    for _ in 0..32 {
        let mut conn = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        // A server may also refuse a staller at once (a reset): that is a cut-off too.
        match conn
            .write_all(b"POST /organizations/x/accounts HTTP/1.1\r\nHost: x\r\n")
            .await
        {
            Ok(()) => stallers.push(conn),
            Err(e) => eprintln!("a staller was cut off while writing: {e}"),
        }
    }
    // The others are still served while the stallers hold their connections.
    let res = app.get(&org.test_key, &org.path("accounts")).await;
    assert_eq!(res.status, StatusCode::OK);
    // Each staller is answered (408) or closed by the server, never left open forever.
    for mut conn in stallers {
        let mut buf = Vec::new();
        // A reset also ends the connection; only a connection left open fails.
        let _read = tokio::time::timeout(Duration::from_secs(30), conn.read_to_end(&mut buf))
            .await
            .expect("the server closes a stalled request within its request timeout");
        let head = String::from_utf8_lossy(&buf);
        assert!(
            head.is_empty() || head.starts_with("HTTP/1.1 408") || head.starts_with("HTTP/1.1 400"),
            "a stalled request was answered with {head}"
        );
    }
}
both!(slow_clients_are_cut_off);
