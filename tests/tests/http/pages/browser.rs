//! The pages in a real browser: headless Chromium (Debian `chromium`) driven by
//! Playwright for Python (`playwright==1.65.2`, using the system browser; no
//! `playwright install`). The scenarios are the scripts in `tests/browser/`:
//!
//! - `graphql_playground.py`: GraphiQL, sign in with a key, run a query, see the answer;
//! - `rest_playground.py`: Swagger UI over `/openapi.json`, set the key, run the
//!   accounts list, see the answer;
//! - `consent.py`: the OAuth sign-in by e-mailed link and the consent page (pick an
//!   organization, approve scopes), landing on the client's redirect with a code;
//! - `readme_agent.py`: the README's sign-up and accounts, then the official MCP Python
//!   SDK authorized through OAuth in the browser lists them; a person who owns nothing
//!   creates books on the consent page and authorizes with them.
//!
//! Each also fails on a Content-Security-Policy violation, a script error, a request
//! leaving the server's origin, or an HTML page without the security headers.
//! Screenshots are kept in `target/artifacts/browser/` (`LEDGER_ARTIFACTS_DIR`
//! overrides), named `<scenario>-<database>-<step>.png`, with a `-failure.png` when a
//! scenario fails.
//!
//! Without python3's playwright or Chromium (`LEDGER_CHROMIUM`, default
//! `/usr/bin/chromium`), these tests fail when `CI=true` (`.ci/run` installs both) and
//! are skipped otherwise, saying why.

use std::path::PathBuf;

use ledger_tests::{Backend, TestApp, python_imports, run_python, workspace};
use reqwest::StatusCode;

fn chromium() -> PathBuf {
    std::env::var_os("LEDGER_CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), PathBuf::from)
}

/// Where the screenshots go.
fn artifacts() -> PathBuf {
    if let Some(dir) = std::env::var_os("LEDGER_ARTIFACTS_DIR") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map_or_else(|| workspace().join("target"), |t| workspace().join(t));
    target.join("artifacts").join("browser")
}

/// Why the browser cannot run here, if it cannot.
fn missing() -> Option<String> {
    if !chromium().exists() {
        return Some(format!(
            "no Chromium at {} (apt-get install -y chromium, or set LEDGER_CHROMIUM)",
            chromium().display()
        ));
    }
    python_imports("import playwright.sync_api")
        .err()
        .map(|why| format!("{why} (pip install playwright==1.65.2)"))
}

/// `true` when the scenario must be skipped (only outside CI); panics in CI.
fn skip() -> bool {
    let Some(why) = missing() else { return false };
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    assert!(!ci, "the browser tests cannot run: {why}");
    eprintln!("skipping the browser test: {why}");
    true
}

/// Runs `tests/browser/<script>` against `app`; its output must end with `ok: <what>`.
async fn run(app: &TestApp, script: &str, scenario: &str, env: Vec<(&str, String)>) {
    let backend = match app.backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let prefix = format!("{scenario}-{backend}");
    let mut vars = vec![
        ("LEDGER_BASE".to_owned(), app.base.clone()),
        (
            "LEDGER_ARTIFACTS".to_owned(),
            artifacts().display().to_string(),
        ),
        ("LEDGER_ARTIFACT_PREFIX".to_owned(), prefix),
        (
            "LEDGER_CHROMIUM".to_owned(),
            chromium().display().to_string(),
        ),
    ];
    vars.extend(env.into_iter().map(|(k, v)| (k.to_owned(), v)));
    let what = format!(
        "the browser scenario {scenario} (screenshots in {})",
        artifacts().display()
    );
    run_python(
        workspace().join("tests/browser").join(script),
        Vec::new(),
        vars,
    )
    .await
    .assert_ok(&what, &["ok: "]);
}

macro_rules! browser_both {
    ($name:ident, $scenario:ident) => {
        mod $name {
            ledger_tests::on_backends!(super::$scenario);
        }
    };
}

async fn graphql_playground_runs_a_query(backend: Backend) {
    if skip() {
        return;
    }
    let Some(app) = TestApp::spawn(backend).await else {
        return;
    };
    let org = app.signup("Playground Co").await;
    run(
        &app,
        "graphql_playground.py",
        "graphql-playground",
        vec![
            ("LEDGER_KEY", org.test_key.clone()),
            ("LEDGER_ORG_NAME", "Playground Co".to_owned()),
        ],
    )
    .await;
    app.finish().await;
}
browser_both!(graphql_playground, graphql_playground_runs_a_query);

async fn rest_playground_runs_a_request(backend: Backend) {
    if skip() {
        return;
    }
    let Some(app) = TestApp::spawn(backend).await else {
        return;
    };
    let org = app.signup("Rest Explorer Co").await;
    let accounts = app.get(&org.test_key, &org.path("accounts")).await;
    assert_eq!(accounts.status, StatusCode::OK, "{}", accounts.body);
    let name = accounts.body["data"][0]["name"]
        .as_str()
        .expect("the default chart has accounts")
        .to_owned();
    run(
        &app,
        "rest_playground.py",
        "rest-playground",
        vec![
            ("LEDGER_KEY", org.test_key.clone()),
            ("LEDGER_ORG", org.id.clone()),
            ("LEDGER_EXPECT", name),
        ],
    )
    .await;
    app.finish().await;
}
browser_both!(rest_playground, rest_playground_runs_a_request);

const OWNER: &str = "browser-owner@example.com";

/// A mail outbox of the test's own, for the server's sign-in mails.
fn outbox() -> PathBuf {
    std::env::temp_dir().join(format!(
        "ledger-outbox-{}",
        ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Request)
    ))
}

/// Signs up an organization owned by the e-mail user `OWNER`.
async fn owned(app: &TestApp, name: &str) -> String {
    app.signup_owned_by(name, OWNER).await.id
}

async fn consent_in_the_browser(backend: Backend) {
    if skip() {
        return;
    }
    let outbox = outbox();
    let dir = outbox.to_string_lossy().into_owned();
    let Some(app) = TestApp::spawn_with(backend, move |c| c.mail_outbox = dir).await else {
        return;
    };
    let first = owned(&app, "First Books").await;
    let second = owned(&app, "Second Books").await;
    run(
        &app,
        "consent.py",
        "consent",
        vec![
            ("LEDGER_OUTBOX", outbox.to_string_lossy().into_owned()),
            ("LEDGER_EMAIL", OWNER.to_owned()),
            ("LEDGER_ORG", second),
            ("LEDGER_ORG_NAME", "Second Books".to_owned()),
            ("LEDGER_OTHER_ORG", first),
        ],
    )
    .await;
    let _ = std::fs::remove_dir_all(&outbox);
    app.finish().await;
}
browser_both!(oauth_consent, consent_in_the_browser);

/// The README's sign-up and accounts, then an MCP SDK agent authorized through OAuth in
/// the browser lists them; a person who owns nothing creates books on the consent page.
async fn readme_to_an_agent(backend: Backend) {
    if skip() {
        return;
    }
    let outbox = outbox();
    let dir = outbox.to_string_lossy().into_owned();
    let Some(app) = TestApp::spawn_with(backend, move |c| c.mail_outbox = dir).await else {
        return;
    };
    run(
        &app,
        "readme_agent.py",
        "readme-agent",
        vec![
            ("LEDGER_OUTBOX", outbox.to_string_lossy().into_owned()),
            (
                "LEDGER_README",
                workspace().join("README.md").display().to_string(),
            ),
        ],
    )
    .await;
    let _ = std::fs::remove_dir_all(&outbox);
    app.finish().await;
}
browser_both!(readme_agent, readme_to_an_agent);
