//! The authorization request (RFC 6749 4.1.1 with PKCE and RFC 8707 resources) and the
//! signed-in user's approval of it, which makes the authorization code.

use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, new_id};
use crate::oauth::{self, CodeData, OAuthClient, OAuthScope, SecretKind, StoredSecret};
use crate::organizations::{Organization, User};
use crate::ports::Store;

use crate::services::Ledger;

use super::{AuthorizationRequest, AuthorizeRefusal, OAuthError, OAuthErrorCode, ValidatedRequest};

impl<S: Store> Ledger<S> {
    /// Checks an authorization request (RFC 6749 4.1.1, PKCE, RFC 8707). `resources`
    /// are the audiences this server issues tokens for; the first is the default.
    ///
    /// # Errors
    /// [`AuthorizeRefusal::Page`] for an unknown client or a redirect URI that is not
    /// one of its registered ones (compared exactly); else
    /// [`AuthorizeRefusal::Redirect`] with `unsupported_response_type`,
    /// `invalid_request` (PKCE missing or not S256), `invalid_scope` or `invalid_target`.
    pub async fn check_authorization(
        &self,
        request: &AuthorizationRequest,
        resources: &[String],
    ) -> Result<ValidatedRequest, AuthorizeRefusal> {
        let (client, redirect_uri) = self.trusted_client(request).await?;
        let state = request.state.clone();
        let refuse = |error: OAuthError| AuthorizeRefusal::Redirect {
            redirect_uri: redirect_uri.clone(),
            state: state.clone(),
            error,
        };
        let code_challenge = code_challenge_of(request, &client).map_err(refuse)?;
        let scopes = requested_scopes(request, &client).map_err(refuse)?;
        let resource = requested_resource(request, resources).map_err(refuse)?;
        Ok(ValidatedRequest {
            client,
            redirect_uri,
            scopes,
            code_challenge,
            state,
            resource,
        })
    }

    /// The registered client of an authorization request and the redirect URI to answer
    /// on, one it registered (compared exactly); a refusal is shown as a page, never
    /// redirected.
    async fn trusted_client(
        &self,
        request: &AuthorizationRequest,
    ) -> Result<(OAuthClient, String), AuthorizeRefusal> {
        let page = |code, text: &str| AuthorizeRefusal::Page(OAuthError::new(code, text));
        let client_id = request
            .client_id
            .as_deref()
            .ok_or_else(|| page(OAuthErrorCode::InvalidRequest, "client_id is missing"))?;
        let client = self
            .store
            .get_client(client_id)
            .await
            .map_err(|e| AuthorizeRefusal::Page(e.into()))?
            .ok_or_else(|| {
                page(
                    OAuthErrorCode::InvalidClient,
                    "the client is not registered",
                )
            })?;
        let redirect_uri = match request.redirect_uri.as_deref() {
            Some(uri) if client.redirect_uris.iter().any(|r| r == uri) => uri.to_owned(),
            Some(_) => {
                return Err(page(
                    OAuthErrorCode::InvalidRequest,
                    "redirect_uri is not one the client registered",
                ));
            }
            // OAuth 2.1 lets a client with one registered URI omit it.
            None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
            None => {
                return Err(page(
                    OAuthErrorCode::InvalidRequest,
                    "redirect_uri is missing",
                ));
            }
        };
        Ok((client, redirect_uri))
    }

    /// The organizations a user may bind a token to (those the user owns).
    ///
    /// # Errors
    /// Storage failures.
    pub async fn organizations_of_user(&self, user_id: &str) -> DomainResult<Vec<Organization>> {
        Ok(self.store.organizations_of_user(user_id).await?)
    }

    /// Records the signed-in `user`'s approval of `request` for `organization_id` in the
    /// mode `livemode` with `approved` scopes, and returns the authorization code.
    ///
    /// # Errors
    /// `access_denied` when the user does not own the organization;
    /// `invalid_scope` when `approved` is empty or not within what was requested.
    pub async fn approve(
        &self,
        user: &User,
        request: &ValidatedRequest,
        organization_id: &str,
        livemode: bool,
        approved: &[OAuthScope],
    ) -> Result<String, OAuthError> {
        let owned = self.store.organizations_of_user(&user.id).await?;
        if !owned.iter().any(|o| o.id == organization_id) {
            return Err(OAuthError::new(
                OAuthErrorCode::AccessDenied,
                "the organization is not one of yours",
            ));
        }
        let mut scopes: Vec<OAuthScope> = approved.to_vec();
        scopes.sort();
        scopes.dedup();
        if scopes.is_empty() || scopes.iter().any(|s| !request.scopes.contains(s)) {
            return Err(OAuthError::new(
                OAuthErrorCode::InvalidScope,
                "approve at least one of the requested scopes",
            ));
        }
        let issued = self.tokens.issue(oauth::CODE_PREFIX)?;
        let now = self.now();
        let data = serde_json::to_value(CodeData {
            redirect_uri: request.redirect_uri.clone(),
            code_challenge: request.code_challenge.clone(),
            scopes,
            organization_id: organization_id.to_owned(),
            livemode,
            resource: request.resource.clone(),
        })
        .map_err(|e| DomainError::Internal(e.to_string()))?;
        self.store
            .insert_secret(StoredSecret {
                hash: issued.hash,
                kind: SecretKind::Code,
                grant_id: Some(new_id(IdKind::OAuthGrant)),
                client_id: Some(request.client.id.clone()),
                user_id: Some(user.id.clone()),
                data,
                expires_at: now + self.config.oauth_lifetimes.code,
                used_at: None,
                revoked_at: None,
                created_at: now,
            })
            .await?;
        Ok(issued.secret)
    }
}

/// The code challenge of a request for an authorization code, from a client that
/// registered the grant: PKCE with S256 is required.
fn code_challenge_of(
    request: &AuthorizationRequest,
    client: &OAuthClient,
) -> Result<String, OAuthError> {
    if request.response_type.as_deref() != Some("code") {
        return Err(OAuthError::new(
            OAuthErrorCode::UnsupportedResponseType,
            "response_type must be code",
        ));
    }
    if !client.grant_types.iter().any(|g| g == "authorization_code") {
        return Err(OAuthError::new(
            OAuthErrorCode::UnauthorizedClient,
            "the client did not register the authorization_code grant",
        ));
    }
    let code_challenge = match request.code_challenge.as_deref() {
        Some(c) if oauth::challenge_is_valid(c) => c.to_owned(),
        Some(_) => {
            return Err(OAuthError::new(
                OAuthErrorCode::InvalidRequest,
                "code_challenge must be 43 base64url characters",
            ));
        }
        None => {
            return Err(OAuthError::new(
                OAuthErrorCode::InvalidRequest,
                "PKCE is required: send code_challenge and code_challenge_method=S256",
            ));
        }
    };
    if request.code_challenge_method.as_deref() != Some("S256") {
        return Err(OAuthError::new(
            OAuthErrorCode::InvalidRequest,
            "code_challenge_method must be S256",
        ));
    }
    Ok(code_challenge)
}

/// The scopes a request asks for: its `scope`, else the client's registered one, else
/// reading and writing.
fn requested_scopes(
    request: &AuthorizationRequest,
    client: &OAuthClient,
) -> Result<Vec<OAuthScope>, OAuthError> {
    let scope_text = request
        .scope
        .clone()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| client.scope.clone())
        .unwrap_or_else(|| "ledger:read ledger:write".to_owned());
    let scopes = oauth::parse_scopes(&scope_text).map_err(|s| {
        OAuthError::new(
            OAuthErrorCode::InvalidScope,
            format!("unknown scope '{s}'; use ledger:read, ledger:write, ledger:admin"),
        )
    })?;
    if scopes.is_empty() {
        return Err(OAuthError::new(
            OAuthErrorCode::InvalidScope,
            "no scope requested",
        ));
    }
    Ok(scopes)
}

/// The audience a request asks for: one of `resources`, the first by default.
fn requested_resource(
    request: &AuthorizationRequest,
    resources: &[String],
) -> Result<String, OAuthError> {
    let resource = match request.resource.as_deref() {
        None => resources.first().cloned().unwrap_or_default(),
        Some(r) => {
            let r = r.trim_end_matches('/');
            resources
                .iter()
                .find(|known| known.as_str() == r)
                .cloned()
                .ok_or_else(|| {
                    OAuthError::new(
                        OAuthErrorCode::InvalidTarget,
                        "resource is not a resource of this server",
                    )
                })?
        }
    };
    Ok(resource)
}
