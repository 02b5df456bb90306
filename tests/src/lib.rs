//! Test harness: the real server on a random port over a fresh database.
//!
//! Every suite runs each scenario on SQLite and, when `LEDGER_TEST_PG_URL` names a
//! PostgreSQL server, on a fresh PostgreSQL database created and dropped by the test.

mod deletes;
mod fixtures;
mod idempotency;
pub mod mcp;
pub mod pages;
mod python;
pub use fixtures::{entries, invalid, refused, refused_case, refused_on, strs};
pub use python::{ScriptOutput, python_imports, require_python, run_python, workspace};

use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use ledger_domain::ports::{Clock, SystemClock};

use ledger_store::testing::TestDb;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

/// A clock a test moves forward: the system time plus an offset.
#[derive(Debug, Default)]
pub struct ShiftedClock {
    offset_seconds: AtomicI64,
}

impl ShiftedClock {
    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: time::Duration) {
        self.offset_seconds
            .fetch_add(by.whole_seconds(), Ordering::SeqCst);
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> time::OffsetDateTime {
        time::OffsetDateTime::now_utc()
            + time::Duration::seconds(self.offset_seconds.load(Ordering::SeqCst))
    }
}

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A running server for one test.
pub struct TestApp {
    pub base: String,
    pub client: Client,
    pub backend: Backend,
    /// This server's own blob directory (attachment bytes), removed at `finish`.
    pub blob_dir: std::path::PathBuf,
    running: Option<server::Running>,
    db: Option<TestDb>,
}

/// A signed-up organization with its keys.
#[derive(Debug, Clone)]
pub struct Org {
    pub id: String,
    pub test_key: String,
    pub live_key: String,
}

/// An HTTP answer: status, headers and JSON body (Null when not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    /// The error code of an error envelope.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }
}

impl TestApp {
    /// Starts the server on `backend`; `None` when PostgreSQL is not configured.
    pub async fn spawn(backend: Backend) -> Option<Self> {
        Self::spawn_with(backend, |_| {}).await
    }

    /// Starts the server with a tweaked configuration.
    pub async fn spawn_with(
        backend: Backend,
        tweak: impl FnOnce(&mut server::Config),
    ) -> Option<Self> {
        Self::spawn_full(backend, tweak, Arc::new(SystemClock)).await
    }

    /// Starts the server reading time from `clock` (a [`ShiftedClock`] lets a test move
    /// time forward).
    pub async fn spawn_with_clock(backend: Backend, clock: Arc<dyn Clock>) -> Option<Self> {
        Self::spawn_full(backend, |_| {}, clock).await
    }

    /// Starts the server with a tweaked configuration, reading time from `clock`.
    pub async fn spawn_tweaked_with_clock(
        backend: Backend,
        tweak: impl FnOnce(&mut server::Config),
        clock: Arc<dyn Clock>,
    ) -> Option<Self> {
        Self::spawn_full(backend, tweak, clock).await
    }

    async fn spawn_full(
        backend: Backend,
        tweak: impl FnOnce(&mut server::Config),
        clock: Arc<dyn Clock>,
    ) -> Option<Self> {
        let db = match backend {
            Backend::Sqlite => TestDb::sqlite().await,
            Backend::Postgres => match TestDb::postgres().await {
                Some(db) => db,
                None => {
                    eprintln!("LEDGER_TEST_PG_URL is not set: skipping the PostgreSQL run");
                    return None;
                }
            },
        };
        let blob_dir = std::env::temp_dir().join(format!(
            "ledger-blobs-{}",
            ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Request)
        ));
        let mut app = Self::start(&db, backend, blob_dir, tweak, clock).await;
        app.db = Some(db);
        Some(app)
    }

    /// Starts a server over `db` keeping attachment bytes in `blob_dir`; the answer owns
    /// no database (the caller gives it one when it is the owner).
    async fn start(
        db: &TestDb,
        backend: Backend,
        blob_dir: std::path::PathBuf,
        tweak: impl FnOnce(&mut server::Config),
        clock: Arc<dyn Clock>,
    ) -> Self {
        let mut config = server::Config::with_database(&db.url);
        config.blob_dir = blob_dir.to_string_lossy().into_owned();
        tweak(&mut config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
        let running = server::start(&config, db.db.clone(), listener, clock)
            .await
            .expect("start the server");
        Self {
            base: format!("http://{}", running.addr),
            client: Client::new(),
            backend,
            blob_dir,
            running: Some(running),
            db: None,
        }
    }

    /// A client of a server started elsewhere (for example on a restored copy of a
    /// database): it owns no server or database, and its `finish` checks nothing.
    pub fn attach(base: String, backend: Backend) -> Self {
        Self {
            base,
            client: Client::new(),
            backend,
            // The server's own blob directory is not known here; an attached client
            // owns no database, so `finish` never removes this one.
            blob_dir: std::env::temp_dir().join("ledger-blobs-attached"),
            running: None,
            db: None,
        }
    }

    /// A second server over the same database (another replica); its `finish` leaves
    /// the database to this one.
    pub async fn replica(&self, tweak: impl FnOnce(&mut server::Config)) -> Self {
        self.replica_full(tweak, Arc::new(SystemClock)).await
    }

    async fn replica_full(
        &self,
        tweak: impl FnOnce(&mut server::Config),
        clock: Arc<dyn Clock>,
    ) -> Self {
        let db = self.db.as_ref().expect("database");
        Self::start(db, self.backend, self.blob_dir.clone(), tweak, clock).await
    }

    /// Runs the monthly credit reset now (the sweep every replica runs every few
    /// minutes); how many pools it reset.
    pub async fn reset_credits(&self) -> usize {
        self.running
            .as_ref()
            .expect("running")
            .ledger
            .reset_monthly_credits()
            .await
            .expect("the reset runs")
    }

    /// Runs the purge of expired and revoked OAuth secrets now (the sweep the server
    /// runs hourly); how many rows it deleted.
    pub async fn purge_oauth_secrets(&self) -> u64 {
        self.running
            .as_ref()
            .expect("running")
            .ledger
            .purge_oauth_secrets()
            .await
            .expect("the OAuth purge runs")
    }

    /// Whether the store still holds a row for the OAuth secret `secret` (a code, token,
    /// session cookie value or sign-in link token), looked up by its SHA-256 like the
    /// server does.
    pub async fn oauth_secret_stored(&self, secret: &str) -> bool {
        use ledger_domain::ports::OAuthStore;
        let hash = ledger_domain::attachments::sha256_hex(secret.as_bytes());
        self.running
            .as_ref()
            .expect("running")
            .ledger
            .store()
            .find_secret(&hash)
            .await
            .expect("the store answers")
            .is_some()
    }

    /// Makes this server's PostgreSQL database refuse connections and ends the open ones
    /// (`false`), or lets connections in again (`true`); see `TestDb::set_reachable`.
    pub async fn set_database_reachable(&self, reachable: bool) {
        if let Some(db) = &self.db {
            db.set_reachable(reachable).await;
        }
    }

    /// The URL of this server's database (`None` for a replica, which borrows it).
    pub fn database_url(&self) -> Option<&str> {
        self.db.as_ref().map(|db| db.url.as_str())
    }

    /// SQL statements the server's store has run so far (see
    /// `ledger_store::Db::queries_executed`).
    pub fn queries_executed(&self) -> u64 {
        self.running
            .as_ref()
            .map_or(0, |r| r.ledger.store().queries_executed())
    }

    /// Runs the expiry of organization transfers now (the job the server runs every few
    /// minutes); how many it stored as expired.
    pub async fn expire_transfers(&self) -> usize {
        self.running
            .as_ref()
            .expect("running")
            .ledger
            .expire_organization_transfers()
            .await
            .expect("expiry runs")
    }

    /// Runs one pass of the recurring scheduler now (the job the server runs every
    /// minute); how many runs it recorded.
    pub async fn run_recurring(&self) -> usize {
        self.running
            .as_ref()
            .expect("running")
            .ledger
            .run_due_recurring()
            .await
            .expect("the scheduler runs")
    }

    /// A second server over the same database reading time from `clock` (another replica
    /// with its own scheduler); its `finish` leaves the database to this one.
    pub async fn replica_with_clock(&self, clock: Arc<dyn Clock>) -> Self {
        self.replica_full(|_| {}, clock).await
    }

    /// Sends a request with an optional key and JSON body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.expect("request reaches the server");
        let status = res.status();
        let headers = res.headers().clone();
        let text = res.text().await.expect("body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Answer {
            status,
            headers,
            body,
        }
    }

    /// GET.
    pub async fn get(&self, key: &str, path: &str) -> Answer {
        self.call(Method::GET, path, Some(key), None, &[]).await
    }

    /// POST with JSON.
    pub async fn post(&self, key: &str, path: &str, body: Value) -> Answer {
        self.call(Method::POST, path, Some(key), Some(body), &[])
            .await
    }

    /// POST with JSON, waiting for queued work to finish.
    pub async fn post_wait(&self, key: &str, path: &str, body: Value) -> Answer {
        self.call(
            Method::POST,
            path,
            Some(key),
            Some(body),
            &[("Prefer", "wait=10")],
        )
        .await
    }

    /// Signs up a new root organization.
    pub async fn signup(&self, name: &str) -> Org {
        self.signup_as(json!({
            "name": name,
            "user_provider_id": format!("prov-{name}"),
            "user_email": format!("{}@example.com", name.to_lowercase().replace(' ', "")),
        }))
        .await
    }

    /// Signs up a new root organization owned by the e-mail user `email` (the user the
    /// console's e-mail sign-in knows).
    pub async fn signup_owned_by(&self, name: &str, email: &str) -> Org {
        self.signup_as(json!({
            "name": name,
            "user_provider_id": format!("email:{email}"),
            "user_email": email,
        }))
        .await
    }

    /// POSTs the sign-up `body` (no key) with `headers`, answered as it comes.
    pub async fn post_signup(&self, body: Value, headers: &[(&str, &str)]) -> Answer {
        self.call(Method::POST, "/accounts/master", None, Some(body), headers)
            .await
    }

    /// Signs up a new root organization with the whole sign-up `body` (its owner, e-mail
    /// and provider username as the test needs them).
    pub async fn signup_as(&self, body: Value) -> Org {
        let res = self.post_signup(body, &[]).await;
        assert_eq!(res.status, StatusCode::CREATED, "sign-up: {}", res.body);
        let key = |which: &str| {
            res.body[which]["key"]
                .as_str()
                .unwrap_or_else(|| panic!("{which}: {}", res.body))
                .to_owned()
        };
        Org {
            id: res.body["organization"]["id"]
                .as_str()
                .expect("org id")
                .to_owned(),
            test_key: key("api_key"),
            live_key: key("live_api_key"),
        }
    }

    /// The id of the account with `code` visible to `key`.
    pub async fn account_id(&self, org: &Org, key: &str, code: &str) -> String {
        let [id] = self.account_ids(org, key, [code]).await;
        id
    }

    /// Creates and posts a two-line transaction, waiting for both jobs.
    pub async fn post_transfer(
        &self,
        org: &Org,
        key: &str,
        debit: &str,
        credit: &str,
        amount: &str,
    ) -> Value {
        self.post_dated(org, key, "transfer", "2026-01-15", (debit, credit), amount)
            .await
    }

    /// Creates and posts (`auto_post`) a two-line transaction of `amount` with its
    /// `description` and `date`, waiting for its jobs; answers the posted transaction.
    pub async fn post_dated(
        &self,
        org: &Org,
        key: &str,
        description: &str,
        date: &str,
        (debit, credit): (&str, &str),
        amount: &str,
    ) -> Value {
        let res = self
            .post_wait(
                key,
                &format!("/organizations/{}/transactions", org.id),
                json!({
                    "description": description,
                    "date": date,
                    "auto_post": true,
                    "entries": entries(debit, credit, amount),
                }),
            )
            .await;
        assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
        assert_eq!(res.body["status"], "posted", "{}", res.body);
        res.body
    }

    /// Checks that the test left no accepted job unprocessed (waiting up to 10 s for the
    /// workers) and that every maintained balance agrees with the journal, then stops the server (in-flight work finishes) and drops the database.
    ///
    /// # Panics
    /// When jobs are still queued (a test must not leave accepted work behind), or when a
    /// maintained total differs from the journal.
    pub async fn finish(mut self) {
        if let Some(db) = &self.db {
            use ledger_domain::ports::Monitoring;
            let mut queued = 0;
            for _ in 0..200 {
                let stats = db
                    .db
                    .job_stats(time::OffsetDateTime::now_utc())
                    .await
                    .expect("job figures");
                queued = stats.queued;
                if queued == 0 {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            assert_eq!(queued, 0, "the test left {queued} queued jobs unprocessed");
            // Whatever the test did, the maintained balances still agree with the journal.
            let differences = db.db.verify_balances().await.expect("balances verified");
            assert!(
                differences.is_empty(),
                "maintained totals differ from the journal: {differences:#?}"
            );
            // And every credit pool's ledger still sums to its balance.
            let credits = db.db.verify_credits().await.expect("credits verified");
            assert!(
                credits.is_empty(),
                "credit ledgers differ from their balances: {credits:#?}"
            );
        }
        if let Some(running) = self.running.take() {
            running.stop().await;
        }
        if let Some(db) = self.db.take() {
            db.cleanup().await;
            // Only the server that owns the database owns the blob directory.
            let _ = std::fs::remove_dir_all(&self.blob_dir);
        }
    }
}

/// Runs a scenario on SQLite and PostgreSQL: `both!(name, scenario_fn)` makes the tests
/// `name::sqlite` and `name::postgres`; `both!(scenario_fn)` names them after the scenario;
/// `both!(name, scenario_fn, |config| ...)` starts the servers with a tweaked configuration
/// (a path in the closure is seen from inside the module `name`).
#[macro_export]
macro_rules! both {
    ($scenario:ident) => {
        $crate::both!($scenario, $scenario);
    };
    ($name:ident, $scenario:ident) => {
        $crate::both!($name, $scenario, |_| {});
    };
    ($name:ident, $scenario:ident, $tweak:expr) => {
        mod $name {
            async fn run(backend: $crate::Backend) {
                if let Some(app) = $crate::TestApp::spawn_with(backend, $tweak).await {
                    super::$scenario(&app).await;
                    app.finish().await;
                }
            }

            $crate::on_backends!(run);
        }
    };
}

/// The tests `sqlite` and `postgres` of a scenario that starts its own server:
/// `on_backends!(run)` calls `run(Backend::Sqlite)` and `run(Backend::Postgres)`.
#[macro_export]
macro_rules! on_backends {
    ($run:path) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn sqlite() {
            $run($crate::Backend::Sqlite).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn postgres() {
            $run($crate::Backend::Postgres).await;
        }
    };
}
