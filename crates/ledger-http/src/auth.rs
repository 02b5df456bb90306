//! Bearer keys and tokens: hashing, generation, the per-request authentication step and
//! the `WWW-Authenticate` challenges of the protected resources (RFC 6750, RFC 9728).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpMessage, HttpRequest, web};
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::oauth::OAuthScope;
use ledger_domain::organizations::key_prefix;
use ledger_domain::ports::{Store, TokenSource};
use ledger_domain::services::{IssuedKey, Principal};
use ring::digest::{SHA256, digest};
use ring::rand::{SecureRandom, SystemRandom};

use crate::error::ApiError;
use crate::{AppState, OAuthUrls};

/// Lowercase hex SHA-256 of `input`.
pub fn sha256_hex(input: &[u8]) -> String {
    digest(&SHA256, input)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A new secret of the mode: the prefix and 43 base62 characters (over 256 bits).
///
/// # Errors
/// `Internal` when the system random source fails.
pub fn generate_key(livemode: bool) -> Result<IssuedKey, DomainError> {
    generate_secret(key_prefix(livemode))
}

/// The secrets of the authorization server (codes, tokens, sessions, sign-in links):
/// `ring`'s system random source and SHA-256, as for keys.
#[derive(Debug, Clone, Copy, Default)]
pub struct RingTokens;

impl TokenSource for RingTokens {
    fn issue(&self, prefix: &str) -> Result<IssuedKey, DomainError> {
        generate_secret(prefix)
    }

    fn hash(&self, secret: &str) -> String {
        sha256_hex(secret.as_bytes())
    }
}

/// `prefix` and 43 random base62 characters (over 256 bits), with the SHA-256 hex hash.
fn generate_secret(prefix: &str) -> Result<IssuedKey, DomainError> {
    let rng = SystemRandom::new();
    let mut out = String::from(prefix);
    while out.len() < prefix.len() + 43 {
        let mut buf = [0u8; 64];
        rng.fill(&mut buf)
            .map_err(|_| DomainError::Internal("system random source failed".into()))?;
        // Rejection sampling keeps every character equally likely.
        out.extend(
            buf.iter()
                .filter(|b| **b < 248)
                .map(|b| BASE62[usize::from(*b % 62)] as char),
        );
    }
    out.truncate(prefix.len() + 43);
    let hash = sha256_hex(out.as_bytes());
    Ok(IssuedKey { secret: out, hash })
}

/// Whether the request's bearer token is the operator's admin token (`LEDGER_ADMIN_TOKEN`;
/// never, when none is configured). Digests are compared, so the comparison's timing does
/// not depend on how much of the token a guess got right.
pub fn is_operator(admin_token: Option<&str>, req: &HttpRequest) -> bool {
    matches!((admin_token, bearer(req)), (Some(token), Some(given))
        if sha256_hex(token.as_bytes()) == sha256_hex(given.as_bytes()))
}

/// The bearer token of a request, if any.
pub fn bearer(req: &HttpRequest) -> Option<String> {
    let value = req.headers().get("authorization")?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_owned())
        .filter(|t| !t.is_empty())
}

/// Authenticates the request's bearer key.
///
/// # Errors
/// `missing_api_key` without a bearer token; the errors of [`Ledger::authenticate`](ledger_domain::services::Ledger::authenticate).
/// Every authenticated request also passes the rate limiter here, so no route can skip it.
pub async fn authenticate<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
) -> Result<Principal, ApiError> {
    let ledger = &state.ledger;
    let secret = bearer(req).ok_or_else(|| {
        ApiError(DomainError::Authentication {
            code: ErrorCode::MissingApiKey,
            message: "send an API key as 'Authorization: Bearer <key>'".into(),
        })
    })?;
    if secret.len() > 200 {
        return Err(ApiError(DomainError::Authentication {
            code: ErrorCode::InvalidApiKey,
            message: "the API key is not valid".into(),
        }));
    }
    let hash = sha256_hex(secret.as_bytes());
    let principal = ledger.authenticate(&secret, &hash).await?;
    if let Some(oauth) = &principal.oauth {
        // The REST API and GraphQL serve every resource of this service (MCP tool calls
        // reach REST in-process with the MCP token); another audience is refused.
        if !state.oauth.resources().contains(&oauth.audience) {
            return Err(ApiError(DomainError::Authentication {
                code: ErrorCode::InvalidToken,
                message: "the access token was issued for another resource".into(),
            }));
        }
        req.extensions_mut().insert(OAuthRequest {
            scopes: oauth.scopes.clone(),
        });
    }
    if let Some(limits) = &state.limits {
        limits
            .admit(req, &principal, req.path() == "/system")
            .await?;
    }
    Ok(principal)
}

/// Marks a request authenticated by an OAuth access token, with the token's scopes.
#[derive(Debug, Clone)]
pub struct OAuthRequest {
    pub scopes: Vec<OAuthScope>,
}

/// The permission a refused request lacked (set on 403 responses by the error renderer).
#[derive(Debug, Clone)]
pub struct MissingPermission(pub String);

/// The `WWW-Authenticate` challenge of a 401: where the resource metadata is, and
/// `invalid_token` when a token was given.
pub fn unauthorized_challenge(urls: &OAuthUrls, token_given: bool) -> String {
    let mut challenge = format!(
        "Bearer resource_metadata=\"{}\", scope=\"ledger:read\"",
        urls.resource_metadata_url()
    );
    if token_given {
        challenge.push_str(", error=\"invalid_token\"");
    }
    challenge
}

/// The `WWW-Authenticate` challenge of a 403 for a token lacking `missing` (a key
/// permission name): `insufficient_scope` with every scope the request needs (those the
/// token has and the missing one), so the client can ask for them at once.
pub fn insufficient_scope_challenge(
    urls: &OAuthUrls,
    held: &[OAuthScope],
    missing: &str,
) -> Option<String> {
    let needed = match missing.rsplit(':').next() {
        Some("read") => OAuthScope::Read,
        Some("write") => OAuthScope::Write,
        Some("admin") => OAuthScope::Admin,
        _ => return None,
    };
    let mut scopes = held.to_vec();
    if !scopes.contains(&needed) {
        scopes.push(needed);
    }
    scopes.sort();
    Some(format!(
        "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\", \
         error_description=\"the access token lacks the {} scope\"",
        ledger_domain::oauth::scope_string(&scopes),
        urls.resource_metadata_url(),
        needed.as_str()
    ))
}

/// Middleware body: adds the RFC 6750 / RFC 9728 challenge to refusals that lack one —
/// every 401, and a 403 of a request authenticated by an access token lacking a scope.
pub async fn bearer_challenge<B: MessageBody>(
    req: ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let urls = req.app_data::<web::Data<OAuthUrls>>().cloned();
    let token_given = req.headers().contains_key(header::AUTHORIZATION);
    let mut res = next.call(req).await?;
    let Some(urls) = urls else { return Ok(res) };
    if res.headers().contains_key(header::WWW_AUTHENTICATE) {
        return Ok(res);
    }
    let challenge = match res.status().as_u16() {
        401 => Some(unauthorized_challenge(&urls, token_given)),
        403 => {
            let held = res
                .request()
                .extensions()
                .get::<OAuthRequest>()
                .map(|o| o.scopes.clone());
            let missing = res
                .response()
                .extensions()
                .get::<MissingPermission>()
                .map(|m| m.0.clone());
            match (held, missing) {
                (Some(held), Some(missing)) => insufficient_scope_challenge(&urls, &held, &missing),
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(value) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        res.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_prefix_length_and_distinct_hashes() {
        let a = generate_key(true).expect("key");
        let b = generate_key(false).expect("key");
        assert!(a.secret.starts_with("ha_live_") && a.secret.len() == 51);
        assert!(b.secret.starts_with("ha_test_"));
        assert_ne!(a.hash, b.hash);
        assert_eq!(a.hash, sha256_hex(a.secret.as_bytes()));
        assert!(a.secret[8..].bytes().all(|c| c.is_ascii_alphanumeric()));
    }
}
