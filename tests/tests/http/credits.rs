//! Credits (issue 19 items 1-2; issue 22 item 3's credit and API-key tools): the balance
//! and its ledger from sign-up, packages, purchases through the development checkout and
//! a Stripe-style webhook (credited once however often confirmed), the monthly reset
//! racing with writes (one reset per pool and month across replicas, purchased credits
//! kept), GraphQL `purchaseCredits`, the MCP tools and tenant isolation. Every scenario
//! ends in `TestApp::finish`, which also checks that every pool's ledger sums to its
//! balance.

use std::sync::Arc;

use ledger_domain::ports::Clock;
use ledger_tests::{Answer, Backend, Org, ShiftedClock, TestApp, both, entries, strs};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use ledger_tests::mcp::{ok, tool, tool_ok};

fn credits_path(org: &Org) -> String {
    org.path("credits")
}

/// Every row of the pool's ledger (newest first), paging through.
async fn ledger_rows(app: &TestApp, org: &Org, key: &str) -> Vec<Value> {
    let mut rows = Vec::new();
    loop {
        let res = app
            .get(
                key,
                &format!(
                    "{}/ledger?limit=100&offset={}",
                    credits_path(org),
                    rows.len()
                ),
            )
            .await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
        let page = res.body["data"].as_array().expect("rows").clone();
        let more = res.body["has_more"] == true;
        rows.extend(page);
        if !more {
            return rows;
        }
    }
}

/// The balance, checked against the sum of the ledger rows.
async fn balance(app: &TestApp, org: &Org) -> Value {
    let res = app.read(&org.live_key, &credits_path(org)).await;
    let rows = ledger_rows(app, org, &org.live_key).await;
    let sum: i64 = rows
        .iter()
        .map(|r| r["credits"].as_i64().expect("credits"))
        .sum();
    assert_eq!(
        res["credits_remaining"].as_i64(),
        Some(sum),
        "the ledger sums to the balance: {rows:#?}"
    );
    res
}

/// GETs the purchase `id` of `org` with `key`, answered as it comes.
async fn read_purchase(app: &TestApp, org: &Org, key: &str, id: &str) -> Answer {
    let path = format!("{}/purchases/{id}", credits_path(org));
    app.get(key, &path).await
}

async fn buy(app: &TestApp, org: &Org, key: &str, credits: i64) -> Value {
    let res = app
        .post(
            key,
            &format!("{}/purchases", credits_path(org)),
            json!({"credit_amount": credits}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    res.body
}

/// Submits the development checkout page of a purchase (what the buyer's browser does).
async fn pay(purchase: &Value) -> reqwest::Response {
    let url = purchase["checkout_url"].as_str().expect("checkout url");
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
        .post(url)
        .send()
        .await
        .expect("checkout page")
}

async fn signup_balance_packages_and_ledger(app: &TestApp) {
    let org = app.signup("Credit Signup").await;
    let b = balance(app, &org).await;
    assert_eq!(b["object"], "credit_balance");
    assert_eq!(b["credits_remaining"], 500);
    assert_eq!(b["credits_total"], 500);
    assert_eq!(b["monthly_allowance"], 500);
    assert_eq!(b["monthly_credits_remaining"], 500);
    assert_eq!(b["purchased_credits_remaining"], 0);
    assert!(
        b["next_reset_at"]
            .as_str()
            .is_some_and(|t| t.ends_with("-01T00:00:00Z"))
    );
    let rows = ledger_rows(app, &org, &org.test_key).await;
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["kind"], "grant");
    assert_eq!(rows[0]["credits"], 500);

    // Packages: the documented default set.
    let res = app
        .read(&org.test_key, &format!("{}/packages", credits_path(&org)))
        .await;
    let packages: Vec<(i64, i64)> = res["data"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            (
                p["credits"].as_i64().unwrap_or(0),
                p["price_cents"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(packages, vec![(1000, 1000), (5000, 4500), (20000, 16000)]);

    // A live write is a charge row; a test-mode write never touches the live ledger.
    for (key, code) in [(&org.live_key, "1700"), (&org.test_key, "1701")] {
        let res = app
            .post(
                key,
                &org.path("accounts"),
                json!({"code": code, "name": format!("Acct {code}"), "account_type": "asset"}),
            )
            .await;
        assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    }
    let b = balance(app, &org).await;
    assert_eq!(b["credits_remaining"], 499);
    assert_eq!(b["test_credits_used"], 1);
    let rows = ledger_rows(app, &org, &org.live_key).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["kind"], "charge");
    assert_eq!(rows[0]["credits"], -1);
    // The billing record agrees.
    let billing = app.get(&org.live_key, &org.path("billing")).await;
    assert_eq!(billing.body["credits_remaining"], 499);
}
both!(
    credits_signup_and_ledger,
    signup_balance_packages_and_ledger
);

async fn dev_checkout_credits_once(app: &TestApp) {
    let org = app.signup("Credit Buyer").await;
    let purchase = buy(app, &org, &org.live_key, 1000).await;
    assert_eq!(purchase["object"], "credit_purchase");
    assert_eq!(purchase["status"], "pending");
    assert_eq!(purchase["credits_to_add"], 1000);
    assert_eq!(purchase["price_cents"], 1000);
    assert_eq!(purchase["provider"], "dev");
    assert!(purchase["expires_at"].as_str().is_some());
    let url = purchase["checkout_url"].as_str().expect("url");
    assert!(url.starts_with(&app.base), "{url}");
    assert!(url.contains("/checkout/dev/"), "{url}");
    // The page is server-rendered HTML naming the package.
    let page = reqwest::get(url).await.expect("page");
    assert_eq!(page.status(), StatusCode::OK);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap_or("")
            .starts_with("text/html")
    );
    let html = page.text().await.expect("html");
    assert!(
        html.contains("1000</strong> credits") && html.contains("<form method=\"post\""),
        "{html}"
    );
    // Nothing is credited before the payment.
    assert_eq!(balance(app, &org).await["credits_remaining"], 500);

    // The confirmation arrives several times, some at once: credited exactly once.
    let confirmations = futures::future::join_all((0..4).map(|_| pay(&purchase))).await;
    for res in confirmations {
        assert_eq!(res.status(), StatusCode::OK);
    }
    assert_eq!(pay(&purchase).await.status(), StatusCode::OK);
    let b = balance(app, &org).await;
    assert_eq!(b["credits_remaining"], 1500);
    assert_eq!(b["credits_total"], 1500);
    assert_eq!(b["purchased_credits_remaining"], 1000);
    assert_eq!(b["monthly_credits_remaining"], 500);
    let rows = ledger_rows(app, &org, &org.live_key).await;
    let bought: Vec<&Value> = rows.iter().filter(|r| r["kind"] == "purchase").collect();
    assert_eq!(bought.len(), 1, "{rows:#?}");
    assert_eq!(bought[0]["id"], purchase["id"]);
    let id = purchase["id"].as_str().expect("id");
    let read = read_purchase(app, &org, &org.live_key, id).await;
    assert_eq!(read.body["status"], "completed", "{}", read.body);
    assert!(read.body["completed_at"].as_str().is_some());
    let list = app
        .get(&org.live_key, &format!("{}/purchases", credits_path(&org)))
        .await;
    assert_eq!(list.body["total_count"], 1);

    // With return URLs the page redirects to the client's success URL.
    let purchase = app
        .post(
            &org.live_key,
            &format!("{}/purchases", credits_path(&org)),
            json!({"package_id": "credits_5000", "success_url": "https://example.com/done",
                   "cancel_url": "https://example.com/cancel"}),
        )
        .await;
    assert_eq!(purchase.status, StatusCode::CREATED, "{}", purchase.body);
    let res = pay(&purchase.body).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(res.headers()["location"], "https://example.com/done");
    assert_eq!(balance(app, &org).await["credits_remaining"], 6500);

    // Refusals: no package of that size, an unknown package, nothing named, a bad URL.
    // A package that is not on offer is well formed and names nothing: 422.
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    let bad = StatusCode::BAD_REQUEST;
    for (body, status, code, field) in [
        (
            json!({"credit_amount": 7}),
            unprocessable,
            "reference_not_found",
            "credit_amount",
        ),
        (
            json!({"package_id": "credits_3"}),
            unprocessable,
            "reference_not_found",
            "package_id",
        ),
        (json!({}), bad, "missing_field", "credit_amount"),
        (
            json!({"credit_amount": 1000, "success_url": "javascript:alert(1)"}),
            bad,
            "invalid_field",
            "success_url",
        ),
        (
            json!({"credit_amount": 1000, "bogus": 1}),
            bad,
            "unknown_field",
            "bogus",
        ),
    ] {
        let res = app
            .post(
                &org.live_key,
                &format!("{}/purchases", credits_path(&org)),
                body,
            )
            .await;
        assert_eq!((res.status, res.code()), (status, code), "{}", res.body);
        assert_eq!(res.body["error"]["details"]["field"], field, "{}", res.body);
    }

    // A test-mode purchase runs the whole checkout but never fills the live pool.
    let test_purchase = buy(app, &org, &org.test_key, 1000).await;
    assert_eq!(test_purchase["livemode"], false);
    assert_eq!(pay(&test_purchase).await.status(), StatusCode::OK);
    let id = test_purchase["id"].as_str().expect("id");
    let read = read_purchase(app, &org, &org.test_key, id).await;
    assert_eq!(read.body["status"], "completed");
    assert_eq!(balance(app, &org).await["credits_remaining"], 6500);
    // Modes are tenants: a live key does not see the test purchase.
    let read = read_purchase(app, &org, &org.live_key, id).await;
    assert_eq!(read.status, StatusCode::NOT_FOUND);
}
both!(credits_dev_checkout, dev_checkout_credits_once);

async fn credits_are_tenant_scoped(app: &TestApp) {
    let a = app.signup("Credit Tenant A").await;
    let b = app.signup("Credit Tenant B").await;
    let purchase = buy(app, &a, &a.live_key, 1000).await;
    let id = purchase["id"].as_str().expect("id");
    // Another organization's key: its path is not found, whatever exists there.
    for path in [
        credits_path(&a),
        format!("{}/ledger", credits_path(&a)),
        format!("{}/packages", credits_path(&a)),
        format!("{}/purchases", credits_path(&a)),
        format!("{}/purchases/{id}", credits_path(&a)),
    ] {
        let res = app.get(&b.live_key, &path).await;
        assert_eq!(res.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(res.code(), "organization_not_found", "{path}");
    }
    let res = app
        .post(
            &b.live_key,
            &format!("{}/purchases", credits_path(&a)),
            json!({"credit_amount": 1000}),
        )
        .await;
    assert_eq!(res.code(), "organization_not_found");
    // Its own path with A's purchase id: no such purchase.
    let res = app
        .get(&b.live_key, &format!("{}/purchases/{id}", credits_path(&b)))
        .await;
    assert_eq!(res.status, StatusCode::NOT_FOUND);
    assert_eq!(res.code(), "resource_not_found");
    // A checkout URL with another organization in it finds nothing.
    let url = purchase["checkout_url"]
        .as_str()
        .expect("url")
        .replace(&a.id, &b.id);
    let res = reqwest::Client::new()
        .post(&url)
        .send()
        .await
        .expect("post");
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(balance(app, &b).await["credits_remaining"], 500);
    // Buying needs admin; reading needs read.
    let (_, writer) = app.make_key(&a, &a.live_key, &["read", "write"]).await;
    let res = app
        .post(
            &writer,
            &format!("{}/purchases", credits_path(&a)),
            json!({"credit_amount": 1000}),
        )
        .await;
    assert_eq!(res.status, StatusCode::FORBIDDEN, "{}", res.body);
    assert_eq!(res.code(), "insufficient_permissions");
    assert_eq!(
        app.get(&writer, &credits_path(&a)).await.status,
        StatusCode::OK
    );
    // A sub-organization reads (and buys for) its root's pool.
    let (sub_id, _) = app.sub_org(&a.live_key, &a.id, "Credit Sub", "owned").await;
    let res = app
        .get(&a.live_key, &format!("/organizations/{sub_id}/credits"))
        .await;
    assert_eq!(res.body["organization_id"], a.id.as_str(), "{}", res.body);
}
both!(credits_tenancy, credits_are_tenant_scoped);

async fn reset_races_with_writes(app: &TestApp, clock: Arc<ShiftedClock>) {
    let org = app.signup("Credit Reset").await;
    let purchase = buy(app, &org, &org.live_key, 1000).await;
    assert_eq!(pay(&purchase).await.status(), StatusCode::OK);
    // Spend 3 of the free allowance.
    for n in 0..3 {
        let res = app
            .post(
                &org.live_key,
                &org.path("accounts"),
                json!({"code": format!("18{n:02}"), "name": format!("Before {n}"), "account_type": "asset"}),
            )
            .await;
        assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    }
    assert_eq!(balance(app, &org).await["credits_remaining"], 1497);
    // Nothing to reset within the month.
    assert_eq!(app.reset_credits().await, 0);

    // A month later: two replicas reset while writes charge the pool. (The replica starts
    // before the clock moves, so its start-up sweep finds nothing due.)
    let replica = app.replica_with_clock(clock.clone()).await;
    clock.advance(time::Duration::days(32));
    let [cash, sales] = app.account_ids(&org, &org.live_key, ["1000", "4000"]).await;
    let writes = (0..12).map(|n| {
        let (org, cash, sales) = (&org, &cash, &sales);
        async move {
            let res = if n % 2 == 0 {
                app.post(
                    &org.live_key,
                    &org.path("accounts"),
                    json!({"code": format!("19{n:02}"), "name": format!("During {n}"), "account_type": "asset"}),
                )
                .await
            } else {
                // Waited transaction creates go through the group commit.
                app.post_wait(
                    &org.live_key,
                    &org.path("transactions"),
                    json!({"description": "during the reset", "date": "2026-01-15", "entries": entries(cash, sales, "1.00")}),
                )
                .await
            };
            assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
        }
    });
    let resets = async {
        let (a, b) = tokio::join!(app.reset_credits(), replica.reset_credits());
        let (c, d) = tokio::join!(app.reset_credits(), replica.reset_credits());
        a + b + c + d
    };
    let (_, reset) = tokio::join!(futures::future::join_all(writes), resets);
    // The replica's own start-up sweep is spawned, so under load it may run after the
    // clock moved and be the one that resets: the sweeps here reset at most once, and the
    // ledger rows below prove exactly one reset happened.
    assert!(reset <= 1, "the four sweeps reset the pool {reset} times");
    let rows = ledger_rows(app, &org, &org.live_key).await;
    let resets: Vec<&Value> = rows.iter().filter(|r| r["kind"] == "reset").collect();
    assert_eq!(resets.len(), 1, "one reset per pool and month: {rows:#?}");
    let period = time::OffsetDateTime::now_utc() + time::Duration::days(32);
    let period = format!("{:04}-{:02}", period.year(), u8::from(period.month()));
    assert_eq!(resets[0]["id"], format!("reset_{period}"));
    let b = balance(app, &org).await;
    assert_eq!(b["period"], period.as_str());
    // The purchased credits survived; the free part restarted at 500 less what the writes
    // that came after the reset took (those before it spent credits that then lapsed).
    // The reset row says how many came before: it moved the balance from 1497 less those
    // to 1500, so the writes after it are the other 12 - before.
    assert_eq!(b["purchased_credits_remaining"], 1000, "{b}");
    let change = resets[0]["credits"].as_i64().expect("reset change");
    let before = change - 3;
    assert!((0..=12).contains(&before), "{rows:#?}");
    assert_eq!(b["credits_remaining"], 1500 - (12 - before), "{b}");
    assert_eq!(b["monthly_credits_remaining"], 500 - (12 - before), "{b}");
    // Every write was charged once: 3 before the month, 12 around the reset (the group
    // commit may put several writes of a batch in one row).
    let charged: i64 = rows
        .iter()
        .filter(|r| r["kind"] == "charge")
        .map(|r| r["credits"].as_i64().unwrap_or(0))
        .sum();
    assert_eq!(charged, -15, "{rows:#?}");
    // A second sweep that month changes nothing.
    assert_eq!(app.reset_credits().await, 0);
    assert_eq!(replica.reset_credits().await, 0);
    replica.finish().await;
}

mod credits_reset_race {
    use super::*;

    async fn run(backend: Backend) {
        let clock = Arc::new(ShiftedClock::default());
        let shared: Arc<dyn Clock> = clock.clone();
        if let Some(app) = TestApp::spawn_with_clock(backend, shared).await {
            reset_races_with_writes(&app, clock).await;
            app.finish().await;
        }
    }

    ledger_tests::on_backends!(run);
}

/// A fake Stripe API on a local port: every `POST /v1/checkout/sessions` opens a session
/// whose id and URL the test knows.
async fn fake_stripe() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let Ok(n) = socket.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&seen).into_owned();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text[..end]
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .and_then(|v| v.trim().parse::<usize>().ok())
                            })
                            .unwrap_or(0);
                        if seen.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                let body = r#"{"id":"cs_test_fake","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_test_fake"}"#;
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    base
}

const WEBHOOK_SECRET: &str = "whsec_credits_test";

fn stripe_event(purchase: &Value, org: &Org, amount: i64) -> String {
    json!({
        "id": "evt_test_1",
        "object": "event",
        "type": "checkout.session.completed",
        "data": {"object": {
            "id": "cs_test_fake",
            "object": "checkout.session",
            "client_reference_id": purchase["id"],
            "metadata": {"organization_id": org.id, "purchase_id": purchase["id"]},
            "amount_total": amount,
            "currency": "usd",
            "payment_status": "paid",
        }},
    })
    .to_string()
}

async fn webhook(app: &TestApp, payload: &str, signature: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/webhooks/stripe", app.base))
        .header("Stripe-Signature", signature)
        .header("Content-Type", "application/json")
        .body(payload.to_owned())
        .send()
        .await
        .expect("webhook")
}

async fn stripe_confirmations_credit_once(app: &TestApp) {
    let org = app.signup("Credit Stripe").await;
    let purchase = buy(app, &org, &org.live_key, 5000).await;
    assert_eq!(purchase["provider"], "stripe");
    assert_eq!(
        purchase["checkout_url"],
        "https://checkout.stripe.com/c/pay/cs_test_fake"
    );
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    // A forged signature, a wrong amount: refused, nothing credited.
    let payload = stripe_event(&purchase, &org, 4500);
    let forged = ledger_payments::signature_header("whsec_other", now, payload.as_bytes());
    let res = webhook(app, &payload, &forged).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let cheap = stripe_event(&purchase, &org, 1);
    let signed = ledger_payments::signature_header(WEBHOOK_SECRET, now, cheap.as_bytes());
    assert_eq!(
        webhook(app, &cheap, &signed).await.status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(balance(app, &org).await["credits_remaining"], 500);
    // The genuine confirmation, delivered several times (Stripe retries): credited once.
    let signature = ledger_payments::signature_header(WEBHOOK_SECRET, now, payload.as_bytes());
    let answers =
        futures::future::join_all((0..4).map(|_| webhook(app, &payload, &signature))).await;
    for res in answers {
        assert_eq!(res.status(), StatusCode::OK);
    }
    assert_eq!(
        webhook(app, &payload, &signature).await.status(),
        StatusCode::OK
    );
    let b = balance(app, &org).await;
    assert_eq!(b["credits_remaining"], 5500);
    assert_eq!(b["purchased_credits_remaining"], 5000);
    let id = purchase["id"].as_str().expect("id");
    let read = read_purchase(app, &org, &org.live_key, id).await;
    assert_eq!(read.body["status"], "completed");
    // Another genuine event type is acknowledged and changes nothing.
    let other = payload.replace("checkout.session.completed", "customer.created");
    let signed = ledger_payments::signature_header(WEBHOOK_SECRET, now, other.as_bytes());
    assert_eq!(webhook(app, &other, &signed).await.status(), StatusCode::OK);
    assert_eq!(balance(app, &org).await["credits_remaining"], 5500);
    // Stripe purchases have no development checkout page.
    let res = reqwest::get(format!("{}/checkout/dev/{}/{id}", app.base, org.id))
        .await
        .expect("page");
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

mod credits_stripe_webhook {
    use super::*;

    async fn run(backend: Backend) {
        let api = fake_stripe().await;
        let app = TestApp::spawn_with(backend, |c| {
            c.payment_provider = Some(server::PaymentProviderKind::Stripe);
            c.stripe_secret_key = Some("sk_test_credits".into());
            c.stripe_webhook_secret = Some(WEBHOOK_SECRET.into());
            c.stripe_api_base = api;
        })
        .await;
        if let Some(app) = app {
            stripe_confirmations_credit_once(&app).await;
            app.finish().await;
        }
    }

    ledger_tests::on_backends!(run);
}

async fn graphql_purchase_and_balance(app: &TestApp) {
    let org = app.signup("Credit Graphql").await;
    let query = "mutation($n: Int!) { purchaseCredits(creditAmount: $n) { id checkoutUrl creditsToAdd priceCents expiresAt status } }";
    let res = app
        .post(
            &org.live_key,
            "/graphql",
            json!({"query": query, "variables": {"n": 5000}}),
        )
        .await;
    assert!(res.body.get("errors").is_none(), "{}", res.body);
    let node = &res.body["data"]["purchaseCredits"];
    assert_eq!(node["creditsToAdd"], 5000);
    assert_eq!(node["priceCents"], 4500);
    assert_eq!(node["status"], "pending");
    assert!(node["expiresAt"].as_str().is_some());
    assert!(
        node["checkoutUrl"]
            .as_str()
            .is_some_and(|u| u.contains("/checkout/dev/")),
        "{node}"
    );
    let res = app
        .post(
            &org.live_key,
            "/graphql",
            json!({"query": query, "variables": {"n": 7}}),
        )
        .await;
    assert_eq!(res.body["data"]["purchaseCredits"], Value::Null);
    // A size no package has names no package: a business rule, as in REST.
    assert_eq!(res.gql_code(), "BUSINESS_RULE_VIOLATION", "{}", res.body);
    assert_eq!(res.gql_reason(), "reference_not_found", "{}", res.body);
    let read = app.post(&org.live_key, "/graphql", json!({"query": "{ organization { creditBalance { creditsRemaining monthlyAllowance purchasedCreditsRemaining nextResetAt } creditPackages { id credits priceCents currency } } }"}))
        .await;
    assert!(read.body.get("errors").is_none(), "{}", read.body);
    let o = &read.body["data"]["organization"];
    assert_eq!(o["creditBalance"]["creditsRemaining"], 500);
    assert_eq!(o["creditBalance"]["monthlyAllowance"], 500);
    assert_eq!(o["creditBalance"]["purchasedCreditsRemaining"], 0);
    assert_eq!(o["creditPackages"][1]["credits"], 5000);
    assert_eq!(o["creditPackages"][1]["priceCents"], 4500);
}
both!(credits_graphql, graphql_purchase_and_balance);

async fn mcp_credit_and_key_tools(app: &TestApp) {
    let org = app.signup("Credit Mcp").await;
    let key = &org.live_key;
    let balance = tool_ok(app, key, "get_credit_balance", json!({})).await;
    assert_eq!(balance["credits_remaining"], 500, "{balance}");
    let packages = tool_ok(app, key, "list_credit_packages", json!({})).await;
    assert_eq!(packages["data"][0]["credits"], 1000, "{packages}");
    let purchase = tool_ok(app, key, "purchase_credits", json!({"creditAmount": 1000})).await;
    assert_eq!(purchase["credits_to_add"], 1000);
    assert_eq!(purchase["price_cents"], 1000);
    assert!(
        purchase["checkout_url"].as_str().is_some() && purchase["expires_at"].as_str().is_some()
    );
    // A tool error carries the domain's code.
    let refused = tool(app, key, "purchase_credits", json!({"creditAmount": 3})).await;
    assert_eq!(refused["isError"], true, "{refused}");
    let error = &refused["structuredContent"]["error"];
    assert_eq!(
        (
            &error["status"],
            &error["code"],
            &error["details"]["argument"]
        ),
        (
            &json!(422),
            &json!("reference_not_found"),
            &json!("creditAmount")
        ),
        "{refused}"
    );
    assert_eq!(pay(&purchase).await.status(), StatusCode::OK);
    let balance = tool_ok(app, key, "get_credit_balance", json!({})).await;
    assert_eq!(balance["credits_remaining"], 1500);

    // The directory variant neither lists nor runs purchase_credits.
    let directory = |method: &'static str, params: Value| {
        ledger_tests::mcp::modern_at(app, "/mcp/directory", key, method, params)
    };
    let listed = directory("tools/list", json!({})).await;
    let names = strs(&listed.body["result"]["tools"], "name");
    assert!(!names.contains(&"purchase_credits"));
    assert!(names.contains(&"list_credit_packages") && names.contains(&"get_credit_balance"));
    let call = directory(
        "tools/call",
        json!({"name": "purchase_credits", "arguments": {"creditAmount": 1000}}),
    )
    .await;
    assert!(call.body["error"].is_object(), "{}", call.body);
    // The same call on /mcp runs (the tool exists; only the directory leaves it out).
    let listed_main = tool(app, key, "purchase_credits", json!({"creditAmount": 1000})).await;
    assert_eq!(listed_main["isError"], false, "{listed_main}");

    // API keys: create, list, get, rotate, delete through the tools.
    let created = tool(
        app,
        key,
        "create_api_key",
        json!({"name": "agent key", "permissions": ["read"]}),
    )
    .await;
    let created = ok(&created).clone();
    let key_id = created["id"].as_str().expect("key id");
    assert!(
        created["key"]
            .as_str()
            .is_some_and(|s| s.starts_with("ha_live_"))
    );
    let listed = tool_ok(app, key, "list_api_keys", json!({})).await;
    assert!(
        listed["data"]
            .as_array()
            .is_some_and(|d| d.iter().any(|k| k["id"] == key_id))
    );
    let got = tool_ok(app, key, "get_api_key", json!({"keyId": key_id})).await;
    assert_eq!(got["name"], "agent key");
    assert!(
        got.get("key").is_none_or(Value::is_null),
        "the secret is never shown again"
    );
    let rotated = tool_ok(app, key, "rotate_api_key", json!({"keyId": key_id})).await;
    assert!(rotated["key"].as_str().is_some_and(|s| s != created["key"]));
    let deleted = tool(app, key, "delete_api_key", json!({"keyId": key_id})).await;
    assert_eq!(deleted["isError"], false, "{deleted}");
    let gone = tool(app, key, "get_api_key", json!({"keyId": key_id})).await;
    assert_eq!(gone["isError"], true, "{gone}");
    // Another organization's key id is not found through the tools either.
    let other = app.signup("Credit Mcp Other").await;
    let foreign = tool(
        app,
        &other.live_key,
        "get_api_key",
        json!({"keyId": key_id}),
    )
    .await;
    assert_eq!(foreign["isError"], true);
    let foreign = tool(
        app,
        &other.live_key,
        "get_credit_balance",
        json!({"organizationId": org.id}),
    )
    .await;
    assert!(
        foreign.to_string().contains("organization_not_found"),
        "{foreign}"
    );
}
both!(credits_mcp_tools, mcp_credit_and_key_tools);
