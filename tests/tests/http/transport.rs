//! Production transport (DECISIONS 1): HTTPS only, natively (rustls) or from a trusted
//! proxy; a plain-HTTP request is refused before any handler runs and changes nothing.

use ledger_tests::{Backend, TestApp, refused};
use reqwest::{Method, StatusCode};
use serde_json::json;

fn signup_body(name: &str) -> serde_json::Value {
    json!({"name": name, "user_provider_id": format!("prov-{name}"), "user_email": "ops@example.com"})
}

async fn trusted_proxy_scenario(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.environment = server::Environment::Production;
        c.open_signup = true;
        c.trusted_proxies = "127.0.0.1/32".into();
    })
    .await
    else {
        return;
    };
    // Plain HTTP (no proxy header): refused, with the envelope and a request id.
    let res = app.post_signup(signup_body("Plain"), &[]).await;
    refused(&res, StatusCode::FORBIDDEN, "https_required");
    assert_eq!(res.body["error"]["type"], "authorization_error");
    assert!(res.headers.contains_key("x-request-id"));
    // The proxy saying http is refused too.
    let res = app
        .post_signup(signup_body("Plain"), &[("X-Forwarded-Proto", "http")])
        .await;
    assert_eq!(res.code(), "https_required", "{}", res.body);
    // Health and readiness stay open for plain-HTTP probes; metrics (a key) do not.
    let res = app.call(Method::GET, "/health", None, None, &[]).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let res = app.call(Method::GET, "/ready", None, None, &[]).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let res = app.call(Method::GET, "/metrics", None, None, &[]).await;
    assert_eq!(res.code(), "https_required", "{}", res.body);
    // Through the trusted proxy with TLS: served.
    let https = [("X-Forwarded-Proto", "https")];
    let res = app.post_signup(signup_body("Proxied"), &https).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let key = res.body["api_key"]["key"].as_str().expect("key").to_owned();
    let org = res.body["organization"]["id"]
        .as_str()
        .expect("org")
        .to_owned();
    // A write over plain HTTP is refused before the key is even checked, and never runs.
    let accounts = format!("/organizations/{org}/accounts");
    let account = json!({"code": "1999", "name": "Never", "account_type": "asset"});
    let res = app.post(&key, &accounts, account.clone()).await;
    assert_eq!(res.code(), "https_required", "{}", res.body);
    let res = app
        .call(Method::GET, &accounts, Some(&key), None, &https)
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert!(
        !res.body.to_string().contains("\"1999\""),
        "the refused write was processed: {}",
        res.body
    );
    let res = app
        .call(Method::POST, &accounts, Some(&key), Some(account), &https)
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    app.finish().await;

    // A proxy header from a peer that is not the trusted proxy is not believed.
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.environment = server::Environment::Production;
        c.trusted_proxies = "10.9.9.9".into();
    })
    .await
    else {
        return;
    };
    let res = app
        .call(
            Method::GET,
            "/system",
            None,
            None,
            &[("X-Forwarded-Proto", "https")],
        )
        .await;
    assert_eq!(res.code(), "https_required", "{}", res.body);
    app.finish().await;
}

mod production_refuses_plain_http {
    ledger_tests::on_backends!(super::trusted_proxy_scenario);
}

async fn native_tls_scenario(backend: Backend) {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("cert");
    let dir = std::env::temp_dir().join(format!(
        "ledger-tls-{}-{}",
        std::process::id(),
        matches!(backend, Backend::Postgres)
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_path, cert.cert.pem()).expect("cert file");
    std::fs::write(&key_path, cert.key_pair.serialize_pem()).expect("key file");
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.environment = server::Environment::Production;
        c.open_signup = true;
        c.tls_cert = Some(cert_path.display().to_string());
        c.tls_key = Some(key_path.display().to_string());
    })
    .await
    else {
        return;
    };
    let port = app.base.rsplit(':').next().expect("port").to_owned();
    let client = reqwest::Client::builder()
        .add_root_certificate(
            reqwest::Certificate::from_pem(cert.cert.pem().as_bytes()).expect("root"),
        )
        .build()
        .expect("client");
    let res = client
        .post(format!("https://localhost:{port}/accounts/master"))
        .json(&signup_body("Tls"))
        .send()
        .await
        .expect("https request");
    assert_eq!(res.status(), StatusCode::CREATED);
    let body: serde_json::Value = res.json().await.expect("json");
    assert!(
        body["organization"]["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("org_"))
    );
    // Plain HTTP to the TLS port gets no HTTP answer at all.
    let plain = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{port}/health"))
        .send()
        .await;
    assert!(plain.is_err() || plain.is_ok_and(|r| r.status() == StatusCode::BAD_REQUEST));
    app.finish().await;
    let _ = std::fs::remove_dir_all(&dir);
}

mod production_serves_native_tls {
    ledger_tests::on_backends!(super::native_tls_scenario);
}

#[test]
fn production_without_tls_or_proxy_does_not_start() {
    let mut config = server::Config::with_database("sqlite::memory:");
    config.environment = server::Environment::Production;
    let err = server::transport_policy(&config).expect_err("refused");
    assert!(err.to_string().contains("LEDGER_TLS_CERT"), "{err}");
    config.tls_cert = Some("cert.pem".into());
    assert!(
        server::transport_policy(&config).is_err(),
        "a certificate needs its key"
    );
    config.tls_cert = None;
    config.trusted_proxies = "10.0.0.0/8, not-an-ip".into();
    assert!(server::transport_policy(&config).is_err());
    config.trusted_proxies = "10.0.0.0/8".into();
    assert!(server::transport_policy(&config).is_ok_and(|p| p.require_https));
}
