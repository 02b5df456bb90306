//! Organizations, users, API keys and permissions (DECISIONS 3).

use crate::ids::names;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// How a sub-organization relates to its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relationship {
    /// Consolidated into the parent.
    Owned,
    /// Stand-alone.
    Linked,
}

names!(
    Relationship,
    exact,
    {
        Owned => "owned",
        Linked => "linked",
    }
);

/// A person who owns organizations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub provider_id: String,
    pub email: String,
    pub provider_username: Option<String>,
    pub created_at: OffsetDateTime,
}

/// A tenant.
#[derive(Debug, Clone, PartialEq)]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub parent_id: Option<String>,
    /// `/org_root/.../org_self/`: the ids from the root down to this organization.
    pub path: String,
    pub relationship: Option<Relationship>,
    pub owner_user_id: String,
    pub base_currency: String,
    pub credits_remaining: i64,
    pub credits_total: i64,
    pub metadata: serde_json::Value,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl Organization {
    /// Whether this is a root organization.
    pub fn is_root(&self) -> bool {
        self.parent_id.is_none()
    }

    /// The root organization's id (the first id of the path).
    pub fn root_id(&self) -> &str {
        self.path
            .trim_matches('/')
            .split('/')
            .next()
            .unwrap_or(&self.id)
    }

    /// Whether `other` is this organization or one of its descendants.
    pub fn reaches(&self, other: &Organization) -> bool {
        other.path.starts_with(&self.path)
    }

    /// The path of a child of this organization with id `child_id`.
    pub fn child_path(&self, child_id: &str) -> String {
        format!("{}{child_id}/", self.path)
    }
}

/// The four permission levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Read,
    Write,
    Admin,
    System,
}

names!(
    Scope,
    exact,
    {
        Read => "read",
        Write => "write",
        Admin => "admin",
        System => "system",
    }
);

impl Scope {
    /// Whether holding `self` grants `needed`: admin covers write and read, write covers
    /// read; `system` covers only `/system`.
    pub fn covers(self, needed: Scope) -> bool {
        match (self, needed) {
            (Self::System, Self::System) => true,
            (Self::System, _) | (_, Self::System) => false,
            (held, needed) => held >= needed,
        }
    }
}

/// A permission: a scope, optionally narrowed to one resource (`invoices:write`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Permission {
    pub scope: Scope,
    pub resource: Option<String>,
}

impl Permission {
    /// Parses `read`, `write`, `admin`, `system` or `<resource>:<scope>`.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim().to_ascii_lowercase();
        match text.split_once(':') {
            None => Scope::parse(&text).map(|scope| Self {
                scope,
                resource: None,
            }),
            Some((resource, scope)) => {
                let valid = !resource.is_empty()
                    && resource
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'-');
                let scope = Scope::parse(scope).filter(|s| *s != Scope::System)?;
                valid.then(|| Self {
                    scope,
                    resource: Some(resource.to_owned()),
                })
            }
        }
    }

    /// The text form.
    pub fn as_string(&self) -> String {
        match &self.resource {
            None => self.scope.as_str().to_owned(),
            Some(resource) => format!("{resource}:{}", self.scope.as_str()),
        }
    }

    /// Whether this permission allows `needed` on `resource`.
    pub fn allows(&self, needed: Scope, resource: &str) -> bool {
        self.scope.covers(needed) && self.resource.as_deref().is_none_or(|r| r == resource)
    }
}

/// Whether a set of permissions allows `needed` on `resource`.
pub fn permits(permissions: &[Permission], needed: Scope, resource: &str) -> bool {
    permissions.iter().any(|p| p.allows(needed, resource))
}

/// A stored API key. The secret itself is never stored, only its SHA-256 hash.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiKey {
    pub id: String,
    pub organization_id: String,
    pub name: String,
    pub livemode: bool,
    pub permissions: Vec<Permission>,
    pub key_hash: String,
    /// The last four characters of the secret, to recognise a key in lists.
    pub last4: String,
    pub expires_at: Option<OffsetDateTime>,
    pub disabled: bool,
    /// The hash of the secret replaced by the last rotation, valid until `previous_expires_at`.
    pub previous_hash: Option<String>,
    pub previous_expires_at: Option<OffsetDateTime>,
    pub last_used_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
}

/// The key prefix for a mode.
pub fn key_prefix(livemode: bool) -> &'static str {
    if livemode { "ha_live_" } else { "ha_test_" }
}

/// The mode a secret claims by its prefix, or `None` when it has neither prefix.
pub fn mode_of_secret(secret: &str) -> Option<bool> {
    if secret.starts_with("ha_live_") {
        Some(true)
    } else if secret.starts_with("ha_test_") {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest() {
        assert!(Scope::Admin.covers(Scope::Write));
        assert!(Scope::Write.covers(Scope::Read));
        assert!(!Scope::Read.covers(Scope::Write));
        assert!(!Scope::Admin.covers(Scope::System));
        assert!(!Scope::System.covers(Scope::Read));
    }

    #[test]
    fn narrowed_permissions() {
        let p = Permission::parse("invoices:write").expect("valid");
        assert!(p.allows(Scope::Read, "invoices"));
        assert!(!p.allows(Scope::Read, "accounts"));
        assert!(Permission::parse("invoices:system").is_none());
        assert!(Permission::parse("owner").is_none());
        assert_eq!(p.as_string(), "invoices:write");
    }

    #[test]
    fn paths_define_reach() {
        let org = |id: &str, path: &str| Organization {
            id: id.into(),
            name: id.into(),
            parent_id: None,
            path: path.into(),
            relationship: None,
            owner_user_id: "usr".into(),
            base_currency: "USD".into(),
            credits_remaining: 0,
            credits_total: 0,
            metadata: serde_json::Value::Null,
            created_at: OffsetDateTime::UNIX_EPOCH,
            updated_at: OffsetDateTime::UNIX_EPOCH,
        };
        let root = org("org_a", "/org_a/");
        let child = org("org_b", &root.child_path("org_b"));
        let other = org("org_c", "/org_c/");
        assert!(root.reaches(&child));
        assert!(!child.reaches(&root));
        assert!(!root.reaches(&other));
        assert_eq!(child.root_id(), "org_a");
    }
}

/// What a sign-up made: the organization and its keys with their secrets.
#[derive(Debug, Clone)]
pub struct SignupResult {
    pub organization: Organization,
    pub keys: Vec<(ApiKey, String)>,
}
