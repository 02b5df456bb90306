//! Console sign-in at an external OpenID Connect provider (spec 5): the values a sign-in
//! sends (`state`, `nonce`, the PKCE verifier) and the browser binding, kept by hash
//! while the browser is at the provider, and the user the verified identity signs in.
//!
//! The protocol with the provider (discovery, the code exchange, the ID token's
//! signature, issuer, audience, expiry and nonce) is the adapter's (`ledger-auth`, with
//! the `openidconnect` crate); this module decides who the identity is. Invariants: a
//! `state` is spent by its first return, works only for the provider it was made for and
//! only in the browser that started it (the binding cookie), and an external user is
//! keyed by provider and subject, never by e-mail address.

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ids::{IdKind, new_id};
use crate::oauth::{self, EXTERNAL_SIGN_IN_LIFETIME, ExternalSignInData, SecretKind, StoredSecret};
use crate::organizations::User;
use crate::ports::Store;

use super::Ledger;

/// What the adapter sends to the provider and sets in the browser to start a sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalSignInStart {
    /// The OAuth `state` (also the key of the stored sign-in).
    pub state: String,
    /// The OpenID Connect `nonce` the ID token must carry.
    pub nonce: String,
    /// The PKCE verifier (its S256 challenge goes to the provider).
    pub pkce_verifier: String,
    /// The browser-binding cookie's value.
    pub browser: String,
}

/// A sign-in the provider sent the browser back from, spent and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingExternalSignIn {
    pub nonce: String,
    pub pkce_verifier: String,
    pub return_to: String,
}

/// An identity the adapter verified (a valid ID token of the provider).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalIdentity {
    /// The ID token's `sub`.
    pub subject: String,
    /// The ID token's `email`, if any.
    pub email: Option<String>,
}

fn refused(message: &str) -> DomainError {
    DomainError::authentication(ErrorCode::InvalidToken, message)
}

impl<S: Store> Ledger<S> {
    /// Starts a sign-in at the external provider `provider` that returns to `return_to`
    /// (an authorization request of this server): makes the `state`, `nonce`, PKCE
    /// verifier and browser binding, and stores them (by the state's hash) for
    /// [`Ledger::take_external_sign_in`].
    ///
    /// # Errors
    /// `invalid_field` on `provider` or `return_to`; storage failures.
    pub async fn start_external_sign_in(
        &self,
        provider: &str,
        return_to: &str,
    ) -> DomainResult<ExternalSignInStart> {
        if !oauth::provider_id_is_valid(provider) {
            return Err(DomainError::invalid_field(
                "provider",
                "is not an identity provider of this server",
            ));
        }
        if !oauth::return_to_is_safe(return_to) {
            return Err(DomainError::invalid_field(
                "return_to",
                "must be an authorization request of this server",
            ));
        }
        let state = self.tokens.issue(oauth::EXTERNAL_STATE_PREFIX)?;
        let nonce = self.tokens.issue(oauth::EXTERNAL_NONCE_PREFIX)?;
        let verifier = self.tokens.issue(oauth::EXTERNAL_VERIFIER_PREFIX)?;
        let browser = self.tokens.issue(oauth::EXTERNAL_BROWSER_PREFIX)?;
        let now = self.now();
        let data = serde_json::to_value(ExternalSignInData {
            provider: provider.to_owned(),
            nonce: nonce.secret.clone(),
            pkce_verifier: verifier.secret.clone(),
            browser_hash: browser.hash,
            return_to: return_to.to_owned(),
        })
        .map_err(|e| DomainError::Internal(e.to_string()))?;
        self.store
            .insert_secret(StoredSecret {
                hash: state.hash,
                kind: SecretKind::ExternalSignIn,
                grant_id: None,
                client_id: None,
                user_id: None,
                data,
                expires_at: now + EXTERNAL_SIGN_IN_LIFETIME,
                used_at: None,
                revoked_at: None,
                created_at: now,
            })
            .await?;
        Ok(ExternalSignInStart {
            state: state.secret,
            nonce: nonce.secret,
            pkce_verifier: verifier.secret,
            browser: browser.secret,
        })
    }

    /// Spends the sign-in whose `state` the provider sent back to `provider`'s callback,
    /// in the browser whose binding cookie is `browser`.
    ///
    /// # Errors
    /// `invalid_token` when the state is unknown, spent, expired or made for another
    /// provider, or the browser is not the one that started the sign-in; storage failures.
    pub async fn take_external_sign_in(
        &self,
        provider: &str,
        state: &str,
        browser: Option<&str>,
    ) -> DomainResult<PendingExternalSignIn> {
        let unknown = "this sign-in is not valid, was finished already or has expired; \
                       start again";
        if !state.starts_with(oauth::EXTERNAL_STATE_PREFIX) || state.len() > 200 {
            return Err(refused(unknown));
        }
        let hash = self.tokens.hash(state);
        let now = self.now();
        let secret = self
            .store
            .find_secret(&hash)
            .await?
            .filter(|s| {
                s.kind == SecretKind::ExternalSignIn && s.is_current(now) && s.used_at.is_none()
            })
            .ok_or_else(|| refused(unknown))?;
        let data: ExternalSignInData =
            serde_json::from_value(secret.data).map_err(|_| refused(unknown))?;
        if data.provider != provider {
            return Err(refused(unknown));
        }
        if browser.is_none_or(|b| self.tokens.hash(b) != data.browser_hash) {
            return Err(refused(
                "this sign-in was started in another browser (or its cookie is gone); start \
                 again",
            ));
        }
        if !self.store.use_secret(&hash, now).await? {
            return Err(refused(unknown));
        }
        Ok(PendingExternalSignIn {
            nonce: data.nonce,
            pkce_verifier: data.pkce_verifier,
            return_to: data.return_to,
        })
    }

    /// Signs in the user of a verified external identity: the user whose provider id is
    /// `oidc:<provider>:<subject>`, made on a first sign-in. Returns the session token
    /// (the cookie's value).
    ///
    /// # Errors
    /// `invalid_token` for an empty or overlong subject; storage failures.
    pub async fn finish_external_sign_in(
        &self,
        provider: &str,
        identity: &ExternalIdentity,
    ) -> DomainResult<String> {
        if identity.subject.is_empty() || identity.subject.len() > 255 {
            return Err(refused("the identity provider sent no usable subject"));
        }
        let provider_id = oauth::external_provider_id(provider, &identity.subject);
        let user = match self.store.find_user(&provider_id).await? {
            Some(user) => user,
            None => {
                let email = identity
                    .email
                    .as_deref()
                    .map(|e| e.trim().to_ascii_lowercase())
                    .filter(|e| e.len() <= 254)
                    .unwrap_or_default();
                let user = User {
                    id: new_id(IdKind::User),
                    provider_id,
                    email,
                    provider_username: None,
                    created_at: self.now(),
                };
                self.store.insert_user(user.clone()).await?;
                user
            }
        };
        self.open_session(&user.id).await
    }
}
