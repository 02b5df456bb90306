//! Rate limits: headers on every authenticated answer, 429 past the budget.

use ledger_tests::{Backend, TestApp, refused};
use reqwest::StatusCode;

async fn budget_then_refusal(app: &TestApp) {
    let org = app.signup("Limited").await;
    let other = app.signup("Unlimited").await;
    let path = org.path("accounts");
    for remaining in ["2", "1", "0"] {
        let res = app.get(&org.test_key, &path).await;
        assert_eq!(res.status, StatusCode::OK);
        assert_eq!(res.header("x-ratelimit-limit"), Some("3"));
        assert_eq!(res.header("x-ratelimit-remaining"), Some(remaining));
        let reset: u64 = res
            .header("x-ratelimit-reset")
            .and_then(|v| v.parse().ok())
            .expect("reset");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_secs();
        assert!(reset >= now && reset <= now + 61, "reset {reset} now {now}");
    }
    let res = app.get(&org.test_key, &path).await;
    refused(&res, StatusCode::TOO_MANY_REQUESTS, "rate_limit_exceeded");
    assert_eq!(res.body["error"]["type"], "rate_limit_error");
    let retry_after = res.body["error"]["retry_after"]
        .as_u64()
        .expect("retry_after");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert_eq!(
        res.header("retry-after"),
        Some(retry_after.to_string().as_str())
    );
    assert_eq!(res.header("x-ratelimit-remaining"), Some("0"));
    // Another organization's key has its own budget; the live key of the same
    // organization has the live budget.
    let res = app.get(&other.test_key, &other.path("accounts")).await;
    assert_eq!(res.status, StatusCode::OK);
    let res = app.get(&org.live_key, &path).await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(res.header("x-ratelimit-limit"), Some("1000"));
}

async fn run(backend: Backend) {
    let app = TestApp::spawn_with(backend, |c| {
        c.rate_limit_test = 3;
        c.rate_limit_live = 1000;
    })
    .await;
    if let Some(app) = app {
        budget_then_refusal(&app).await;
        app.finish().await;
    }
}

ledger_tests::on_backends!(run);

/// Two replicas sharing Redis draw from one budget per key.
async fn replicas_share_the_budget(backend: Backend) {
    let Ok(redis_url) = std::env::var("LEDGER_TEST_REDIS_URL") else {
        eprintln!("LEDGER_TEST_REDIS_URL is not set: skipping the shared-limiter run");
        return;
    };
    let prefix = format!("ledger-test:{}", std::process::id())
        + &format!(
            ":{:?}:{}",
            backend,
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
    let tweak = |c: &mut server::Config| {
        c.rate_limit_test = 4;
        c.redis_url = Some(redis_url.clone());
        c.redis_prefix = prefix.clone();
    };
    let Some(first) = TestApp::spawn_with(backend, tweak).await else {
        return;
    };
    let org = first.signup("Shared").await;
    // The second replica serves the same database.
    let second = first.replica(tweak).await;
    let path = org.path("accounts");
    let mut remaining = Vec::new();
    for app in [&first, &second, &first, &second] {
        let res = app.get(&org.test_key, &path).await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
        remaining.push(res.header("x-ratelimit-remaining").unwrap_or("").to_owned());
    }
    assert_eq!(remaining, ["3", "2", "1", "0"]);
    for app in [&first, &second] {
        let res = app.get(&org.test_key, &path).await;
        refused(&res, StatusCode::TOO_MANY_REQUESTS, "rate_limit_exceeded");
    }
    second.finish().await;
    first.finish().await;
}

mod shared {
    ledger_tests::on_backends!(super::replicas_share_the_budget);
}
