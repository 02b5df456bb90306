//! The OAuth 2.1 authorization server's use cases (spec 5): client registration
//! (RFC 7591), the authorization request and the user's approval, the token endpoint
//! (authorization code with PKCE, refresh with rotation and reuse detection), revocation
//! (RFC 7009), e-mailed sign-in links and console sessions, and the authentication of
//! access tokens at the resource servers.
//!
//! Refusals of the protocol endpoints are [`OAuthError`]s (the RFC 6749 vocabulary);
//! storage failures become `server_error`. Every secret is made by the injected
//! [`crate::ports::TokenSource`] and only its hash reaches the store.

use serde_json::{Value, json};

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ids::{IdKind, new_id};
use crate::oauth::{
    self, ClientAuth, CodeData, Grant, OAuthClient, OAuthLifetimes, OAuthScope, SecretKind,
    SessionData, SignInData, StoredSecret,
};
use crate::organizations::{ApiKey, Organization, User};
use crate::ports::{Mail, Rotation, Store};

use super::{Ledger, OAuthBearer, Principal};

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

const SUPPORTED_GRANTS: [&str; 2] = ["authorization_code", "refresh_token"];

fn string_list(value: &Value, field: &str) -> Result<Option<Vec<String>>, OAuthError> {
    match value.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| metadata_error(format!("{field} must be an array of strings")))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(metadata_error(format!(
            "{field} must be an array of strings"
        ))),
    }
}

fn optional_string(value: &Value, field: &str) -> Result<Option<String>, OAuthError> {
    match value.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(metadata_error(format!("{field} must be a string"))),
    }
}

impl<S: Store> Ledger<S> {
    /// Registers a client from an RFC 7591 request body. Unknown metadata is ignored;
    /// `application_type` (`web` or `native`), `client_uri`, `logo_uri` and friends are
    /// kept and echoed. Returns the client and, for a confidential client, its secret
    /// (shown only now).
    ///
    /// # Errors
    /// `invalid_redirect_uri` for a missing or unacceptable redirect URI,
    /// `invalid_client_metadata` for other bad metadata.
    pub async fn register_client(
        &self,
        body: &Value,
    ) -> Result<(OAuthClient, Option<String>), OAuthError> {
        if !body.is_object() {
            return Err(metadata_error("the registration must be a JSON object"));
        }
        let redirect_uris = string_list(body, "redirect_uris")?.unwrap_or_default();
        if redirect_uris.is_empty() || redirect_uris.len() > 20 {
            return Err(OAuthError::new(
                OAuthErrorCode::InvalidRedirectUri,
                "redirect_uris must name 1 to 20 redirect URIs",
            ));
        }
        if let Some(bad) = redirect_uris
            .iter()
            .find(|u| !oauth::redirect_uri_is_acceptable(u))
        {
            return Err(OAuthError::new(
                OAuthErrorCode::InvalidRedirectUri,
                format!(
                    "redirect URI '{bad}' is not acceptable: use https, http on a loopback \
                     host, or a private-use scheme, without a fragment"
                ),
            ));
        }
        let grant_types = string_list(body, "grant_types")?
            .unwrap_or_else(|| SUPPORTED_GRANTS.map(str::to_owned).to_vec());
        if let Some(bad) = grant_types
            .iter()
            .find(|g| !SUPPORTED_GRANTS.contains(&g.as_str()))
        {
            return Err(metadata_error(format!(
                "grant type '{bad}' is not supported (authorization_code, refresh_token)"
            )));
        }
        if let Some(types) = string_list(body, "response_types")?
            && types.iter().any(|t| t != "code")
        {
            return Err(metadata_error("response_types may only name 'code'"));
        }
        let auth_method = match optional_string(body, "token_endpoint_auth_method")? {
            // RFC 7591 makes client_secret_basic the default.
            None => ClientAuth::ClientSecretBasic,
            Some(text) => ClientAuth::parse(&text).ok_or_else(|| {
                metadata_error(format!(
                    "token_endpoint_auth_method '{text}' is not supported (none, \
                     client_secret_basic, client_secret_post)"
                ))
            })?,
        };
        let scope = optional_string(body, "scope")?;
        if let Some(scope) = &scope {
            oauth::parse_scopes(scope)
                .map_err(|s| metadata_error(format!("unknown scope '{s}'")))?;
        }
        let name = optional_string(body, "client_name")?;
        if name.as_ref().is_some_and(|n| n.chars().count() > 200) {
            return Err(metadata_error("client_name must be at most 200 characters"));
        }
        if let Some(kind) = optional_string(body, "application_type")?
            && kind != "web"
            && kind != "native"
        {
            return Err(metadata_error("application_type must be web or native"));
        }
        let secret = match auth_method {
            ClientAuth::None => None,
            _ => Some(self.tokens.issue(oauth::CLIENT_SECRET_PREFIX)?),
        };
        let now = self.now();
        let id = new_id(IdKind::OAuthClient);
        let mut metadata = json!({
            "client_id": id,
            "client_id_issued_at": now.unix_timestamp(),
            "redirect_uris": redirect_uris,
            "grant_types": grant_types,
            "response_types": ["code"],
            "token_endpoint_auth_method": auth_method.as_str(),
        });
        for field in [
            "client_name",
            "client_uri",
            "logo_uri",
            "scope",
            "contacts",
            "tos_uri",
            "policy_uri",
            "software_id",
            "software_version",
            "application_type",
        ] {
            if let Some(value) = body.get(field).filter(|v| !v.is_null()) {
                metadata[field] = value.clone();
            }
        }
        let client = OAuthClient {
            id,
            name,
            redirect_uris,
            grant_types,
            auth_method,
            secret_hash: secret.as_ref().map(|s| s.hash.clone()),
            scope,
            metadata,
            created_at: now,
        };
        self.store.insert_client(client.clone()).await?;
        Ok((client, secret.map(|s| s.secret)))
    }

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
        let state = request.state.clone();
        let refuse = |code, text: &str| AuthorizeRefusal::Redirect {
            redirect_uri: redirect_uri.clone(),
            state: state.clone(),
            error: OAuthError::new(code, text),
        };
        if request.response_type.as_deref() != Some("code") {
            return Err(refuse(
                OAuthErrorCode::UnsupportedResponseType,
                "response_type must be code",
            ));
        }
        if !client.grant_types.iter().any(|g| g == "authorization_code") {
            return Err(refuse(
                OAuthErrorCode::UnauthorizedClient,
                "the client did not register the authorization_code grant",
            ));
        }
        let code_challenge = match request.code_challenge.as_deref() {
            Some(c) if oauth::challenge_is_valid(c) => c.to_owned(),
            Some(_) => {
                return Err(refuse(
                    OAuthErrorCode::InvalidRequest,
                    "code_challenge must be 43 base64url characters",
                ));
            }
            None => {
                return Err(refuse(
                    OAuthErrorCode::InvalidRequest,
                    "PKCE is required: send code_challenge and code_challenge_method=S256",
                ));
            }
        };
        if request.code_challenge_method.as_deref() != Some("S256") {
            return Err(refuse(
                OAuthErrorCode::InvalidRequest,
                "code_challenge_method must be S256",
            ));
        }
        let scope_text = request
            .scope
            .clone()
            .filter(|s| !s.trim().is_empty())
            .or_else(|| client.scope.clone())
            .unwrap_or_else(|| "ledger:read ledger:write".to_owned());
        let scopes = oauth::parse_scopes(&scope_text).map_err(|s| {
            refuse(
                OAuthErrorCode::InvalidScope,
                &format!("unknown scope '{s}'; use ledger:read, ledger:write, ledger:admin"),
            )
        })?;
        if scopes.is_empty() {
            return Err(refuse(OAuthErrorCode::InvalidScope, "no scope requested"));
        }
        let resource = match request.resource.as_deref() {
            None => resources.first().cloned().unwrap_or_default(),
            Some(r) => {
                let r = r.trim_end_matches('/');
                resources
                    .iter()
                    .find(|known| known.as_str() == r)
                    .cloned()
                    .ok_or_else(|| {
                        refuse(
                            OAuthErrorCode::InvalidTarget,
                            "resource is not a resource of this server",
                        )
                    })?
            }
        };
        Ok(ValidatedRequest {
            client,
            redirect_uri,
            scopes,
            code_challenge,
            state,
            resource,
        })
    }

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

    /// The organizations a user may bind a token to (those the user owns).
    ///
    /// # Errors
    /// Storage failures.
    pub async fn organizations_of_user(&self, user_id: &str) -> DomainResult<Vec<Organization>> {
        Ok(self.store.organizations_of_user(user_id).await?)
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
    pub(super) async fn open_session(&self, user_id: &str) -> DomainResult<String> {
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
        let secret = self
            .store
            .find_secret(&hash)
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
    pub(super) async fn authenticate_access_token(&self, hash: &str) -> DomainResult<Principal> {
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
