//! The backup and restore runbook (deploy/backup.md) on PostgreSQL: a database seeded
//! through the real server (accounts, posted and reversed transactions, an invoice sent
//! and paid, in live and test mode) is dumped with `pg_dump -Fc`, restored with
//! `pg_restore` into a fresh database, and a server started on the copy answers the same
//! reports, documents and balances, with every maintained total agreeing with the
//! journal (what `ledger-server verify-balances` checks). Skipped like every PostgreSQL
//! test when `LEDGER_TEST_PG_URL` is unset (never in CI); fails saying so when the
//! PostgreSQL client tools are missing.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use ledger_domain::ports::SystemClock;
use ledger_tests::{Backend, Org, TestApp};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Runs a PostgreSQL client tool, failing the test with its output when it fails.
fn run(tool: &str, args: &[&str]) -> String {
    let output = Command::new(tool).args(args).output().unwrap_or_else(|e| {
        panic!("{tool} is needed for the backup test (apt-get install postgresql-client-15): {e}")
    });
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{tool} {args:?} failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The database of `url` (`postgres://host/name`) and the URL of another database on the
/// same server.
fn sibling_url(url: &str, name: &str) -> String {
    let (server, _) = url.rsplit_once('/').expect("a database URL");
    format!("{server}/{name}")
}

/// A restored database, dropped when the test ends (even when it fails).
struct Restored {
    admin_url: String,
    name: String,
    dump: PathBuf,
}

impl Drop for Restored {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.dump);
        let _ = Command::new("psql")
            .args([
                self.admin_url.as_str(),
                "-qc",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
            ])
            .output();
    }
}

async fn ok(app: &TestApp, key: &str, path: &str) -> Value {
    let res = app.get(key, path).await;
    assert_eq!(res.status, StatusCode::OK, "GET {path}: {}", res.body);
    res.body
}

async fn created(app: &TestApp, key: &str, path: &str, body: Value) -> Value {
    let res = app.post_wait(key, path, body).await;
    assert!(
        res.status == StatusCode::CREATED || res.status == StatusCode::OK,
        "POST {path}: {} {}",
        res.status,
        res.body
    );
    res.body
}

/// [`created`]'s `id`.
async fn created_id(app: &TestApp, key: &str, path: &str, body: Value) -> String {
    let created = created(app, key, path, body).await;
    created["id"]
        .as_str()
        .unwrap_or_else(|| panic!("POST {path}: no id in {created}"))
        .to_owned()
}

/// Books for one mode: two accounts of our own, three posted transactions (one
/// reversed), and an invoice sent and paid in full. Returns the invoice's path.
async fn seed(app: &TestApp, org: &Org, key: &str) -> String {
    let base = format!("/organizations/{}", org.id);
    let account = async |code: &str, name: &str, account_type: &str| {
        let body = json!({"code": code, "name": name, "account_type": account_type});
        created_id(app, key, &format!("{base}/accounts"), body).await
    };
    let bank = account("1010", "Checking", "asset").await;
    let consulting = account("4010", "Consulting", "revenue").await;
    let [equity, expenses] = app.account_ids(org, key, ["3000", "5000"]).await;
    app.post_transfer(org, key, &bank, &equity, "10000.00")
        .await;
    app.post_transfer(org, key, &bank, &consulting, "1500.25")
        .await;
    let mistake = app.post_transfer(org, key, &expenses, &bank, "99.99").await;
    let mistake = mistake["id"].as_str().expect("transaction id");
    created(
        app,
        key,
        &format!("{base}/transactions/{mistake}/reverse"),
        json!({"reason": "entered twice"}),
    )
    .await;
    let customer = created_id(
        app,
        key,
        &format!("{base}/contacts"),
        json!({"contact_type": "customer", "name": "Acme Corp"}),
    )
    .await;
    let tax = created_id(
        app,
        key,
        &format!("{base}/taxes"),
        json!({"name": "State", "rate": "8.25", "tax_type": "sales_tax", "is_compound": false}),
    )
    .await;
    let invoice = created(
        app,
        key,
        &format!("{base}/invoices"),
        json!({"contact_id": customer, "invoice_date": "2026-01-10", "due_date": "2026-02-09",
               "items": [{"description": "Audit", "quantity": "3", "unit_price": "120.00",
                          "tax_ids": [tax], "account_id": consulting}]}),
    )
    .await;
    let path = format!(
        "{base}/invoices/{}",
        invoice["id"].as_str().expect("invoice id")
    );
    let sent = app
        .call(
            Method::POST,
            &format!("{path}/send"),
            Some(key),
            None,
            &[("Prefer", "wait=10")],
        )
        .await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    let total = sent.body["total"].as_str().expect("total").to_owned();
    let paid = app
        .post(
            key,
            &format!("{path}/payments"),
            json!({"amount": total, "payment_date": "2026-02-01",
                   "payment_method": "bank_transfer", "account_id": bank}),
        )
        .await;
    assert_eq!(paid.status, StatusCode::CREATED, "{}", paid.body);
    assert_eq!(ok(app, key, &path).await["status"], "paid");
    path
}

/// What must read the same after a restore.
async fn answers(app: &TestApp, org: &Org, key: &str, invoice: &str) -> Vec<(String, Value)> {
    let base = format!("/organizations/{}", org.id);
    let mut paths = vec![
        format!("{base}/reports/trial-balance"),
        format!("{base}/reports/trial-balance?as_of=2026-01-31"),
        format!("{base}/reports/balance-sheet"),
        format!("{base}/reports/balance-sheet?as_of=2026-01-15"),
        format!("{base}/reports/income-statement?start_date=2026-01-01&end_date=2026-12-31"),
        format!("{base}/accounts?limit=100"),
        format!("{base}/transactions?limit=100"),
        invoice.to_owned(),
        format!("{invoice}/history"),
    ];
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let mut body = ok(app, key, &path).await;
        // A report without `as_of` is as of the moment it is asked.
        if !path.contains("as_of=")
            && let Some(report) = body.as_object_mut()
        {
            report.remove("as_of");
        }
        out.push((path, body));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_dump_and_pg_restore_give_identical_books() {
    let Some(app) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let org = app.signup("Backup Books").await;
    let live_invoice = seed(&app, &org, &org.live_key).await;
    let test_invoice = seed(&app, &org, &org.test_key).await;
    let before_live = answers(&app, &org, &org.live_key, &live_invoice).await;
    let before_test = answers(&app, &org, &org.test_key, &test_invoice).await;
    let trial = &before_live[before_live
        .iter()
        .position(|(p, _)| p.ends_with("/reports/trial-balance"))
        .expect("trial balance")]
    .1;
    assert_eq!(trial["total_debits"], trial["total_credits"], "{trial}");

    // The runbook: pg_dump -Fc, a fresh database, pg_restore --no-owner.
    let source = app.database_url().expect("the database").to_owned();
    let name = format!("ledger_restore_{}", std::process::id());
    let restored = Restored {
        admin_url: sibling_url(&source, "postgres"),
        name: name.clone(),
        dump: std::env::temp_dir().join(format!("{name}.dump")),
    };
    let dump = restored.dump.to_str().expect("a UTF-8 path");
    run("pg_dump", &["-Fc", "--no-owner", "-f", dump, &source]);
    let listing = run("pg_restore", &["--list", dump]);
    assert!(
        listing.contains("TABLE DATA public ledger_entries"),
        "the dump holds the journal: {listing}"
    );
    run(
        "psql",
        &[
            &restored.admin_url,
            "-v",
            "ON_ERROR_STOP=1",
            "-qc",
            &format!("CREATE DATABASE {name}"),
        ],
    );
    let target = sibling_url(&source, &name);
    run(
        "pg_restore",
        &["--no-owner", "--exit-on-error", "-d", &target, dump],
    );

    // A server on the copy: opening it applies no migration (the record came along).
    let config = server::Config::with_database(&target);
    let db = server::open_store(&config)
        .await
        .expect("the restored database opens and is up to date");
    let differences = db.verify_balances().await.expect("balances verified");
    assert!(
        differences.is_empty(),
        "the restored totals differ from the restored journal: {differences:#?}"
    );
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let running = server::start(&config, db, listener, Arc::new(SystemClock))
        .await
        .expect("a server on the restored database");
    let copy = TestApp::attach(format!("http://{}", running.addr), Backend::Postgres);
    // The same secrets authenticate (only their hashes were stored, and restored).
    let after_live = answers(&copy, &org, &org.live_key, &live_invoice).await;
    let after_test = answers(&copy, &org, &org.test_key, &test_invoice).await;
    for ((path, before), (_, after)) in before_live
        .iter()
        .chain(&before_test)
        .zip(after_live.iter().chain(&after_test))
    {
        assert_eq!(before, after, "GET {path} differs after the restore");
    }
    // The copy takes writes and keeps its books: a new posting on the restored database.
    let [bank, equity] = copy
        .account_ids(&org, &org.live_key, ["1010", "3000"])
        .await;
    copy.post_transfer(&org, &org.live_key, &bank, &equity, "1.00")
        .await;
    running.stop().await;
    drop(restored);
    app.finish().await;
}
