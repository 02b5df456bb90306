//! Client registration (RFC 7591): the request's metadata checked, a secret for a
//! confidential client, and the metadata echoed back.

use serde_json::{Value, json};

use crate::ids::{IdKind, new_id};
use crate::oauth::{self, ClientAuth, OAuthClient};
use crate::ports::Store;

use crate::services::Ledger;

use super::{OAuthError, OAuthErrorCode, metadata_error};

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

/// What a registration asks for, checked.
struct Registration {
    redirect_uris: Vec<String>,
    grant_types: Vec<String>,
    auth_method: ClientAuth,
    scope: Option<String>,
    name: Option<String>,
}

/// Checks the metadata of an RFC 7591 request body (unknown members are ignored).
fn check_registration(body: &Value) -> Result<Registration, OAuthError> {
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
        oauth::parse_scopes(scope).map_err(|s| metadata_error(format!("unknown scope '{s}'")))?;
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
    Ok(Registration {
        redirect_uris,
        grant_types,
        auth_method,
        scope,
        name,
    })
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
        let Registration {
            redirect_uris,
            grant_types,
            auth_method,
            scope,
            name,
        } = check_registration(body)?;
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
}
