//! The harness itself: a test that leaves accepted work unprocessed fails.

use ledger_tests::{Backend, TestApp, entries};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[should_panic(expected = "queued jobs unprocessed")]
async fn leftover_queued_jobs_fail_the_test() {
    // No worker and no inline run: an accepted job stays queued.
    let app = TestApp::spawn_with(Backend::Sqlite, |c| {
        c.workers = 0;
        c.inline_jobs = false;
    })
    .await
    .expect("SQLite is always available");
    let org = app.signup("Leftover").await;
    let [cash, sales] = app.account_ids(&org, &org.test_key, ["1000", "4000"]).await;
    let res = app
        .post(&org.test_key, &org.path("transactions"), json!({"description": "never run", "date": "2026-01-01", "entries": entries(&cash, &sales, 1)}))
        .await;
    assert_eq!(res.status, reqwest::StatusCode::ACCEPTED);
    app.finish().await;
}
