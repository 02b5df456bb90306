//! Organizations and what belongs to one as a tenant: API keys, settings, billing and
//! ownership transfers.

use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::credits::Billing;
use crate::organizations::{ApiKey, Organization};
use crate::ports::Setting;

use super::{opt_timestamp, timestamp};

/// The organization object.
pub fn organization(o: &Organization) -> Value {
    json!({
        "id": o.id,
        "object": "organization",
        "name": o.name,
        "base_currency": o.base_currency,
        "is_root": o.is_root(),
        "parent_organization_id": o.parent_id,
        "relationship_type": o.relationship.map(|r| r.as_str()),
        "credits_remaining": o.credits_remaining,
        "metadata": o.metadata,
        "created_at": timestamp(o.created_at),
        "updated_at": timestamp(o.updated_at),
    })
}

/// The API key object; `secret` is included only when the key was just made or rotated.
pub fn api_key(k: &ApiKey, secret: Option<&str>) -> Value {
    let mut v = json!({
        "id": k.id,
        "object": "api_key",
        "organization_id": k.organization_id,
        "name": k.name,
        "mode": if k.livemode { "live" } else { "test" },
        "livemode": k.livemode,
        "permissions": k.permissions.iter().map(|p| p.as_string()).collect::<Vec<_>>(),
        "last4": k.last4,
        "expires_at": opt_timestamp(k.expires_at),
        "disabled": k.disabled,
        "previous_key_expires_at": opt_timestamp(k.previous_hash.as_ref().and(k.previous_expires_at)),
        "last_used_at": opt_timestamp(k.last_used_at),
        "created_at": timestamp(k.created_at),
    });
    if let Some(secret) = secret {
        v["key"] = Value::String(secret.to_owned());
    }
    v
}

/// A setting of a tenant.
pub fn setting(s: &Setting) -> Value {
    json!({
        "object": "setting",
        "key": s.key,
        "value": s.value,
        "livemode": s.livemode,
        "updated_at": timestamp(s.updated_at),
    })
}

/// The billing record (spec 2.2, DECISIONS 10).
pub fn billing(b: &Billing) -> Value {
    json!({
        "object": "billing",
        "organization_id": b.pool_id,
        "credits_remaining": b.credits_remaining,
        "credits_total": b.credits_total,
        "auto_recharge_enabled": b.auto_recharge_enabled,
        "billing_email": b.billing_email,
        "test_credits_used": b.test_credits_used,
    })
}

/// An ownership transfer (spec 2.10) as of `now` (a pending transfer past its expiry
/// reads `expired`), with its sender's and recipient's user fields. A user's display
/// name is the provider username, else the e-mail (users have no other name).
pub fn organization_transfer(
    t: &crate::ownership::OrganizationTransfer,
    from: Option<&crate::organizations::User>,
    to: Option<&crate::organizations::User>,
    now: OffsetDateTime,
) -> Value {
    let username =
        |u: Option<&crate::organizations::User>| u.and_then(|u| u.provider_username.clone());
    let display = |u: Option<&crate::organizations::User>| {
        u.map(|u| {
            u.provider_username
                .clone()
                .unwrap_or_else(|| u.email.clone())
        })
    };
    let email = |u: Option<&crate::organizations::User>| u.map(|u| u.email.clone());
    json!({
        "id": t.id,
        "object": "organization_transfer",
        "organization_id": t.organization_id,
        "organization_name": t.organization_name,
        "from_user_id": t.from_user_id,
        "from_provider_username": username(from),
        "from_display_name": display(from),
        "from_email": email(from),
        "to_user_id": t.to_user_id,
        "to_provider_username": username(to),
        "to_display_name": display(to),
        "to_email": email(to),
        "status": t.status_at(now).as_str(),
        "relationship_on_accept": t.relationship_on_accept.map(|r| r.as_str()),
        "to_organization_id": t.to_organization_id,
        "initiated_at": timestamp(t.initiated_at),
        "responded_at": t.responded_at.map(timestamp),
        "expires_at": timestamp(t.expires_at),
        "descendant_org_count": t.descendant_org_count,
        "total_org_count": t.total_org_count(),
    })
}

/// The `stats` of a transfer (spec 4.4): the subtree's figures in the caller's mode.
pub fn transfer_stats(
    t: &crate::ownership::OrganizationTransfer,
    s: &crate::ownership::SubtreeStats,
    livemode: bool,
) -> Value {
    json!({
        "object": "organization_transfer_stats",
        "transfer_id": t.id,
        "organization_id": t.organization_id,
        "livemode": livemode,
        "descendant_organizations": s.organizations - 1,
        "total_organizations": s.organizations,
        "accounts": s.accounts,
        "transactions": s.transactions,
        "invoices": s.invoices,
        "bills": s.bills,
        "contacts": s.contacts,
        "categories": s.categories,
        "items": s.items,
        "api_keys": s.api_keys,
    })
}
