//! OAuth 2.1 authorization server: the protocol's pure rules (spec 5, DECISIONS 3).
//!
//! Scopes and their mapping to key permissions, the PKCE S256 check, redirect-URI rules,
//! the records the store keeps (clients, grants and hashed one-time secrets) and the
//! lifetimes. Invariants kept here: only hashes of secrets are stored; a code is
//! redeemed once; a refresh token is used once (its successor replaces it) and a second
//! use revokes its whole grant (the "family"); an access token carries the audience
//! (`resource`) it was issued for.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::{Duration, OffsetDateTime};

use crate::ids::names;
use crate::organizations::{Permission, Scope};

/// How long an authorization code may be redeemed.
pub const CODE_LIFETIME: Duration = Duration::seconds(60);
/// How long an access token authenticates.
pub const ACCESS_TOKEN_LIFETIME: Duration = Duration::hours(1);
/// How long a refresh token may be used (each use issues a new one with a new lifetime).
pub const REFRESH_TOKEN_LIFETIME: Duration = Duration::days(30);
/// How long an e-mailed sign-in link works.
pub const SIGN_IN_LINK_LIFETIME: Duration = Duration::minutes(15);
/// How long a console session lasts.
pub const SESSION_LIFETIME: Duration = Duration::hours(12);
/// How long a sign-in at an external identity provider may take (from leaving for the
/// provider to coming back with its code).
pub const EXTERNAL_SIGN_IN_LIFETIME: Duration = Duration::minutes(10);

/// The lifetimes of the authorization server's secrets; the defaults are the constants
/// above, each configurable (`LEDGER_OAUTH_*` settings of the server).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OAuthLifetimes {
    pub code: Duration,
    pub access_token: Duration,
    pub refresh_token: Duration,
    pub sign_in_link: Duration,
    pub session: Duration,
}

impl Default for OAuthLifetimes {
    fn default() -> Self {
        Self {
            code: CODE_LIFETIME,
            access_token: ACCESS_TOKEN_LIFETIME,
            refresh_token: REFRESH_TOKEN_LIFETIME,
            sign_in_link: SIGN_IN_LINK_LIFETIME,
            session: SESSION_LIFETIME,
        }
    }
}

/// Prefix of access tokens (how a bearer token is told from an API key).
pub const ACCESS_TOKEN_PREFIX: &str = "ledger_at_";
/// Prefix of refresh tokens.
pub const REFRESH_TOKEN_PREFIX: &str = "ledger_rt_";
/// Prefix of authorization codes.
pub const CODE_PREFIX: &str = "ledger_ac_";
/// Prefix of console session tokens (the cookie value).
pub const SESSION_PREFIX: &str = "ledger_ss_";
/// Prefix of e-mailed sign-in link tokens.
pub const SIGN_IN_PREFIX: &str = "ledger_ml_";
/// Prefix of client secrets of confidential clients.
pub const CLIENT_SECRET_PREFIX: &str = "ledger_cs_";
/// Prefix of the CSRF token of a session's forms.
pub const CSRF_PREFIX: &str = "ledger_csrf_";
/// Prefix of the `state` of a sign-in at an external identity provider.
pub const EXTERNAL_STATE_PREFIX: &str = "ledger_st_";
/// Prefix of the `nonce` sent to an external identity provider.
pub const EXTERNAL_NONCE_PREFIX: &str = "ledger_nc_";
/// Prefix of the PKCE verifier of a sign-in at an external identity provider (its
/// characters are all RFC 7636 unreserved ones and it is 53 long).
pub const EXTERNAL_VERIFIER_PREFIX: &str = "ledger_pk_";
/// Prefix of the value that binds an external sign-in to the browser that started it.
pub const EXTERNAL_BROWSER_PREFIX: &str = "ledger_bb_";

/// The three OAuth scopes, mapped 1:1 onto key permissions (DECISIONS 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum OAuthScope {
    #[serde(rename = "ledger:read")]
    Read,
    #[serde(rename = "ledger:write")]
    Write,
    #[serde(rename = "ledger:admin")]
    Admin,
}

impl OAuthScope {
    /// Every scope, in order.
    pub const ALL: [OAuthScope; 3] = [Self::Read, Self::Write, Self::Admin];

    /// The scope's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "ledger:read",
            Self::Write => "ledger:write",
            Self::Admin => "ledger:admin",
        }
    }

    /// The key scope it grants.
    pub fn permission(self) -> Scope {
        match self {
            Self::Read => Scope::Read,
            Self::Write => Scope::Write,
            Self::Admin => Scope::Admin,
        }
    }

    /// The scope a token needs for a permission level (`None` for `system`, which no
    /// token is granted).
    pub fn for_permission(scope: Scope) -> Option<Self> {
        match scope {
            Scope::Read => Some(Self::Read),
            Scope::Write => Some(Self::Write),
            Scope::Admin => Some(Self::Admin),
            Scope::System => None,
        }
    }

    /// A human description for the consent page.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Read => "Read accounts, transactions, documents and reports",
            Self::Write => "Create, update and post records",
            Self::Admin => "Delete records, manage API keys and buy credits",
        }
    }
}

/// Parses a space-separated scope list; duplicates collapse, order is canonical.
///
/// # Errors
/// The first unknown scope.
pub fn parse_scopes(text: &str) -> Result<Vec<OAuthScope>, String> {
    let mut scopes = Vec::new();
    for word in text.split_ascii_whitespace() {
        let scope = OAuthScope::ALL
            .into_iter()
            .find(|s| s.as_str() == word)
            .ok_or_else(|| word.to_owned())?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    scopes.sort();
    Ok(scopes)
}

/// The space-separated form of a scope list.
pub fn scope_string(scopes: &[OAuthScope]) -> String {
    scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The key permissions a set of scopes grants.
pub fn permissions_of(scopes: &[OAuthScope]) -> Vec<Permission> {
    scopes
        .iter()
        .map(|s| Permission {
            scope: s.permission(),
            resource: None,
        })
        .collect()
}

/// Unpadded base64url (RFC 4648 section 5), as PKCE uses it.
pub fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            let index = (n >> (18 - 6 * i)) & 63;
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}

/// Whether a PKCE `code_challenge` is well formed (43 base64url characters: a SHA-256).
pub fn challenge_is_valid(challenge: &str) -> bool {
    challenge.len() == 43
        && challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The PKCE S256 check (RFC 7636 section 4.6): the verifier is 43 to 128 unreserved
/// characters and `BASE64URL(SHA256(verifier))` equals the challenge.
pub fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    well_formed && base64url(&Sha256::digest(verifier.as_bytes())) == challenge
}

/// Whether `uri` may be registered as a redirect URI: absolute, without a fragment, and
/// `https`, or `http` on a loopback host, or a private-use scheme with a dot
/// (`com.example.app:/cb`, RFC 8252 section 7.1).
pub fn redirect_uri_is_acceptable(uri: &str) -> bool {
    let Ok(url) = url::Url::parse(uri) else {
        return false;
    };
    if url.fragment().is_some() || uri.len() > 2000 {
        return false;
    }
    match url.scheme() {
        "https" => url.host_str().is_some(),
        "http" => matches!(
            url.host_str(),
            Some("localhost" | "127.0.0.1" | "[::1]" | "::1")
        ),
        scheme => scheme.contains('.'),
    }
}

/// How a client authenticates at the token endpoint (RFC 7591 section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// A public client (PKCE only).
    None,
    ClientSecretBasic,
    ClientSecretPost,
}

names!(
    ClientAuth,
    exact,
    {
        None => "none",
        ClientSecretBasic => "client_secret_basic",
        ClientSecretPost => "client_secret_post",
    }
);

/// A registered client (RFC 7591).
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthClient {
    /// The `client_id`.
    pub id: String,
    pub name: Option<String>,
    pub redirect_uris: Vec<String>,
    pub grant_types: Vec<String>,
    pub auth_method: ClientAuth,
    /// SHA-256 hex of the client secret (confidential clients only).
    pub secret_hash: Option<String>,
    /// The scopes it registered for (the default of an authorization request without
    /// `scope`); `None` when it named none.
    pub scope: Option<String>,
    /// The registration as answered (unknown metadata dropped), to echo it back.
    pub metadata: serde_json::Value,
    pub created_at: OffsetDateTime,
}

/// What a user approved for a client: one organization, a mode, scopes and the audience.
/// Every token issued from one code belongs to one grant (the refresh "family").
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    pub id: String,
    pub client_id: String,
    pub user_id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub scopes: Vec<OAuthScope>,
    /// The audience (RFC 8707 `resource`) of its access tokens.
    pub resource: String,
    pub created_at: OffsetDateTime,
    pub revoked_at: Option<OffsetDateTime>,
}

/// The kinds of one-time or bearer secrets the store keeps by hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretKind {
    Code,
    Access,
    Refresh,
    Session,
    SignIn,
    /// A sign-in at an external identity provider in progress (stored by its `state`).
    ExternalSignIn,
}

names!(
    SecretKind,
    exact,
    {
        Code => "code",
        Access => "access",
        Refresh => "refresh",
        Session => "session",
        SignIn => "sign_in",
        ExternalSignIn => "external_sign_in",
    }
);

/// A secret as stored: its hash, what it is for and its life.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSecret {
    /// SHA-256 hex of the secret.
    pub hash: String,
    pub kind: SecretKind,
    /// The grant of codes and tokens (for a code, the grant its redemption creates).
    pub grant_id: Option<String>,
    pub client_id: Option<String>,
    pub user_id: Option<String>,
    /// Kind-specific data ([`CodeData`], [`SignInData`], [`SessionData`]).
    pub data: serde_json::Value,
    pub expires_at: OffsetDateTime,
    /// When a one-time secret (code, refresh token, sign-in link) was used.
    pub used_at: Option<OffsetDateTime>,
    pub revoked_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
}

impl StoredSecret {
    /// Whether it still works at `now`: not expired, not revoked.
    pub fn is_current(&self, now: OffsetDateTime) -> bool {
        self.expires_at > now && self.revoked_at.is_none()
    }
}

/// What an authorization code remembers of its authorization request and approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeData {
    pub redirect_uri: String,
    pub code_challenge: String,
    pub scopes: Vec<OAuthScope>,
    pub organization_id: String,
    pub livemode: bool,
    pub resource: String,
}

/// What a sign-in link remembers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInData {
    pub email: String,
    /// Where to go after signing in (a path of this service, checked when made).
    pub return_to: String,
}

/// What a sign-in at an external identity provider remembers while the browser is away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalSignInData {
    /// The configured provider's id (`[a-z0-9_-]`).
    pub provider: String,
    /// The `nonce` the ID token must carry.
    pub nonce: String,
    /// The PKCE verifier of the code exchange.
    pub pkce_verifier: String,
    /// SHA-256 hex of the browser-binding cookie's value (login CSRF defence).
    pub browser_hash: String,
    /// Where to go after signing in (checked when made).
    pub return_to: String,
}

/// What a session remembers besides its user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionData {
    /// The token its forms must carry (synchroniser-token CSRF defence).
    pub csrf: String,
}

/// Whether `return_to` is a path of this service that is safe to redirect to after
/// sign-in: `/authorize` with its query, nothing else (no scheme, host or `//`).
pub fn return_to_is_safe(return_to: &str) -> bool {
    (return_to == "/authorize" || return_to.starts_with("/authorize?"))
        && !return_to.contains(['\\', '\r', '\n'])
}

/// The provider id of a user who signs in with an e-mailed link (accounts of different
/// providers stay separate, so the address is namespaced).
pub fn email_provider_id(email: &str) -> String {
    format!("email:{}", email.trim().to_ascii_lowercase())
}

/// Whether `id` may name an external identity provider: 1 to 32 lower-case letters,
/// digits, `-` or `_` (it appears in paths and in user provider ids).
pub fn provider_id_is_valid(id: &str) -> bool {
    (1..=32).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// The provider id of a user who signs in at an external OpenID Connect provider: the
/// provider's configured id and the ID token's `sub`. The e-mail address plays no part,
/// so accounts of different providers stay separate even when their addresses are equal.
pub fn external_provider_id(provider: &str, subject: &str) -> String {
    format!("oidc:{provider}:{subject}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_follows_rfc_7636_appendix_b() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(challenge_is_valid(challenge));
        assert!(pkce_matches(verifier, challenge));
        assert!(!pkce_matches(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXx",
            challenge
        ));
        assert!(!pkce_matches("short", challenge));
        assert!(!challenge_is_valid(
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c"
        ));
    }

    #[test]
    fn base64url_pads_nothing() {
        assert_eq!(base64url(b""), "");
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn scopes_parse_canonically_and_refuse_unknown_ones() {
        assert_eq!(
            parse_scopes("ledger:write ledger:read ledger:write"),
            Ok(vec![OAuthScope::Read, OAuthScope::Write])
        );
        assert_eq!(parse_scopes("ledger:read openid"), Err("openid".into()));
        assert_eq!(parse_scopes(""), Ok(vec![]));
        assert_eq!(
            scope_string(&[OAuthScope::Read, OAuthScope::Admin]),
            "ledger:read ledger:admin"
        );
        let permissions = permissions_of(&[OAuthScope::Write]);
        assert!(crate::organizations::permits(
            &permissions,
            Scope::Read,
            "accounts"
        ));
        assert!(!crate::organizations::permits(
            &permissions,
            Scope::Admin,
            "accounts"
        ));
    }

    #[test]
    fn redirect_uris_and_return_paths() {
        for good in [
            "https://app.example.com/cb",
            "http://localhost:3030/callback",
            "http://127.0.0.1/cb",
            "com.example.app:/oauth",
        ] {
            assert!(redirect_uri_is_acceptable(good), "{good}");
        }
        for bad in [
            "http://app.example.com/cb",
            "https://app.example.com/cb#frag",
            "/relative",
            "javascript:alert(1)",
            "not a uri",
        ] {
            assert!(!redirect_uri_is_acceptable(bad), "{bad}");
        }
        assert!(return_to_is_safe("/authorize?client_id=x"));
        assert!(!return_to_is_safe("//evil.example/authorize"));
        assert!(!return_to_is_safe("https://evil.example/"));
        assert!(!return_to_is_safe("/authorizex"));
        assert_eq!(
            email_provider_id(" Alice@Example.com"),
            "email:alice@example.com"
        );
    }

    #[test]
    fn external_identities_are_keyed_by_provider_and_subject() {
        assert_eq!(external_provider_id("google", "1234"), "oidc:google:1234");
        assert_ne!(
            external_provider_id("google", "1234"),
            external_provider_id("gitlab", "1234")
        );
        for good in ["google", "apple", "my-idp_2"] {
            assert!(provider_id_is_valid(good), "{good}");
        }
        for bad in ["", "Google", "a/b", "x".repeat(33).as_str()] {
            assert!(!provider_id_is_valid(bad), "{bad}");
        }
        assert_eq!(
            SecretKind::parse("external_sign_in"),
            Some(SecretKind::ExternalSignIn)
        );
    }
}
