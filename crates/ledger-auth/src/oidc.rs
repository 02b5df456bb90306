//! Console sign-in at external OpenID Connect providers (spec 5), with the
//! `openidconnect` crate over the workspace's reqwest client.
//!
//! Providers come from configuration (`LEDGER_OIDC_PROVIDERS`, a JSON array of
//! [`ProviderConfig`]). A sign-in is: `POST /signin/oidc/{provider}` (a button of the
//! sign-in page) makes `state`, `nonce` and a PKCE verifier (the domain's
//! `Ledger::start_external_sign_in`, stored by the state's hash), sets a cookie that
//! binds the sign-in to this browser and sends the browser to the provider's
//! authorization endpoint (authorization code flow, PKCE S256); the provider sends it back
//! to `GET /signin/oidc/{provider}/callback` (or, with `response_mode=form_post` as Apple
//! does, `POST`s there, and the POST is turned into that GET so the `SameSite=Lax`
//! binding cookie comes along); the callback spends the state, redeems the code, verifies
//! the ID token (signature against the provider's JWKS, `iss`, `aud`, `exp`, `nonce`) and
//! signs in the user keyed by provider and subject.
//!
//! An Apple-style provider (`"apple": {...}` in its configuration) differs only in what
//! the crate lets a caller set: `response_mode=form_post`, and a client secret that is a
//! short-lived ES256 JWT signed with the configured key (made for each code exchange),
//! sent in the request body.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use ledger_domain::DomainError;
use ledger_domain::oauth::{self, EXTERNAL_SIGN_IN_LIFETIME};
use ledger_domain::ports::Store;
use ledger_domain::services::ExternalIdentity;
use ledger_http::AppState;
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata};
use openidconnect::{
    AuthType, AuthorizationCode, ClientId, ClientSecret, CsrfToken, IssuerUrl, Nonce,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RequestTokenError, Scope, TokenResponse,
};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use serde::Deserialize;
use tokio::sync::Mutex;

use crate::browser::{self, cookie_value};
use crate::html;

/// The cookie that binds a sign-in at a provider to the browser that started it.
pub const BROWSER_COOKIE: &str = "ledger_oidc";
/// Where the binding cookie is sent (the callbacks only).
const BROWSER_COOKIE_PATH: &str = "/signin/oidc";
/// How long discovered provider metadata (with its JWKS) is reused before it is fetched
/// again (keys rotate).
const METADATA_TTL: Duration = Duration::from_secs(15 * 60);
/// How long an Apple-style client secret JWT is valid.
const CLIENT_SECRET_TTL_SECONDS: u64 = 300;

/// One configured provider, as written in `LEDGER_OIDC_PROVIDERS`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The provider's id in paths and user ids: 1 to 32 of `[a-z0-9_-]`. Changing it
    /// makes its users new users.
    pub id: String,
    /// The name on the button ("Sign in with `<name>`").
    pub name: String,
    /// The issuer; discovery reads `{issuer}/.well-known/openid-configuration`.
    pub issuer: String,
    pub client_id: String,
    /// The client secret (confidential clients; omit for Apple-style providers).
    #[serde(default)]
    pub client_secret: Option<String>,
    /// Scopes besides `openid` (default `["email"]`).
    #[serde(default)]
    pub scopes: Option<Vec<String>>,
    /// An Apple-style provider: `form_post` responses and an ES256 client secret.
    #[serde(default)]
    pub apple: Option<AppleConfig>,
}

/// What an Apple-style provider needs to make its client secret.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppleConfig {
    /// The JWT's `iss` (Apple: the team id).
    pub team_id: String,
    /// The JWT header's `kid` (Apple: the key id).
    pub key_id: String,
    /// The P-256 private key, PKCS#8 PEM (Apple's `.p8` file), inline...
    #[serde(default)]
    pub private_key: Option<String>,
    /// ...or in a file.
    #[serde(default)]
    pub private_key_file: Option<String>,
}

struct AppleSigner {
    team_id: String,
    key_id: String,
    key: EcdsaKeyPair,
}

struct Provider {
    config: ProviderConfig,
    apple: Option<AppleSigner>,
    metadata: Mutex<Option<(Instant, CoreProviderMetadata)>>,
}

/// The configured providers and the HTTP client that talks to them.
pub struct Providers {
    providers: Vec<Provider>,
    http: reqwest::Client,
}

/// Why a sign-in at a provider failed.
#[derive(Debug)]
enum Failure {
    /// The provider cannot be reached or answered nonsense (502).
    Unavailable(String),
    /// The provider's answer was refused (400).
    Refused(String),
}

impl Providers {
    /// No providers (the sign-in page shows only the e-mail form).
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn none() -> Result<Self, String> {
        Self::new(Vec::new())
    }

    /// The providers of a `LEDGER_OIDC_PROVIDERS` value (a JSON array).
    ///
    /// # Errors
    /// A message naming what is wrong with the configuration.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let configs: Vec<ProviderConfig> = serde_json::from_str(text)
            .map_err(|e| format!("LEDGER_OIDC_PROVIDERS is not a valid provider list: {e}"))?;
        Self::new(configs)
    }

    /// The providers of `configs`.
    ///
    /// # Errors
    /// A message naming what is wrong with a provider's configuration.
    pub fn new(configs: Vec<ProviderConfig>) -> Result<Self, String> {
        let mut providers: Vec<Provider> = Vec::with_capacity(configs.len());
        for config in configs {
            let id = &config.id;
            if !oauth::provider_id_is_valid(id) {
                return Err(format!(
                    "identity provider id '{id}' must be 1 to 32 of a-z, 0-9, '-' and '_'"
                ));
            }
            if providers.iter().any(|p| p.config.id == *id) {
                return Err(format!("identity provider id '{id}' is configured twice"));
            }
            IssuerUrl::new(config.issuer.clone())
                .map_err(|e| format!("identity provider '{id}': issuer: {e}"))?;
            let apple = match &config.apple {
                None => None,
                Some(apple) => Some(apple_signer(apple).map_err(|e| {
                    format!("identity provider '{id}': Apple-style private key: {e}")
                })?),
            };
            if apple.is_none() && config.client_secret.is_none() {
                return Err(format!(
                    "identity provider '{id}' needs a client_secret (or an apple key)"
                ));
            }
            providers.push(Provider {
                config,
                apple,
                metadata: Mutex::new(None),
            });
        }
        // No redirects: the crate's advice against SSRF through a provider's answers.
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("the identity providers' HTTP client: {e}"))?;
        Ok(Self { providers, http })
    }

    /// `(id, name)` of each provider, in configuration order (the sign-in buttons).
    pub fn buttons(&self) -> Vec<(String, String)> {
        self.providers
            .iter()
            .map(|p| (p.config.id.clone(), p.config.name.clone()))
            .collect()
    }

    fn get(&self, id: &str) -> Option<&Provider> {
        self.providers.iter().find(|p| p.config.id == id)
    }

    /// The provider's metadata, discovered at first use and again after
    /// [`METADATA_TTL`].
    async fn metadata(&self, provider: &Provider) -> Result<CoreProviderMetadata, Failure> {
        let mut cached = provider.metadata.lock().await;
        if let Some((at, metadata)) = cached.as_ref()
            && at.elapsed() < METADATA_TTL
        {
            return Ok(metadata.clone());
        }
        let issuer = IssuerUrl::new(provider.config.issuer.clone())
            .map_err(|e| Failure::Unavailable(format!("issuer: {e}")))?;
        let metadata = CoreProviderMetadata::discover_async(issuer, &self.http)
            .await
            .map_err(|e| Failure::Unavailable(format!("discovery failed: {}", chain(&e))))?;
        *cached = Some((Instant::now(), metadata.clone()));
        Ok(metadata)
    }
}

/// An error and its sources, on one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

fn apple_signer(apple: &AppleConfig) -> Result<AppleSigner, String> {
    let pem = match (&apple.private_key, &apple.private_key_file) {
        (Some(pem), None) => pem.clone(),
        (None, Some(path)) => {
            std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?
        }
        _ => return Err("give exactly one of private_key and private_key_file".into()),
    };
    let body: String = pem
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("-----"))
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(body)
        .map_err(|e| format!("not PEM: {e}"))?;
    let key =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new())
            .map_err(|e| format!("not a PKCS#8 P-256 key: {e}"))?;
    Ok(AppleSigner {
        team_id: apple.team_id.clone(),
        key_id: apple.key_id.clone(),
        key,
    })
}

fn b64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

impl AppleSigner {
    /// The client secret of one code exchange: an ES256 JWT with `iss` the team id,
    /// `sub` the client id, `aud` the provider's issuer, valid for five minutes.
    fn client_secret(&self, client_id: &str, audience: &str) -> Result<String, Failure> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| Failure::Unavailable(e.to_string()))?
            .as_secs();
        let header = serde_json::json!({"alg": "ES256", "kid": self.key_id, "typ": "JWT"});
        let claims = serde_json::json!({
            "iss": self.team_id,
            "iat": now,
            "exp": now + CLIENT_SECRET_TTL_SECONDS,
            "aud": audience,
            "sub": client_id,
        });
        let input = format!(
            "{}.{}",
            b64url(header.to_string().as_bytes()),
            b64url(claims.to_string().as_bytes())
        );
        let signature = self
            .key
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| Failure::Unavailable("signing the client secret failed".into()))?;
        Ok(format!("{input}.{}", b64url(signature.as_ref())))
    }
}

/// Where the provider sends the browser back: `{issuer}/signin/oidc/{id}/callback`
/// (register this at the provider).
fn redirect_url<S: Store>(state: &AppState<S>, id: &str) -> String {
    format!("{}/signin/oidc/{id}/callback", state.oauth.issuer)
}

fn browser_cookie(value: &str, max_age: i64, secure: bool) -> String {
    let mut cookie = format!(
        "{BROWSER_COOKIE}={value}; Path={BROWSER_COOKIE_PATH}; HttpOnly; SameSite=Lax; \
         Max-Age={max_age}"
    );
    if secure {
        cookie.push_str("; Secure");
    }
    cookie
}

fn failure_page(failure: &Failure) -> HttpResponse {
    match failure {
        Failure::Unavailable(why) => {
            tracing::warn!(error = %why, "identity provider unavailable");
            html::error_page(
                StatusCode::BAD_GATEWAY,
                "temporarily_unavailable",
                "the identity provider cannot be reached; try again later",
            )
        }
        Failure::Refused(why) => {
            tracing::warn!(error = %why, "external sign-in refused");
            html::error_page(
                StatusCode::BAD_REQUEST,
                "access_denied",
                &format!("the sign-in was refused: {why}"),
            )
        }
    }
}

fn unknown_provider() -> HttpResponse {
    html::error_page(
        StatusCode::NOT_FOUND,
        "invalid_request",
        "this identity provider is not configured",
    )
}

/// `POST /signin/oidc/{provider}` (form: `return_to`): sends the browser to the provider.
pub async fn start<S: Store>(
    state: web::Data<AppState<S>>,
    registry: Option<web::Data<Providers>>,
    path: web::Path<String>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(retry_after) = crate::throttle(&state, &req, "signin_oidc").await {
        return crate::too_many_page(retry_after);
    }
    let id = path.into_inner();
    let Some(registry) = registry else {
        return unknown_provider();
    };
    let Some(provider) = registry.get(&id) else {
        return unknown_provider();
    };
    let fields: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
    let return_to = fields
        .iter()
        .find(|(k, _)| k == "return_to")
        .map(|(_, v)| v.as_str())
        .unwrap_or_default();
    // Discovery first: nothing is stored when the provider is down.
    let metadata = match registry.metadata(provider).await {
        Ok(m) => m,
        Err(f) => return failure_page(&f),
    };
    let start = match state.ledger.start_external_sign_in(&id, return_to).await {
        Ok(s) => s,
        Err(DomainError::Validation { .. }) => {
            return html::error_page(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "sign-in must start from an authorization request",
            );
        }
        Err(e) => return browser::storage_failure(&e),
    };
    let redirect = match RedirectUrl::new(redirect_url(&state, &id)) {
        Ok(r) => r,
        Err(e) => return failure_page(&Failure::Unavailable(format!("redirect URL: {e}"))),
    };
    let client = CoreClient::from_provider_metadata(
        metadata,
        ClientId::new(provider.config.client_id.clone()),
        None,
    )
    .set_redirect_uri(redirect);
    let (state_value, nonce) = (start.state.clone(), start.nonce.clone());
    let verifier = PkceCodeVerifier::new(start.pkce_verifier.clone());
    let mut request = client
        .authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            move || CsrfToken::new(state_value),
            move || Nonce::new(nonce),
        )
        .set_pkce_challenge(PkceCodeChallenge::from_code_verifier_sha256(&verifier));
    let default_scopes = ["email".to_owned()];
    for scope in provider
        .config
        .scopes
        .as_deref()
        .unwrap_or(&default_scopes)
        .iter()
        .filter(|s| s.as_str() != "openid")
    {
        request = request.add_scope(Scope::new(scope.clone()));
    }
    if provider.apple.is_some() {
        // Apple posts the answer when e-mail or name is asked for.
        request = request.add_extra_param("response_mode", "form_post");
    }
    let (url, _, _) = request.url();
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, url.to_string()))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((
            header::SET_COOKIE,
            browser_cookie(
                &start.browser,
                EXTERNAL_SIGN_IN_LIFETIME.whole_seconds(),
                state.oauth.secure_cookies,
            ),
        ))
        .finish()
}

fn query_pairs(text: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(text).into_owned().collect()
}

/// `POST /signin/oidc/{provider}/callback`: a `response_mode=form_post` answer, turned
/// into the `GET` callback so that the browser sends its `SameSite=Lax` binding cookie
/// (browsers leave such cookies off a cross-site POST).
pub async fn form_post_callback(path: web::Path<String>, body: web::Bytes) -> HttpResponse {
    let id = path.into_inner();
    if !oauth::provider_id_is_valid(&id) {
        return unknown_provider();
    }
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in query_pairs(&body)
        .iter()
        .filter(|(k, _)| matches!(k.as_str(), "code" | "state" | "error" | "error_description"))
    {
        query.append_pair(k, v);
    }
    HttpResponse::SeeOther()
        .insert_header((
            header::LOCATION,
            format!("/signin/oidc/{id}/callback?{}", query.finish()),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// `GET /signin/oidc/{provider}/callback?code=&state=`: spends the state, redeems the
/// code, verifies the ID token and opens a session.
pub async fn callback<S: Store>(
    state: web::Data<AppState<S>>,
    registry: Option<web::Data<Providers>>,
    path: web::Path<String>,
    req: HttpRequest,
) -> HttpResponse {
    if let Err(retry_after) = crate::throttle(&state, &req, "signin_oidc_callback").await {
        return crate::too_many_page(retry_after);
    }
    let id = path.into_inner();
    let Some(registry) = registry else {
        return unknown_provider();
    };
    let Some(provider) = registry.get(&id) else {
        return unknown_provider();
    };
    let params = query_pairs(req.query_string().as_bytes());
    let param = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if let Some(error) = param("error") {
        return failure_page(&Failure::Refused(format!(
            "the identity provider answered {error}"
        )));
    }
    let (Some(code), Some(state_value)) = (param("code"), param("state")) else {
        return html::error_page(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "the identity provider's answer lacks code or state",
        );
    };
    let binding = cookie_value(&req, BROWSER_COOKIE);
    let pending = match state
        .ledger
        .take_external_sign_in(&id, state_value, binding.as_deref())
        .await
    {
        Ok(p) => p,
        Err(DomainError::Authentication { message, .. }) => {
            return html::error_page(StatusCode::BAD_REQUEST, "invalid_request", &message);
        }
        Err(e) => return browser::storage_failure(&e),
    };
    let identity = match verified_identity(&registry, provider, &state, code, &pending).await {
        Ok(i) => i,
        Err(f) => return failure_page(&f),
    };
    let session = match state.ledger.finish_external_sign_in(&id, &identity).await {
        Ok(s) => s,
        Err(DomainError::Authentication { message, .. }) => {
            return html::error_page(StatusCode::BAD_REQUEST, "access_denied", &message);
        }
        Err(e) => return browser::storage_failure(&e),
    };
    let secure = state.oauth.secure_cookies;
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, pending.return_to))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .append_header((
            header::SET_COOKIE,
            browser::session_cookie(&session, state.ledger.oauth_lifetimes().session, secure),
        ))
        .append_header((header::SET_COOKIE, browser_cookie("", 0, secure)))
        .finish()
}

/// Redeems `code` (with the PKCE verifier) and verifies the ID token with the nonce.
async fn verified_identity<S: Store>(
    registry: &Providers,
    provider: &Provider,
    state: &AppState<S>,
    code: &str,
    pending: &ledger_domain::services::PendingExternalSignIn,
) -> Result<ExternalIdentity, Failure> {
    let metadata = registry.metadata(provider).await?;
    let issuer = metadata.issuer().to_string();
    let config = &provider.config;
    let secret = match &provider.apple {
        Some(apple) => apple.client_secret(&config.client_id, &issuer)?,
        None => config.client_secret.clone().unwrap_or_default(),
    };
    let redirect = RedirectUrl::new(redirect_url(state, &config.id))
        .map_err(|e| Failure::Unavailable(format!("redirect URL: {e}")))?;
    let mut client = CoreClient::from_provider_metadata(
        metadata,
        ClientId::new(config.client_id.clone()),
        Some(ClientSecret::new(secret)),
    )
    .set_redirect_uri(redirect);
    if provider.apple.is_some() {
        client = client.set_auth_type(AuthType::RequestBody);
    }
    let response = client
        .exchange_code(AuthorizationCode::new(code.to_owned()))
        .map_err(|e| Failure::Unavailable(format!("the provider has no token endpoint: {e}")))?
        .set_pkce_verifier(PkceCodeVerifier::new(pending.pkce_verifier.clone()))
        .request_async(&registry.http)
        .await
        .map_err(|e| match e {
            RequestTokenError::ServerResponse(answer) => Failure::Refused(format!(
                "the identity provider did not accept the code ({})",
                answer.error()
            )),
            other => Failure::Unavailable(format!("token request failed: {}", chain(&other))),
        })?;
    let id_token = response
        .id_token()
        .ok_or_else(|| Failure::Refused("the identity provider sent no ID token".into()))?;
    let claims = id_token
        .claims(
            &client.id_token_verifier(),
            &Nonce::new(pending.nonce.clone()),
        )
        .map_err(|e| Failure::Refused(format!("the ID token is not valid ({})", chain(&e))))?;
    Ok(ExternalIdentity {
        subject: claims.subject().as_str().to_owned(),
        email: claims.email().map(|e| e.as_str().to_owned()),
    })
}
