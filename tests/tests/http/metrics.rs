//! `GET /metrics` (Prometheus text) and `GET /ready`: who may read the metrics (the
//! operator alone), that requests, group commits, the queue, the pools and the caches are
//! measured, and that `promtool check metrics` (Prometheus' own linter) finds nothing to
//! fault.

use ledger_tests::{Org, TestApp, both};
use reqwest::StatusCode;

async fn scrape(app: &TestApp, key: &str) -> (StatusCode, String, String) {
    let res = app.fetch_with(Some(key), "/metrics").await;
    let status = res.status();
    let content_type = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, content_type, res.text().await.expect("text"))
}

/// The value of the sample written exactly as `series` (name and labels), or 0.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

/// Prometheus' linter: `LEDGER_PROMTOOL`, else `promtool` on the PATH. CI installs it;
/// elsewhere the check is skipped with a note.
fn promtool_check(text: &str) {
    use std::io::Write;
    let tool = std::env::var("LEDGER_PROMTOOL").unwrap_or_else(|_| "promtool".into());
    let child = std::process::Command::new(&tool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            assert!(
                std::env::var("CI").is_err(),
                "promtool ({tool}) is missing in CI: {e}"
            );
            eprintln!("promtool ({tool}) not found: the lint is skipped ({e})");
            return;
        }
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("promtool ran");
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn post(app: &TestApp, org: &Org, bank: &str, income: &str) {
    let key = &org.test_key;
    app.post_dated(org, key, "Sale", "2026-01-15", (bank, income), "10.00")
        .await;
}

/// The operator's admin token of the servers these tests start.
const OPERATOR: &str = "operator-token-for-the-metrics-tests";

async fn metrics_are_measured_and_lint_clean(app: &TestApp) {
    let org = app.signup("Metrics").await;
    // Server-wide figures are the operator's: no credential, a tenant's admin key, and
    // even a `system` key the tenant grants itself are refused.
    let res = app.fetch("/metrics").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let (status, _, body) = scrape(app, &org.test_key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let (_, tenant_system_key) = app.make_key(&org, &org.test_key, &["system"]).await;
    let (status, _, body) = scrape(app, &tenant_system_key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body.contains("operator"), "{body}");
    let system_key = OPERATOR.to_owned();

    let route = "ledger_http_requests_total{method=\"GET\",route=\"/organizations/{org}/accounts\",status=\"200\"}";
    let (status, content_type, before) = scrape(app, &system_key).await;
    assert_eq!(status, StatusCode::OK, "{before}");
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    let listed = app.get(&org.test_key, &org.path("accounts")).await;
    assert_eq!(listed.status, StatusCode::OK);
    let [bank, income] = app.account_ids(&org, &org.test_key, ["1000", "4000"]).await;
    post(app, &org, &bank, &income).await;
    post(app, &org, &bank, &income).await;

    let (_, _, after) = scrape(app, &system_key).await;
    // Counted under the route's pattern, never its ids.
    assert!(
        sample(&after, route) >= sample(&before, route) + 1.0,
        "{after}"
    );
    assert!(
        !after.contains(&org.id),
        "an id leaked into a label: {after}"
    );
    for family in [
        "# TYPE ledger_http_request_duration_seconds histogram",
        "# TYPE ledger_group_commit_writes histogram",
        "# TYPE ledger_cache_lookups_total counter",
        "# TYPE ledger_jobs_queued gauge",
        "# TYPE ledger_db_pool_connections gauge",
    ] {
        assert!(after.contains(family), "{family} missing: {after}");
    }
    assert_eq!(sample(&after, "ledger_database_up"), 1.0, "{after}");
    assert!(sample(&after, "ledger_db_pool_connections{state=\"max\"}") >= 1.0);
    assert!(
        sample(&after, "ledger_group_commit_writes_count") >= 2.0,
        "{after}"
    );
    promtool_check(&after);

    // Ready: the database answers and the queue can be read.
    let ready = app
        .call(reqwest::Method::GET, "/ready", None, None, &[])
        .await;
    assert_eq!(ready.status, StatusCode::OK, "{}", ready.body);
    assert_eq!(ready.body["status"], "ready");
    assert_eq!(ready.body["database"], "up");
}

both!(metrics, metrics_are_measured_and_lint_clean, |c| {
    // The closure runs inside the module `both!` makes.
    c.admin_token = Some(super::OPERATOR.into());
});

/// Without a configured admin token nobody reads the metrics, and the refusal says how.
async fn metrics_need_a_configured_operator(app: &TestApp) {
    let org = app.signup("No Operator").await;
    let (_, system_key) = app.make_key(&org, &org.test_key, &["system"]).await;
    let (status, _, body) = scrape(app, &system_key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body.contains("LEDGER_ADMIN_TOKEN"), "{body}");
}

both!(metrics_unconfigured, metrics_need_a_configured_operator);
