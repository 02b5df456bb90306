//! Webhooks (issue 19, item 4): endpoints, signed deliveries from the events outbox to a
//! local receiver that fails and recovers (every event acknowledged exactly once, in
//! order per entity), signatures checked in Rust and with the reference Python library
//! (`standardwebhooks`), the delivery log, replay, automatic disabling after a failure
//! streak, the SSRF guard in production, tenancy, and the GraphQL path.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ledger_tests::{Answer, Backend, Org, TestApp, refused, refused_case};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One request the receiver got, and what it answered.
#[derive(Debug, Clone)]
struct Received {
    headers: HashMap<String, String>,
    body: String,
    status: u16,
}

impl Received {
    fn id(&self) -> &str {
        self.headers.get("webhook-id").map_or("", String::as_str)
    }

    fn payload(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// A local HTTP receiver: answers 500 to its first `fail_first` requests (or to all,
/// with `usize::MAX`), then 200, and records every request.
#[derive(Clone)]
struct Receiver {
    port: u16,
    log: Arc<Mutex<Vec<Received>>>,
    failures_left: Arc<AtomicUsize>,
}

impl Receiver {
    async fn start(fail_first: usize) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the receiver");
        let port = listener.local_addr().expect("address").port();
        let receiver = Self {
            port,
            log: Arc::default(),
            failures_left: Arc::new(AtomicUsize::new(fail_first)),
        };
        let serving = receiver.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let serving = serving.clone();
                tokio::spawn(async move { serving.serve(socket).await });
            }
        });
        receiver
    }

    fn url(&self, host: &str) -> String {
        format!("http://{host}:{}/hook", self.port)
    }

    fn log(&self) -> Vec<Received> {
        self.log.lock().expect("log").clone()
    }

    fn fail_next(&self, count: usize) {
        self.failures_left.store(count, Ordering::SeqCst);
    }

    async fn serve(&self, mut socket: tokio::net::TcpStream) {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        let header_end = loop {
            let Ok(n) = socket.read(&mut chunk).await else {
                return;
            };
            if n == 0 {
                return;
            }
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
        };
        let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
        let headers: HashMap<String, String> = head
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let length: usize = headers
            .get("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        while buf.len() < header_end + length {
            let Ok(n) = socket.read(&mut chunk).await else {
                return;
            };
            if n == 0 {
                return;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        let body = String::from_utf8_lossy(&buf[header_end..header_end + length]).into_owned();
        let failing = self
            .failures_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        let status = if failing { 500 } else { 200 };
        self.log.lock().expect("log").push(Received {
            headers,
            body,
            status,
        });
        let text = if failing { "receiver down" } else { "ok" };
        let response = format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
            if failing {
                "Internal Server Error"
            } else {
                "OK"
            },
            text.len()
        );
        let _ = socket.write_all(response.as_bytes()).await;
        let _ = socket.shutdown().await;
    }
}

/// Fast webhook timings for tests.
fn fast(config: &mut server::Config) {
    config.webhook_backoff_ms = 40;
    config.webhook_backoff_cap_ms = 200;
    config.webhook_settle_ms = 100;
    config.webhook_poll_ms = 20;
    config.webhook_timeout_ms = 3_000;
}

/// Runs `scenario` on SQLite and PostgreSQL with fast webhook timings and `tweak`.
macro_rules! both_fast {
    ($name:ident, $scenario:ident, $tweak:expr) => {
        ledger_tests::both!($name, $scenario, |c| {
            let tweak: fn(&mut server::Config) = $tweak;
            super::fast(c);
            tweak(c);
        });
    };
}

fn hooks_path(org: &Org) -> String {
    org.path("webhooks")
}

async fn create_endpoint(app: &TestApp, org: &Org, key: &str, body: Value) -> Answer {
    app.post(key, &hooks_path(org), body).await
}

/// Polls `check` every 50 ms until it returns `Some`, for at most `seconds`.
async fn eventually<T, F, Fut>(seconds: u64, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(seconds);
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn deliveries(app: &TestApp, key: &str, org: &Org, endpoint: &str) -> Vec<Value> {
    let res = app
        .read(
            key,
            &format!("{}/{endpoint}/deliveries?limit=100", hooks_path(org)),
        )
        .await;
    res["data"].as_array().cloned().unwrap_or_default()
}

/// Waits until the endpoint has `count` deliveries, all delivered.
async fn all_delivered(
    app: &TestApp,
    key: &str,
    org: &Org,
    endpoint: &str,
    count: usize,
) -> Vec<Value> {
    eventually(30, "every delivery delivered", || async move {
        let list = deliveries(app, key, org, endpoint).await;
        (list.len() == count && list.iter().all(|d| d["status"] == "delivered")).then_some(list)
    })
    .await
}

/// Makes three events about one account and one about another: `account.created`,
/// `account.updated` twice, then `account.created`. Answers the two account ids.
async fn account_events(app: &TestApp, org: &Org, key: &str) -> (String, String) {
    let base = org.path("accounts");
    let first = app
        .create_id(
            key,
            &base,
            json!({"code": "1010", "name": "Checking", "account_type": "asset"}),
        )
        .await;
    for name in ["Checking 2", "Checking 3"] {
        let res = app
            .put(key, &format!("{base}/{first}"), json!({ "name": name }))
            .await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    }
    let res = app
        .post(
            key,
            &base,
            json!({"code": "1020", "name": "Savings", "account_type": "asset"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    (first, res.id())
}

/// Checks the signatures of `messages` with the reference Python library.
async fn verify_in_python(secret: &str, messages: &[Received]) {
    let recorded = json!({
        "secret": secret,
        "messages": messages.iter().map(|m| json!({"headers": m.headers, "body": m.body})).collect::<Vec<_>>(),
    });
    let path = std::env::temp_dir().join(format!(
        "ledger-webhooks-{}.json",
        ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Request)
    ));
    std::fs::write(&path, recorded.to_string()).expect("write the recorded messages");
    let out = ledger_tests::run_python(
        ledger_tests::workspace().join("tests/webhooks/verify.py"),
        vec![path.clone().into_os_string()],
        std::iter::empty::<(&str, &str)>(),
    )
    .await;
    let _ = std::fs::remove_file(&path);
    if out.code == Some(3) {
        panic!(
            "standardwebhooks is missing: `python3 -m pip install standardwebhooks==1.1.0`\n{}",
            out.stderr
        );
    }
    out.assert_ok("the standardwebhooks check", &["verified"]);
}

/// A receiver that fails three times then recovers gets every event after the
/// endpoint's creation exactly once acknowledged, in order per entity, signed; the
/// delivery log shows the failed attempts; a replay sends the same message again.
async fn delivered_in_order_once_signed(app: &TestApp) {
    let receiver = Receiver::start(3).await;
    let org = app.signup("Hooked").await;
    let key = &org.test_key;
    let res = create_endpoint(
        app,
        &org,
        key,
        json!({"url": receiver.url("127.0.0.1"), "description": "books", "event_types": ["account.created", "account.updated"]}),
    )
    .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let endpoint = res.id();
    let secret = res.body["secret"]
        .as_str()
        .expect("secret shown once")
        .to_owned();
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert_eq!(res.body["enabled"], true);
    assert_eq!(
        res.body["event_types"],
        json!(["account.created", "account.updated"])
    );
    // Reads never show the secret again.
    let read = app
        .read(key, &format!("{}/{endpoint}", hooks_path(&org)))
        .await;
    assert!(read.get("secret").is_none(), "{}", read);
    let list = app.get(key, &hooks_path(&org)).await;
    assert_eq!(list.body["total_count"], 1, "{}", list.body);

    // The endpoint's own audit trail reads through the events endpoint.
    let trail = app
        .read(key, &format!("/events/webhook_endpoint/{endpoint}"))
        .await;
    assert_eq!(
        trail[0]["event_type"], "webhook_endpoint.created",
        "{}",
        trail
    );
    // A kind the endpoint does not subscribe to, written before the account events: it
    // is fanned out first and must be skipped (four deliveries, never five, and no
    // `contact.*` payload below).
    let contact = app
        .post(
            key,
            &org.path("contacts"),
            json!({"contact_type": "customer", "name": "Not subscribed"}),
        )
        .await;
    assert!(contact.status.is_success(), "{}", contact.body);
    let (first, second) = account_events(app, &org, key).await;
    let list = all_delivered(app, key, &org, &endpoint, 4).await;
    let log = receiver.log();
    // Every event acknowledged exactly once.
    let mut acknowledged: HashMap<String, usize> = HashMap::new();
    for r in log.iter().filter(|r| r.status == 200) {
        *acknowledged.entry(r.id().to_owned()).or_default() += 1;
    }
    assert_eq!(acknowledged.len(), 4, "{log:#?}");
    assert!(acknowledged.values().all(|n| *n == 1), "{acknowledged:?}");
    assert_eq!(log.iter().filter(|r| r.status == 500).count(), 3);
    // Per entity, in order: no request for an event before every earlier event of the
    // same entity was acknowledged.
    let events = app
        .get(key, &format!("/events/account/{first}"))
        .await
        .body
        .as_array()
        .cloned()
        .unwrap_or_default();
    let order: Vec<String> = events
        .iter()
        .map(|e| e["id"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(order.len(), 3, "{events:?}");
    let mut done: Vec<&str> = Vec::new();
    for r in &log {
        if let Some(position) = order.iter().position(|id| id == r.id()) {
            assert!(
                order[..position]
                    .iter()
                    .all(|earlier| done.contains(&earlier.as_str())),
                "{} was sent before an earlier event of its entity was acknowledged",
                r.id()
            );
            if r.status == 200 {
                done.push(order[position].as_str());
            }
        }
    }
    assert_eq!(done.len(), 3);
    // The payload is the event record; every message verifies in Rust.
    for r in &log {
        let payload = r.payload();
        assert_eq!(payload["id"], r.id());
        assert!(
            ["account.created", "account.updated"]
                .contains(&payload["type"].as_str().unwrap_or(""))
        );
        assert_eq!(payload["data"]["object"], "event");
        let entity = payload["data"]["entity_id"].as_str().unwrap_or("");
        assert!(entity == first || entity == second, "{payload}");
        let timestamp: i64 = r.headers["webhook-timestamp"].parse().expect("timestamp");
        assert!(
            ledger_webhooks::verify(
                &secret,
                r.id(),
                timestamp,
                &r.body,
                &r.headers["webhook-signature"]
            ),
            "{r:?}"
        );
        assert!(!ledger_webhooks::verify(
            &secret,
            r.id(),
            timestamp + 1,
            &r.body,
            &r.headers["webhook-signature"]
        ));
    }
    verify_in_python(&secret, &log).await;

    // The delivery log of a delivery that failed first.
    let failed_first = list
        .iter()
        .find(|d| d["attempts"].as_i64() > Some(1))
        .expect("a delivery needed retries");
    let id = failed_first["id"].as_str().expect("delivery id");
    let detail = app
        .read(
            key,
            &format!("{}/{endpoint}/deliveries/{id}", hooks_path(&org)),
        )
        .await;
    let attempts = detail["attempt_log"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(attempts.len() >= 2, "{}", detail);
    assert_eq!(attempts[0]["status_code"], 500);
    assert_eq!(attempts[0]["response_snippet"], "receiver down");
    assert_eq!(attempts.last().expect("last")["status_code"], 200);
    assert!(
        attempts
            .iter()
            .all(|a| a["duration_ms"].as_i64() >= Some(0))
    );

    // Replay: the same message (id and body) is sent again and acknowledged.
    let before = receiver.log().len();
    let res = app
        .post(
            key,
            &format!("{}/{endpoint}/deliveries/{id}/replay", hooks_path(&org)),
            json!({}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["status"], "pending");
    let r = &receiver;
    let again = eventually(
        20,
        "the replay",
        || async move { r.log().get(before).cloned() },
    )
    .await;
    assert_eq!(again.id(), failed_first["event_id"].as_str().unwrap_or(""));
    assert_eq!(again.status, 200);
    all_delivered(app, key, &org, &endpoint, 4).await;
    // Replay of an unknown delivery is 404.
    let res = app
        .post(
            key,
            &format!(
                "{}/{endpoint}/deliveries/whd_01J00000000000000000000000/replay",
                hooks_path(&org)
            ),
            json!({}),
        )
        .await;
    assert_eq!(res.status, StatusCode::NOT_FOUND, "{}", res.body);

    // Rotation answers a new secret; later messages verify with it only.
    let res = app
        .post(
            key,
            &format!("{}/{endpoint}/rotate-secret", hooks_path(&org)),
            json!({}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let rotated = res.body["secret"].as_str().expect("new secret").to_owned();
    assert_ne!(rotated, secret);
    let before = receiver.log().len();
    let res = app
        .put(
            key,
            &org.path(&format!("accounts/{second}")),
            json!({"name": "Savings 2"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let next = eventually(20, "a delivery after rotation", || async move {
        r.log().get(before).cloned()
    })
    .await;
    let timestamp: i64 = next.headers["webhook-timestamp"]
        .parse()
        .expect("timestamp");
    let signature = &next.headers["webhook-signature"];
    assert!(ledger_webhooks::verify(
        &rotated,
        next.id(),
        timestamp,
        &next.body,
        signature
    ));
    assert!(!ledger_webhooks::verify(
        &secret,
        next.id(),
        timestamp,
        &next.body,
        signature
    ));
    all_delivered(app, key, &org, &endpoint, 5).await;

    // Delete: gone from reads; the endpoint's own events are never delivered.
    let res = app
        .delete(key, &format!("{}/{endpoint}", hooks_path(&org)))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["deleted"], true);
    let res = app
        .get(key, &format!("{}/{endpoint}", hooks_path(&org)))
        .await;
    assert_eq!(res.status, StatusCode::NOT_FOUND, "{}", res.body);
    assert!(
        receiver
            .log()
            .iter()
            .all(|r| !r.body.contains("webhook_endpoint."))
    );
}
both_fast!(
    webhooks_delivered_in_order_once_signed,
    delivered_in_order_once_signed,
    |_| {}
);

/// A receiver that always fails: deliveries are given up after the last attempt and the
/// endpoint is disabled when the streak reaches the threshold (with an event); enabling
/// it again clears the streak, and the waiting delivery and a replayed one go through.
async fn failure_streak_disables(app: &TestApp) {
    let receiver = Receiver::start(usize::MAX).await;
    let org = app.signup("Streak").await;
    let key = &org.test_key;
    let res = create_endpoint(app, &org, key, json!({"url": receiver.url("127.0.0.1")})).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["event_types"], json!(["*"]));
    let endpoint = res.id();
    account_events(app, &org, key).await;
    let path = format!("{}/{endpoint}", hooks_path(&org));
    let path_ref = &path;
    let disabled = eventually(30, "the endpoint disabled", || async move {
        let res = app.get(key, path_ref).await;
        (res.body["enabled"] == false).then_some(res.body)
    })
    .await;
    assert_eq!(disabled["disabled_reason"], "failure_streak");
    assert!(disabled["failure_streak"].as_i64() >= Some(3), "{disabled}");
    // Disabled: no more attempts (one in flight at the moment may still land).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let attempts = receiver.log().len();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.log().len(), attempts);
    let list = deliveries(app, key, &org, &endpoint).await;
    let given_up: Vec<Value> = list
        .iter()
        .filter(|d| d["status"] == "failed")
        .cloned()
        .collect();
    assert!(
        !given_up.is_empty(),
        "a delivery is given up after its last attempt: {list:?}"
    );
    for d in &given_up {
        assert_eq!(d["attempts"], 2);
        assert_eq!(d["last_status_code"], 500);
    }

    // Recovery: enable again, the receiver answers, everything goes through.
    receiver.fail_next(0);
    let res = app.put(key, &path, json!({"enabled": true})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (
            res.body["enabled"].clone(),
            res.body["failure_streak"].clone()
        ),
        (json!(true), json!(0))
    );
    let mut replay = String::new();
    for d in &given_up {
        replay = format!("{path}/deliveries/{}/replay", d["id"].as_str().expect("id"));
        let res = app.post(key, &replay, json!({})).await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    }
    all_delivered(app, key, &org, &endpoint, 4).await;
    // A delivered delivery replays; a pending one cannot be replayed twice at once.
    let res = app.post(key, &replay, json!({})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let second = app.post(key, &replay, json!({})).await;
    assert!(
        second.status == StatusCode::OK
            || (second.status == StatusCode::UNPROCESSABLE_ENTITY
                && second.code() == "invalid_state_transition"),
        "{}",
        second.body
    );
    all_delivered(app, key, &org, &endpoint, 4).await;
}
both_fast!(
    webhooks_failure_streak_disables,
    failure_streak_disables,
    |c| {
        c.webhook_max_attempts = 2;
        c.webhook_disable_after = 3;
    }
);

/// Another organization's key, and the other mode's key, see no endpoint.
async fn tenancy(app: &TestApp) {
    let receiver = Receiver::start(0).await;
    let a = app.signup("Hook Owner").await;
    let b = app.signup("Hook Stranger").await;
    let res = create_endpoint(
        app,
        &a,
        &a.test_key,
        json!({"url": receiver.url("127.0.0.1")}),
    )
    .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let endpoint = res.id();
    let own = format!("{}/{endpoint}", hooks_path(&a));
    let res = app.get(&b.test_key, &own).await;
    refused(&res, StatusCode::NOT_FOUND, "organization_not_found");
    let res = app.get(&b.test_key, &hooks_path(&a)).await;
    refused(&res, StatusCode::NOT_FOUND, "organization_not_found");
    let theirs = format!("{}/{endpoint}", hooks_path(&b));
    for path in [theirs.clone(), format!("{theirs}/deliveries")] {
        let res = app.get(&b.test_key, &path).await;
        refused_case(&path, &res, StatusCode::NOT_FOUND, "resource_not_found");
    }
    let res = app
        .put(&b.test_key, &theirs, json!({"enabled": false}))
        .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let res = app
        .post(&b.test_key, &format!("{theirs}/rotate-secret"), json!({}))
        .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    // The live key of the same organization does not see the test-mode endpoint.
    let res = app.get(&a.live_key, &own).await;
    assert_eq!(res.status, StatusCode::NOT_FOUND, "{}", res.body);
    let res = app.get(&a.live_key, &hooks_path(&a)).await;
    assert_eq!(res.body["total_count"], 0, "{}", res.body);
    // Validation.
    for (body, field) in [
        (json!({}), "url"),
        (json!({"url": "ftp://example.com/"}), "url"),
        (
            json!({"url": "https://example.com/", "event_types": ["Nope"]}),
            "event_types",
        ),
        (
            json!({"url": "https://example.com/", "colour": "red"}),
            "colour",
        ),
    ] {
        let res = create_endpoint(app, &a, &a.test_key, body.clone()).await;
        assert_eq!(res.status, StatusCode::BAD_REQUEST, "{body}: {}", res.body);
        assert_eq!(res.body["error"]["details"]["field"], field, "{}", res.body);
    }
}
ledger_tests::both!(webhooks_tenancy, tenancy);

/// The GraphQL path: create (secret once), list, deliveries with their log, rotate,
/// update, replay, delete.
async fn graphql_path(app: &TestApp) {
    let receiver = Receiver::start(1).await;
    let org = app.signup("Gql Hooks").await;
    let key = &org.test_key;
    let data = app.gql_data(key,
        "mutation($url: String!) { createWebhookEndpoint(url: $url, eventTypes: [\"account.created\"]) { secret endpoint { id url eventTypes enabled } } }",
        json!({ "url": receiver.url("127.0.0.1") }),
    )
    .await;
    let created = &data["createWebhookEndpoint"];
    let secret = created["secret"].as_str().expect("secret").to_owned();
    assert!(secret.starts_with("whsec_"));
    assert_eq!(
        created["endpoint"]["eventTypes"],
        json!(["account.created"])
    );
    let endpoint = created["endpoint"]["id"].as_str().expect("id").to_owned();
    let res = app
        .post(
            key,
            &org.path("accounts"),
            json!({"code": "1010", "name": "Checking", "account_type": "asset"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let list = all_delivered(app, key, &org, &endpoint, 1).await;
    let delivery = list[0]["id"].as_str().expect("delivery").to_owned();
    let data = app.gql_data(key,
        "query($e: ID!, $d: ID!) { webhookEndpoints { id failureStreak } webhookDeliveries(endpointId: $e) { id status eventType attempts } webhookDelivery(endpointId: $e, id: $d) { status payload attemptLog { attempt statusCode responseSnippet } } }",
        json!({ "e": endpoint, "d": delivery }),
    )
    .await;
    assert_eq!(data["webhookEndpoints"][0]["id"], endpoint.as_str());
    assert_eq!(data["webhookDeliveries"][0]["eventType"], "account.created");
    assert_eq!(data["webhookDeliveries"][0]["status"], "delivered");
    let log = data["webhookDelivery"]["attemptLog"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(log.len(), 2, "{data}");
    assert_eq!(
        (log[0]["statusCode"].clone(), log[1]["statusCode"].clone()),
        (json!(500), json!(200))
    );
    assert_eq!(
        data["webhookDelivery"]["payload"]["type"],
        "account.created"
    );
    let data = app.gql_data(key,
        "mutation($e: ID!, $d: ID!) { rotateWebhookSecret(id: $e) { secret } updateWebhookEndpoint(id: $e, description: \"ops\") { description } replayWebhookDelivery(endpointId: $e, id: $d) { status } }",
        json!({ "e": endpoint, "d": delivery }),
    )
    .await;
    assert_ne!(data["rotateWebhookSecret"]["secret"], secret.as_str());
    assert_eq!(data["updateWebhookEndpoint"]["description"], "ops");
    // Pending, unless a worker already sent it again in between.
    let status = data["replayWebhookDelivery"]["status"]
        .as_str()
        .unwrap_or("");
    assert!(status == "pending" || status == "delivered", "{data}");
    all_delivered(app, key, &org, &endpoint, 1).await;
    let data = app
        .gql_data(
            key,
            "mutation($e: ID!) { deleteWebhookEndpoint(id: $e) }",
            json!({ "e": endpoint }),
        )
        .await;
    assert_eq!(data["deleteWebhookEndpoint"], true);
    let data = app
        .gql_data(
            key,
            "query($e: ID!) { webhookEndpoint(id: $e) { id } }",
            json!({ "e": endpoint }),
        )
        .await;
    assert_eq!(data["webhookEndpoint"], Value::Null);
}
both_fast!(webhooks_graphql, graphql_path, |_| {});

/// Production: endpoints naming loopback, private or link-local addresses are refused,
/// and a name resolving to one is refused at delivery (nothing reaches the receiver).
/// Private targets cannot be switched on in production.
async fn ssrf_guard(backend: Backend) {
    let mut refused = server::Config::with_database("sqlite://unused.sqlite");
    refused.environment = server::Environment::Production;
    refused.webhook_allow_private = Some(true);
    assert!(server::check_webhooks(&refused).is_err());

    let Some(app) = TestApp::spawn_with(backend, |c| {
        fast(c);
        c.environment = server::Environment::Production;
        c.trusted_proxies = "127.0.0.1".into();
        c.open_signup = true;
    })
    .await
    else {
        return;
    };
    let https = [("X-Forwarded-Proto", "https")];
    let res = app.post_signup(json!({"name": "Prod Hooks", "user_provider_id": "prov-prod-hooks", "user_email": "prod@example.com"}), &https)
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let org = res.body["organization"]["id"]
        .as_str()
        .expect("org")
        .to_owned();
    let key = res.body["api_key"]["key"].as_str().expect("key").to_owned();
    let receiver = Receiver::start(0).await;
    let path = format!("/organizations/{org}/webhooks");
    for url in [
        receiver.url("127.0.0.1"),
        "http://10.1.2.3/hook".to_owned(),
        "http://169.254.169.254/latest/meta-data".to_owned(),
        "http://[::1]:9/hook".to_owned(),
        "http://localhost:9/hook".to_owned(),
    ] {
        let res = app
            .call(
                Method::POST,
                &path,
                Some(&key),
                Some(json!({ "url": url })),
                &https,
            )
            .await;
        assert_eq!(res.status, StatusCode::BAD_REQUEST, "{url}: {}", res.body);
        assert_eq!(res.body["error"]["details"]["field"], "url");
    }
    // A name that resolves to a non-public address (this machine's own name) passes
    // creation and is refused at delivery: nothing reaches the receiver.
    let Some(host) = loopback_name().await else {
        eprintln!(
            "this machine's name does not resolve to a private address: the resolver check is covered by ledger-webhooks' unit test only"
        );
        app.finish().await;
        return;
    };
    let res = app
        .call(
            Method::POST,
            &path,
            Some(&key),
            Some(json!({ "url": receiver.url(&host) })),
            &https,
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let endpoint = res.id();
    let res = app
        .call(
            Method::POST,
            &format!("/organizations/{org}/accounts"),
            Some(&key),
            Some(json!({"code": "1010", "name": "Checking", "account_type": "asset"})),
            &https,
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let deliveries_path = format!("{path}/{endpoint}/deliveries");
    let (app_ref, key_ref, path_ref, https_ref) =
        (&app, key.as_str(), deliveries_path.as_str(), &https);
    let delivery = eventually(20, "a refused attempt", || async move {
        let res = app_ref
            .call(Method::GET, path_ref, Some(key_ref), None, https_ref)
            .await;
        res.body["data"]
            .as_array()
            .and_then(|d| d.first().cloned())
            .filter(|d| d["attempts"].as_i64() >= Some(1) && !d["last_error"].is_null())
    })
    .await;
    let error = delivery["last_error"].as_str().unwrap_or("");
    assert!(
        error.contains("refused") && error.contains(&host),
        "{error}"
    );
    assert_eq!(delivery["last_status_code"], Value::Null);
    assert!(receiver.log().is_empty(), "the receiver was reached");
    app.finish().await;
}

/// This machine's host name when it resolves only to non-public addresses (as a name
/// in `/etc/hosts` usually does), else `None`.
async fn loopback_name() -> Option<String> {
    let name = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty() && n != "localhost")?;
    let addrs: Vec<std::net::SocketAddr> = tokio::net::lookup_host((name.as_str(), 0))
        .await
        .ok()?
        .collect();
    let private = !addrs.is_empty()
        && addrs
            .iter()
            .all(|a| !ledger_domain::webhooks::is_public_address(a.ip()));
    private.then_some(name)
}

mod webhooks_ssrf_guard {
    ledger_tests::on_backends!(super::ssrf_guard);
}
