//! Bearer keys: hashing, generation and the per-request authentication step.

use actix_web::HttpRequest;
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::key_prefix;
use ledger_domain::ports::Store;
use ledger_domain::services::{IssuedKey, Principal};
use ring::digest::{SHA256, digest};
use ring::rand::{SecureRandom, SystemRandom};

use crate::AppState;
use crate::error::ApiError;

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
    let rng = SystemRandom::new();
    let mut out = String::from(key_prefix(livemode));
    while out.len() < key_prefix(livemode).len() + 43 {
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
    out.truncate(key_prefix(livemode).len() + 43);
    let hash = sha256_hex(out.as_bytes());
    Ok(IssuedKey { secret: out, hash })
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
    if let Some(limits) = &state.limits {
        limits
            .admit(req, &principal, req.path() == "/system")
            .await?;
    }
    Ok(principal)
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
