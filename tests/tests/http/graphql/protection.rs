//! GraphQL protection and tooling: batched balances counted in store queries, document
//! limits, credits refused, rate limits, the playground, the exported SDL and the
//! external graphql-core client.

use ledger_tests::{Backend, TestApp, both};
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{CREATE_TXN, entries};

/// Store queries of one `organization { accounts { balance transactions } }` request,
/// and the number of accounts it listed.
async fn count_balance_queries(app: &TestApp, key: &str) -> (u64, usize) {
    let query = "{ organization { accounts { code balance { amount }
        transactions(limit: 2) { debit balance } recent: transactions(limit: 1) { credit } } } }";
    let before = app.queries_executed();
    let d = app.gql_data(key, query, json!({})).await;
    let n = app.queries_executed() - before;
    (
        n,
        d["organization"]["accounts"].as_array().map_or(0, Vec::len),
    )
}

/// `organization { accounts { balance } }` costs the same number of store queries with 7
/// accounts as with 17: balances load in one batch.
async fn batched(app: &TestApp) {
    let (org, [cash, sales]) = app
        .signup_with_accounts("Gql Batch", ["1000", "4000"])
        .await;
    let key = &org.test_key;
    app.post_transfer(&org, key, &cash, &sales, "1.00").await;
    app.post_transfer(&org, key, &cash, &sales, "2.00").await;
    app.post_transfer(&org, key, &sales, &cash, "0.50").await;
    // Histories load per list too, with running balances, and cut at each account's limit.
    let d = app.gql_data(key,
        "{ organization { accounts { code transactions(limit: 2) { debit credit balance } } } }",
        json!({}),
    )
    .await;
    let accounts = d["organization"]["accounts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let rows = |code: &str| {
        accounts
            .iter()
            .find(|a| a["code"] == code)
            .map(|a| a["transactions"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        rows("1000"),
        json!([
            { "debit": "1.00", "credit": "0.00", "balance": "1.00" },
            { "debit": "2.00", "credit": "0.00", "balance": "3.00" },
        ])
    );
    assert_eq!(rows("4000").as_array().map(Vec::len), Some(2));
    assert_eq!(rows("2000"), json!([]));
    let (small, accounts) = count_balance_queries(app, key).await;
    // The same again: the count is stable, not an accident of timing.
    assert_eq!(count_balance_queries(app, key).await, (small, 7));
    assert_eq!(accounts, 7);
    for i in 0..10 {
        app.gql_data(key,
            &format!("mutation {{ createAccount(code: \"17{i:02}\", name: \"Extra {i}\", accountType: ASSET) {{ id }} }}"),
            json!({}),
        )
        .await;
    }
    let (large, accounts) = count_balance_queries(app, key).await;
    assert_eq!(accounts, 17);
    assert_eq!(small, large, "queries grew with the number of accounts");
    // Authentication, the account list, one balance batch and one history batch per
    // distinct limit: a handful, not one per account.
    assert!(large <= 8, "{large} queries");
}

// No background workers: nothing else queries the store while counting.
both!(graphql_batched_balances, batched, |c| c.workers = 0);

async fn limits(app: &TestApp) {
    let org = app.signup("Gql Limits").await;
    let key = &org.test_key;
    // Depth: the configured maximum is 6 here.
    let res = app
        .gql_refused(
            Some(key),
            "{ __schema { types { fields { type { ofType { ofType { name } } } } } } }",
            json!({}),
            "GRAPHQL_VALIDATION_FAILED",
        )
        .await;
    assert!(
        res.body["errors"][0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("nesting"),
        "{}",
        res.body
    );
    // Complexity: at most 8 fields here, fragments counted once per spread.
    let ok = app
        .gql_data(key, "{ organization { id name isRoot } }", json!({}))
        .await;
    assert_eq!(ok["organization"]["isRoot"], true);
    app.gql_refused(
        Some(key),
        "fragment F on OrganizationNode { id name isRoot }
         { a: organization { ...F } b: organization { ...F } c: organization { ...F } }",
        json!({}),
        "GRAPHQL_VALIDATION_FAILED",
    )
    .await;
}

both!(graphql_document_limits, limits, |c| {
    c.graphql_max_depth = 6;
    c.graphql_max_complexity = 8;
});

async fn credit_refusals(app: &TestApp) {
    let org = app.signup("Gql Poor").await;
    let key = &org.live_key;
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    // 6 credits: one report (5) fits, the second does not.
    let d = app
        .gql_data(
            key,
            "{ organization { trialBalance { totalDebits } } }",
            json!({}),
        )
        .await;
    assert_eq!(d["organization"]["trialBalance"]["totalDebits"], "0.00");
    let res = app
        .gql_refused(
            Some(key),
            "{ organization { balanceSheet { totalAssets } } }",
            json!({}),
            "CREDIT_LIMIT_EXCEEDED",
        )
        .await;
    let message = res.body["errors"][0]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("5 required") && message.contains("1 available"),
        "{message}"
    );
    assert_eq!(res.body["errors"][0]["extensions"]["required"], 5);
    assert_eq!(res.body["errors"][0]["extensions"]["available"], 1);
    // A transaction costs 2: refused with 1 left, and nothing is written.
    let res = app
        .gql_refused(
            Some(key),
            CREATE_TXN,
            json!({ "d": "x", "e": entries(&cash, &sales, "1.00") }),
            "CREDIT_LIMIT_EXCEEDED",
        )
        .await;
    assert_eq!(res.body["errors"][0]["extensions"]["required"], 2);
    let d = app
        .gql_data(
            key,
            "{ organization { recentTransactions { id } creditBalance { creditsRemaining } } }",
            json!({}),
        )
        .await;
    assert_eq!(d["organization"]["recentTransactions"], json!([]));
    assert_eq!(d["organization"]["creditBalance"]["creditsRemaining"], 1);
    // A one-credit write still fits; the test key never touches the live pool.
    app.gql_data(
        key,
        "mutation { createAccount(code: \"1800\", name: \"Last\", accountType: ASSET) { id } }",
        json!({}),
    )
    .await;
    app.gql_refused(
        Some(key),
        "mutation { createAccount(code: \"1801\", name: \"Over\", accountType: ASSET) { id } }",
        json!({}),
        "CREDIT_LIMIT_EXCEEDED",
    )
    .await;
    let d = app
        .gql_data(
            &org.test_key,
            "{ organization { balanceSheet { totalAssets } } }",
            json!({}),
        )
        .await;
    assert_eq!(d["organization"]["balanceSheet"]["totalAssets"], "0.00");
}

both!(graphql_credit_refusals, credit_refusals, |c| c
    .signup_credits =
    6);

async fn rate_limited(app: &TestApp) {
    let org = app.signup("Gql Busy").await;
    for remaining in ["1", "0"] {
        let res = app
            .gql(Some(&org.test_key), "{ organization { id } }", json!({}))
            .await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
        // The same buckets and headers as REST.
        assert_eq!(res.header("x-ratelimit-limit"), Some("2"));
        assert_eq!(res.header("x-ratelimit-remaining"), Some(remaining));
    }
    let res = app
        .gql(Some(&org.test_key), "{ organization { id } }", json!({}))
        .await;
    assert_eq!(res.status, StatusCode::TOO_MANY_REQUESTS, "{}", res.body);
    assert_eq!(res.gql_code(), "RATE_LIMIT_EXCEEDED");
    let retry = res.body["errors"][0]["extensions"]["retryAfter"]
        .as_u64()
        .expect("retryAfter");
    assert!((1..=60).contains(&retry), "{retry}");
    assert!(res.headers.get("retry-after").is_some());
}

both!(graphql_rate_limit, rate_limited, |c| c.rate_limit_test = 2);

async fn playground(app: &TestApp) {
    let res = app.fetch("/graphql/playground").await;
    assert_eq!(res.status(), StatusCode::OK);
    let html = res.text().await.expect("html");
    assert!(
        html.contains("graphiql") || html.contains("GraphiQL"),
        "{html}"
    );
    assert!(html.contains("/graphql"));
}
both!(graphql_playground, playground);

/// `docs/schema.graphql` is what `cargo xtask graphql-schema` would write now.
#[test]
fn graphql_schema_file_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/schema.graphql");
    let stored = std::fs::read_to_string(path).unwrap_or_default();
    let current = ledger_graphql::sdl::<ledger_store::Db>();
    assert!(
        stored == current,
        "docs/schema.graphql is not current: run `cargo xtask graphql-schema` and commit it"
    );
}

/// The external client check (`tests/graphql_client/check_schema.py`, graphql-core): the
/// client schema built from our introspection validates the documented operations, and a
/// few of them run. Fails when the script fails or cannot run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graphql_external_client() {
    let Some(app) = TestApp::spawn(Backend::Sqlite).await else {
        return;
    };
    let org = app.signup("Gql Client").await;
    let [cash, sales] = app.account_ids(&org, &org.test_key, ["1000", "4000"]).await;
    app.post_transfer(&org, &org.test_key, &cash, &sales, "42.00")
        .await;
    let out = ledger_tests::run_python(
        ledger_tests::workspace().join("tests/graphql_client/check_schema.py"),
        Vec::new(),
        [
            ("LEDGER_GRAPHQL_URL", format!("{}/graphql", app.base)),
            ("LEDGER_GRAPHQL_KEY", org.test_key.clone()),
        ],
    )
    .await;
    if out.code == Some(3) {
        panic!(
            "graphql-core is missing: `python3 -m pip install graphql-core==3.2.8`\n{}",
            out.stderr
        );
    }
    out.assert_ok("the GraphQL client check", &["executed Reports"]);
    app.finish().await;
}
