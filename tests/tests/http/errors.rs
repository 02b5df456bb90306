//! Malformed requests: each gets a 4xx in the envelope and changes nothing.

use ledger_tests::{TestApp, both, refused};
use reqwest::StatusCode;
use serde_json::Value;

async fn raw(
    app: &TestApp,
    key: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> (StatusCode, Value) {
    let res = app
        .client
        .post(format!("{}{path}", app.base))
        .bearer_auth(key)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .expect("send");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn malformed_bodies_get_clear_4xx(app: &TestApp) {
    let org = app.signup("Errors").await;
    let key = &org.test_key;
    let path = org.path("accounts");
    let (status, body) = raw(app, key, &path, "application/json", b"{\"code\": ".to_vec()).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_json"))
    );
    let (status, body) = raw(app, key, &path, "application/json", b"[1,2]".to_vec()).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_json"))
    );
    let (status, body) = raw(app, key, &path, "text/plain", b"{}".to_vec()).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Some("unsupported_media_type")
        )
    );
    let (status, body) = raw(
        app,
        key,
        &path,
        "application/json",
        br#"{"code": 1000, "name": "x", "account_type": "asset"}"#.to_vec(),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_field"))
    );
    assert_eq!(body["error"]["details"]["field"], "code");
    let mut big =
        br#"{"code": "1999", "name": "x", "account_type": "asset", "description": ""#.to_vec();
    big.extend(std::iter::repeat_n(b'a', 1 << 20));
    big.extend_from_slice(b"\"}");
    let (status, body) = raw(app, key, &path, "application/json", big).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::PAYLOAD_TOO_LARGE, Some("payload_too_large"))
    );
    let res = app.get(key, "/no/such/route").await;
    assert_eq!(res.status, StatusCode::NOT_FOUND);
    assert_eq!(res.body["error"]["type"], "not_found_error");
    let res = app.get(key, &org.path("accounts/not-an-id")).await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let res = app.get(key, &org.path("accounts?limit=abc")).await;
    assert_eq!(res.code(), "invalid_field");
    // None of these created anything.
    let res = app.get(key, &path).await;
    assert_eq!(res.body["total_count"], 7);
}
both!(malformed_bodies_get_clear_4xx);

async fn health_answers_ok(app: &TestApp) {
    let res = app.fetch("/health").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().contains_key("x-request-id"));
    assert_eq!(res.text().await.expect("text"), "OK");
}
both!(health_answers_ok);

/// `/health` answers 503 when the database is gone (PostgreSQL: an embedded SQLite file
/// cannot go down under the server).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_answers_503_without_the_database() {
    let Some(db) = ledger_store::testing::TestDb::postgres().await else {
        eprintln!("LEDGER_TEST_PG_URL is not set: skipping the PostgreSQL run");
        return;
    };
    let config = server::Config::with_database(&db.url);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
    let running = server::start(
        &config,
        db.db.clone(),
        listener,
        std::sync::Arc::new(ledger_domain::ports::SystemClock),
    )
    .await
    .expect("start");
    let url = format!("http://{}/health", running.addr);
    let ready = format!("http://{}/ready", running.addr);
    let client = reqwest::Client::new();
    assert_eq!(
        client.get(&url).send().await.expect("health").status(),
        StatusCode::OK
    );
    assert_eq!(
        client.get(&ready).send().await.expect("ready").status(),
        StatusCode::OK
    );
    // Drop the database under the running server (its connections are terminated).
    db.cleanup().await;
    let res = client.get(&url).send().await.expect("health");
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    // Not ready either: the database is down and the queue cannot be read.
    let res = client.get(&ready).send().await.expect("ready");
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: serde_json::Value = res.json().await.expect("json");
    assert_eq!(
        (&body["status"], &body["database"]),
        (&serde_json::json!("not_ready"), &serde_json::json!("down"))
    );
    running.stop().await;
}

/// Refusals say what is wrong (issue 42, item 6): a day the calendar does not have, an
/// amount in exponent notation, an amount past the limit (which the message states); an
/// account answers its type under both names.
async fn refusals_name_the_problem(app: &TestApp) {
    let org = app.signup("Messages Co").await;
    let key = &org.test_key;
    let rate = serde_json::json!({
        "from_currency": "EUR", "to_currency": "USD", "rate": "1.1",
        "effective_date": "2026-02-30",
    });
    let res = app.post(key, &org.path("exchange-rates"), rate).await;
    ledger_tests::invalid(
        &res,
        "invalid_field",
        "effective_date",
        Some("effective_date: 2026-02-30 is not a day of the calendar"),
    );
    let res = app
        .get(key, &org.path("reports/trial-balance?as_of=2026-04-31"))
        .await;
    refused(&res, StatusCode::BAD_REQUEST, "invalid_field");
    let message = res.body["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("2026-04-31 is not a day of the calendar"),
        "{message}"
    );

    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    for (amount, says) in [
        ("1e308", "exponent"),
        ("922337203685478", "922337203685477.5807"),
    ] {
        let body = serde_json::json!({
            "description": "Sale", "date": "2026-03-01",
            "entries": ledger_tests::entries(&cash, &sales, amount),
        });
        let res = app.post(key, &org.path("transactions"), body).await;
        refused(&res, StatusCode::BAD_REQUEST, "invalid_field");
        let message = res.body["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(says), "{amount}: {message}");
    }

    let account = serde_json::json!({
        "name": "Petty cash", "code": "1010", "account_type": "asset", "currency": "USD",
    });
    let res = app.post(key, &org.path("accounts"), account).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["type"], "asset");
    assert_eq!(res.body["account_type"], "asset");
}
both!(refusals_name_the_problem);
