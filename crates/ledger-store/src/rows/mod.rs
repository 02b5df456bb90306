//! Row structs of the tables and their conversions to and from domain types.
//!
//! Each struct is checked against both backends. Timestamps are stored as UTC without a
//! zone and truncated to microseconds (PostgreSQL's precision), so both backends return
//! the same instant. A row that does not parse back (unknown enum text, bad JSON) is an
//! `Internal` error, never a panic.

use diesel::prelude::*;
use ledger_domain::StoreError;
use ledger_domain::accounts::{Account, AccountStatus, AccountType};
use ledger_domain::organizations::{ApiKey, Organization, Permission, Relationship, User};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

use crate::schema::*;

mod contacts;
mod credits;
mod documents;
mod journal;
mod webhooks;
pub(crate) use contacts::*;
pub(crate) use credits::*;
pub(crate) use documents::*;
pub(crate) use journal::*;
pub(crate) use webhooks::*;

/// An instant as stored: UTC, microsecond precision.
pub(crate) fn to_db(t: OffsetDateTime) -> PrimitiveDateTime {
    let utc = t.to_offset(UtcOffset::UTC);
    let micros = utc.nanosecond() / 1_000 * 1_000;
    let utc = utc.replace_nanosecond(micros).unwrap_or(utc);
    PrimitiveDateTime::new(utc.date(), utc.time())
}

/// A stored instant back as an `OffsetDateTime` in UTC.
pub(crate) fn from_db(t: PrimitiveDateTime) -> OffsetDateTime {
    t.assume_utc()
}

pub(super) fn opt_to_db(t: Option<OffsetDateTime>) -> Option<PrimitiveDateTime> {
    t.map(to_db)
}

pub(super) fn opt_from_db(t: Option<PrimitiveDateTime>) -> Option<OffsetDateTime> {
    t.map(from_db)
}

pub(crate) fn corrupt(what: &str, value: &str) -> StoreError {
    StoreError::Internal(format!("stored {what} '{value}' does not parse"))
}

/// The stored `text` read back with `parse`; [`corrupt`] naming `what` when it is none of
/// the values `parse` knows.
pub(crate) fn parsed<T>(
    parse: impl FnOnce(&str) -> Option<T>,
    what: &str,
    text: &str,
) -> Result<T, StoreError> {
    parse(text).ok_or_else(|| corrupt(what, text))
}

pub(crate) fn json_text(value: &serde_json::Value) -> String {
    value.to_string()
}

pub(crate) fn parse_json(text: &str) -> Result<serde_json::Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Internal(format!("stored JSON: {e}")))
}

pub(super) fn parse_opt_json(text: Option<&str>) -> Result<Option<serde_json::Value>, StoreError> {
    text.map(parse_json).transpose()
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = users, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct UserRow {
    pub id: String,
    pub provider_id: String,
    pub email: String,
    pub provider_username: Option<String>,
    pub created_at: PrimitiveDateTime,
}

impl From<&User> for UserRow {
    fn from(u: &User) -> Self {
        Self {
            id: u.id.clone(),
            provider_id: u.provider_id.clone(),
            email: u.email.clone(),
            provider_username: u.provider_username.clone(),
            created_at: to_db(u.created_at),
        }
    }
}

impl From<UserRow> for User {
    fn from(r: UserRow) -> Self {
        Self {
            id: r.id,
            provider_id: r.provider_id,
            email: r.email,
            provider_username: r.provider_username,
            created_at: from_db(r.created_at),
        }
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = organizations, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct OrganizationRow {
    pub id: String,
    pub name: String,
    pub parent_id: Option<String>,
    pub path: String,
    pub relationship: Option<String>,
    pub owner_user_id: String,
    pub base_currency: String,
    pub credits_remaining: i64,
    pub credits_total: i64,
    pub metadata: String,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
}

impl From<&Organization> for OrganizationRow {
    fn from(o: &Organization) -> Self {
        Self {
            id: o.id.clone(),
            name: o.name.clone(),
            parent_id: o.parent_id.clone(),
            path: o.path.clone(),
            relationship: o.relationship.map(|r| r.as_str().to_owned()),
            owner_user_id: o.owner_user_id.clone(),
            base_currency: o.base_currency.clone(),
            credits_remaining: o.credits_remaining,
            credits_total: o.credits_total,
            metadata: json_text(&o.metadata),
            created_at: to_db(o.created_at),
            updated_at: to_db(o.updated_at),
        }
    }
}

impl OrganizationRow {
    /// The organization.
    pub(crate) fn into_domain(self) -> Result<Organization, StoreError> {
        let relationship = match self.relationship.as_deref() {
            None => None,
            Some(text) => Some(parsed(Relationship::parse, "relationship", text)?),
        };
        Ok(Organization {
            id: self.id,
            name: self.name,
            parent_id: self.parent_id,
            path: self.path,
            relationship,
            owner_user_id: self.owner_user_id,
            base_currency: self.base_currency,
            credits_remaining: self.credits_remaining,
            credits_total: self.credits_total,
            metadata: parse_json(&self.metadata)?,
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = api_keys, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ApiKeyRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub name: String,
    /// JSON array of permission strings (`["read","invoices:write"]`).
    pub permissions: String,
    pub key_hash: String,
    pub last4: String,
    pub expires_at: Option<PrimitiveDateTime>,
    pub disabled: bool,
    pub previous_hash: Option<String>,
    pub previous_expires_at: Option<PrimitiveDateTime>,
    pub last_used_at: Option<PrimitiveDateTime>,
    pub created_at: PrimitiveDateTime,
    pub deleted_at: Option<PrimitiveDateTime>,
}

impl From<&ApiKey> for ApiKeyRow {
    fn from(k: &ApiKey) -> Self {
        let permissions: Vec<String> = k.permissions.iter().map(Permission::as_string).collect();
        Self {
            organization_id: k.organization_id.clone(),
            livemode: k.livemode,
            id: k.id.clone(),
            name: k.name.clone(),
            permissions: serde_json::Value::from(permissions).to_string(),
            key_hash: k.key_hash.clone(),
            last4: k.last4.clone(),
            expires_at: opt_to_db(k.expires_at),
            disabled: k.disabled,
            previous_hash: k.previous_hash.clone(),
            previous_expires_at: opt_to_db(k.previous_expires_at),
            last_used_at: opt_to_db(k.last_used_at),
            created_at: to_db(k.created_at),
            deleted_at: None,
        }
    }
}

impl TryFrom<ApiKeyRow> for ApiKey {
    type Error = StoreError;
    fn try_from(r: ApiKeyRow) -> Result<Self, StoreError> {
        let texts: Vec<String> = serde_json::from_str(&r.permissions)
            .map_err(|_| corrupt("permissions", &r.permissions))?;
        let permissions = texts
            .iter()
            .map(|t| parsed(Permission::parse, "permission", t))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ApiKey {
            id: r.id,
            organization_id: r.organization_id,
            name: r.name,
            livemode: r.livemode,
            permissions,
            key_hash: r.key_hash,
            last4: r.last4,
            expires_at: opt_from_db(r.expires_at),
            disabled: r.disabled,
            previous_hash: r.previous_hash,
            previous_expires_at: opt_from_db(r.previous_expires_at),
            last_used_at: opt_from_db(r.last_used_at),
            created_at: from_db(r.created_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = accounts, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct AccountRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub code: String,
    pub name: String,
    pub account_type: String,
    pub subtype: Option<String>,
    pub currency: String,
    pub description: Option<String>,
    pub status: String,
    pub parent_id: Option<String>,
    pub is_system: bool,
    pub metadata: String,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
    pub deleted_at: Option<PrimitiveDateTime>,
    pub deleted_by: Option<String>,
    pub recoverable_until: Option<PrimitiveDateTime>,
}

impl From<&Account> for AccountRow {
    fn from(a: &Account) -> Self {
        Self {
            organization_id: a.organization_id.clone(),
            livemode: a.livemode,
            id: a.id.clone(),
            code: a.code.clone(),
            name: a.name.clone(),
            account_type: a.account_type.as_str().to_owned(),
            subtype: a.subtype.clone(),
            currency: a.currency.clone(),
            description: a.description.clone(),
            status: a.status.as_str().to_owned(),
            parent_id: a.parent_id.clone(),
            is_system: a.is_system,
            metadata: json_text(&a.metadata),
            created_at: to_db(a.created_at),
            updated_at: to_db(a.updated_at),
            deleted_at: None,
            deleted_by: None,
            recoverable_until: None,
        }
    }
}

impl TryFrom<AccountRow> for Account {
    type Error = StoreError;
    fn try_from(r: AccountRow) -> Result<Self, StoreError> {
        Ok(Account {
            account_type: parsed(AccountType::parse, "account type", &r.account_type)?,
            status: parsed(AccountStatus::parse, "account status", &r.status)?,
            metadata: parse_json(&r.metadata)?,
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            code: r.code,
            name: r.name,
            subtype: r.subtype,
            currency: r.currency,
            description: r.description,
            parent_id: r.parent_id,
            is_system: r.is_system,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}
