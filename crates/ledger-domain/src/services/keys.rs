//! API-key management (spec 4.11, DECISIONS 3 and 10): create, list, get, rotate,
//! update (name, disabled) and soft delete.
//!
//! Invariants kept here: a key never grants a permission broader than one it holds;
//! `system` is granted only by an unnarrowed `admin` key of a root organization; a test
//! key never makes a live key; only the SHA-256 hash of a secret reaches the store, and
//! the secret is returned once, by the call that made it.

use time::OffsetDateTime;

use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, new_id};
use crate::organizations::{ApiKey, Permission, Scope};
use crate::ports::{Page, PageRequest, Store};

use super::accounts::tenant_reads;
use super::{Access, IssuedKey, Ledger, Principal};

/// The resource name key management is authorized on (`api_keys:admin` narrows to it).
const RESOURCE: &str = "api_keys";

/// A new key as a client asked for it.
#[derive(Debug, Clone, Default)]
pub struct NewKeyInput {
    pub name: String,
    pub permissions: Vec<String>,
    /// `live` or `test`; the calling key's mode when `None`.
    pub mode: Option<String>,
    pub expires_at: Option<OffsetDateTime>,
}

/// Changes to a key; `None` keeps the value.
#[derive(Debug, Clone, Default)]
pub struct KeyChanges {
    pub name: Option<String>,
    pub disabled: Option<bool>,
}

/// The last four characters of a secret, to recognise a key in lists.
pub(super) fn last4(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    chars[chars.len().saturating_sub(4)..].iter().collect()
}

fn parse_permissions(texts: &[String]) -> DomainResult<Vec<Permission>> {
    if texts.is_empty() {
        return Err(DomainError::invalid_field(
            "permissions",
            "must name at least one permission",
        ));
    }
    let mut permissions: Vec<Permission> = Vec::with_capacity(texts.len());
    for text in texts {
        let permission = Permission::parse(text).ok_or_else(|| {
            DomainError::invalid_field(
                "permissions",
                format!(
                    "unknown permission '{text}'; use read, write, admin, system or \
                     <resource>:<read|write|admin>"
                ),
            )
        })?;
        if !permissions.contains(&permission) {
            permissions.push(permission);
        }
    }
    Ok(permissions)
}

/// Whether `held` allows granting `wanted`: a held permission covering its scope on a
/// resource at least as wide.
fn may_grant(held: &[Permission], wanted: &Permission) -> bool {
    held.iter().any(|h| {
        h.scope.covers(wanted.scope) && (h.resource.is_none() || h.resource == wanted.resource)
    })
}

impl<S: Store> Ledger<S> {
    tenant_reads! {
        fn key_in(id) -> ApiKey: ApiKey, "api_key", get_key;
    }

    /// Creates a key in organization `org_id`; `issue` makes the secret for the chosen
    /// mode (`true` = live). Returns the key and its secret, shown only now.
    ///
    /// # Errors
    /// `organization_not_found`; `insufficient_permissions` without `admin`, for a live
    /// key asked by a test key, for a permission broader than the caller's, or for
    /// `system` unless the caller is an `admin` key of a root organization; validation
    /// errors on `name`, `permissions`, `mode`, `expires_at`.
    pub async fn create_key(
        &self,
        principal: &Principal,
        org_id: &str,
        input: NewKeyInput,
        issue: impl FnOnce(bool) -> DomainResult<IssuedKey> + Send,
    ) -> DomainResult<(ApiKey, String)> {
        let mut access = self
            .authorize(principal, org_id, Scope::Admin, RESOURCE)
            .await?;
        let name = super::signup::check_name(&input.name)?;
        let permissions = parse_permissions(&input.permissions)?;
        let livemode = match input.mode.as_deref().map(str::trim) {
            None => principal.key.livemode,
            Some("live") => true,
            Some("test") => false,
            Some(_) => return Err(DomainError::invalid_field("mode", "must be live or test")),
        };
        if livemode && !principal.key.livemode {
            // Test keys never reach live data, so they cannot mint a way into it.
            return Err(DomainError::InsufficientPermissions {
                required: "live".to_owned(),
            });
        }
        let held = &principal.key.permissions;
        for wanted in &permissions {
            if wanted.scope == Scope::System {
                let root_admin = principal.organization.is_root()
                    && held
                        .iter()
                        .any(|h| h.scope == Scope::Admin && h.resource.is_none());
                if !root_admin {
                    return Err(DomainError::InsufficientPermissions {
                        required: Scope::Admin.as_str().to_owned(),
                    });
                }
            } else if !may_grant(held, wanted) {
                return Err(DomainError::InsufficientPermissions {
                    required: wanted.as_string(),
                });
            }
        }
        let now = self.now();
        if input.expires_at.is_some_and(|t| t <= now) {
            return Err(DomainError::inconsistent(
                "expires_at",
                "must be in the future",
            ));
        }
        let issued = issue(livemode)?;
        let key = ApiKey {
            id: new_id(IdKind::ApiKey),
            organization_id: access.organization.id.clone(),
            name,
            livemode,
            permissions,
            key_hash: issued.hash,
            last4: last4(&issued.secret),
            expires_at: input.expires_at,
            disabled: false,
            previous_hash: None,
            previous_expires_at: None,
            last_used_at: None,
            created_at: now,
        };
        // The event belongs to the new key's mode, where the key is visible.
        access.tenant.livemode = livemode;
        let event = self.event(
            &access,
            "api_key.created",
            "api_key",
            &key.id,
            None,
            Some(crate::views::api_key(&key, None)),
        );
        let key = self.store.insert_key(key, event).await?;
        Ok((key, issued.secret))
    }

    /// The organization's keys of the caller's mode, newest first.
    ///
    /// # Errors
    /// `organization_not_found`, `insufficient_permissions` without `admin`.
    pub async fn list_keys(
        &self,
        principal: &Principal,
        org_id: &str,
        page: PageRequest,
    ) -> DomainResult<Page<ApiKey>> {
        let access = self
            .authorize(principal, org_id, Scope::Admin, RESOURCE)
            .await?;
        Ok(self.store.list_keys(&access.tenant, page).await?)
    }

    /// One key of the organization, in the caller's mode.
    ///
    /// # Errors
    /// `organization_not_found`, `insufficient_permissions`, `resource_not_found`.
    pub async fn get_key(
        &self,
        principal: &Principal,
        org_id: &str,
        id: &str,
    ) -> DomainResult<ApiKey> {
        Ok(self.admin_key(principal, org_id, id).await?.1)
    }

    /// The access of an `admin` key to organization `org_id` and the key `id` in it.
    async fn admin_key(
        &self,
        principal: &Principal,
        org_id: &str,
        id: &str,
    ) -> DomainResult<(Access, ApiKey)> {
        let access = self
            .authorize(principal, org_id, Scope::Admin, RESOURCE)
            .await?;
        let key = self.key_in(&access, id).await?;
        Ok((access, key))
    }

    /// Stores a change of key `before` to `key`, with its `api_key.<action>` event, and
    /// forgets the cached keys.
    async fn store_key_change(
        &self,
        access: &Access,
        action: &str,
        before: &ApiKey,
        key: ApiKey,
    ) -> DomainResult<ApiKey> {
        let event = self.event(
            access,
            &format!("api_key.{action}"),
            "api_key",
            &key.id,
            Some(crate::views::api_key(before, None)),
            Some(crate::views::api_key(&key, None)),
        );
        let key = self.store.update_key(key, event).await?;
        self.forget_keys();
        Ok(key)
    }

    /// Gives a key a new secret; the old one keeps working for `config.key_grace`, then
    /// answers `expired_api_key`. A secret replaced earlier stops working at once.
    ///
    /// # Errors
    /// `organization_not_found`, `insufficient_permissions`, `resource_not_found`.
    pub async fn rotate_key(
        &self,
        principal: &Principal,
        org_id: &str,
        id: &str,
        issue: impl FnOnce(bool) -> DomainResult<IssuedKey> + Send,
    ) -> DomainResult<(ApiKey, String)> {
        let (access, before) = self.admin_key(principal, org_id, id).await?;
        let issued = issue(before.livemode)?;
        let now = self.now();
        let mut key = before.clone();
        key.previous_hash = Some(before.key_hash.clone());
        key.previous_expires_at = Some(now + self.config.key_grace);
        key.key_hash = issued.hash;
        key.last4 = last4(&issued.secret);
        let key = self
            .store_key_change(&access, "rotated", &before, key)
            .await?;
        Ok((key, issued.secret))
    }

    /// Renames, disables or re-enables a key.
    ///
    /// # Errors
    /// `organization_not_found`, `insufficient_permissions`, `resource_not_found`,
    /// `invalid_field` on `name`.
    pub async fn update_key(
        &self,
        principal: &Principal,
        org_id: &str,
        id: &str,
        changes: KeyChanges,
    ) -> DomainResult<ApiKey> {
        let (access, before) = self.admin_key(principal, org_id, id).await?;
        let mut key = before.clone();
        if let Some(name) = changes.name {
            key.name = super::signup::check_name(&name)?;
        }
        if let Some(disabled) = changes.disabled {
            key.disabled = disabled;
        }
        self.store_key_change(&access, "updated", &before, key)
            .await
    }

    /// Soft-deletes a key: it stops authenticating at once and is purged after the
    /// retention period. Returns the deleted key's id.
    ///
    /// # Errors
    /// `organization_not_found`, `insufficient_permissions`, `resource_not_found`.
    pub async fn delete_key(
        &self,
        principal: &Principal,
        org_id: &str,
        id: &str,
    ) -> DomainResult<String> {
        let (access, key) = self.admin_key(principal, org_id, id).await?;
        let deletion = self.soft_deletion(&access, "api_key", &key.id, &key.name);
        let event = self.event(
            &access,
            "api_key.deleted",
            "api_key",
            &key.id,
            Some(crate::views::api_key(&key, None)),
            None,
        );
        self.store.delete_key(&key.id, deletion, event).await?;
        self.forget_keys();
        Ok(key.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perms(texts: &[&str]) -> Vec<Permission> {
        texts.iter().filter_map(|t| Permission::parse(t)).collect()
    }

    #[test]
    fn grants_never_widen() {
        let admin = perms(&["admin"]);
        for wanted in ["read", "write", "admin", "invoices:write"] {
            assert!(may_grant(
                &admin,
                &Permission::parse(wanted).expect("valid")
            ));
        }
        let narrow = perms(&["invoices:admin"]);
        assert!(may_grant(
            &narrow,
            &Permission::parse("invoices:read").expect("valid")
        ));
        assert!(!may_grant(
            &narrow,
            &Permission::parse("read").expect("valid")
        ));
        assert!(!may_grant(
            &narrow,
            &Permission::parse("accounts:read").expect("valid")
        ));
        let write = perms(&["write"]);
        assert!(!may_grant(
            &write,
            &Permission::parse("admin").expect("valid")
        ));
    }

    #[test]
    fn permission_lists_are_checked_and_deduplicated() {
        assert!(parse_permissions(&[]).is_err());
        assert!(parse_permissions(&["owner".into()]).is_err());
        let parsed =
            parse_permissions(&["read".into(), "READ".into(), "write".into()]).expect("valid");
        assert_eq!(parsed.len(), 2);
    }

    #[test]
    fn last_four() {
        assert_eq!(last4("ha_test_abcdef"), "cdef");
        assert_eq!(last4("ab"), "ab");
    }
}
