//! `ledger-mcp`: the MCP interface (spec 4.13) — JSON-RPC 2.0 over Streamable HTTP at
//! `POST /mcp` and `POST /mcp/directory`, inside the actix server.
//!
//! This module is the HTTP edge: method, authentication (401 with the RFC 9728 pointer),
//! `Accept`/`Content-Type`/`Origin`, JSON-RPC framing, the era of the protocol (modern
//! 2026-07-28 or the legacy handshake) and the headers that must agree with the body.
//! Dispatch of the methods is jsonrpsee's ([`rpc`]); every tool call is one in-process
//! REST request (through `ledger_rest::client::RestClient`), so authorization, credits,
//! events and errors are the REST ones.

pub mod content;
pub mod protocol;
pub mod rpc;
pub mod stdio;
pub mod tools;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderMap};
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::ports::Store;
use ledger_http::{AppState, OAuthUrls};
use serde_json::{Value, json};

use crate::protocol::{Era, RpcError};
use crate::rpc::Caller;
use ledger_rest::client::RestClient;

/// Shared state of the MCP endpoints.
pub struct Mcp {
    methods: jsonrpsee::Methods,
    base_url: String,
}

impl Mcp {
    /// Starts the in-process REST dispatcher over `state` and registers the methods.
    /// `base_url` is the public URL (`LEDGER_BASE_URL`, else derived from the listen
    /// address), used in the protected-resource metadata.
    ///
    /// # Errors
    /// When the dispatcher thread cannot be started.
    pub fn start<S: Store>(
        state: web::Data<AppState<S>>,
        base_url: &str,
    ) -> std::io::Result<web::Data<Self>> {
        let rest = RestClient::start(state)?;
        Ok(web::Data::new(Self {
            methods: rpc::methods(rest),
            base_url: base_url.trim_end_matches('/').to_owned(),
        }))
    }

    fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource", self.base_url)
    }
}

/// Largest JSON-RPC message accepted (as for REST bodies).
const MAX_BODY_BYTES: usize = 1 << 20;

/// Registers `/mcp`, `/mcp/directory` and the RFC 9728 documents.
pub fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/mcp")
            .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
            .route(web::post().to(endpoint::<S, false>))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/mcp/directory")
            .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
            .route(web::post().to(endpoint::<S, true>))
            .default_service(web::to(method_not_allowed)),
    )
    .route(
        "/.well-known/oauth-protected-resource",
        web::get().to(resource_metadata::<false>),
    )
    .route(
        "/.well-known/oauth-protected-resource/mcp",
        web::get().to(resource_metadata::<false>),
    )
    .route(
        "/.well-known/oauth-protected-resource/mcp/directory",
        web::get().to(resource_metadata::<true>),
    );
}

async fn method_not_allowed() -> HttpResponse {
    let mut response = refusal(
        ErrorCode::MethodNotAllowed,
        "the MCP endpoint takes POST only; there is no event stream",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, header::HeaderValue::from_static("POST"));
    response
}

/// A refusal of the HTTP layer, in the REST envelope (one renderer for both).
fn refusal(code: ErrorCode, message: impl Into<String>) -> HttpResponse {
    use actix_web::ResponseError;
    ledger_http::error::ApiError(DomainError::request(code, message)).error_response()
}

/// RFC 9728 protected-resource metadata.
async fn resource_metadata<const DIRECTORY: bool>(
    mcp: web::Data<Mcp>,
    urls: Option<web::Data<OAuthUrls>>,
) -> HttpResponse {
    let issuer = urls.map_or_else(|| mcp.base_url.clone(), |u| u.issuer.clone());
    let resource = if DIRECTORY {
        format!("{}/mcp/directory", mcp.base_url)
    } else {
        format!("{}/mcp", mcp.base_url)
    };
    HttpResponse::Ok().json(json!({
        "resource": resource,
        "authorization_servers": [issuer],
        "scopes_supported": ["ledger:read", "ledger:write", "ledger:admin"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Ledger accounting",
        "resource_documentation": format!("{}/api/playground", mcp.base_url),
    }))
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// The 401 answer with the pointer to the protected-resource metadata.
fn unauthorized(mcp: &Mcp, token_given: bool, code: ErrorCode, message: &str) -> HttpResponse {
    use actix_web::ResponseError;
    let mut challenge = format!(
        "Bearer resource_metadata=\"{}\", scope=\"ledger:read\"",
        mcp.metadata_url()
    );
    if token_given {
        challenge.push_str(", error=\"invalid_token\"");
    }
    let mut response =
        ledger_http::error::ApiError(DomainError::authentication(code, message)).error_response();
    if let Ok(value) = header::HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// Whether an `Accept` header admits `application/json` (wildcards count; absent = any).
fn accepts_json(accept: Option<&str>) -> bool {
    let Some(accept) = accept else { return true };
    accept.split(',').any(|range| {
        let media = range.split(';').next().unwrap_or_default().trim();
        ["application/json", "application/*", "*/*"]
            .iter()
            .any(|m| media.eq_ignore_ascii_case(m))
    })
}

/// Whether an `Origin` may call us: loopback origins and our own base URL.
fn origin_allowed(origin: &str, base_url: &str) -> bool {
    let Ok(url) = url::Url::parse(origin) else {
        return false;
    };
    let loopback = matches!(
        url.host_str(),
        Some("localhost" | "127.0.0.1" | "[::1]" | "::1")
    );
    loopback || origin.trim_end_matches('/') == url_origin(base_url).unwrap_or_default()
}

fn url_origin(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .map(|u| u.origin().ascii_serialization())
}

fn json_response(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(body)
}

fn error_response(status: StatusCode, id: &Value, error: &RpcError) -> HttpResponse {
    json_response(
        status,
        json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()}).to_string(),
    )
}

async fn endpoint<S: Store, const DIRECTORY: bool>(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<AppState<S>>,
    mcp: web::Data<Mcp>,
) -> HttpResponse {
    let headers = req.headers();

    // Authentication first, as the HTTP layer of an OAuth resource server does.
    let Some(secret) = ledger_http::auth::bearer(&req) else {
        return unauthorized(
            &mcp,
            false,
            ErrorCode::MissingApiKey,
            "send an API key or access token as 'Authorization: Bearer <token>'",
        );
    };
    let hash = ledger_http::auth::sha256_hex(secret.as_bytes());
    let principal = match state.ledger.authenticate(&secret, &hash).await {
        Ok(p) => p,
        Err(DomainError::Authentication { code, message }) => {
            return unauthorized(&mcp, true, code, &message);
        }
        Err(other) => {
            use actix_web::ResponseError;
            return ledger_http::error::ApiError(other).error_response();
        }
    };

    // An access token must have been issued for this endpoint (RFC 8707 audience) or
    // for the API as a whole.
    if let Some(oauth) = &principal.oauth {
        let endpoint = if DIRECTORY { "/mcp/directory" } else { "/mcp" };
        let accepted = [format!("{}{endpoint}", mcp.base_url), mcp.base_url.clone()];
        if !accepted.contains(&oauth.audience) {
            return unauthorized(
                &mcp,
                true,
                ErrorCode::InvalidToken,
                "the access token was issued for another resource",
            );
        }
    }

    if !accepts_json(header_str(headers, "accept")) {
        return refusal(
            ErrorCode::NotAcceptable,
            "Accept must admit application/json",
        );
    }
    let content_type = header_str(headers, "content-type").unwrap_or_default();
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return refusal(
            ErrorCode::UnsupportedMediaType,
            "send the JSON-RPC message with 'Content-Type: application/json'",
        );
    }
    if let Some(origin) = header_str(headers, "origin")
        && !origin_allowed(origin, &mcp.base_url)
    {
        return refusal(
            ErrorCode::OriginNotAllowed,
            format!("requests from origin {origin} are not accepted"),
        );
    }

    let message: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                &RpcError::new(protocol::PARSE_ERROR, format!("parse error: {e}")),
            );
        }
    };
    let (id, method) = match protocol::frame(&message) {
        Ok(protocol::Frame::Notification) => return HttpResponse::Accepted().finish(),
        Ok(protocol::Frame::Request { id, method }) => (id, method),
        Err((id, error)) => return error_response(StatusCode::BAD_REQUEST, &id, &error),
    };

    let era = match protocol::check(&message, &method, headers) {
        Ok(era) => era,
        Err(error) => return error_response(StatusCode::BAD_REQUEST, &id, &error),
    };

    let caller = Caller {
        authorization: format!("Bearer {secret}"),
        organization_id: principal.organization.id.clone(),
        modern: matches!(era, Era::Modern(_)),
        directory: DIRECTORY,
        request_id: ledger_http::error::current_request_id(),
        scope_refusal: principal
            .oauth
            .as_ref()
            .map(|_| std::sync::Arc::new(std::sync::Mutex::new(None))),
    };
    let scope_refusal = caller.scope_refusal.clone();
    let mut methods = mcp.methods.clone();
    methods.extensions_mut().insert(caller);
    let raw = match methods.raw_json_request(&message.to_string(), 1).await {
        Ok((raw, _)) => raw,
        Err(e) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                &id,
                &RpcError::new(protocol::INVALID_REQUEST, format!("invalid request: {e}")),
            );
        }
    };
    let text = raw.get().to_owned();
    let code = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v["error"]["code"].as_i64());
    // Legacy clients (TypeScript SDK 1.x) lose the error on any non-2xx, so the legacy
    // era answers JSON-RPC errors with 200; the modern era uses the HTTP status too.
    let status = match (era, code) {
        (Era::Modern(_), Some(protocol::METHOD_NOT_FOUND)) => StatusCode::NOT_FOUND,
        (Era::Modern(_), Some(_)) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    };
    // A tool refused for a scope the access token lacks: 403 with the step-up challenge
    // (the JSON-RPC answer, a tool error, stays the body).
    let missing = scope_refusal.and_then(|slot| slot.lock().ok().and_then(|mut s| s.take()));
    if let (Some(missing), Some(oauth)) = (missing, &principal.oauth) {
        let urls = OAuthUrls {
            base_url: mcp.base_url.clone(),
            issuer: mcp.base_url.clone(),
            secure_cookies: false,
        };
        let mut response = json_response(StatusCode::FORBIDDEN, text);
        if let Some(value) =
            ledger_http::auth::insufficient_scope_challenge(&urls, &oauth.scopes, &missing)
                .and_then(|c| header::HeaderValue::from_str(&c).ok())
        {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        return response;
    }
    let mut response = json_response(status, text);
    if method == "initialize" && code.is_none() {
        // Issued for clients that expect one; no later request needs it.
        let session = ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Request)
            .replacen("req_", "mcps_", 1);
        if let Ok(value) = header::HeaderValue::from_str(&session) {
            response
                .headers_mut()
                .insert(header::HeaderName::from_static("mcp-session-id"), value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_admits_json_and_wildcards_only() {
        assert!(accepts_json(None));
        assert!(accepts_json(Some("application/json, text/event-stream")));
        assert!(accepts_json(Some("text/event-stream, */*;q=0.1")));
        assert!(accepts_json(Some("application/*")));
        assert!(!accepts_json(Some("text/event-stream")));
        assert!(!accepts_json(Some("text/html")));
    }

    #[test]
    fn origins_are_loopback_or_our_own() {
        let base = "https://ledger.example.com";
        assert!(origin_allowed("http://localhost:3000", base));
        assert!(origin_allowed("http://127.0.0.1:8080", base));
        assert!(origin_allowed("https://ledger.example.com", base));
        assert!(!origin_allowed("https://evil.example", base));
        assert!(!origin_allowed(
            "https://ledger.example.com.evil.example",
            base
        ));
        assert!(!origin_allowed("null", base));
    }
}
