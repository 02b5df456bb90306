//! Authentication and authorization of API keys (DECISIONS 3).
//!
//! A key reaches its own organization and its descendants; any other organization id
//! answers `organization_not_found` whether or not it exists, so ids leak nothing.

use crate::error::ErrorCode;
use crate::error::{DomainError, DomainResult};
use crate::jobs::Job;
use crate::organizations::{ApiKey, Organization, Scope, mode_of_secret, permits};
use crate::ports::{Store, Tenant};

use super::Ledger;

/// Who makes a change, as its records (events, deletions) name it: the tenant it lands in
/// and the key that asked for it. A request's [`Access`] is one, and so is the
/// [`Job`] it queued, whose run records its changes in the name of that key.
pub(crate) trait Author {
    /// The tenant the change lands in.
    fn tenant(&self) -> Tenant;
    /// The API key that asked for the change.
    fn key_id(&self) -> &str;
}

impl Author for Access {
    fn tenant(&self) -> Tenant {
        self.tenant.clone()
    }
    fn key_id(&self) -> &str {
        &self.key_id
    }
}

impl Author for Job {
    fn tenant(&self) -> Tenant {
        Tenant {
            organization_id: self.organization_id.clone(),
            livemode: self.livemode,
        }
    }
    fn key_id(&self) -> &str {
        &self.api_key_id
    }
}

/// An authenticated key with its organization. An OAuth access token authenticates as
/// a key of its grant (id = the grant id, permissions = its scopes) with `oauth` set.
#[derive(Debug, Clone)]
pub struct Principal {
    pub key: ApiKey,
    pub organization: Organization,
    /// Set when the bearer was an OAuth access token.
    pub oauth: Option<OAuthBearer>,
}

/// What an access token carries besides its permissions.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthBearer {
    /// The resource (audience) the token was issued for.
    pub audience: String,
    pub scopes: Vec<crate::oauth::OAuthScope>,
}

/// A principal cleared to act in one organization.
#[derive(Debug, Clone)]
pub struct Access {
    pub tenant: Tenant,
    pub organization: Organization,
    pub key_id: String,
    /// The key's permissions, for acts that need more than the operation's own scope
    /// (suspending an account is an admin act).
    pub permissions: Vec<crate::organizations::Permission>,
}

impl Access {
    /// Checks that the key may also use `needed` on `resource`.
    ///
    /// # Errors
    /// `insufficient_permissions` naming what is needed.
    pub fn require(&self, needed: Scope, resource: &str) -> DomainResult<()> {
        if permits(&self.permissions, needed, resource) {
            Ok(())
        } else {
            Err(DomainError::InsufficientPermissions {
                required: needed.as_str().to_owned(),
            })
        }
    }

    /// The organization whose credit pool pays for writes (the root).
    pub fn pool_id(&self) -> String {
        self.organization.root_id().to_owned()
    }
}

fn auth_error(code: ErrorCode, message: &str) -> DomainError {
    DomainError::authentication(code, message)
}

impl<S: Store> Ledger<S> {
    /// Finds the key behind a bearer secret, given the secret and its SHA-256 hex hash.
    ///
    /// # Errors
    /// `invalid_api_key` for an unknown or malformed key, `expired_api_key` past its
    /// expiry or a rotated secret past its grace period, `disabled_api_key` for a disabled key.
    pub async fn authenticate(&self, secret: &str, hash: &str) -> DomainResult<Principal> {
        if secret.starts_with(crate::oauth::ACCESS_TOKEN_PREFIX) {
            return self.authenticate_access_token(hash).await;
        }
        let Some(livemode) = mode_of_secret(secret) else {
            return Err(auth_error(
                ErrorCode::InvalidApiKey,
                "the API key is malformed; keys start with ha_live_ or ha_test_",
            ));
        };
        // A copy read moments ago will do (LedgerConfig::key_cache_ttl); unknown secrets
        // are never remembered, so a new key works at once.
        let principal = match self.key_cache.get(hash) {
            Some(principal) => principal,
            None => {
                let (key, organization) = self
                    .store
                    .find_principal_by_hash(hash)
                    .await?
                    .ok_or_else(|| {
                        auth_error(ErrorCode::InvalidApiKey, "the API key is not valid")
                    })?;
                let principal = Principal {
                    key,
                    organization,
                    oauth: None,
                };
                self.key_cache.put(hash.to_owned(), principal.clone());
                principal
            }
        };
        let Principal {
            key, organization, ..
        } = principal;
        if key.livemode != livemode {
            return Err(auth_error(
                ErrorCode::InvalidApiKey,
                "the API key is not valid",
            ));
        }
        let now = self.now();
        if key.previous_hash.as_deref() == Some(hash)
            && key.previous_expires_at.is_none_or(|t| t <= now)
        {
            return Err(auth_error(
                ErrorCode::ExpiredApiKey,
                "this API key was rotated and its grace period has ended",
            ));
        }
        if key.expires_at.is_some_and(|t| t <= now) {
            return Err(auth_error(
                ErrorCode::ExpiredApiKey,
                "the API key has expired",
            ));
        }
        if key.disabled {
            return Err(auth_error(
                ErrorCode::DisabledApiKey,
                "the API key is disabled",
            ));
        }
        Ok(Principal {
            key,
            organization,
            oauth: None,
        })
    }

    /// Forgets every remembered key (after a key changed: its old hash is not known here).
    pub(super) fn forget_keys(&self) {
        self.key_cache.clear();
    }

    /// The organizations below the access's organization, at any depth, in tree order
    /// (a parent before its children), each with its depth below it (1 for a child).
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn list_sub_organizations(
        &self,
        access: &Access,
        page: crate::ports::PageRequest,
    ) -> DomainResult<crate::ports::Page<(Organization, i64)>> {
        let segments = |path: &str| path.trim_matches('/').split('/').count() as i64;
        let base = segments(&access.organization.path);
        let found = self
            .store
            .list_descendants(&access.organization.path, page)
            .await?;
        Ok(crate::ports::Page {
            total_count: found.total_count,
            items: found
                .items
                .into_iter()
                .map(|o| {
                    let depth = segments(&o.path) - base;
                    (o, depth)
                })
                .collect(),
        })
    }

    /// The organization of `access` as stored now (the one in `access` may be a copy up to
    /// `LedgerConfig::key_cache_ttl` old; views that show credits read it again).
    ///
    /// # Errors
    /// Storage failures; `organization_not_found` if it is gone.
    pub async fn current_organization(&self, access: &Access) -> DomainResult<Organization> {
        self.store
            .get_organization(&access.organization.id)
            .await?
            .ok_or_else(|| DomainError::OrganizationNotFound(access.organization.id.clone()))
    }

    /// Clears `principal` to use `needed` on `resource` in organization `org_id`.
    ///
    /// # Errors
    /// `organization_not_found` when the key does not reach the organization;
    /// `insufficient_permissions` when it lacks the permission.
    pub async fn authorize(
        &self,
        principal: &Principal,
        org_id: &str,
        needed: Scope,
        resource: &str,
    ) -> DomainResult<Access> {
        let organization = if principal.organization.id == org_id {
            principal.organization.clone()
        } else {
            let found = match crate::ids::parse_id(crate::ids::IdKind::Organization, org_id) {
                Some(id) => self.store.get_organization(&id).await?,
                None => None,
            };
            found
                .filter(|o| principal.organization.reaches(o))
                .ok_or_else(|| DomainError::OrganizationNotFound(org_id.to_owned()))?
        };
        self.check_permission(principal, needed, resource)?;
        Ok(Access {
            tenant: Tenant {
                organization_id: organization.id.clone(),
                livemode: principal.key.livemode,
            },
            organization,
            key_id: principal.key.id.clone(),
            permissions: principal.key.permissions.clone(),
        })
    }

    /// Checks a permission without an organization in the path.
    ///
    /// # Errors
    /// `insufficient_permissions` naming what is needed.
    pub fn check_permission(
        &self,
        principal: &Principal,
        needed: Scope,
        resource: &str,
    ) -> DomainResult<()> {
        if permits(&principal.key.permissions, needed, resource) {
            Ok(())
        } else {
            Err(DomainError::InsufficientPermissions {
                required: needed.as_str().to_owned(),
            })
        }
    }
}
