//! E-mailed sign-in links and the console sessions they open: mailing a link, redeeming
//! it (the first sign-in makes the user), reading and ending a session.

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ids::{IdKind, new_id};
use crate::oauth::{self, SecretKind, SessionData, SignInData, StoredSecret};
use crate::organizations::User;
use crate::ports::{Mail, Store};

use crate::services::Ledger;

impl<S: Store> Ledger<S> {
    /// The signed-in user and session data of a session cookie's value, if it is current.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn session(&self, token: &str) -> DomainResult<Option<(User, SessionData)>> {
        if !token.starts_with(oauth::SESSION_PREFIX) || token.len() > 200 {
            return Ok(None);
        }
        let hash = self.tokens.hash(token);
        let Some(secret) = self.store.find_secret(&hash).await? else {
            return Ok(None);
        };
        if secret.kind != SecretKind::Session || !secret.is_current(self.now()) {
            return Ok(None);
        }
        let Some(user_id) = secret.user_id else {
            return Ok(None);
        };
        let Ok(data) = serde_json::from_value::<SessionData>(secret.data) else {
            return Ok(None);
        };
        Ok(self.store.get_user(&user_id).await?.map(|u| (u, data)))
    }

    /// Ends a session (sign-out).
    ///
    /// # Errors
    /// Storage failures.
    pub async fn end_session(&self, token: &str) -> DomainResult<()> {
        let hash = self.tokens.hash(token);
        Ok(self.store.revoke_secret(&hash, self.now()).await?)
    }

    /// Mails a one-time sign-in link to `email`. The link is `link_base` followed by the
    /// token; after sign-in the browser goes to `return_to`. Answers the same whether or
    /// not a user has the address (the first sign-in makes the user).
    ///
    /// # Errors
    /// `invalid_field` on `email` or `return_to`; mail or storage failures.
    pub async fn start_sign_in(
        &self,
        email: &str,
        return_to: &str,
        link_base: &str,
    ) -> DomainResult<()> {
        let email = email.trim();
        if email.len() > 254 || !email_address::EmailAddress::is_valid(email) {
            return Err(DomainError::invalid_field(
                "email",
                "must be an e-mail address",
            ));
        }
        if !oauth::return_to_is_safe(return_to) {
            return Err(DomainError::invalid_field(
                "return_to",
                "must be an authorization request of this server",
            ));
        }
        let issued = self.tokens.issue(oauth::SIGN_IN_PREFIX)?;
        let now = self.now();
        let data = serde_json::to_value(SignInData {
            email: email.to_owned(),
            return_to: return_to.to_owned(),
        })
        .map_err(|e| DomainError::Internal(e.to_string()))?;
        self.store
            .insert_secret(StoredSecret {
                hash: issued.hash,
                kind: SecretKind::SignIn,
                grant_id: None,
                client_id: None,
                user_id: None,
                data,
                expires_at: now + self.config.oauth_lifetimes.sign_in_link,
                used_at: None,
                revoked_at: None,
                created_at: now,
            })
            .await?;
        let link = format!("{link_base}{}", issued.secret);
        self.mailer
            .send(Mail {
                to: email.to_owned(),
                subject: "Your Ledger sign-in link".to_owned(),
                body: format!(
                    "Sign in to Ledger with this link (it works once, for {} minutes):\n\n\
                     {link}\n\nIf you did not ask to sign in, ignore this message.\n",
                    self.config.oauth_lifetimes.sign_in_link.whole_minutes()
                ),
            })
            .await
    }

    /// Redeems a sign-in link: makes the user on a first sign-in and opens a session.
    /// Returns the session token (the cookie value) and where to go next.
    ///
    /// # Errors
    /// `invalid_token` when the link is unknown, used or expired.
    pub async fn finish_sign_in(&self, token: &str) -> DomainResult<(String, String)> {
        let refused = || {
            DomainError::authentication(
                ErrorCode::InvalidToken,
                "this sign-in link is not valid, was used already or has expired",
            )
        };
        if !token.starts_with(oauth::SIGN_IN_PREFIX) || token.len() > 200 {
            return Err(refused());
        }
        let hash = self.tokens.hash(token);
        let now = self.now();
        let secret = self
            .store
            .find_secret(&hash)
            .await?
            .filter(|s| s.kind == SecretKind::SignIn && s.is_current(now) && s.used_at.is_none())
            .ok_or_else(refused)?;
        let data: SignInData = serde_json::from_value(secret.data).map_err(|_| refused())?;
        if !self.store.use_secret(&hash, now).await? {
            return Err(refused());
        }
        let provider_id = oauth::email_provider_id(&data.email);
        let user = match self.store.find_user(&provider_id).await? {
            Some(user) => user,
            None => {
                let user = User {
                    id: new_id(IdKind::User),
                    provider_id,
                    email: data.email.to_ascii_lowercase(),
                    provider_username: None,
                    created_at: now,
                };
                self.store.insert_user(user.clone()).await?;
                user
            }
        };
        let session = self.open_session(&user.id).await?;
        Ok((session, data.return_to))
    }

    /// Opens a console session of `user_id` (with its forms' CSRF token) and returns
    /// the session token, the cookie's value.
    pub(in crate::services) async fn open_session(&self, user_id: &str) -> DomainResult<String> {
        let now = self.now();
        let session = self.tokens.issue(oauth::SESSION_PREFIX)?;
        let csrf = self.tokens.issue(oauth::CSRF_PREFIX)?;
        let session_data = serde_json::to_value(SessionData { csrf: csrf.secret })
            .map_err(|e| DomainError::Internal(e.to_string()))?;
        self.store
            .insert_secret(StoredSecret {
                hash: session.hash,
                kind: SecretKind::Session,
                grant_id: None,
                client_id: None,
                user_id: Some(user_id.to_owned()),
                data: session_data,
                expires_at: now + self.config.oauth_lifetimes.session,
                used_at: None,
                revoked_at: None,
                created_at: now,
            })
            .await?;
        Ok(session.secret)
    }
}
