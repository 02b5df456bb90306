//! The authorization server's storage, the secrets it makes and the mail it sends.

use std::future::Future;

use time::OffsetDateTime;

use crate::error::DomainError;
use crate::oauth::{Grant, OAuthClient, StoredSecret};
use crate::organizations::{Organization, User};

use super::{BoxFuture, StoreResult};

/// What a refresh-token rotation found.
#[derive(Debug, Clone, PartialEq)]
pub enum Rotation {
    /// The old token was marked used and its successors stored.
    Rotated,
    /// The old token had been used (or revoked) already: its grant is now revoked.
    Reused,
}

/// Clients, grants and hashed secrets of the authorization server, and the users who
/// approve (cross-tenant, like users and keys: looked up by hash or id).
pub trait OAuthStore: Send + Sync + 'static {
    /// Inserts a registered client.
    ///
    /// # Errors
    /// `Internal` on storage failure.
    fn insert_client(&self, client: OAuthClient) -> impl Future<Output = StoreResult<()>> + Send;

    /// A client by `client_id`.
    fn get_client(&self, id: &str)
    -> impl Future<Output = StoreResult<Option<OAuthClient>>> + Send;

    /// Inserts a secret (a code, session or sign-in link).
    ///
    /// # Errors
    /// `Internal` on storage failure (a hash collision included).
    fn insert_secret(&self, secret: StoredSecret) -> impl Future<Output = StoreResult<()>> + Send;

    /// A secret by hash, whatever its state.
    fn find_secret(
        &self,
        hash: &str,
    ) -> impl Future<Output = StoreResult<Option<StoredSecret>>> + Send;

    /// Marks a one-time secret used at `at` if it was not yet: `true` when this call did
    /// (of two concurrent uses exactly one gets `true`).
    fn use_secret(
        &self,
        hash: &str,
        at: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<bool>> + Send;

    /// Marks the code `code_hash` used (if it is not yet) and stores its grant and
    /// first tokens, in one transaction. `false` (nothing written) when the code was
    /// used already.
    fn redeem_code(
        &self,
        code_hash: &str,
        at: OffsetDateTime,
        grant: Grant,
        tokens: Vec<StoredSecret>,
    ) -> impl Future<Output = StoreResult<bool>> + Send;

    /// Marks the refresh token `old_hash` used and stores `tokens`, in one transaction;
    /// if it was used or revoked already, revokes its whole grant instead (reuse
    /// detection) and stores nothing.
    fn rotate_refresh(
        &self,
        old_hash: &str,
        grant_id: &str,
        at: OffsetDateTime,
        tokens: Vec<StoredSecret>,
    ) -> impl Future<Output = StoreResult<Rotation>> + Send;

    /// A grant by id.
    fn get_grant(&self, id: &str) -> impl Future<Output = StoreResult<Option<Grant>>> + Send;

    /// Revokes a grant (every token of it stops working); no-op when there is none.
    fn revoke_grant(
        &self,
        id: &str,
        at: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;

    /// Revokes one secret (an access token, a session); no-op when there is none.
    fn revoke_secret(
        &self,
        hash: &str,
        at: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;

    /// The access token `hash` with its grant and the grant's organization, in one read
    /// (the per-request authentication of a bearer token).
    fn find_access_token(
        &self,
        hash: &str,
    ) -> impl Future<Output = StoreResult<Option<(StoredSecret, Grant, Organization)>>> + Send;

    /// Deletes the secrets that can no longer work at `now`: every kind past its
    /// `expires_at` (codes, access and refresh tokens, sessions, sign-in links, sign-ins
    /// at providers), revoked ones, and the codes and tokens of revoked grants. Returns
    /// how many rows went. A used refresh token that has not expired stays (reuse
    /// detection needs it). Clients, grants and users are kept.
    ///
    /// # Errors
    /// `Internal` on storage failure.
    fn purge_oauth_secrets(
        &self,
        now: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<u64>> + Send;

    /// Inserts a user (a first e-mail sign-in).
    ///
    /// # Errors
    /// `Internal` on storage failure (a taken provider id included).
    fn insert_user(&self, user: User) -> impl Future<Output = StoreResult<()>> + Send;

    /// The organizations the user owns, in path order (a parent before its children).
    fn organizations_of_user(
        &self,
        user_id: &str,
    ) -> impl Future<Output = StoreResult<Vec<Organization>>> + Send;
}

/// Fresh secrets and their hashes (random source and SHA-256 of the adapter).
pub trait TokenSource: Send + Sync + 'static {
    /// A new secret: `prefix` and at least 256 random bits, with its SHA-256 hex hash.
    ///
    /// # Errors
    /// `Internal` when the random source fails.
    fn issue(&self, prefix: &str) -> Result<IssuedKey, DomainError>;

    /// The SHA-256 hex hash of a secret.
    fn hash(&self, secret: &str) -> String;
}

/// A token source that refuses (until the composition root provides one).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTokens;

impl TokenSource for NoTokens {
    fn issue(&self, _prefix: &str) -> Result<IssuedKey, DomainError> {
        Err(DomainError::Internal("no token source configured".into()))
    }

    fn hash(&self, secret: &str) -> String {
        crate::attachments::sha256_hex(secret.as_bytes())
    }
}

/// A freshly generated secret and its SHA-256 hex hash (made by the adapter).
#[derive(Debug, Clone)]
pub struct IssuedKey {
    pub secret: String,
    pub hash: String,
}

/// A plain-text e-mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub body: String,
}

/// Where mail goes (an outbox directory in development, SMTP in production). A mailer
/// is no store: it may refuse a recipient the way the domain does (`invalid_field`).
pub trait Mailer: Send + Sync + 'static {
    /// Sends one message.
    ///
    /// # Errors
    /// `invalid_field` on `email` when the recipient cannot be mailed to; `Internal` when
    /// the message cannot be handed over.
    fn send(&self, mail: Mail) -> BoxFuture<'_, Result<(), DomainError>>;
}

/// A mailer that refuses (until the composition root provides one).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoMailer;

impl Mailer for NoMailer {
    fn send(&self, _mail: Mail) -> BoxFuture<'_, Result<(), DomainError>> {
        Box::pin(async { Err(DomainError::Internal("no mailer configured".into())) })
    }
}
