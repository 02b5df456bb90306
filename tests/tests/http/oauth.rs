//! OAuth 2.1 (spec 5): the authorization server's metadata, registration, sign-in by
//! e-mailed link, consent, code and token endpoints, refresh rotation with reuse
//! detection, revocation, and the resource servers (REST, GraphQL, MCP) accepting the
//! tokens with audience and scope checks. Driven over HTTP like a browser and a client.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ledger_tests::pages::{
    self, CHALLENGE, REDIRECT, VERIFIER, authorize_url, consent_form, input_value, location,
    post_form, sign_in_form,
};
use ledger_tests::{Backend, ShiftedClock, TestApp};
use reqwest::{Method, StatusCode, redirect};
use serde_json::{Value, json};

const OWNER: &str = "owner@example.com";

/// A test's server with its own mail outbox.
struct World {
    app: TestApp,
    outbox: PathBuf,
    clock: Arc<ShiftedClock>,
    /// No redirects followed: the test reads each `Location`.
    browser: reqwest::Client,
}

async fn world(backend: Backend) -> Option<World> {
    let outbox = std::env::temp_dir().join(format!(
        "ledger-outbox-{}",
        ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Request)
    ));
    let dir = outbox.to_string_lossy().into_owned();
    let clock = Arc::new(ShiftedClock::default());
    let app =
        TestApp::spawn_tweaked_with_clock(backend, move |c| c.mail_outbox = dir, clock.clone())
            .await?;
    Some(World {
        app,
        outbox,
        clock,
        browser: reqwest::Client::builder()
            .redirect(redirect::Policy::none())
            .build()
            .expect("client"),
    })
}

macro_rules! oauth_both {
    ($name:ident, $scenario:ident) => {
        mod $name {
            async fn run(backend: ledger_tests::Backend) {
                if let Some(w) = super::world(backend).await {
                    super::$scenario(&w).await;
                    let _ = std::fs::remove_dir_all(&w.outbox);
                    w.app.finish().await;
                }
            }

            ledger_tests::on_backends!(run);
        }
    };
}

fn query_of(url: &str) -> Vec<(String, String)> {
    url::Url::parse(url)
        .expect("absolute URL")
        .query_pairs()
        .into_owned()
        .collect()
}

fn param(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// The newest `.eml` file in the outbox.
fn newest_mail(outbox: &Path) -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(outbox)
        .expect("the outbox exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    files.sort();
    std::fs::read_to_string(files.last().expect("a mail")).expect("readable")
}

impl World {
    /// Signs up an organization owned by the e-mail user `OWNER`.
    async fn signup(&self, name: &str) -> String {
        self.app.signup_owned_by(name, OWNER).await.id
    }

    async fn register(&self, body: Value) -> reqwest::Response {
        self.browser
            .post(format!("{}/register", self.app.base))
            .json(&body)
            .send()
            .await
            .expect("register")
    }

    async fn public_client(&self) -> String {
        let res = self
            .register(json!({
                "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none",
                "client_name": "Test agent",
                "application_type": "native",
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "x_vendor_extension": {"anything": true},
            }))
            .await;
        assert_eq!(res.status(), StatusCode::CREATED);
        let body: Value = res.json().await.expect("json");
        assert!(body.get("client_secret").is_none(), "{body}");
        assert_eq!(body["application_type"], "native");
        assert!(body.get("x_vendor_extension").is_none());
        body["client_id"].as_str().expect("client_id").to_owned()
    }

    fn authorize_url(&self, client_id: &str, scope: &str, resource: &str) -> String {
        authorize_url(&self.app.base, client_id, scope, "xyz-state", resource)
    }

    async fn get(&self, url: &str, cookie: Option<&str>) -> reqwest::Response {
        pages::get(&self.browser, url.to_owned(), cookie, &[]).await
    }

    async fn post_form(
        &self,
        path: &str,
        form: &[(String, String)],
        cookie: Option<&str>,
    ) -> reqwest::Response {
        let url = format!("{}{path}", self.app.base);
        post_form(&self.browser, url, form, cookie, &[]).await
    }

    /// Revokes `token` of the public client `client_id` (RFC 7009: `200 OK` whether or not
    /// the token was known).
    async fn revoke(&self, client_id: &str, token: &str) {
        let form = [
            ("token".to_owned(), token.to_owned()),
            ("client_id".to_owned(), client_id.to_owned()),
        ];
        let res = self.post_form("/revoke", &form, None).await;
        assert_eq!(res.status(), StatusCode::OK);
    }

    /// The browser's part: sign in through the outbox link, then approve on the consent
    /// page. Returns the session cookie and the redirect back to the client.
    async fn sign_in_and_consent(
        &self,
        authorize_url: &str,
        scopes: &[&str],
        mode: &str,
    ) -> (String, String) {
        let res = self.get(authorize_url, None).await;
        assert_eq!(res.status(), StatusCode::OK);
        let page = res.text().await.expect("html");
        assert!(page.contains("<label for=\"email\">"), "{page}");
        let return_to = input_value(&page, "return_to");
        let res = self
            .post_form(
                "/signin",
                &sign_in_form(&OWNER.to_uppercase(), &return_to),
                None,
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        let mail = newest_mail(&self.outbox);
        assert!(
            mail.contains(&format!("To: {}", OWNER.to_uppercase())),
            "{mail}"
        );
        let link = mail
            .split_whitespace()
            .find(|w| w.contains("/signin/verify?token="))
            .expect("a link")
            .to_owned();
        let res = self.get(&link, None).await;
        assert_eq!(res.status(), StatusCode::OK);
        let token = input_value(&res.text().await.expect("html"), "token");
        let res = self
            .post_form("/signin/verify", &[("token".into(), token.clone())], None)
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        let set_cookie = res.headers()["set-cookie"]
            .to_str()
            .expect("ascii")
            .to_owned();
        assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
        assert!(set_cookie.contains("SameSite=Lax"), "{set_cookie}");
        assert!(
            !set_cookie.contains("Secure"),
            "development cookies are not Secure"
        );
        let cookie = set_cookie.split(';').next().expect("pair").to_owned();
        assert_eq!(location(&res), return_to);
        // The link works once.
        let again = self
            .post_form("/signin/verify", &[("token".into(), token)], None)
            .await;
        assert_eq!(again.status(), StatusCode::BAD_REQUEST);

        let res = self
            .get(&format!("{}{return_to}", self.app.base), Some(&cookie))
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(res.headers()["x-frame-options"], "DENY");
        let page = res.text().await.expect("html");
        assert!(page.contains("<legend>Organization</legend>"), "{page}");
        assert!(!page.contains("<script"), "no JavaScript");
        // Outside production the test books come first, and each choice says what it is.
        assert!(
            page.contains("name=\"mode\" value=\"test\" checked")
                && page.contains("name=\"mode\" value=\"live\">"),
            "{page}"
        );
        assert!(page.contains("no credits charged"), "{page}");
        let form = consent_form(&page, mode, scopes);
        // A forged form (wrong CSRF token) is refused.
        let forged: Vec<(String, String)> = form
            .iter()
            .map(|(k, v)| {
                if k == "csrf" {
                    (k.clone(), "ledger_csrf_forged".to_owned())
                } else {
                    (k.clone(), v.clone())
                }
            })
            .collect();
        let res = self.post_form("/authorize", &forged, Some(&cookie)).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        let res = self.post_form("/authorize", &form, Some(&cookie)).await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        (cookie, location(&res))
    }

    /// Runs the whole browser flow and returns the code.
    async fn code(&self, client_id: &str, scopes: &[&str], resource: &str) -> String {
        let url = self.authorize_url(client_id, &scopes.join(" "), resource);
        let (_, back) = self.sign_in_and_consent(&url, scopes, "live").await;
        assert!(back.starts_with(REDIRECT), "{back}");
        let pairs = query_of(&back);
        assert_eq!(param(&pairs, "state").as_deref(), Some("xyz-state"));
        assert_eq!(
            param(&pairs, "iss").as_deref(),
            Some(self.app.base.as_str())
        );
        param(&pairs, "code").expect("a code")
    }

    async fn token(
        &self,
        form: &[(&str, &str)],
    ) -> (StatusCode, reqwest::header::HeaderMap, Value) {
        let pairs: Vec<(String, String)> = form
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let res = self.post_form("/token", &pairs, None).await;
        let status = res.status();
        let headers = res.headers().clone();
        (status, headers, res.json().await.unwrap_or(Value::Null))
    }

    async fn exchange(&self, client_id: &str, code: &str) -> Value {
        let (status, headers, body) = self
            .token(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", REDIRECT),
                ("client_id", client_id),
                ("code_verifier", VERIFIER),
            ])
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(headers["cache-control"], "no-store");
        assert_eq!(body["token_type"], "Bearer");
        assert_eq!(body["expires_in"], 3600);
        body
    }

    async fn refresh(&self, client_id: &str, refresh_token: &str) -> (StatusCode, Value) {
        let (status, _, body) = self
            .token(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token),
                ("client_id", client_id),
            ])
            .await;
        (status, body)
    }

    fn mcp_url(&self) -> String {
        format!("{}/mcp", self.app.base)
    }
}

fn access(tokens: &Value) -> String {
    tokens["access_token"]
        .as_str()
        .expect("access token")
        .to_owned()
}

/// A modern-era `tools/call` of the MCP endpoint at `path`.
async fn mcp_tool(
    app: &TestApp,
    token: &str,
    path: &str,
    name: &str,
    arguments: Value,
) -> ledger_tests::Answer {
    app.call(
        Method::POST,
        path,
        Some(token),
        Some(json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": name,
                "arguments": arguments,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        })),
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", name),
            ("Accept", "application/json, text/event-stream"),
        ],
    )
    .await
}

fn challenge(answer: &ledger_tests::Answer) -> String {
    answer
        .header("www-authenticate")
        .unwrap_or_default()
        .to_owned()
}

async fn metadata_documents_describe_the_server(w: &World) {
    let base = &w.app.base;
    let res = w
        .get(
            &format!("{base}/.well-known/oauth-authorization-server"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let doc: Value = res.json().await.expect("json");
    assert_eq!(doc["issuer"], base.as_str());
    assert_eq!(doc["authorization_endpoint"], format!("{base}/authorize"));
    assert_eq!(doc["token_endpoint"], format!("{base}/token"));
    assert_eq!(doc["registration_endpoint"], format!("{base}/register"));
    assert_eq!(doc["revocation_endpoint"], format!("{base}/revoke"));
    assert_eq!(doc["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(doc["response_types_supported"], json!(["code"]));
    assert_eq!(
        doc["grant_types_supported"],
        json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(
        doc["scopes_supported"],
        json!(["ledger:read", "ledger:write", "ledger:admin"])
    );
    assert!(
        doc["token_endpoint_auth_methods_supported"]
            .as_array()
            .expect("array")
            .contains(&json!("none"))
    );
    assert_eq!(doc["authorization_response_iss_parameter_supported"], true);
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let res = w.get(&format!("{base}{path}"), None).await;
        assert_eq!(res.status(), StatusCode::OK);
        let doc: Value = res.json().await.expect("json");
        assert_eq!(doc["resource"], format!("{base}/mcp"));
        assert_eq!(doc["authorization_servers"], json!([base]));
    }
    // Registration refuses what it cannot honour, in RFC 7591's words.
    let res = w
        .register(json!({"redirect_uris": ["http://evil.example/cb"]}))
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"], "invalid_redirect_uri");
    let res = w
        .register(json!({"redirect_uris": [REDIRECT], "grant_types": ["password"]}))
        .await;
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"], "invalid_client_metadata");
    // A confidential client gets a secret, once.
    let res = w
        .register(json!({"redirect_uris": ["https://app.example/cb"], "application_type": "web"}))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(res.headers()["cache-control"], "no-store");
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["token_endpoint_auth_method"], "client_secret_basic");
    assert!(body["client_secret"].as_str().is_some_and(|s| s.len() > 40));
}
oauth_both!(oauth_metadata, metadata_documents_describe_the_server);

async fn the_whole_flow_reaches_rest_graphql_and_mcp(w: &World) {
    let org = w.signup("Flow Co").await;
    let client = w.public_client().await;
    let code = w
        .code(&client, &["ledger:read", "ledger:write"], &w.mcp_url())
        .await;
    let tokens = w.exchange(&client, &code).await;
    assert_eq!(tokens["scope"], "ledger:read ledger:write");
    let token = access(&tokens);
    assert!(token.starts_with("ledger_at_"));

    // REST: reads and writes of the chosen organization, live mode.
    let res = w
        .app
        .get(&token, &format!("/organizations/{org}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let res = w
        .app
        .post(
            &token,
            &format!("/organizations/{org}/accounts"),
            json!({"code": "1010", "name": "Petty cash", "account_type": "asset"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["livemode"], true, "{}", res.body);
    // Another organization is out of reach.
    let other = w.app.signup("Other Co").await;
    let res = w.app.get(&token, &other.path("accounts")).await;
    assert_eq!(res.status, StatusCode::NOT_FOUND);

    // GraphQL.
    let res = w
        .app
        .post(
            &token,
            "/graphql",
            json!({
                "query": "query($id: ID!) { organizationById(id: $id) { id name } }",
                "variables": {"id": org},
            }),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert!(res.body.get("errors").is_none(), "{}", res.body);
    assert_eq!(res.body["data"]["organizationById"]["name"], "Flow Co");

    // MCP: tools load with the token's organization.
    let res = mcp_tool(&w.app, &token, "/mcp", "list_accounts", json!({})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["result"]["isError"], false, "{}", res.body);

    // Refresh rotates; the spent token's reuse revokes the family.
    let refresh = tokens["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_owned();
    let (status, second) = w.refresh(&client, &refresh).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    assert_ne!(second["refresh_token"], tokens["refresh_token"]);
    let second_token = access(&second);
    let res = w
        .app
        .get(&second_token, &format!("/organizations/{org}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::OK);
    let (status, reuse) = w.refresh(&client, &refresh).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(reuse["error"], "invalid_grant");
    let res = w
        .app
        .get(&second_token, &format!("/organizations/{org}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    assert_eq!(res.code(), "invalid_token");
    let (status, _) = w
        .refresh(&client, second["refresh_token"].as_str().expect("refresh"))
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "the whole family is revoked"
    );
}
oauth_both!(oauth_flow, the_whole_flow_reaches_rest_graphql_and_mcp);

async fn codes_tokens_and_requests_that_must_fail(w: &World) {
    let org = w.signup("Neg Co").await;
    let client = w.public_client().await;
    let base = &w.app.base;

    // Untrusted client or redirect URI: a page, never a redirect.
    for url in [
        w.authorize_url(
            "cli_01JUNKNOWNCLIENT0000000000",
            "ledger:read",
            &w.mcp_url(),
        ),
        w.authorize_url(&client, "ledger:read", &w.mcp_url())
            .replace("localhost%3A3030", "evil.example"),
        w.authorize_url(&client, "ledger:read", &w.mcp_url())
            .replace("%2Fcallback", "%2Fcallback%2F..%2F..%2Fevil"),
    ] {
        let res = w.get(&url, None).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{url}");
        assert!(res.headers().get("location").is_none(), "{url}");
        assert!(
            res.text()
                .await
                .expect("html")
                .contains("Authorization failed")
        );
    }
    // A resource of another server: back to the client with invalid_target and iss.
    let res = w
        .get(
            &w.authorize_url(&client, "ledger:read", "https://other.example/mcp"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::FOUND);
    let back = query_of(&location(&res));
    assert_eq!(param(&back, "error").as_deref(), Some("invalid_target"));
    assert_eq!(param(&back, "state").as_deref(), Some("xyz-state"));
    assert_eq!(param(&back, "iss").as_deref(), Some(base.as_str()));
    // PKCE is required.
    let res = w
        .get(
            &w.authorize_url(&client, "ledger:read", &w.mcp_url())
                .replace("code_challenge_method=S256", "code_challenge_method=plain"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(
        param(&query_of(&location(&res)), "error").as_deref(),
        Some("invalid_request")
    );
    // Sign-in never returns to another site.
    let res = w
        .post_form(
            "/signin",
            &sign_in_form(OWNER, "https://evil.example/"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    // Wrong verifier, then the same code again: both invalid_grant.
    let code = w.code(&client, &["ledger:read"], &w.mcp_url()).await;
    let (status, _, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("code_verifier", &VERIFIER.replace('d', "e")),
        ])
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let (status, _, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );

    // A reused code: the second redemption fails and revokes the first's tokens.
    let code = w.code(&client, &["ledger:read"], &w.mcp_url()).await;
    let tokens = w.exchange(&client, &code).await;
    let (status, _, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let res = w
        .app
        .get(&access(&tokens), &format!("/organizations/{org}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);

    // Unknown client, unsupported grant, a non-form body.
    let (status, _, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", "ledger_ac_nothing"),
            ("client_id", "cli_01JUNKNOWNCLIENT0000000000"),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_client"))
    );
    let (_, _, body) = w.token(&[("grant_type", "password")]).await;
    assert_eq!(body["error"], "unsupported_grant_type");

    // Wrong audience: a token for the directory variant is refused at /mcp.
    let code = w
        .code(&client, &["ledger:read"], &format!("{base}/mcp/directory"))
        .await;
    let directory = access(&w.exchange(&client, &code).await);
    let res = mcp_tool(&w.app, &directory, "/mcp", "list_accounts", json!({})).await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    assert!(
        challenge(&res).contains("error=\"invalid_token\""),
        "{}",
        challenge(&res)
    );
    let res = mcp_tool(
        &w.app,
        &directory,
        "/mcp/directory",
        "list_accounts",
        json!({}),
    )
    .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);

    // Revocation (RFC 7009): the access token stops at once; unknown tokens answer 200.
    let code = w.code(&client, &["ledger:read"], &w.mcp_url()).await;
    let tokens = w.exchange(&client, &code).await;
    let token = access(&tokens);
    w.revoke(&client, &token).await;
    let res = w
        .app
        .get(&token, &format!("/organizations/{org}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    assert!(challenge(&res).contains("error=\"invalid_token\""));
    // Revoking the refresh token ends the grant.
    let refresh = tokens["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_owned();
    w.revoke(&client, &refresh).await;
    let (status, _) = w.refresh(&client, &refresh).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // No token at all: every resource points at its metadata.
    let res = w
        .app
        .call(
            Method::GET,
            &format!("/organizations/{org}/accounts"),
            None,
            None,
            &[],
        )
        .await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    assert!(
        challenge(&res).contains(&format!(
            "resource_metadata=\"{base}/.well-known/oauth-protected-resource\""
        )),
        "{}",
        challenge(&res)
    );
}
oauth_both!(oauth_refusals, codes_tokens_and_requests_that_must_fail);

async fn scopes_are_enforced_per_operation(w: &World) {
    let org = w.signup("Scope Co").await;
    let client = w.public_client().await;
    // The user approves read only, though write was asked for.
    let url = w.authorize_url(&client, "ledger:read ledger:write", &w.mcp_url());
    let (_, back) = w.sign_in_and_consent(&url, &["ledger:read"], "test").await;
    let code = param(&query_of(&back), "code").expect("code");
    let tokens = w.exchange(&client, &code).await;
    assert_eq!(tokens["scope"], "ledger:read");
    let token = access(&tokens);

    let res = w
        .app
        .get(&token, &format!("/organizations/{org}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::OK);
    let res = w
        .app
        .post(
            &token,
            &format!("/organizations/{org}/accounts"),
            json!({"code": "1010", "name": "Petty cash", "account_type": "asset"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::FORBIDDEN, "{}", res.body);
    let header = challenge(&res);
    assert!(header.contains("error=\"insufficient_scope\""), "{header}");
    assert!(
        header.contains("scope=\"ledger:read ledger:write\""),
        "{header}"
    );
    // Key administration needs admin.
    let res = w
        .app
        .get(&token, &format!("/organizations/{org}/api-keys"))
        .await;
    assert_eq!(res.status, StatusCode::FORBIDDEN, "{}", res.body);
    assert!(
        challenge(&res).contains("ledger:admin"),
        "{}",
        challenge(&res)
    );
    // MCP: a write tool with a read-only token is a 403 with the step-up challenge.
    let res = mcp_tool(
        &w.app,
        &token,
        "/mcp",
        "create_account",
        json!({"code": "1010", "name": "Petty cash", "accountType": "asset"}),
    )
    .await;
    assert_eq!(res.status, StatusCode::FORBIDDEN, "{}", res.body);
    assert!(
        challenge(&res).contains("insufficient_scope"),
        "{}",
        challenge(&res)
    );
    // The consent chose test mode: the token sees test data.
    let res = mcp_tool(&w.app, &token, "/mcp", "list_accounts", json!({})).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);

    // Access tokens expire after an hour.
    w.clock.advance(time::Duration::seconds(3601));
    let res = w
        .app
        .get(&token, &format!("/organizations/{org}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    assert!(
        res.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("expired"))
    );
}
oauth_both!(oauth_scopes, scopes_are_enforced_per_operation);

/// The official MCP Python SDK runs the whole flow on its own (discovery, registration,
/// PKCE, `resource`, `iss`, token, tool calls), its redirect handler playing the user
/// (`tests/mcp_sdk/oauth_flow.py`). Needs python3 with `mcp` (`.ci/run` installs it);
/// `LEDGER_SKIP_MCP_SDK=1` skips it.
async fn the_official_python_sdk_authorizes_itself(w: &World) {
    if std::env::var("LEDGER_SKIP_MCP_SDK").is_ok_and(|v| v == "1") {
        eprintln!("LEDGER_SKIP_MCP_SDK=1: skipping the MCP Python SDK OAuth test");
        return;
    }
    w.signup("Sdk Co").await;
    ledger_tests::run_python(
        ledger_tests::workspace().join("tests/mcp_sdk/oauth_flow.py"),
        Vec::new(),
        [
            ("LEDGER_BASE", w.app.base.clone().into()),
            ("LEDGER_OUTBOX", w.outbox.clone().into_os_string()),
            ("LEDGER_EMAIL", std::ffi::OsString::from(OWNER)),
        ],
    )
    .await
    .assert_ok("the MCP Python SDK OAuth scenario", &["ok: oauth"]);
}
oauth_both!(oauth_python_sdk, the_official_python_sdk_authorizes_itself);

/// Refusals the first suite does not cover: a code redeemed with another redirect URI or
/// by another client, an expired code, a confidential client's wrong or missing secret,
/// expired refresh tokens, refreshes asking for another resource or more scope, and
/// authorization requests without PKCE or with unknown scopes or unsafe redirect URIs.
async fn more_codes_clients_and_requests_that_must_fail(w: &World) {
    w.signup("More Neg Co").await;
    let client = w.public_client().await;
    let other = w.public_client().await;
    let token_error = |body: &Value| body["error"].as_str().unwrap_or_default().to_owned();

    // A code redeemed with another redirect URI: invalid_grant, and the code is burned.
    let code = w.code(&client, &["ledger:read"], &w.mcp_url()).await;
    let (status, headers, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", "http://localhost:3030/elsewhere"),
            ("client_id", &client),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(
        (status, token_error(&body).as_str()),
        (StatusCode::BAD_REQUEST, "invalid_grant")
    );
    assert_eq!(headers["cache-control"], "no-store");
    let (_, _, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(
        token_error(&body),
        "invalid_grant",
        "a burned code stays burned"
    );

    // A code redeemed by another client.
    let code = w.code(&client, &["ledger:read"], &w.mcp_url()).await;
    let (_, _, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &other),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(token_error(&body), "invalid_grant");

    // A code past its 60 seconds.
    let code = w.code(&client, &["ledger:read"], &w.mcp_url()).await;
    w.clock.advance(time::Duration::seconds(61));
    let (_, _, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(token_error(&body), "invalid_grant");

    // A confidential client: the wrong secret over Basic is 401 with a Basic challenge;
    // no secret at all is invalid_client.
    let res = w
        .register(json!({"redirect_uris": [REDIRECT], "client_name": "Confidential"}))
        .await;
    let registered: Value = res.json().await.expect("json");
    let confidential = registered["client_id"].as_str().expect("id").to_owned();
    let secret = registered["client_secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    let code = w.code(&confidential, &["ledger:read"], &w.mcp_url()).await;
    let basic = |secret: &str| {
        w.browser
            .post(format!("{}/token", w.app.base))
            .basic_auth(&confidential, Some(secret))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("code_verifier", VERIFIER),
            ])
            .send()
    };
    let res = basic("ledger_cs_wrong").await.expect("token");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(
        res.headers()["www-authenticate"]
            .to_str()
            .is_ok_and(|v| v.starts_with("Basic"))
    );
    let (status, _, body) = w
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &confidential),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(
        (status, token_error(&body).as_str()),
        (StatusCode::BAD_REQUEST, "invalid_client")
    );
    let res = basic(&secret).await.expect("token");
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "the right secret still redeems the code"
    );

    // Refresh: another resource is invalid_target, more scope invalid_scope, and a
    // refresh token past its 30 days invalid_grant.
    let code = w.code(&client, &["ledger:read"], &w.mcp_url()).await;
    let tokens = w.exchange(&client, &code).await;
    let refresh = tokens["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_owned();
    let (_, _, body) = w
        .token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", &refresh),
            ("client_id", &client),
            ("resource", "https://other.example/mcp"),
        ])
        .await;
    assert_eq!(token_error(&body), "invalid_target");
    let (_, _, body) = w
        .token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", &refresh),
            ("client_id", &client),
            ("scope", "ledger:read ledger:admin"),
        ])
        .await;
    assert_eq!(token_error(&body), "invalid_scope");
    w.clock
        .advance(time::Duration::days(30) + time::Duration::seconds(1));
    let (status, body) = w.refresh(&client, &refresh).await;
    assert_eq!(
        (status, token_error(&body).as_str()),
        (StatusCode::BAD_REQUEST, "invalid_grant")
    );

    // Authorization requests: no PKCE, an unknown scope (back to the client with the
    // error), and registrations of unsafe redirect URIs (refused).
    let without_pkce = w
        .authorize_url(&client, "ledger:read", &w.mcp_url())
        .replace(&format!("code_challenge={CHALLENGE}&"), "");
    let res = w.get(&without_pkce, None).await;
    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(
        param(&query_of(&location(&res)), "error").as_deref(),
        Some("invalid_request")
    );
    let res = w
        .get(
            &w.authorize_url(&client, "ledger:read ledger:everything", &w.mcp_url()),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::FOUND);
    let back = location(&res);
    assert!(back.starts_with(REDIRECT), "{back}");
    assert_eq!(
        param(&query_of(&back), "error").as_deref(),
        Some("invalid_scope")
    );
    for unsafe_uri in [
        "javascript:alert(1)",
        "http://evil.example/cb",
        "https://app.example/cb#x",
    ] {
        let res = w.register(json!({"redirect_uris": [unsafe_uri]})).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{unsafe_uri}");
    }
}
oauth_both!(
    oauth_more_refusals,
    more_codes_clients_and_requests_that_must_fail
);

/// `POST /signout` with the session's cookie and `fields`.
async fn sign_out(w: &World, cookie: Option<&str>, fields: &[(&str, &str)]) -> reqwest::Response {
    let form: Vec<(String, String)> = fields
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    w.post_form("/signout", &form, cookie).await
}

async fn sign_out_ends_the_console_session(w: &World) {
    w.signup("Sign-out Co").await;
    let client = w.public_client().await;
    let url = w.authorize_url(&client, "ledger:read", &w.mcp_url());
    let (cookie, _) = w.sign_in_and_consent(&url, &["ledger:read"], "live").await;

    // The consent page offers the sign-out form with the session's CSRF token.
    let res = w.get(&url, Some(&cookie)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.expect("html");
    assert!(page.contains("action=\"/signout\""), "{page}");
    assert!(page.contains(">Sign out</button>"), "{page}");
    let csrf = input_value(&page, "csrf");
    let return_to = format!("/authorize?{}", url.split_once('?').expect("query").1);

    // A forged or token-less form is refused and the session stays.
    for fields in [
        vec![
            ("csrf", "ledger_csrf_forged"),
            ("return_to", return_to.as_str()),
        ],
        vec![("return_to", return_to.as_str())],
    ] {
        let res = sign_out(w, Some(&cookie), &fields).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        assert!(res.headers().get("set-cookie").is_none());
        let res = w.get(&url, Some(&cookie)).await;
        assert!(
            res.text()
                .await
                .expect("html")
                .contains("<legend>Organization</legend>"),
            "the session still works after a refused sign-out"
        );
    }
    assert!(w.app.oauth_secret_stored(session_value(&cookie)).await);

    // The real form: back to the authorization request, cookie cleared.
    let res = sign_out(
        w,
        Some(&cookie),
        &[("csrf", csrf.as_str()), ("return_to", return_to.as_str())],
    )
    .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), return_to);
    assert_eq!(res.headers()["cache-control"], "no-store");
    let cleared = res.headers()["set-cookie"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(cleared.starts_with("ledger_session=;"), "{cleared}");
    for attribute in ["Max-Age=0", "Path=/", "HttpOnly", "SameSite=Lax"] {
        assert!(cleared.contains(attribute), "{cleared}");
    }

    // A replayed cookie is refused: the sign-in form again, and no decision accepted.
    let res = w.get(&url, Some(&cookie)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.expect("html");
    assert!(page.contains("<label for=\"email\">"), "{page}");
    assert!(!page.contains("<legend>Organization</legend>"));
    let mut decision: Vec<(String, String)> = query_of(&url);
    decision.push(("csrf".into(), csrf.clone()));
    decision.push(("decision".into(), "approve".into()));
    let res = w.post_form("/authorize", &decision, Some(&cookie)).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res.headers().get("location").is_none());
    assert!(
        res.text()
            .await
            .expect("html")
            .contains("Your session ended")
    );
    // Signing out again (nothing left to end) clears the cookie and shows the page; an
    // unsafe return_to is not followed.
    let res = sign_out(
        w,
        Some(&cookie),
        &[
            ("csrf", csrf.as_str()),
            ("return_to", "https://evil.example/"),
        ],
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().get("location").is_none());
    assert!(
        res.headers()["set-cookie"]
            .to_str()
            .expect("ascii")
            .contains("Max-Age=0")
    );
    assert!(res.text().await.expect("html").contains("Signed out"));
    let res = sign_out(w, None, &[]).await;
    assert_eq!(res.status(), StatusCode::OK);
    // The revoked session is gone at the next purge.
    assert!(w.app.oauth_secret_stored(session_value(&cookie)).await);
    w.app.purge_oauth_secrets().await;
    assert!(!w.app.oauth_secret_stored(session_value(&cookie)).await);
}
oauth_both!(oauth_sign_out, sign_out_ends_the_console_session);

/// The session token of a `ledger_session=...` cookie pair.
fn session_value(cookie: &str) -> &str {
    cookie
        .strip_prefix("ledger_session=")
        .expect("a session cookie")
}

/// The sign-in link token of the newest mail.
fn link_token(outbox: &Path) -> String {
    let mail = newest_mail(outbox);
    let link = mail
        .split_whitespace()
        .find(|w| w.contains("/signin/verify?token="))
        .expect("a link");
    param(&query_of(link), "token").expect("token")
}

async fn the_sweep_purges_expired_and_revoked_secrets(w: &World) {
    w.signup("Purge Co").await;
    let client = w.public_client().await;
    let mcp = w.mcp_url();
    let refresh_of = |t: &Value| t["refresh_token"].as_str().expect("refresh").to_owned();
    let authorize = async || {
        let url = w.authorize_url(&client, "ledger:read", &mcp);
        let (cookie, back) = w.sign_in_and_consent(&url, &["ledger:read"], "live").await;
        let link = link_token(&w.outbox);
        let code = param(&query_of(&back), "code").expect("code");
        (session_value(&cookie).to_owned(), link, code)
    };

    // Grant 1: redeemed, then refreshed once (the first refresh token used, kept for reuse
    // detection; the second live).
    let (session1, link1, code1) = authorize().await;
    let tokens1 = w.exchange(&client, &code1).await;
    let (status, tokens2) = w.refresh(&client, &refresh_of(&tokens1)).await;
    assert_eq!(status, StatusCode::OK, "{tokens2}");
    // Its second access token revoked (RFC 7009).
    w.revoke(&client, &access(&tokens2)).await;
    // Grant 2: redeemed, then its refresh token revoked, which ends the grant.
    let (session2, _, code2) = authorize().await;
    let tokens3 = w.exchange(&client, &code2).await;
    w.revoke(&client, &refresh_of(&tokens3)).await;
    // A code never redeemed, and a sign-in link never used.
    let (session3, _, code3) = authorize().await;
    let res = w
        .post_form(
            "/signin",
            &sign_in_form(OWNER, "/authorize?client_id=x"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let unused_link = link_token(&w.outbox);
    assert_ne!(unused_link, link1);

    let live = [
        &session1,
        &session2,
        &session3,
        &link1,
        &unused_link,
        &code1,
        &code3,
    ]
    .map(ToString::to_string);
    let stays_now = [
        access(&tokens1),
        refresh_of(&tokens1),
        access(&tokens2),
        refresh_of(&tokens2),
    ];
    for secret in live.iter().chain(&stays_now) {
        assert!(w.app.oauth_secret_stored(secret).await, "stored before");
    }

    // Now: only the revoked go (the revoked access token, and both tokens and the code
    // of the revoked grant).
    assert_eq!(w.app.purge_oauth_secrets().await, 4);
    for gone in [
        access(&tokens2),
        access(&tokens3),
        refresh_of(&tokens3),
        code2.clone(),
    ] {
        assert!(!w.app.oauth_secret_stored(&gone).await, "revoked: purged");
    }
    for kept in live.iter().chain([
        &access(&tokens1),
        &refresh_of(&tokens1),
        &refresh_of(&tokens2),
    ]) {
        assert!(w.app.oauth_secret_stored(kept).await, "live: kept");
    }
    // Nothing more to do at once.
    assert_eq!(w.app.purge_oauth_secrets().await, 0);

    // Past the codes' minute: the codes (used or not) go.
    w.clock.advance(time::Duration::seconds(61));
    w.app.purge_oauth_secrets().await;
    for gone in [&code1, &code3] {
        assert!(
            !w.app.oauth_secret_stored(gone).await,
            "expired code: purged"
        );
    }
    assert!(w.app.oauth_secret_stored(&unused_link).await);
    // Past the sign-in links' 15 minutes: the links (used or not) go.
    w.clock.advance(time::Duration::minutes(15));
    w.app.purge_oauth_secrets().await;
    for gone in [&link1, &unused_link] {
        assert!(
            !w.app.oauth_secret_stored(gone).await,
            "expired link: purged"
        );
    }
    assert!(w.app.oauth_secret_stored(&access(&tokens1)).await);
    // Past the access tokens' hour: the access token goes; sessions and refresh tokens
    // stay, and the live refresh token still works.
    w.clock.advance(time::Duration::hours(1));
    w.app.purge_oauth_secrets().await;
    assert!(!w.app.oauth_secret_stored(&access(&tokens1)).await);
    for kept in [
        &session1,
        &session3,
        &refresh_of(&tokens1),
        &refresh_of(&tokens2),
    ] {
        assert!(w.app.oauth_secret_stored(kept).await, "live: kept");
    }
    let (status, tokens4) = w.refresh(&client, &refresh_of(&tokens2)).await;
    assert_eq!(status, StatusCode::OK, "{tokens4}");
    // Past the sessions' 12 hours: the sessions go (and their cookies stop working).
    w.clock.advance(time::Duration::hours(12));
    w.app.purge_oauth_secrets().await;
    for gone in [&session1, &session2, &session3] {
        assert!(
            !w.app.oauth_secret_stored(gone).await,
            "expired session: purged"
        );
    }
    assert!(w.app.oauth_secret_stored(&refresh_of(&tokens4)).await);
    // Past the refresh tokens' 30 days: every refresh token goes, the table is empty.
    w.clock.advance(time::Duration::days(31));
    w.app.purge_oauth_secrets().await;
    for gone in [
        &refresh_of(&tokens1),
        &refresh_of(&tokens2),
        &refresh_of(&tokens4),
    ] {
        assert!(
            !w.app.oauth_secret_stored(gone).await,
            "expired refresh: purged"
        );
    }
    assert_eq!(w.app.purge_oauth_secrets().await, 0);
}
oauth_both!(oauth_purge, the_sweep_purges_expired_and_revoked_secrets);

/// A person who owns no organization creates one from the consent page (sign-up is open
/// outside production), then authorizes the agent with it (issue 42, item 1).
async fn a_person_who_owns_nothing_creates_an_organization(w: &World) {
    const NOBODY: &str = "nobody@example.com";
    let client = w.public_client().await;
    let url = w.authorize_url(&client, "ledger:read", &w.mcp_url());
    let page = w.get(&url, None).await.text().await.expect("html");
    let return_to = input_value(&page, "return_to");
    // A mistyped address is named in words, without the form's field name.
    let res = w
        .post_form(
            "/signin",
            &[
                ("email".into(), "nobody-at-example".into()),
                ("return_to".into(), return_to.clone()),
            ],
            None,
        )
        .await;
    let page = res.text().await.expect("html");
    assert!(
        page.contains("The e-mail address must be an e-mail address."),
        "{page}"
    );
    let res = w
        .post_form(
            "/signin",
            &[
                ("email".into(), NOBODY.into()),
                ("return_to".into(), return_to.clone()),
            ],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let token = link_token(&w.outbox);
    let res = w
        .post_form("/signin/verify", &[("token".into(), token)], None)
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let cookie = res.headers()["set-cookie"]
        .to_str()
        .expect("ascii")
        .split(';')
        .next()
        .expect("pair")
        .to_owned();
    let consent = format!("{}{return_to}", w.app.base);

    // Nothing to grant yet: the page offers to create an organization.
    let page = w
        .get(&consent, Some(&cookie))
        .await
        .text()
        .await
        .expect("html");
    assert!(page.contains("You own no organization yet"), "{page}");
    assert!(
        page.contains("action=\"/authorize/organization\""),
        "{page}"
    );
    assert!(page.contains("<label for=\"organization_name\">"), "{page}");
    assert!(!page.contains("<legend>Organization</legend>"), "{page}");
    let mut form = query_of(&url);
    form.push(("csrf".into(), input_value(&page, "csrf")));
    let named = |name: &str| {
        let mut f = form.clone();
        f.push(("name".into(), name.to_owned()));
        f
    };

    // A forged form, a form without a session and a blank name create nothing.
    let mut forged = named("Forged Books");
    forged.retain(|(k, _)| k != "csrf");
    forged.push(("csrf".into(), "ledger_csrf_forged".into()));
    let res = w
        .post_form("/authorize/organization", &forged, Some(&cookie))
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = w
        .post_form("/authorize/organization", &named("Lost Books"), None)
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(
        res.text()
            .await
            .expect("html")
            .contains("Your session ended")
    );
    let res = w
        .post_form("/authorize/organization", &named("   "), Some(&cookie))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.expect("html");
    assert!(
        page.contains("The organization name must be 1 to 255 characters."),
        "{page}"
    );
    assert!(page.contains("You own no organization yet"), "{page}");

    // The real form: back to the consent page of the same request, which lists it.
    let res = w
        .post_form(
            "/authorize/organization",
            &named("Nobody Books"),
            Some(&cookie),
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), return_to);
    let page = w
        .get(&consent, Some(&cookie))
        .await
        .text()
        .await
        .expect("html");
    assert!(page.contains("<legend>Organization</legend>"), "{page}");
    assert!(page.contains("Nobody Books"), "{page}");
    for refused in ["Forged Books", "Lost Books"] {
        assert!(!page.contains(refused), "{page}");
    }
    let organization = input_value(&page, "organization_id");
    let res = w
        .post_form(
            "/authorize",
            &consent_form(&page, "test", &["ledger:read"]),
            Some(&cookie),
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let code = param(&query_of(&location(&res)), "code").expect("a code");
    let tokens = w.exchange(&client, &code).await;
    let token = access(&tokens);
    // The new books have the default chart, and the token reads them in test mode.
    let res = w
        .app
        .get(&token, &format!("/organizations/{organization}/accounts"))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert!(
        res.body["data"].as_array().is_some_and(|a| !a.is_empty()),
        "{}",
        res.body
    );
    let res = w
        .app
        .get(&token, &format!("/organizations/{organization}"))
        .await;
    assert_eq!(res.body["name"], "Nobody Books", "{}", res.body);
}
oauth_both!(
    oauth_consent_creates_an_organization,
    a_person_who_owns_nothing_creates_an_organization
);
