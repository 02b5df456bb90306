//! Console sign-in (spec 5, issue 15 item 4): two external OpenID Connect providers and an
//! Apple-style one (`response_mode=form_post`, ES256 client-secret JWT) served by a local
//! provider the test starts (`oidc/provider.rs`), accounts kept apart by provider and
//! subject, the ID-token and state checks, the session and binding cookies' attributes
//! (development and production), and the e-mailed sign-in link delivered over SMTP to a
//! local sink (`oidc/smtp_sink.rs`). Driven over HTTP like a browser.

mod provider;
mod smtp_sink;

use ledger_tests::pages::{
    self, REDIRECT, VERIFIER, authorize_url, consent_form, input_value, location, post_form,
    sign_in_form,
};
use ledger_tests::{Backend, TestApp};
use provider::{Misbehaviour, Provider, Tenant};
use reqwest::{StatusCode, redirect};
use serde_json::{Value, json};

const ALICE: &str = "alice@example.com";

struct World {
    app: TestApp,
    idp: Provider,
    /// No redirects followed, no cookie jar: the test carries each cookie itself.
    browser: reqwest::Client,
    /// Headers every request to the server carries (the TLS proxy's, in production).
    extra: Vec<(&'static str, &'static str)>,
}

/// A P-256 key as Apple hands it out (PKCS#8 PEM) and its public point.
fn apple_key() -> (String, Vec<u8>) {
    use base64::Engine;
    use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 =
        EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("a key");
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
        .expect("the key parses");
    let body = base64::engine::general_purpose::STANDARD.encode(pkcs8.as_ref());
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).expect("ascii"))
        .collect();
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        lines.join("\n")
    );
    (pem, pair.public_key().as_ref().to_vec())
}

fn tenant(client_id: &str, secret: Option<&str>, sub: &str) -> Tenant {
    Tenant {
        client_id: client_id.into(),
        client_secret: secret.map(str::to_owned),
        apple: None,
        user: (sub.into(), ALICE.into()),
        misbehaviour: Misbehaviour::None,
    }
}

async fn world(
    backend: Backend,
    tweak: impl FnOnce(&mut server::Config),
    extra: Vec<(&'static str, &'static str)>,
) -> Option<World> {
    let (pem, public) = apple_key();
    let mut apple = tenant("com.example.ledger", None, "000123.apple");
    apple.apple = Some(("TEAM123456".into(), "KEY123".into(), public));
    let idp = Provider::start(vec![
        ("one", tenant("ledger-one", Some("secret-one"), "alice-1")),
        // The same subject and e-mail at another provider: another person to Ledger.
        ("two", tenant("ledger-two", Some("secret-two"), "alice-1")),
        ("apple", apple),
    ])
    .await;
    let providers = json!([
        {"id": "one", "name": "One ID", "issuer": idp.issuer("one"),
         "client_id": "ledger-one", "client_secret": "secret-one"},
        {"id": "two", "name": "Two ID", "issuer": idp.issuer("two"),
         "client_id": "ledger-two", "client_secret": "secret-two", "scopes": ["email", "profile"]},
        {"id": "apple", "name": "Apple", "issuer": idp.issuer("apple"),
         "client_id": "com.example.ledger",
         "apple": {"team_id": "TEAM123456", "key_id": "KEY123", "private_key": pem}},
    ])
    .to_string();
    let Some(app) = TestApp::spawn_with(backend, move |c| {
        c.oidc_providers = Some(providers);
        tweak(c);
    })
    .await
    else {
        idp.stop().await;
        return None;
    };
    Some(World {
        app,
        idp,
        browser: reqwest::Client::builder()
            .redirect(redirect::Policy::none())
            .build()
            .expect("client"),
        extra,
    })
}

macro_rules! oidc_both {
    ($name:ident, $scenario:ident) => {
        mod $name {
            ledger_tests::on_backends!(super::$scenario);
        }
    };
}

/// The `Set-Cookie` header of the cookie `name`, if the answer sets it.
fn set_cookie(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(str::to_owned)
}

/// `name=value` of a `Set-Cookie` header.
fn pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().expect("pair").to_owned()
}

fn param(url: &str, name: &str) -> Option<String> {
    url::Url::parse(url)
        .expect("absolute URL")
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// Where a sign-in at a provider stands after `POST /signin/oidc/{provider}`.
struct Started {
    /// `ledger_oidc=...`: the binding cookie.
    binding: String,
    binding_header: String,
    /// The provider's authorization URL.
    at_provider: String,
    return_to: String,
}

impl World {
    fn url(&self, path: &str) -> String {
        if path.starts_with("http") {
            path.to_owned()
        } else {
            format!("{}{path}", self.app.base)
        }
    }

    async fn get(&self, path: &str, cookie: Option<&str>) -> reqwest::Response {
        // The extra headers go to this server only, not to the identity provider.
        let ours = path.starts_with(&self.app.base) || !path.starts_with("http");
        let extra: &[(&str, &str)] = if ours { &self.extra } else { &[] };
        pages::get(&self.browser, self.url(path), cookie, extra).await
    }

    async fn post_form(
        &self,
        path: &str,
        form: &[(String, String)],
        cookie: Option<&str>,
    ) -> reqwest::Response {
        post_form(&self.browser, self.url(path), form, cookie, &self.extra).await
    }

    async fn signup(&self, name: &str, provider_id: &str) -> String {
        let res = self
            .app
            .post_signup(
                json!({"name": name, "user_provider_id": provider_id, "user_email": ALICE}),
                &self.extra,
            )
            .await;
        assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
        res.body["organization"]["id"]
            .as_str()
            .expect("id")
            .to_owned()
    }

    /// A public client and an authorization request of it.
    async fn authorize_url(&self) -> (String, String) {
        let res = self
            .browser
            .post(self.url("/register"))
            .headers(self.extra_headers())
            .json(&json!({
                "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none",
                "client_name": "Console test agent",
            }))
            .send()
            .await
            .expect("register");
        assert_eq!(res.status(), StatusCode::CREATED);
        let body: Value = res.json().await.expect("json");
        let client = body["client_id"].as_str().expect("client_id").to_owned();
        let resource = format!("{}/mcp", self.app.base);
        let url = authorize_url(
            &self.app.base,
            &client,
            "ledger:read ledger:write",
            "client-state",
            &resource,
        );
        (client, url)
    }

    fn extra_headers(&self) -> reqwest::header::HeaderMap {
        let mut headers = reqwest::header::HeaderMap::new();
        for (k, v) in &self.extra {
            headers.insert(*k, v.parse().expect("header"));
        }
        headers
    }

    /// The sign-in page of `authorize_url`, then its "Sign in with <provider>" button.
    async fn start(&self, authorize_url: &str, provider: &str) -> Started {
        let res = self.get(authorize_url, None).await;
        assert_eq!(res.status(), StatusCode::OK);
        let page = res.text().await.expect("html");
        // The e-mail form stays as it was; the provider buttons come after it.
        assert!(page.contains("<label for=\"email\">"), "{page}");
        for name in ["One ID", "Two ID", "Apple"] {
            assert!(
                page.contains(&format!("Sign in with {name}</button>")),
                "{page}"
            );
        }
        let action = format!("action=\"/signin/oidc/{provider}\"");
        assert!(page.contains(&action), "{page}");
        let return_to = input_value(&page, "return_to");
        let res = self
            .post_form(
                &format!("/signin/oidc/{provider}"),
                &[("return_to".into(), return_to.clone())],
                None,
            )
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        let binding_header = set_cookie(&res, "ledger_oidc").expect("a binding cookie");
        let at_provider = location(&res);
        assert!(
            at_provider.starts_with(&self.idp.issuer(provider)),
            "{at_provider}"
        );
        Started {
            binding: pair(&binding_header),
            binding_header,
            at_provider,
            return_to,
        }
    }

    /// The provider's part and the return to the callback: follows the provider's
    /// redirect (or submits its `form_post` form, without cookies, as a browser does
    /// for a cross-site POST, then follows the server's 303 with them), and returns the
    /// callback's answer. `binding` is the cookie the browser sends to the callback.
    async fn come_back(&self, started: &Started, binding: Option<&str>) -> reqwest::Response {
        let res = self.get(&started.at_provider, None).await;
        let callback = match res.status() {
            StatusCode::FOUND => location(&res),
            StatusCode::OK => {
                let form = res.text().await.expect("html");
                let action = form
                    .split("action=\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .expect("a form action")
                    .to_owned();
                let fields: Vec<(String, String)> = ["code", "state", "user"]
                    .iter()
                    .map(|n| ((*n).to_owned(), input_value(&form, n)))
                    .collect();
                let posted = self.post_form(&action, &fields, None).await;
                assert_eq!(posted.status(), StatusCode::SEE_OTHER);
                let next = location(&posted);
                assert!(next.starts_with("/signin/oidc/"), "{next}");
                assert!(!next.contains("user="), "only code and state go on: {next}");
                next
            }
            other => panic!(
                "the provider answered {other}: {}",
                res.text().await.unwrap_or_default()
            ),
        };
        self.get(&callback, binding).await
    }

    /// A whole sign-in at `provider`; the session cookie (`ledger_session=...`).
    async fn sign_in(&self, authorize_url: &str, provider: &str) -> (String, String) {
        let started = self.start(authorize_url, provider).await;
        let res = self.come_back(&started, Some(&started.binding)).await;
        assert_eq!(
            res.status(),
            StatusCode::SEE_OTHER,
            "{}",
            res.text().await.unwrap_or_default()
        );
        assert_eq!(location(&res), started.return_to);
        let session = set_cookie(&res, "ledger_session").expect("a session cookie");
        let cleared = set_cookie(&res, "ledger_oidc").expect("the binding cookie cleared");
        assert!(cleared.contains("Max-Age=0"), "{cleared}");
        (pair(&session), started.return_to)
    }

    async fn consent_page(&self, return_to: &str, session: &str) -> String {
        let res = self.get(return_to, Some(session)).await;
        assert_eq!(res.status(), StatusCode::OK);
        res.text().await.expect("html")
    }

    /// Approves the consent page for its first organization; the code.
    async fn approve(&self, page: &str, session: &str) -> String {
        let form = consent_form(page, "live", &["ledger:read"]);
        // Without its CSRF token the form is refused.
        let forged: Vec<(String, String)> =
            form.iter().filter(|(k, _)| k != "csrf").cloned().collect();
        let res = self.post_form("/authorize", &forged, Some(session)).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        let res = self.post_form("/authorize", &form, Some(session)).await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        let back = location(&res);
        assert!(back.starts_with(REDIRECT), "{back}");
        assert_eq!(param(&back, "state").as_deref(), Some("client-state"));
        param(&back, "code").expect("a code")
    }

    async fn finish(self) {
        self.idp.stop().await;
        self.app.finish().await;
    }
}

async fn providers_keep_accounts_apart_and_lead_to_consent(backend: Backend) {
    let Some(w) = world(backend, |_| {}, vec![]).await else {
        return;
    };
    let one_org = w.signup("One Co", "oidc:one:alice-1").await;
    w.signup("Apple Co", "oidc:apple:000123.apple").await;
    w.signup("Mail Co", &format!("email:{ALICE}")).await;
    let (client, authorize) = w.authorize_url().await;

    // Provider one: Alice sees the organization of her provider-one account only.
    let (session, return_to) = w.sign_in(&authorize, "one").await;
    let page = w.consent_page(&return_to, &session).await;
    assert!(page.contains("One Co"), "{page}");
    assert!(
        !page.contains("Apple Co") && !page.contains("Mail Co"),
        "{page}"
    );
    assert!(page.contains(ALICE), "{page}");
    // ... and completes an OAuth grant for it.
    let code = w.approve(&page, &session).await;
    let res = w
        .post_form(
            "/token",
            &[
                ("grant_type".into(), "authorization_code".into()),
                ("code".into(), code),
                ("redirect_uri".into(), REDIRECT.into()),
                ("client_id".into(), client.clone()),
                ("code_verifier".into(), VERIFIER.into()),
            ],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let tokens: Value = res.json().await.expect("json");
    let token = tokens["access_token"].as_str().expect("token");
    let res = w
        .app
        .get(token, &format!("/organizations/{one_org}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);

    // Provider two, same subject and same e-mail: another user, who owns nothing.
    let (session, return_to) = w.sign_in(&authorize, "two").await;
    let page = w.consent_page(&return_to, &session).await;
    assert!(page.contains("You own no organization yet"), "{page}");
    assert!(!page.contains("One Co"), "{page}");

    // Apple-style: form_post and an ES256 client secret the provider verified.
    let (session, return_to) = w.sign_in(&authorize, "apple").await;
    assert_eq!(w.idp.accepted_apple_secrets(), 1);
    let page = w.consent_page(&return_to, &session).await;
    assert!(page.contains("Apple Co"), "{page}");
    assert!(
        !page.contains("One Co") && !page.contains("Mail Co"),
        "{page}"
    );

    // Provider one again: the same user as before.
    let (session, return_to) = w.sign_in(&authorize, "one").await;
    let page = w.consent_page(&return_to, &session).await;
    assert!(page.contains("One Co"), "{page}");
    w.finish().await;
}
oidc_both!(
    oidc_accounts,
    providers_keep_accounts_apart_and_lead_to_consent
);

/// A refused return: 400, the error page, no session.
async fn assert_refused(res: reqwest::Response, what: &str) {
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{what}");
    assert!(set_cookie(&res, "ledger_session").is_none(), "{what}");
    let page = res.text().await.expect("html");
    assert!(page.contains("Authorization failed"), "{what}: {page}");
}

async fn wrong_tokens_states_and_browsers_are_refused(backend: Backend) {
    let Some(w) = world(backend, |_| {}, vec![]).await else {
        return;
    };
    let (_, authorize) = w.authorize_url().await;

    // ID tokens that must not sign anyone in.
    for (misbehaviour, what) in [
        (Misbehaviour::WrongNonce, "wrong nonce"),
        (Misbehaviour::WrongIssuer, "wrong issuer"),
        (Misbehaviour::WrongAudience, "wrong audience"),
        (Misbehaviour::BadSignature, "bad signature"),
    ] {
        w.idp.set("one", |t| t.misbehaviour = misbehaviour);
        let started = w.start(&authorize, "one").await;
        assert_refused(w.come_back(&started, Some(&started.binding)).await, what).await;
    }
    w.idp.set("one", |t| t.misbehaviour = Misbehaviour::None);

    // A state this server never made.
    let res = w
        .get(
            "/signin/oidc/one/callback?code=x&state=ledger_st_never-issued",
            Some("ledger_oidc=ledger_bb_whatever"),
        )
        .await;
    assert_refused(res, "unknown state").await;

    // Another browser (no binding cookie, or another one) cannot finish the sign-in
    // (login CSRF); the right browser still can, once.
    let started = w.start(&authorize, "one").await;
    let res = w.get(&started.at_provider, None).await;
    let callback = location(&res);
    assert_refused(w.get(&callback, None).await, "no binding cookie").await;
    assert_refused(
        w.get(&callback, Some("ledger_oidc=ledger_bb_someone-else"))
            .await,
        "another browser's binding",
    )
    .await;
    // The state of provider one at provider two's callback.
    let elsewhere = callback.replace("/signin/oidc/one/", "/signin/oidc/two/");
    assert_refused(
        w.get(&elsewhere, Some(&started.binding)).await,
        "other provider",
    )
    .await;
    let res = w.get(&callback, Some(&started.binding)).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert!(set_cookie(&res, "ledger_session").is_some());
    assert_refused(
        w.get(&callback, Some(&started.binding)).await,
        "a spent state",
    )
    .await;

    // The provider's refusal is shown, not followed.
    let started = w.start(&authorize, "two").await;
    let state = param(&started.at_provider, "state").expect("state");
    let res = w
        .get(
            &format!("/signin/oidc/two/callback?error=access_denied&state={state}"),
            Some(&started.binding),
        )
        .await;
    assert_refused(res, "provider error").await;

    // The authorization request carries PKCE S256, a nonce and the state to the provider.
    assert_eq!(
        param(&started.at_provider, "code_challenge_method").as_deref(),
        Some("S256")
    );
    assert!(param(&started.at_provider, "nonce").is_some_and(|n| n.starts_with("ledger_nc_")));
    assert!(state.starts_with("ledger_st_"));
    assert_eq!(
        param(&started.at_provider, "scope").as_deref(),
        Some("openid email profile")
    );
    assert_eq!(
        param(&started.at_provider, "redirect_uri"),
        Some(format!("{}/signin/oidc/two/callback", w.app.base))
    );

    // Sign-in only ever returns to this server's authorization requests.
    let res = w
        .post_form(
            "/signin/oidc/one",
            &[("return_to".into(), "https://evil.example/".into())],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res.headers().get("location").is_none());
    // Unknown providers are not found.
    let res = w
        .post_form(
            "/signin/oidc/nobody",
            &[("return_to".into(), "/authorize".into())],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    w.finish().await;
}
oidc_both!(oidc_refusals, wrong_tokens_states_and_browsers_are_refused);

async fn cookies_are_http_only_lax_and_secure_in_production(backend: Backend) {
    // Development: HttpOnly and SameSite=Lax, not Secure (plain HTTP on loopback).
    let Some(w) = world(backend, |_| {}, vec![]).await else {
        return;
    };
    let (_, authorize) = w.authorize_url().await;
    let started = w.start(&authorize, "one").await;
    let binding = &started.binding_header;
    for attribute in [
        "HttpOnly",
        "SameSite=Lax",
        "Path=/signin/oidc",
        "Max-Age=600",
    ] {
        assert!(binding.contains(attribute), "{binding}");
    }
    assert!(!binding.contains("Secure"), "{binding}");
    let res = w.come_back(&started, Some(&started.binding)).await;
    let session = set_cookie(&res, "ledger_session").expect("session");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=43200"] {
        assert!(session.contains(attribute), "{session}");
    }
    assert!(!session.contains("Secure"), "{session}");
    w.finish().await;

    // Production (behind the TLS proxy): the same, and Secure.
    let Some(w) = world(
        backend,
        |c| {
            c.environment = server::Environment::Production;
            c.open_signup = true;
            c.trusted_proxies = "127.0.0.1/32".into();
        },
        vec![("X-Forwarded-Proto", "https")],
    )
    .await
    else {
        return;
    };
    let (_, authorize) = w.authorize_url().await;
    let started = w.start(&authorize, "apple").await;
    let binding = &started.binding_header;
    for attribute in ["HttpOnly", "SameSite=Lax", "Secure"] {
        assert!(binding.contains(attribute), "{binding}");
    }
    let res = w.come_back(&started, Some(&started.binding)).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let session = set_cookie(&res, "ledger_session").expect("session");
    for attribute in ["HttpOnly", "SameSite=Lax", "Secure"] {
        assert!(session.contains(attribute), "{session}");
    }
    let cleared = set_cookie(&res, "ledger_oidc").expect("cleared");
    assert!(
        cleared.contains("Secure") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    w.finish().await;
}
oidc_both!(
    oidc_cookies,
    cookies_are_http_only_lax_and_secure_in_production
);

async fn the_sign_in_link_goes_out_over_smtp(backend: Backend) {
    let sink = smtp_sink::SmtpSink::start().await;
    let outbox = std::env::temp_dir().join(format!(
        "ledger-outbox-unused-{}",
        ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Request)
    ));
    let smtp_url = format!("smtp://127.0.0.1:{}", sink.port);
    let dir = outbox.to_string_lossy().into_owned();
    let Some(w) = world(
        backend,
        move |c| {
            c.smtp_url = Some(smtp_url);
            c.mail_outbox = dir;
        },
        vec![],
    )
    .await
    else {
        sink.stop();
        return;
    };
    w.signup("Mail Co", &format!("email:{ALICE}")).await;
    let (_, authorize) = w.authorize_url().await;
    let page = w.get(&authorize, None).await.text().await.expect("html");
    let return_to = input_value(&page, "return_to");
    let res = w
        .post_form("/signin", &sign_in_form(ALICE, &return_to), None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let messages = sink.messages();
    assert_eq!(messages.len(), 1, "{messages:#?}");
    let mail = &messages[0];
    assert_eq!(mail.rcpt_to, vec![format!("<{ALICE}>")]);
    assert!(mail.mail_from.contains("ledger@localhost"), "{mail:?}");
    assert!(mail.data.contains(&format!("To: {ALICE}")), "{}", mail.data);
    assert!(
        mail.data.contains("Subject: Your Ledger sign-in link"),
        "{}",
        mail.data
    );
    let (headers, body) = mail.data.split_once("\r\n\r\n").expect("headers and body");
    let body = if headers.contains("Content-Transfer-Encoding: quoted-printable") {
        smtp_sink::decode_quoted_printable(body)
    } else {
        body.to_owned()
    };
    let link = body
        .split_whitespace()
        .find(|w| w.contains("/signin/verify?token="))
        .unwrap_or_else(|| panic!("a link in {body}"))
        .to_owned();
    assert!(!outbox.exists(), "nothing is written to the outbox");

    // The link signs Alice in and leads to the consent page.
    let res = w.get(&link, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let token = input_value(&res.text().await.expect("html"), "token");
    let res = w
        .post_form("/signin/verify", &[("token".into(), token)], None)
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let session = pair(&set_cookie(&res, "ledger_session").expect("session"));
    let page = w.consent_page(&return_to, &session).await;
    assert!(page.contains("Mail Co"), "{page}");
    w.finish().await;
    sink.stop();
}
oidc_both!(oidc_smtp, the_sign_in_link_goes_out_over_smtp);

async fn unauthenticated_endpoints_are_rate_limited(backend: Backend) {
    let Some(w) = world(backend, |c| c.rate_limit_auth = 3, vec![]).await else {
        return;
    };
    let register = || async {
        w.browser
            .post(w.url("/register"))
            .json(&json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}))
            .send()
            .await
            .expect("register")
    };
    for _ in 0..3 {
        assert_eq!(register().await.status(), StatusCode::CREATED);
    }
    let res = register().await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"], "rate_limit_exceeded");

    // Each endpoint has its own budget: /token, the e-mail sign-in, a provider's sign-in.
    let token = [("grant_type".to_owned(), "password".to_owned())];
    for _ in 0..3 {
        let res = w.post_form("/token", &token, None).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    }
    let res = w.post_form("/token", &token, None).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    for path in ["/signin", "/signin/oidc/one"] {
        let form = [
            ("email".to_owned(), ALICE.to_owned()),
            ("return_to".to_owned(), "https://evil.example/".to_owned()),
        ];
        for _ in 0..3 {
            let res = w.post_form(path, &form, None).await;
            assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{path}");
        }
        let res = w.post_form(path, &form, None).await;
        assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "{path}");
        assert!(res.headers().contains_key("retry-after"));
    }
    w.finish().await;
}
oidc_both!(oidc_rate_limits, unauthenticated_endpoints_are_rate_limited);
