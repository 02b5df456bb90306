//! The database out of reach (issue 39 item 4): while PostgreSQL refuses the server's
//! connections (as during a restart or a failover), REST and GraphQL answer
//! `503 service_unavailable` in their error shapes with `Retry-After`, an MCP tool call
//! answers a tool error with the same code and wait, `/health` answers 503, and nothing
//! is answered 500; once the database takes connections again, the same
//! requests succeed. PostgreSQL only: a SQLite file cannot be taken away from a running
//! server in the same way.

use ledger_tests::{Answer, Backend, TestApp, mcp};
use reqwest::{Method, StatusCode};
use serde_json::json;

/// A 503 in the REST envelope with `Retry-After`.
#[track_caller]
fn unavailable(res: &Answer) {
    assert_eq!(res.status, StatusCode::SERVICE_UNAVAILABLE, "{}", res.body);
    assert_eq!(res.body["error"]["type"], "api_error", "{}", res.body);
    assert_eq!(res.code(), "service_unavailable", "{}", res.body);
    assert_eq!(res.body["error"]["retry_after"], 2, "{}", res.body);
    let retry = res
        .headers
        .get("retry-after")
        .map(|v| v.to_str().unwrap_or(""));
    assert_eq!(retry, Some("2"), "Retry-After");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_is_503_on_every_interface() {
    let Some(app) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let org = app.signup("Outage Co").await;
    let accounts = org.path("accounts");
    let cash =
        json!({"name": "Petty cash", "code": "1999", "account_type": "asset", "currency": "USD"});
    assert_eq!(
        app.get(&org.test_key, &accounts).await.status,
        StatusCode::OK
    );
    // The same create each time, as a client retries it through the outage.
    let create_once = async || {
        let headers = [("Idempotency-Key", "outage-1"), ("Prefer", "wait=5")];
        let body = Some(cash.clone());
        app.call(Method::POST, &accounts, Some(&org.test_key), body, &headers)
            .await
    };
    let organization = async || {
        app.gql(
            Some(&org.test_key),
            "{ organization { id name } }",
            json!({}),
        )
        .await
    };

    app.set_database_reachable(false).await;
    // Every request that needs the database, on every interface, several times (each
    // pool connection is found broken once, then none can be opened).
    for _ in 0..3 {
        unavailable(&app.get(&org.test_key, &accounts).await);
        unavailable(&app.post(&org.test_key, &accounts, cash.clone()).await);
        unavailable(&create_once().await);

        let res = organization().await;
        assert_eq!(res.status, StatusCode::SERVICE_UNAVAILABLE, "{}", res.body);
        assert_eq!(res.gql_code(), "SERVICE_UNAVAILABLE", "{}", res.body);
        assert_eq!(res.gql_reason(), "service_unavailable", "{}", res.body);
        assert!(
            res.headers.get("retry-after").is_some(),
            "GraphQL Retry-After"
        );

        // A tool call answers its error as a tool result (the agent reads it and retries),
        // with the same code and wait.
        let result = mcp::tool(&app, &org.test_key, "list_accounts", json!({})).await;
        assert_eq!(mcp::code(&result), "service_unavailable", "{result}");
        assert_eq!(result["structuredContent"]["error"]["retry_after"], 2);

        let health = app.call(Method::GET, "/health", None, None, &[]).await;
        assert_eq!(health.status, StatusCode::SERVICE_UNAVAILABLE);
    }

    app.set_database_reachable(true).await;
    // The pools open new connections; within a few seconds every interface answers again.
    let mut answered = None;
    for _ in 0..50 {
        let res = app.get(&org.test_key, &accounts).await;
        assert_ne!(
            res.status,
            StatusCode::INTERNAL_SERVER_ERROR,
            "{}",
            res.body
        );
        if res.status == StatusCode::OK {
            answered = Some(res);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        answered.is_some(),
        "the API answers again once the database does"
    );
    create_once().await.created();
    let res = organization().await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let result = mcp::tool(&app, &org.test_key, "list_accounts", json!({})).await;
    mcp::ok(&result);
    let health = app.call(Method::GET, "/health", None, None, &[]).await;
    assert_eq!(health.status, StatusCode::OK);
    app.finish().await;
}
