//! The token endpoint (the `authorization_code` grant with PKCE, the `refresh_token`
//! grant with rotation and reuse detection), revocation (RFC 7009), and the
//! authentication of access tokens at the resource servers.

use serde_json::json;
use time::OffsetDateTime;

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::oauth::{self, CodeData, Grant, OAuthClient, OAuthScope, SecretKind, StoredSecret};
use crate::organizations::ApiKey;
use crate::ports::{Rotation, Store};

use crate::services::{Ledger, OAuthBearer, Principal};

use super::{ClientCredentials, OAuthError, OAuthErrorCode, TokenResponse, invalid_grant};

impl<S: Store> Ledger<S> {
    /// The client the credentials name, authenticated by its registered method.
    async fn authenticate_client(
        &self,
        credentials: &ClientCredentials,
    ) -> Result<OAuthClient, OAuthError> {
        let refused = |text: &str| OAuthError::new(OAuthErrorCode::InvalidClient, text);
        let id = credentials
            .client_id
            .as_deref()
            .ok_or_else(|| refused("client_id is missing"))?;
        let client = self
            .store
            .get_client(id)
            .await?
            .ok_or_else(|| refused("the client is not registered"))?;
        match (&client.secret_hash, &credentials.client_secret) {
            (None, _) => Ok(client),
            (Some(expected), Some(given)) if self.tokens.hash(given) == *expected => Ok(client),
            (Some(_), Some(_)) => Err(refused("the client secret is wrong")),
            (Some(_), None) => Err(refused("the client must authenticate with its secret")),
        }
    }

    /// Makes an access token and a refresh token of `grant` with `scopes`.
    fn issue_tokens(
        &self,
        grant: &Grant,
        scopes: &[OAuthScope],
    ) -> Result<(TokenResponse, Vec<StoredSecret>), OAuthError> {
        let now = self.now();
        let lifetimes = self.config.oauth_lifetimes;
        let access = self.tokens.issue(oauth::ACCESS_TOKEN_PREFIX)?;
        let refresh = self.tokens.issue(oauth::REFRESH_TOKEN_PREFIX)?;
        let data = json!({ "scopes": scopes });
        let record = |hash: String, kind, lifetime| StoredSecret {
            hash,
            kind,
            grant_id: Some(grant.id.clone()),
            client_id: Some(grant.client_id.clone()),
            user_id: Some(grant.user_id.clone()),
            data: data.clone(),
            expires_at: now + lifetime,
            used_at: None,
            revoked_at: None,
            created_at: now,
        };
        let rows = vec![
            record(access.hash, SecretKind::Access, lifetimes.access_token),
            record(refresh.hash, SecretKind::Refresh, lifetimes.refresh_token),
        ];
        Ok((
            TokenResponse {
                access_token: access.secret,
                refresh_token: refresh.secret,
                expires_in: lifetimes.access_token.whole_seconds(),
                scope: oauth::scope_string(scopes),
            },
            rows,
        ))
    }

    /// The `authorization_code` grant (RFC 6749 4.1.3 with PKCE). A code is burned by
    /// its first redemption, successful or not; a second redemption revokes the grant
    /// the first one made (RFC 6749 4.1.2).
    ///
    /// # Errors
    /// `invalid_client`; `invalid_grant` for an unknown, used, expired or foreign code,
    /// a different `redirect_uri` or a wrong `code_verifier`; `invalid_target` when
    /// `resource` differs from the authorized one.
    pub async fn exchange_code(
        &self,
        credentials: &ClientCredentials,
        code: &str,
        redirect_uri: Option<&str>,
        code_verifier: Option<&str>,
        resource: Option<&str>,
    ) -> Result<TokenResponse, OAuthError> {
        let client = self.authenticate_client(credentials).await?;
        if !client.grant_types.iter().any(|g| g == "authorization_code") {
            return Err(OAuthError::new(
                OAuthErrorCode::UnauthorizedClient,
                "the client did not register the authorization_code grant",
            ));
        }
        let hash = self.tokens.hash(code);
        let now = self.now();
        let (secret, grant_id) = self.redeemable_code(&client, &hash, now).await?;
        let data: CodeData = serde_json::from_value(secret.data.clone())
            .map_err(|e| DomainError::Internal(format!("stored code data: {e}")))?;
        let verifier_ok =
            code_verifier.is_some_and(|v| oauth::pkce_matches(v, &data.code_challenge));
        let redirect_ok = redirect_uri.is_none_or(|r| r == data.redirect_uri);
        let resource_ok = resource.is_none_or(|r| r.trim_end_matches('/') == data.resource);
        if !(verifier_ok && redirect_ok && resource_ok) {
            // Burn the code: a guessed verifier gets one try.
            self.store.use_secret(&hash, now).await?;
            return Err(if !resource_ok {
                OAuthError::new(
                    OAuthErrorCode::InvalidTarget,
                    "resource differs from the one authorized",
                )
            } else if !redirect_ok {
                invalid_grant("redirect_uri differs from the authorization request's")
            } else {
                invalid_grant("code_verifier does not match the code_challenge")
            });
        }
        let grant = Grant {
            id: grant_id,
            client_id: client.id.clone(),
            user_id: secret.user_id.clone().unwrap_or_default(),
            organization_id: data.organization_id,
            livemode: data.livemode,
            scopes: data.scopes.clone(),
            resource: data.resource,
            created_at: now,
            revoked_at: None,
        };
        let (response, rows) = self.issue_tokens(&grant, &data.scopes)?;
        if !self
            .store
            .redeem_code(&hash, now, grant.clone(), rows)
            .await?
        {
            // A concurrent redemption won: treat as reuse.
            self.store.revoke_grant(&grant.id, now).await?;
            return Err(invalid_grant("the authorization code was used already"));
        }
        Ok(response)
    }

    /// The stored authorization code of `hash` and the grant it is to make, if the code
    /// is the client's, unused and current; a reused code revokes the grant its first
    /// redemption made.
    async fn redeemable_code(
        &self,
        client: &OAuthClient,
        hash: &str,
        now: OffsetDateTime,
    ) -> Result<(StoredSecret, String), OAuthError> {
        let secret = self
            .store
            .find_secret(hash)
            .await?
            .filter(|s| s.kind == SecretKind::Code)
            .ok_or_else(|| invalid_grant("the authorization code is not valid"))?;
        if secret.client_id.as_deref() != Some(client.id.as_str()) {
            return Err(invalid_grant(
                "the authorization code was issued to another client",
            ));
        }
        let grant_id = secret
            .grant_id
            .clone()
            .ok_or_else(|| invalid_grant("the authorization code is not valid"))?;
        if secret.used_at.is_some() {
            self.store.revoke_grant(&grant_id, now).await?;
            return Err(invalid_grant(
                "the authorization code was used already; the tokens it gave are revoked",
            ));
        }
        if !secret.is_current(now) {
            return Err(invalid_grant("the authorization code has expired"));
        }
        Ok((secret, grant_id))
    }

    /// The `refresh_token` grant with rotation: the used token is spent and a new pair
    /// issued; a second use of a spent token revokes the grant (every token of it).
    /// `scope` may narrow the new access token's scopes.
    ///
    /// # Errors
    /// `invalid_client`; `invalid_grant` for an unknown, foreign, expired, revoked or
    /// reused token; `invalid_scope` beyond the grant; `invalid_target` for another resource.
    pub async fn refresh(
        &self,
        credentials: &ClientCredentials,
        refresh_token: &str,
        scope: Option<&str>,
        resource: Option<&str>,
    ) -> Result<TokenResponse, OAuthError> {
        let client = self.authenticate_client(credentials).await?;
        let hash = self.tokens.hash(refresh_token);
        let now = self.now();
        let secret = self
            .store
            .find_secret(&hash)
            .await?
            .filter(|s| s.kind == SecretKind::Refresh)
            .ok_or_else(|| invalid_grant("the refresh token is not valid"))?;
        if secret.client_id.as_deref() != Some(client.id.as_str()) {
            return Err(invalid_grant(
                "the refresh token was issued to another client",
            ));
        }
        let grant = match &secret.grant_id {
            Some(id) => self.store.get_grant(id).await?,
            None => None,
        }
        .ok_or_else(|| invalid_grant("the refresh token is not valid"))?;
        if secret.used_at.is_some() {
            self.store.revoke_grant(&grant.id, now).await?;
            return Err(invalid_grant(
                "the refresh token was used already; every token of this grant is revoked",
            ));
        }
        if grant.revoked_at.is_some() || secret.revoked_at.is_some() {
            return Err(invalid_grant("the refresh token has been revoked"));
        }
        if secret.expires_at <= now {
            return Err(invalid_grant("the refresh token has expired"));
        }
        if resource.is_some_and(|r| r.trim_end_matches('/') != grant.resource) {
            return Err(OAuthError::new(
                OAuthErrorCode::InvalidTarget,
                "resource differs from the one authorized",
            ));
        }
        let scopes = match scope.filter(|s| !s.trim().is_empty()) {
            None => grant.scopes.clone(),
            Some(text) => {
                let asked = oauth::parse_scopes(text).map_err(|s| {
                    OAuthError::new(OAuthErrorCode::InvalidScope, format!("unknown scope '{s}'"))
                })?;
                if asked.iter().any(|s| !grant.scopes.contains(s)) {
                    return Err(OAuthError::new(
                        OAuthErrorCode::InvalidScope,
                        "scope exceeds what was approved",
                    ));
                }
                asked
            }
        };
        let (response, rows) = self.issue_tokens(&grant, &scopes)?;
        match self
            .store
            .rotate_refresh(&hash, &grant.id, now, rows)
            .await?
        {
            Rotation::Rotated => Ok(response),
            Rotation::Reused => Err(invalid_grant(
                "the refresh token was used already; every token of this grant is revoked",
            )),
        }
    }

    /// Revokes a token of the client (RFC 7009): a refresh token revokes its whole grant,
    /// an access token itself. Unknown tokens and other clients' tokens are ignored (the
    /// endpoint answers 200 either way).
    ///
    /// # Errors
    /// `invalid_client`.
    pub async fn revoke_token(
        &self,
        credentials: &ClientCredentials,
        token: &str,
    ) -> Result<(), OAuthError> {
        let client = self.authenticate_client(credentials).await?;
        let hash = self.tokens.hash(token);
        let now = self.now();
        let Some(secret) = self.store.find_secret(&hash).await? else {
            return Ok(());
        };
        if secret.client_id.as_deref() != Some(client.id.as_str()) {
            return Ok(());
        }
        match (secret.kind, &secret.grant_id) {
            (SecretKind::Refresh, Some(grant)) => self.store.revoke_grant(grant, now).await?,
            (SecretKind::Access, _) => self.store.revoke_secret(&hash, now).await?,
            _ => {}
        }
        Ok(())
    }

    /// Authenticates an OAuth access token by its hash (see [`Ledger::authenticate`]).
    ///
    /// # Errors
    /// `invalid_token` when it is unknown, expired or revoked, or its user no longer
    /// owns the organization.
    pub(in crate::services) async fn authenticate_access_token(
        &self,
        hash: &str,
    ) -> DomainResult<Principal> {
        let refused = |text: &str| DomainError::authentication(ErrorCode::InvalidToken, text);
        let (token, grant, organization) = self
            .store
            .find_access_token(hash)
            .await?
            .filter(|(t, _, _)| t.kind == SecretKind::Access)
            .ok_or_else(|| refused("the access token is not valid"))?;
        if token.revoked_at.is_some() || grant.revoked_at.is_some() {
            return Err(refused("the access token has been revoked"));
        }
        if token.expires_at <= self.now() {
            return Err(refused("the access token has expired"));
        }
        if organization.owner_user_id != grant.user_id {
            return Err(refused(
                "the access token's user no longer owns its organization",
            ));
        }
        let scopes: Vec<OAuthScope> = token
            .data
            .get("scopes")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_else(|| grant.scopes.clone());
        let key = ApiKey {
            id: grant.id.clone(),
            organization_id: organization.id.clone(),
            name: format!("OAuth grant to {}", grant.client_id),
            livemode: grant.livemode,
            permissions: oauth::permissions_of(&scopes),
            key_hash: hash.to_owned(),
            last4: String::new(),
            expires_at: Some(token.expires_at),
            disabled: false,
            previous_hash: None,
            previous_expires_at: None,
            last_used_at: None,
            created_at: grant.created_at,
        };
        Ok(Principal {
            key,
            organization,
            oauth: Some(OAuthBearer {
                audience: grant.resource,
                scopes,
            }),
        })
    }
}
