//! Crash, shutdown, logs and traces: the real `ledger-server` binary as a child process.
//!
//! Kill it with SIGKILL while accepted jobs are queued or running, start it again on the
//! same database, and every accepted job is applied exactly once. Stop it with SIGTERM
//! and it exits cleanly without losing anything it accepted.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use ledger_store::testing::TestDb;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

struct Server {
    child: Child,
    base: String,
}

impl Server {
    async fn start(database_url: &str, port: u16, env: &[(&str, &str)]) -> Self {
        Self::start_with_output(database_url, port, env, false).await
    }

    /// Starts the binary; with `piped`, its log goes to pipes the test reads (else to the
    /// test's own output).
    async fn start_with_output(
        database_url: &str,
        port: u16,
        env: &[(&str, &str)],
        piped: bool,
    ) -> Self {
        let output = || {
            if piped {
                Stdio::piped()
            } else {
                Stdio::inherit()
            }
        };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger-server"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DATABASE_URL", database_url)
            .env("LEDGER_ADDR", format!("127.0.0.1:{port}"))
            .env("LEDGER_DEMO", "false")
            .env("LEDGER_LOG", "warn")
            .env("LEDGER_RATE_LIMITS", "off")
            .stdout(output())
            .stderr(output());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("start ledger-server");
        let server = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let client = Client::new();
        for _ in 0..300 {
            if let Ok(res) = client.get(format!("{}/health", server.base)).send().await
                && res.status() == StatusCode::OK
            {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("ledger-server did not become healthy");
    }

    fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        let _ = self.child.wait();
    }

    /// Kills a server started with piped output and returns what it logged.
    fn kill_and_read_log(mut self) -> String {
        use std::io::Read;
        self.child.kill().expect("SIGKILL");
        let _ = self.child.wait();
        let mut log = String::new();
        if let Some(mut out) = self.child.stdout.take() {
            let _ = out.read_to_string(&mut log);
        }
        if let Some(mut err) = self.child.stderr.take() {
            let _ = err.read_to_string(&mut log);
        }
        log
    }

    fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill -TERM");
        assert!(sent.success());
        self.child.wait().expect("exit status")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The signed-up organization of a scenario: its key and the two accounts it posts to.
#[derive(Clone)]
struct Books {
    org: String,
    key: String,
    cash: String,
    sales: String,
}

impl Books {
    /// GETs `path` under the organization (`{base}/organizations/{org}/{path}`) with its
    /// key; the JSON body.
    async fn read(&self, client: &Client, base: &str, path: &str) -> Value {
        let path = format!("/organizations/{}/{path}", self.org);
        get_json(client, base, &self.key, &path).await
    }
}

/// GETs `{base}{path}` with the bearer `key`; the JSON body.
async fn get_json(client: &Client, base: &str, key: &str, path: &str) -> Value {
    client
        .get(format!("{base}{path}"))
        .bearer_auth(key)
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"))
        .json()
        .await
        .expect("json")
}

/// `cents` as a decimal amount of money ("1.05").
fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

async fn sign_up(client: &Client, base: &str) -> Books {
    let res: Value = client
        .post(format!("{base}/accounts/master"))
        .json(&json!({"name": "Crash Co", "user_provider_id": "crash", "user_email": "crash@example.com"}))
        .send()
        .await
        .expect("sign-up")
        .json()
        .await
        .expect("json");
    let org = res["organization"]["id"].as_str().expect("org").to_owned();
    let key = res["api_key"]["key"].as_str().expect("key").to_owned();
    let accounts = get_json(
        client,
        base,
        &key,
        &format!("/organizations/{org}/accounts"),
    )
    .await;
    let id = |code: &str| {
        accounts["data"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["code"] == code))
            .and_then(|x| x["id"].as_str())
            .expect("account")
            .to_owned()
    };
    Books {
        cash: id("1000"),
        sales: id("4000"),
        org,
        key,
    }
}

/// Sends `count` concurrent creates; returns (request id, cents) of each accepted one.
async fn fire(
    client: &Client,
    base: &str,
    books: &Books,
    count: usize,
    wait: bool,
) -> Vec<(String, i64)> {
    let calls = (0..count).map(|i| {
        let cents = 100 + i as i64;
        let body = json!({"description": format!("job {i}"), "date": "2026-05-01", "auto_post": true, "entries": [
            {"account_id": books.cash, "entry_type": "debit", "amount": money(cents)},
            {"account_id": books.sales, "entry_type": "credit", "amount": money(cents)}]});
        let mut req = client.post(format!("{base}/organizations/{}/transactions", books.org)).bearer_auth(&books.key).json(&body);
        if wait {
            req = req.header("Prefer", "wait=20");
        }
        async move {
            let res = req.send().await.ok()?;
            let status = res.status();
            let body: Value = res.json().await.ok()?;
            match status {
                StatusCode::ACCEPTED => Some((body["request_id"].as_str()?.to_owned(), cents)),
                StatusCode::CREATED => Some((body["id"].as_str()?.to_owned(), cents)),
                other => panic!("unexpected {other}: {body}"),
            }
        }
    });
    futures::future::join_all(calls)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// Waits until no job of the organization is queued or processing, then checks that the
/// books hold exactly the accepted transactions.
async fn assert_applied_once(client: &Client, base: &str, books: &Books, accepted_cents: &[i64]) {
    let expected_count = accepted_cents.len() as i64;
    let expected_cents: i64 = accepted_cents.iter().sum();
    let mut last = Value::Null;
    for _ in 0..600 {
        last = books.read(client, base, "transactions?limit=1").await;
        if last["total_count"].as_i64() == Some(expected_count) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        last["total_count"].as_i64(),
        Some(expected_count),
        "every accepted job applied once"
    );
    let account = books
        .read(client, base, &format!("accounts/{}", books.cash))
        .await;
    assert_eq!(account["balance"]["net"], money(expected_cents));
}

async fn crash_then_restart(db: &TestDb) {
    let client = Client::new();
    let port = free_port();
    // One slow lane: jobs run only in one background worker, so many are still queued
    // (or half-way) when the process is killed.
    // A short lease: the jobs the killed process held are taken over two seconds later.
    let first = Server::start(
        &db.url,
        port,
        &[
            ("LEDGER_WORKERS", "1"),
            ("LEDGER_INLINE_JOBS", "false"),
            ("LEDGER_JOB_LEASE_SECONDS", "2"),
        ],
    )
    .await;
    let books = sign_up(&client, &first.base).await;
    let accepted = fire(&client, &first.base, &books, 150, false).await;
    assert_eq!(accepted.len(), 150);
    first.kill();
    let second = Server::start(&db.url, port, &[("LEDGER_WORKERS", "2")]).await;
    let cents: Vec<i64> = accepted.iter().map(|(_, c)| *c).collect();
    assert_applied_once(&client, &second.base, &books, &cents).await;
    // Every request reads completed.
    for (request_id, _) in accepted.iter().take(20) {
        let path = format!("requests/{request_id}");
        let res = books.read(&client, &second.base, &path).await;
        assert_eq!(res["data"]["status"], "completed", "{res}");
    }
    second.kill();
}

async fn terminate_finishes_in_flight_work(db: &TestDb) {
    let client = Client::new();
    let port = free_port();
    let first = Server::start(
        &db.url,
        port,
        &[("LEDGER_WORKERS", "1"), ("LEDGER_INLINE_JOBS", "false")],
    )
    .await;
    let base = first.base.clone();
    let books = sign_up(&client, &base).await;
    let waiting = tokio::spawn({
        let (client, base) = (client.clone(), base.clone());
        let books = books.clone();
        async move { fire(&client, &base, &books, 40, true).await }
    });
    // Terminate once some work is in the books (however long the host takes to get there).
    wait_for_stored(&client, &base, &books).await;
    let status = first.terminate();
    assert!(status.success(), "graceful exit, got {status}");
    let answered = waiting.await.expect("requests");
    let second = Server::start(&db.url, port, &[("LEDGER_WORKERS", "2")]).await;
    let cents: Vec<i64> = answered.iter().map(|(_, c)| *c).collect();
    // What was answered is in the books; anything accepted but cut off is applied too, so
    // the count is at least the answered ones and the balance matches the count.
    assert!(
        !cents.is_empty(),
        "some requests were served before the signal"
    );
    let list = books
        .read(&client, &second.base, "transactions?limit=100")
        .await;
    let stored: Vec<i64> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|t| t["amount"].as_str())
        .filter_map(|a| a.replace('.', "").parse::<i64>().ok())
        .collect();
    for c in &cents {
        assert!(
            stored.contains(c),
            "answered transaction of {c} cents is stored"
        );
    }
    assert_applied_once(&client, &second.base, &books, &stored).await;
    second.kill();
}

/// Waits until at least one transaction of `books` is stored.
async fn wait_for_stored(client: &Client, base: &str, books: &Books) {
    for _ in 0..600 {
        let list = books.read(client, base, "transactions").await;
        if list["total_count"].as_i64().unwrap_or(0) > 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no transaction was stored within 30 s");
}

/// A log written to a file or pipe is plain text: no terminal colour codes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_to_a_pipe_carry_no_colour_codes() {
    let db = TestDb::sqlite().await;
    let server =
        Server::start_with_output(&db.url, free_port(), &[("LEDGER_LOG", "info")], true).await;
    let log = server.kill_and_read_log();
    assert!(log.contains("ledger-server listening"), "{log}");
    assert!(
        !log.contains('\x1b'),
        "colour codes in a piped log: {log:?}"
    );
    db.cleanup().await;
}

/// The database a scenario of this file runs on.
#[derive(Clone, Copy)]
enum Database {
    Sqlite,
    Postgres,
}

/// Runs `scenario` over a fresh database of the kind `database`, then drops it; the
/// PostgreSQL run is skipped when `LEDGER_TEST_PG_URL` is not set.
async fn on_fresh_database(database: Database, scenario: impl AsyncFnOnce(&TestDb)) {
    let db = match database {
        Database::Sqlite => TestDb::sqlite().await,
        Database::Postgres => {
            let Some(db) = TestDb::postgres().await else {
                eprintln!("LEDGER_TEST_PG_URL is not set: skipping the PostgreSQL run");
                return;
            };
            db
        }
    };
    scenario(&db).await;
    db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_sqlite() {
    on_fresh_database(Database::Sqlite, crash_then_restart).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_postgres() {
    on_fresh_database(Database::Postgres, crash_then_restart).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_sqlite() {
    on_fresh_database(Database::Sqlite, terminate_finishes_in_flight_work).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_postgres() {
    on_fresh_database(Database::Postgres, terminate_finishes_in_flight_work).await;
}

/// A one-route OTLP/HTTP collector on a loopback port: keeps the JSON bodies posted to
/// `/v1/traces`.
struct Collector {
    port: u16,
    bodies: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

impl Collector {
    fn start() -> Self {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = TcpListener::bind("127.0.0.1:0").expect("collector port");
        let port = listener.local_addr().expect("address").port();
        let bodies = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = bodies.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream);
                let mut request_line = String::new();
                let mut length = 0usize;
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(':')
                        && name.eq_ignore_ascii_case("content-length")
                    {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    continue;
                }
                if request_line.starts_with("POST /v1/traces ")
                    && let Ok(json) = serde_json::from_slice::<Value>(&body)
                {
                    kept.lock().expect("bodies").push(json);
                }
                let _ = reader.get_mut().write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
                );
            }
        });
        Self { port, bodies }
    }

    /// The exported spans named `name`, with their resource's attributes.
    fn spans(&self, name: &str) -> Vec<(Value, Value)> {
        let bodies = self.bodies.lock().expect("bodies");
        let mut out = Vec::new();
        for body in bodies.iter() {
            for resource in body["resourceSpans"].as_array().into_iter().flatten() {
                for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
                    for span in scope["spans"].as_array().into_iter().flatten() {
                        if span["name"] == name {
                            out.push((resource["resource"]["attributes"].clone(), span.clone()));
                        }
                    }
                }
            }
        }
        out
    }
}

/// The string value of attribute `key` in an OTLP/JSON attribute list.
fn attribute<'a>(attributes: &'a Value, key: &str) -> Option<&'a str> {
    attributes.as_array()?.iter().find(|a| a["key"] == key)?["value"]["stringValue"].as_str()
}

/// With `LEDGER_OTLP_ENDPOINT` set, each request's span reaches an OTLP collector with
/// the request id the response carries; without it, nothing is exported (the other tests
/// here run without a collector).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_spans_reach_an_otlp_collector() {
    let collector = Collector::start();
    let db = TestDb::sqlite().await;
    let endpoint = format!("http://127.0.0.1:{}", collector.port);
    let server = Server::start(
        &db.url,
        free_port(),
        &[
            ("LEDGER_OTLP_ENDPOINT", &endpoint),
            ("LEDGER_OTLP_SERVICE_NAME", "ledger-under-test"),
            // The batch processor's own setting: export every 100 ms.
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ],
    )
    .await;
    let res = Client::new()
        .get(format!("{}/health", server.base))
        .header("X-Request-Id", "otel-probe-1")
        .send()
        .await
        .expect("health");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["x-request-id"], "otel-probe-1");
    let mut found = None;
    for _ in 0..200 {
        found = collector
            .spans("request")
            .into_iter()
            .find(|(_, span)| attribute(&span["attributes"], "request_id") == Some("otel-probe-1"));
        if found.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server.kill();
    let (resource, span) = found.expect("the request's span was exported within 20 s");
    assert_eq!(
        attribute(&resource, "service.name"),
        Some("ledger-under-test")
    );
    assert_eq!(attribute(&span["attributes"], "method"), Some("GET"));
    assert_eq!(attribute(&span["attributes"], "path"), Some("/health"));
    assert_eq!(span["traceId"].as_str().map(str::len), Some(32), "{span}");
    db.cleanup().await;
}
