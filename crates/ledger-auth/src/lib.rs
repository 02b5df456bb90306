//! `ledger-auth`: the OAuth 2.1 authorization server's HTTP edge (spec 5).
//!
//! Routes: RFC 8414 metadata at `/.well-known/oauth-authorization-server`, dynamic
//! client registration (`POST /register`, RFC 7591), `GET`/`POST /authorize` (the
//! sign-in form, the consent page and the decision), `POST /token` and `POST /revoke`
//! (RFC 7009), the e-mail sign-in (`POST /signin`, `GET`/`POST /signin/verify`; the mail
//! goes out over SMTP with [`smtp::SmtpMailer`] when configured), the sign-out
//! (`POST /signout`) and the sign-in at
//! external OpenID Connect providers ([`oidc`]: `POST /signin/oidc/{provider}`,
//! `GET`/`POST /signin/oidc/{provider}/callback`).
//! The protocol's rules are the domain's (`Ledger::check_authorization`, `approve`,
//! `exchange_code`, ...); this crate parses, renders and sets cookies. Protocol errors
//! are RFC 6749 JSON (`{error, error_description}`) with `Cache-Control: no-store`;
//! errors that must not go back to an untrusted redirect URI are pages.

mod browser;
pub mod html;
pub mod oidc;
pub mod outbox;
pub mod smtp;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use ledger_domain::DomainError;
use ledger_domain::ports::Store;
use ledger_domain::services::{ClientCredentials, OAuthError, OAuthErrorCode, TokenResponse};
use ledger_http::AppState;
use ledger_http::transport::TransportPolicy;
use serde_json::{Value, json};

/// Registers the authorization server's routes.
pub fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/.well-known/oauth-authorization-server",
        web::get().to(metadata::<S>),
    )
    .route("/register", web::post().to(register::<S>))
    .route("/token", web::post().to(token::<S>))
    .route("/revoke", web::post().to(revoke::<S>))
    .route("/authorize", web::get().to(browser::authorize::<S>))
    .route("/authorize", web::post().to(browser::decide::<S>))
    .route(
        "/authorize/organization",
        web::post().to(browser::create_organization::<S>),
    )
    .route("/signin", web::post().to(browser::sign_in::<S>))
    .route("/signout", web::post().to(browser::sign_out::<S>))
    .route("/signin/verify", web::get().to(browser::confirm_sign_in))
    .route(
        "/signin/verify",
        web::post().to(browser::verify_sign_in::<S>),
    )
    .route("/signin/oidc/{provider}", web::post().to(oidc::start::<S>))
    .route(
        "/signin/oidc/{provider}/callback",
        web::get().to(oidc::callback::<S>),
    )
    .route(
        "/signin/oidc/{provider}/callback",
        web::post().to(oidc::form_post_callback),
    );
}

/// The address a request comes from: the peer, or, when the peer is a trusted TLS proxy,
/// the address it appended last to `X-Forwarded-For`.
fn client_address(req: &HttpRequest) -> String {
    let peer = req.peer_addr().map(|a| a.ip());
    let trusted = match (peer, req.app_data::<web::Data<TransportPolicy>>()) {
        (Some(ip), Some(policy)) => policy.trusted_proxies.iter().any(|n| n.contains(&ip)),
        _ => false,
    };
    let forwarded = req
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|v| v.trim().parse::<std::net::IpAddr>().ok());
    match (trusted, forwarded, peer) {
        (true, Some(ip), _) | (_, _, Some(ip)) => ip.to_string(),
        _ => String::new(),
    }
}

/// Takes one request of the client's budget at `endpoint`; `Err` holds the seconds until
/// the next is admitted. A failing shared limiter admits (and is logged by it).
pub(crate) async fn throttle<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    endpoint: &str,
) -> Result<(), u64> {
    let Some(limits) = &state.limits else {
        return Ok(());
    };
    match limits
        .admit_anonymous(req, endpoint, &client_address(req))
        .await
    {
        Err(DomainError::RateLimited { retry_after }) => Err(retry_after.max(1)),
        _ => Ok(()),
    }
}

/// 429 for a JSON endpoint, with `Retry-After`.
fn too_many_json(retry_after: u64) -> HttpResponse {
    let mut response = no_store(
        StatusCode::TOO_MANY_REQUESTS,
        &json!({
            "error": "rate_limit_exceeded",
            "error_description": format!("too many requests; retry after {retry_after} seconds"),
        }),
    );
    if let Ok(value) = header::HeaderValue::from_str(&retry_after.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// 429 for a page, with `Retry-After`.
pub(crate) fn too_many_page(retry_after: u64) -> HttpResponse {
    let mut response = html::error_page(
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limit_exceeded",
        &format!("too many attempts; try again in {retry_after} seconds"),
    );
    if let Ok(value) = header::HeaderValue::from_str(&retry_after.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// A JSON answer that is never cached (tokens, registrations, their errors).
fn no_store(status: StatusCode, body: &Value) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"))
        .json(body)
}

/// An RFC 6749 section 5.2 error: 400, or 401 with a `Basic` challenge for
/// `invalid_client` when the client authenticated with the header.
fn oauth_error(error: &OAuthError, basic: bool) -> HttpResponse {
    let status = match error.code {
        OAuthErrorCode::InvalidClient if basic => StatusCode::UNAUTHORIZED,
        OAuthErrorCode::ServerError => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    };
    let mut response = no_store(
        status,
        &json!({ "error": error.code.as_str(), "error_description": error.description }),
    );
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Basic realm=\"ledger\""),
        );
    }
    response
}

fn invalid_request(description: &str) -> OAuthError {
    OAuthError {
        code: OAuthErrorCode::InvalidRequest,
        description: description.to_owned(),
    }
}

/// RFC 8414 authorization server metadata.
async fn metadata<S: Store>(state: web::Data<AppState<S>>) -> HttpResponse {
    let issuer = &state.oauth.issuer;
    let auth_methods = ["none", "client_secret_basic", "client_secret_post"];
    HttpResponse::Ok().json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "revocation_endpoint": format!("{issuer}/revoke"),
        "scopes_supported": ["ledger:read", "ledger:write", "ledger:admin"],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": auth_methods,
        "revocation_endpoint_auth_methods_supported": auth_methods,
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "service_documentation": format!("{}/api/playground", state.oauth.base_url),
    }))
}

/// `POST /register` (RFC 7591): 201 with the registered metadata.
async fn register<S: Store>(
    state: web::Data<AppState<S>>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(retry_after) = throttle(&state, &req, "register").await {
        return too_many_json(retry_after);
    }
    let is_json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
    let parsed: Option<Value> = serde_json::from_slice(&body).ok();
    let (true, Some(request)) = (is_json, parsed) else {
        return oauth_error(
            &OAuthError {
                code: OAuthErrorCode::InvalidClientMetadata,
                description: "send the client metadata as a JSON object \
                              (Content-Type: application/json)"
                    .into(),
            },
            false,
        );
    };
    match state.ledger.register_client(&request).await {
        Ok((client, secret)) => {
            let mut body = client.metadata.clone();
            if let Some(secret) = secret {
                body["client_secret"] = json!(secret);
                body["client_secret_expires_at"] = json!(0);
            }
            no_store(StatusCode::CREATED, &body)
        }
        Err(e) => oauth_error(&e, false),
    }
}

/// The fields of an `application/x-www-form-urlencoded` body; `None` when the body is
/// not one or repeats a parameter (RFC 6749 section 3.2: parameters must not repeat).
fn form_fields(req: &HttpRequest, body: &[u8]) -> Result<Vec<(String, String)>, OAuthError> {
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';').next().is_some_and(|m| {
                m.trim()
                    .eq_ignore_ascii_case("application/x-www-form-urlencoded")
            })
        });
    if !is_form {
        return Err(invalid_request(
            "send the parameters as application/x-www-form-urlencoded",
        ));
    }
    Ok(url::form_urlencoded::parse(body).into_owned().collect())
}

/// The single value of a parameter.
fn field<'a>(fields: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, OAuthError> {
    let mut values = fields.iter().filter(|(k, _)| k == name);
    let first = values.next().map(|(_, v)| v.as_str());
    if values.next().is_some() {
        return Err(invalid_request(&format!("{name} is repeated")));
    }
    Ok(first.filter(|v| !v.is_empty()))
}

/// The client's credentials: `Authorization: Basic` (RFC 6749 2.3.1, form-encoded id and
/// secret) or `client_id` / `client_secret` in the body; not both.
fn client_credentials(
    req: &HttpRequest,
    fields: &[(String, String)],
) -> Result<ClientCredentials, OAuthError> {
    let body_id = field(fields, "client_id")?.map(str::to_owned);
    let body_secret = field(fields, "client_secret")?.map(str::to_owned);
    let basic = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("basic"))
        .map(|(_, value)| value.trim().to_owned());
    let Some(encoded) = basic else {
        return Ok(ClientCredentials {
            client_id: body_id,
            client_secret: body_secret,
            basic: false,
        });
    };
    let malformed = || OAuthError {
        code: OAuthErrorCode::InvalidClient,
        description: "the Basic credentials are malformed".into(),
    };
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(malformed)?;
    let (id, secret) = decoded.split_once(':').ok_or_else(malformed)?;
    let decode = |s: &str| {
        url::form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    let (id, secret) = (decode(id), decode(secret));
    if body_secret.is_some() || body_id.as_deref().is_some_and(|b| b != id) {
        return Err(invalid_request(
            "use one client authentication method, not several",
        ));
    }
    Ok(ClientCredentials {
        client_id: Some(id),
        client_secret: Some(secret),
        basic: true,
    })
}

/// `POST /token`.
async fn token<S: Store>(
    state: web::Data<AppState<S>>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(retry_after) = throttle(&state, &req, "token").await {
        return too_many_json(retry_after);
    }
    let fields = match form_fields(&req, &body) {
        Ok(f) => f,
        Err(e) => return oauth_error(&e, false),
    };
    let credentials = match client_credentials(&req, &fields) {
        Ok(c) => c,
        Err(e) => return oauth_error(&e, false),
    };
    let basic = credentials.basic;
    let result: Result<TokenResponse, OAuthError> = async {
        let grant_type = field(&fields, "grant_type")?;
        let resource = field(&fields, "resource")?;
        match grant_type {
            Some("authorization_code") => {
                let code =
                    field(&fields, "code")?.ok_or_else(|| invalid_request("code is missing"))?;
                state
                    .ledger
                    .exchange_code(
                        &credentials,
                        code,
                        field(&fields, "redirect_uri")?,
                        field(&fields, "code_verifier")?,
                        resource,
                    )
                    .await
            }
            Some("refresh_token") => {
                let token = field(&fields, "refresh_token")?
                    .ok_or_else(|| invalid_request("refresh_token is missing"))?;
                state
                    .ledger
                    .refresh(&credentials, token, field(&fields, "scope")?, resource)
                    .await
            }
            Some(_) => Err(OAuthError {
                code: OAuthErrorCode::UnsupportedGrantType,
                description: "grant_type must be authorization_code or refresh_token".into(),
            }),
            None => Err(invalid_request("grant_type is missing")),
        }
    }
    .await;
    match result {
        Ok(tokens) => no_store(
            StatusCode::OK,
            &json!({
                "access_token": tokens.access_token,
                "token_type": "Bearer",
                "expires_in": tokens.expires_in,
                "refresh_token": tokens.refresh_token,
                "scope": tokens.scope,
            }),
        ),
        Err(e) => oauth_error(&e, basic),
    }
}

/// `POST /revoke` (RFC 7009): 200 whether or not the token was known.
async fn revoke<S: Store>(
    state: web::Data<AppState<S>>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(retry_after) = throttle(&state, &req, "revoke").await {
        return too_many_json(retry_after);
    }
    let result: Result<(), OAuthError> = async {
        let fields = form_fields(&req, &body)?;
        let credentials = client_credentials(&req, &fields)?;
        let token = field(&fields, "token")?.ok_or_else(|| invalid_request("token is missing"))?;
        state.ledger.revoke_token(&credentials, token).await
    }
    .await;
    match result {
        Ok(()) => no_store(StatusCode::OK, &json!({})),
        Err(e) => oauth_error(&e, false),
    }
}
