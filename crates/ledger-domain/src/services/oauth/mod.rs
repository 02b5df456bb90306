//! The OAuth 2.1 authorization server's use cases (spec 5): client registration
//! (RFC 7591), the authorization request and the user's approval, the token endpoint
//! (authorization code with PKCE, refresh with rotation and reuse detection), revocation
//! (RFC 7009), e-mailed sign-in links and console sessions, and the authentication of
//! access tokens at the resource servers.
//!
//! Refusals of the protocol endpoints are [`OAuthError`]s (the RFC 6749 vocabulary);
//! storage failures become `server_error`. Every secret is made by the injected
//! [`crate::ports::TokenSource`] and only its hash reaches the store.
//!
//! Client registration is in [`registration`], the authorization request and the
//! user's approval in [`authorization`], sign-in links and console sessions in
//! [`sessions`], and the token endpoint, revocation and access-token authentication in
//! [`tokens`].

mod authorization;
mod registration;
mod sessions;
mod tokens;

use crate::error::{DomainError, DomainResult};
use crate::oauth::{OAuthClient, OAuthLifetimes, OAuthScope};
use crate::ports::Store;

use super::Ledger;

/// The error codes of RFC 6749 sections 4.1.2.1 and 5.2, RFC 7591 and RFC 8707.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthErrorCode {
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnauthorizedClient,
    UnsupportedGrantType,
    UnsupportedResponseType,
    InvalidScope,
    InvalidTarget,
    AccessDenied,
    InvalidRedirectUri,
    InvalidClientMetadata,
    ServerError,
}

impl OAuthErrorCode {
    /// The registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::InvalidClient => "invalid_client",
            Self::InvalidGrant => "invalid_grant",
            Self::UnauthorizedClient => "unauthorized_client",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::UnsupportedResponseType => "unsupported_response_type",
            Self::InvalidScope => "invalid_scope",
            Self::InvalidTarget => "invalid_target",
            Self::AccessDenied => "access_denied",
            Self::InvalidRedirectUri => "invalid_redirect_uri",
            Self::InvalidClientMetadata => "invalid_client_metadata",
            Self::ServerError => "server_error",
        }
    }
}

/// A refusal of a protocol endpoint.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {description}", code.as_str())]
pub struct OAuthError {
    pub code: OAuthErrorCode,
    pub description: String,
}

impl OAuthError {
    fn new(code: OAuthErrorCode, description: impl Into<String>) -> Self {
        Self {
            code,
            description: description.into(),
        }
    }
}

impl From<crate::ports::StoreError> for OAuthError {
    fn from(e: crate::ports::StoreError) -> Self {
        DomainError::from(e).into()
    }
}

impl From<DomainError> for OAuthError {
    fn from(e: DomainError) -> Self {
        tracing::error!(error = ?e, "authorization server storage failure");
        Self::new(
            OAuthErrorCode::ServerError,
            "the server could not complete the request",
        )
    }
}

fn invalid_grant(description: impl Into<String>) -> OAuthError {
    OAuthError::new(OAuthErrorCode::InvalidGrant, description)
}

fn metadata_error(description: impl Into<String>) -> OAuthError {
    OAuthError::new(OAuthErrorCode::InvalidClientMetadata, description)
}

/// The query of `GET /authorize`, as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorizationRequest {
    pub response_type: Option<String>,
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub scope: Option<String>,
    pub state: Option<String>,
    pub resource: Option<String>,
}

/// An authorization request that passed every check.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidatedRequest {
    pub client: OAuthClient,
    pub redirect_uri: String,
    pub scopes: Vec<OAuthScope>,
    pub code_challenge: String,
    pub state: Option<String>,
    pub resource: String,
}

/// Why an authorization request is refused, and how the refusal is delivered.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthorizeRefusal {
    /// The client or its redirect URI cannot be trusted: shown to the user as a page,
    /// never redirected (no open redirect).
    Page(OAuthError),
    /// Sent back to the (registered) redirect URI with `state` and `iss`.
    Redirect {
        redirect_uri: String,
        state: Option<String>,
        error: OAuthError,
    },
}

/// How a client authenticated at the token or revocation endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientCredentials {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// Whether they came in an `Authorization: Basic` header (an `invalid_client` is then 401).
    pub basic: bool,
}

/// A successful token response (RFC 6749 section 5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenResponse {
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
    pub scope: String,
}

impl<S: Store> Ledger<S> {
    /// Deletes the authorization server's secrets that can no longer work (expired or
    /// revoked codes, tokens, sessions and sign-in links; see
    /// [`crate::ports::OAuthStore::purge_oauth_secrets`]); returns how many went.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn purge_oauth_secrets(&self) -> DomainResult<u64> {
        let purged = self.store.purge_oauth_secrets(self.now()).await?;
        if purged > 0 {
            tracing::info!(secrets = purged, "purged expired and revoked OAuth secrets");
        }
        Ok(purged)
    }

    /// The lifetimes of codes, tokens, sign-in links and sessions (the session cookie's
    /// `Max-Age`, the pages' wording).
    pub fn oauth_lifetimes(&self) -> OAuthLifetimes {
        self.config.oauth_lifetimes
    }
}
