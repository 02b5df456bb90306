//! `ledger-http`: the HTTP edge every interface shares (REST, GraphQL, MCP): the
//! application state, bearer authentication with rate limits, the error envelope and the
//! request id that ties a response to logs, the transport policy (HTTPS in production),
//! request parsing helpers and the escaping of HTML pages. It holds no business rule and
//! no route: the interface crates depend on it instead of on each other.

pub mod auth;
pub mod error;
pub mod html;
pub mod input;
pub mod limits;
pub mod limits_redis;
pub mod metrics;
pub mod security;
pub mod transport;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{HttpMessage, HttpResponse};
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::services::Ledger;

/// Shared state of the HTTP interfaces.
pub struct AppState<S> {
    pub ledger: Ledger<S>,
    /// Whether open sign-up (`POST /accounts/master` without the admin token) is allowed.
    pub open_signup: bool,
    /// The admin token that allows sign-up when it is not open.
    pub admin_token: Option<String>,
    /// Rate limiters; `None` when limits are off (benchmarks).
    pub limits: Option<limits::RateLimits>,
    /// Where the authorization server and the protected resources are.
    pub oauth: OAuthUrls,
}

/// The public addresses of the OAuth authorization server and of the protected
/// resources (spec 5: `{auth_url}` and `{base_url}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthUrls {
    /// The public base URL of this service, without a trailing slash.
    pub base_url: String,
    /// The authorization server's issuer (`LEDGER_AUTH_URL`, default `base_url`).
    pub issuer: String,
    /// Whether cookies are marked `Secure` (production).
    pub secure_cookies: bool,
}

impl OAuthUrls {
    /// The resources (token audiences) of this service: the MCP endpoint first (the
    /// default of an authorization request without `resource`), its directory variant,
    /// and the API as a whole.
    pub fn resources(&self) -> Vec<String> {
        vec![
            format!("{}/mcp", self.base_url),
            format!("{}/mcp/directory", self.base_url),
            self.base_url.clone(),
        ]
    }

    /// The RFC 9728 metadata document of the resources.
    pub fn resource_metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource", self.base_url)
    }
}

/// The answer for paths that match no route.
pub async fn not_found() -> HttpResponse {
    use actix_web::ResponseError;
    error::ApiError(DomainError::Validation {
        code: ErrorCode::RouteNotFound,
        field: None,
        message: "no such endpoint".into(),
    })
    .error_response()
}

/// Middleware body: routes a `HEAD` request as the `GET` of the same path, so every
/// readable resource (`/health`, the playgrounds) answers `HEAD` like `GET`. The HTTP
/// codec noted the method when it read the request and sends the headers without the
/// body.
pub async fn head_as_get<B: MessageBody>(
    mut req: ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    if req.method() == actix_web::http::Method::HEAD {
        req.head_mut().method = actix_web::http::Method::GET;
    }
    next.call(req).await
}

/// Middleware body: gives each request an id (the client's `X-Request-Id` when it is
/// sensible, else a new one), exposes it to handlers and sets it on the response.
pub async fn with_request_id<B: MessageBody>(
    req: ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let given = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let id = given
        .filter(|v| {
            !v.is_empty()
                && v.len() <= 128
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .unwrap_or_else(|| {
            ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Request)
                .replacen("req_", "rqid_", 1)
        });
    let span = tracing::info_span!("request", request_id = %id, method = %req.method(), path = %req.path());
    let mut res = error::REQUEST_ID
        .scope(
            id.clone(),
            tracing::Instrument::instrument(next.call(req), span),
        )
        .await?;
    if let Ok(value) = HeaderValue::from_str(&id) {
        res.headers_mut()
            .insert(HeaderName::from_static("x-request-id"), value);
    }
    let rate = res
        .request()
        .extensions()
        .get::<limits::RateInfo>()
        .copied();
    if let Some(rate) = rate {
        let headers = res.headers_mut();
        for (name, value) in [
            ("x-ratelimit-limit", rate.limit.to_string()),
            ("x-ratelimit-remaining", rate.remaining.to_string()),
            ("x-ratelimit-reset", rate.reset.to_string()),
        ] {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(HeaderName::from_static(name), value);
            }
        }
    }
    Ok(res)
}

/// JSON error handler for actix's own extractors (path and query), so even they answer
/// in the envelope.
pub fn query_error_handler(
    err: actix_web::error::QueryPayloadError,
    _req: &actix_web::HttpRequest,
) -> actix_web::Error {
    error::validation(ErrorCode::InvalidField, None, err.to_string()).into()
}
