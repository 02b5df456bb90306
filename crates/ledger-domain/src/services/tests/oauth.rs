//! The authorization server's use cases on the memory store: sign-in by link, consent,
//! code exchange with PKCE, refresh rotation with reuse detection, revocation, and the
//! authentication of access tokens.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use time::macros::datetime;

use crate::memory::runtime::TestRuntime;
use crate::memory::{ManualClock, MemoryStore};
use crate::oauth::{self, OAuthScope};
use crate::ports::{BoxFuture, Mail, Mailer, TokenSource};
use crate::services::{
    AuthorizationRequest, AuthorizeRefusal, ClientCredentials, IssuedKey, Ledger, MasterSignup,
    OAuthErrorCode, TokenResponse,
};

/// Secrets `prefix` + a counter; hashes are real SHA-256.
#[derive(Default)]
struct CountingTokens(AtomicU64);

impl TokenSource for CountingTokens {
    fn issue(&self, prefix: &str) -> Result<IssuedKey, crate::DomainError> {
        let n = self.0.fetch_add(1, Ordering::SeqCst);
        let secret = format!("{prefix}{n:043}");
        Ok(IssuedKey {
            hash: self.hash(&secret),
            secret,
        })
    }

    fn hash(&self, secret: &str) -> String {
        crate::attachments::sha256_hex(secret.as_bytes())
    }
}

#[derive(Default, Clone)]
struct Outbox(Arc<Mutex<Vec<Mail>>>);

impl Mailer for Outbox {
    fn send(&self, mail: Mail) -> BoxFuture<'_, Result<(), crate::error::DomainError>> {
        self.0.lock().expect("outbox").push(mail);
        Box::pin(async { Ok(()) })
    }
}

const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const MCP: &str = "https://ledger.example/mcp";

struct Server {
    ledger: Ledger<MemoryStore>,
    clock: ManualClock,
    outbox: Outbox,
    org_id: String,
}

async fn server() -> Server {
    let clock = ManualClock::new(datetime!(2026-01-15 12:00 UTC));
    let outbox = Outbox::default();
    let ledger = Ledger::new(
        MemoryStore::new(),
        Arc::new(clock.clone()),
        Arc::new(TestRuntime),
        super::config(500),
    )
    .with_tokens(Arc::new(CountingTokens::default()))
    .with_mailer(Arc::new(outbox.clone()));
    let key = |s: &str| IssuedKey {
        secret: s.into(),
        hash: s.into(),
    };
    let signup = ledger
        .sign_up_master(MasterSignup {
            name: "Acme".into(),
            user_provider_id: oauth::email_provider_id("owner@example.com"),
            user_email: "owner@example.com".into(),
            provider_username: None,
            base_currency: None,
            test_key: key("ha_test_x"),
            live_key: key("ha_live_x"),
        })
        .await
        .expect("sign-up");
    Server {
        ledger,
        clock,
        outbox,
        org_id: signup.organization.id,
    }
}

impl Server {
    /// Authenticates with a bearer token, as the HTTP layer does (by its SHA-256).
    async fn authenticate(&self, token: &str) -> crate::DomainResult<crate::services::Principal> {
        let hash = crate::attachments::sha256_hex(token.as_bytes());
        self.ledger.authenticate(token, &hash).await
    }
}

fn public(client_id: &str) -> ClientCredentials {
    ClientCredentials {
        client_id: Some(client_id.into()),
        ..ClientCredentials::default()
    }
}

/// Registers a public client, signs the owner in by link and approves; the code.
async fn approved_code(s: &Server, scopes: &str) -> (String, String) {
    let (client, secret) = s
        .ledger
        .register_client(&json!({
            "redirect_uris": ["http://localhost:3030/cb"],
            "token_endpoint_auth_method": "none",
            "application_type": "native",
            "unknown_field": 1,
        }))
        .await
        .expect("registered");
    assert!(secret.is_none());
    s.ledger
        .start_sign_in("Owner@Example.com", "/authorize?x=1", "https://l/v?token=")
        .await
        .expect("link sent");
    let mail = s.outbox.0.lock().expect("outbox").pop().expect("a mail");
    let token = mail
        .body
        .split("token=")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .expect("a link")
        .to_owned();
    let (session, return_to) = s.ledger.finish_sign_in(&token).await.expect("signed in");
    assert_eq!(return_to, "/authorize?x=1");
    assert!(
        s.ledger.finish_sign_in(&token).await.is_err(),
        "links work once"
    );
    let (user, _) = s
        .ledger
        .session(&session)
        .await
        .expect("read")
        .expect("a session");
    let request = AuthorizationRequest {
        response_type: Some("code".into()),
        client_id: Some(client.id.clone()),
        redirect_uri: Some("http://localhost:3030/cb".into()),
        code_challenge: Some(CHALLENGE.into()),
        code_challenge_method: Some("S256".into()),
        scope: Some(scopes.into()),
        state: Some("st".into()),
        resource: Some(MCP.into()),
    };
    let validated = s
        .ledger
        .check_authorization(&request, &[MCP.to_owned()])
        .await
        .expect("valid request");
    let approved = oauth::parse_scopes(scopes).expect("scopes");
    let code = s
        .ledger
        .approve(&user, &validated, &s.org_id, true, &approved)
        .await
        .expect("approved");
    (client.id, code)
}

/// A fresh read-only grant of a public client whose first tokens were refreshed once:
/// the client's credentials, the first tokens and the second.
async fn rotated(s: &Server) -> (ClientCredentials, TokenResponse, TokenResponse) {
    let (client, code) = approved_code(s, "ledger:read").await;
    let creds = public(&client);
    let first = s
        .ledger
        .exchange_code(&creds, &code, None, Some(VERIFIER), None)
        .await
        .expect("tokens");
    let second = s
        .ledger
        .refresh(&creds, &first.refresh_token, None, None)
        .await
        .expect("rotated");
    (creds, first, second)
}

#[tokio::test]
async fn codes_become_tokens_that_authenticate_rotate_and_detect_reuse() {
    let s = server().await;
    let (client, code) = approved_code(&s, "ledger:read ledger:write").await;
    let creds = public(&client);
    let tokens = s
        .ledger
        .exchange_code(
            &creds,
            &code,
            Some("http://localhost:3030/cb"),
            Some(VERIFIER),
            Some(MCP),
        )
        .await
        .expect("tokens");
    assert_eq!(tokens.scope, "ledger:read ledger:write");
    assert_eq!(tokens.expires_in, 3600);
    let principal = s
        .authenticate(&tokens.access_token)
        .await
        .expect("the token authenticates");
    assert_eq!(principal.organization.id, s.org_id);
    assert!(principal.key.livemode);
    assert_eq!(
        principal.oauth.as_ref().map(|o| o.audience.as_str()),
        Some(MCP)
    );

    // A second redemption fails and revokes what the first gave.
    let again = s
        .ledger
        .exchange_code(&creds, &code, None, Some(VERIFIER), None)
        .await
        .expect_err("reused code");
    assert_eq!(again.code, OAuthErrorCode::InvalidGrant);
    let refused = s
        .authenticate(&tokens.access_token)
        .await
        .expect_err("revoked with the reused code");
    assert_eq!(refused.code(), crate::ErrorCode::InvalidToken);

    // A fresh grant: rotation, then reuse of the spent token revokes the family.
    let (creds, first, second) = rotated(&s).await;
    assert_ne!(second.refresh_token, first.refresh_token);
    let reuse = s
        .ledger
        .refresh(&creds, &first.refresh_token, None, None)
        .await
        .expect_err("reuse");
    assert_eq!(reuse.code, OAuthErrorCode::InvalidGrant);
    let after = s
        .ledger
        .refresh(&creds, &second.refresh_token, None, None)
        .await
        .expect_err("the family is revoked");
    assert_eq!(after.code, OAuthErrorCode::InvalidGrant);
    assert!(s.authenticate(&second.access_token).await.is_err());
}

#[tokio::test]
async fn wrong_verifier_expired_code_and_expired_tokens_are_refused() {
    let s = server().await;
    let (client, code) = approved_code(&s, "ledger:read").await;
    let creds = public(&client);
    let wrong = s
        .ledger
        .exchange_code(&creds, &code, None, Some(&VERIFIER.replace('d', "e")), None)
        .await
        .expect_err("wrong verifier");
    assert_eq!(wrong.code, OAuthErrorCode::InvalidGrant);
    // The code was burned by the failed attempt.
    assert!(
        s.ledger
            .exchange_code(&creds, &code, None, Some(VERIFIER), None)
            .await
            .is_err()
    );

    let (client, code) = approved_code(&s, "ledger:read").await;
    s.clock.advance(time::Duration::seconds(61));
    let expired = s
        .ledger
        .exchange_code(&public(&client), &code, None, Some(VERIFIER), None)
        .await
        .expect_err("expired code");
    assert_eq!(expired.code, OAuthErrorCode::InvalidGrant);

    let (client, code) = approved_code(&s, "ledger:read").await;
    let tokens = s
        .ledger
        .exchange_code(&public(&client), &code, None, Some(VERIFIER), None)
        .await
        .expect("tokens");
    s.clock.advance(time::Duration::seconds(3601));
    let err = s
        .authenticate(&tokens.access_token)
        .await
        .expect_err("expired");
    assert!(err.to_string().contains("expired"), "{err}");
}

#[tokio::test]
async fn authorization_requests_refuse_foreign_clients_uris_and_resources() {
    let s = server().await;
    let (client, _) = s
        .ledger
        .register_client(&json!({"redirect_uris": ["https://app.example/cb"]}))
        .await
        .expect("registered");
    assert_eq!(client.auth_method, oauth::ClientAuth::ClientSecretBasic);
    let base = AuthorizationRequest {
        response_type: Some("code".into()),
        client_id: Some(client.id.clone()),
        redirect_uri: Some("https://app.example/cb".into()),
        code_challenge: Some(CHALLENGE.into()),
        code_challenge_method: Some("S256".into()),
        ..AuthorizationRequest::default()
    };
    let resources = [MCP.to_owned()];
    let check = |r: AuthorizationRequest| {
        let ledger = s.ledger.clone();
        let resources = resources.clone();
        async move { ledger.check_authorization(&r, &resources).await }
    };
    // An unknown client or a foreign redirect URI: an error page, never a redirect.
    for request in [
        AuthorizationRequest {
            client_id: Some("cli_unknown".into()),
            ..base.clone()
        },
        AuthorizationRequest {
            redirect_uri: Some("https://evil.example/cb".into()),
            ..base.clone()
        },
    ] {
        let refusal = check(request).await;
        assert!(matches!(refusal, Err(AuthorizeRefusal::Page(_))));
    }
    // The client is known: the error goes back to it.
    for (request, code) in [
        (
            AuthorizationRequest {
                resource: Some("https://other.example/mcp".into()),
                ..base.clone()
            },
            OAuthErrorCode::InvalidTarget,
        ),
        (
            AuthorizationRequest {
                code_challenge_method: Some("plain".into()),
                ..base.clone()
            },
            OAuthErrorCode::InvalidRequest,
        ),
        (
            AuthorizationRequest {
                scope: Some("ledger:everything".into()),
                ..base.clone()
            },
            OAuthErrorCode::InvalidScope,
        ),
    ] {
        let redirected = match check(request).await {
            Err(AuthorizeRefusal::Redirect { error, .. }) => Some(error.code),
            _ => None,
        };
        assert_eq!(redirected, Some(code));
    }
    let ok = check(base).await.expect("valid");
    assert_eq!(ok.resource, MCP);
    assert_eq!(ok.scopes, vec![OAuthScope::Read, OAuthScope::Write]);
}

#[tokio::test]
async fn external_sign_ins_are_one_time_bound_to_browser_and_provider() {
    use crate::services::ExternalIdentity;
    use sha2::Digest as _;
    let s = server().await;
    let return_to = "/authorize?client_id=x";
    let refuses = |r: Result<_, crate::DomainError>| {
        assert!(
            matches!(r, Err(crate::DomainError::Authentication { .. })),
            "{r:?}"
        );
    };
    // Another provider's callback, another browser, no browser: refused, state kept.
    let start = s
        .ledger
        .start_external_sign_in("one", return_to)
        .await
        .expect("start");
    for (provider, browser) in [
        ("two", Some(start.browser.as_str())),
        ("one", Some("ledger_bb_other")),
        ("one", None),
    ] {
        refuses(
            s.ledger
                .take_external_sign_in(provider, &start.state, browser)
                .await,
        );
    }
    let pending = s
        .ledger
        .take_external_sign_in("one", &start.state, Some(&start.browser))
        .await
        .expect("the right browser at the right provider");
    assert_eq!(pending.nonce, start.nonce);
    assert_eq!(pending.return_to, return_to);
    assert!(oauth::pkce_matches(
        &pending.pkce_verifier,
        &oauth::base64url(&sha2::Sha256::digest(pending.pkce_verifier.as_bytes()))
    ));
    // Spent by its first return.
    refuses(
        s.ledger
            .take_external_sign_in("one", &start.state, Some(&start.browser))
            .await,
    );
    // Expired after ten minutes.
    let late = s
        .ledger
        .start_external_sign_in("one", return_to)
        .await
        .expect("start");
    s.clock.advance(time::Duration::minutes(11));
    refuses(
        s.ledger
            .take_external_sign_in("one", &late.state, Some(&late.browser))
            .await,
    );
    // Only this server's authorization requests are destinations.
    assert!(
        s.ledger
            .start_external_sign_in("one", "https://evil.example/")
            .await
            .is_err()
    );

    // The same e-mail at two providers: two users; the same subject again: the same user.
    let identity = |sub: &str| ExternalIdentity {
        subject: sub.into(),
        email: Some("Alice@Example.com".into()),
    };
    let ledger = &s.ledger;
    let user_of = |provider: &'static str| async move {
        let session = ledger
            .finish_external_sign_in(provider, &identity("sub-1"))
            .await
            .expect("sign in");
        ledger
            .session(&session)
            .await
            .expect("read")
            .expect("a session")
            .0
    };
    let one = user_of("one").await;
    let two = user_of("two").await;
    let again = user_of("one").await;
    assert_ne!(one.id, two.id);
    assert_eq!(one.id, again.id);
    assert_eq!(one.provider_id, "oidc:one:sub-1");
    assert_eq!(one.email, "alice@example.com");
}

#[tokio::test]
async fn the_purge_deletes_expired_and_revoked_secrets_only() {
    let s = server().await;
    let (creds, first, second) = rotated(&s).await;
    s.ledger
        .revoke_token(&creds, &second.access_token)
        .await
        .expect("revoked");
    // Stored: the used link, the session, the used code, two access tokens (one revoked),
    // the used and the live refresh token. Only the revoked access token goes now.
    assert_eq!(s.ledger.purge_oauth_secrets().await.expect("purge"), 1);
    assert_eq!(s.ledger.purge_oauth_secrets().await.expect("purge"), 0);
    assert!(
        s.authenticate(&first.access_token).await.is_ok(),
        "a live token survives the purge"
    );
    // The used refresh token stays for reuse detection: replaying it still ends the
    // family.
    let reuse = s
        .ledger
        .refresh(&creds, &first.refresh_token, None, None)
        .await
        .expect_err("reuse");
    assert_eq!(reuse.code, OAuthErrorCode::InvalidGrant);
    // The family is revoked now: its remaining tokens and code go.
    assert_eq!(s.ledger.purge_oauth_secrets().await.expect("purge"), 4);
    // Past every lifetime, the link and the session go too; nothing is left.
    s.clock.advance(time::Duration::days(31));
    assert_eq!(s.ledger.purge_oauth_secrets().await.expect("purge"), 2);
    assert_eq!(s.ledger.purge_oauth_secrets().await.expect("purge"), 0);
}
