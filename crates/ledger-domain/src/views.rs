//! The canonical JSON form of each resource (REST shapes, snake_case, amounts as decimal
//! strings at the currency's scale). REST answers with it, MCP relays it, and audit events
//! store it as `after_state`, so it is defined once, here.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::accounts::{Account, Totals};
use crate::events::Event;
use crate::jobs::Job;
use crate::money::{Currency, format_units};
use crate::organizations::{ApiKey, Organization};
use crate::transactions::Transaction;

/// RFC 3339 UTC with `Z`.
pub fn timestamp(at: OffsetDateTime) -> String {
    at.to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_default()
}

/// Optional timestamp.
pub fn opt_timestamp(at: Option<OffsetDateTime>) -> Value {
    at.map_or(Value::Null, |t| Value::String(timestamp(t)))
}

/// Decimals of a currency code (2 when unknown).
pub fn decimals_of(code: &str) -> u32 {
    Currency::from_code(code).map_or(2, |c| c.decimals())
}

/// An amount of `currency` as a decimal string.
pub fn amount(units: i64, currency: &str) -> String {
    format_units(units, decimals_of(currency))
}

/// The account object; `totals` fills `balance` when known.
pub fn account(a: &Account, totals: Option<Totals>) -> Value {
    let mut v = json!({
        "id": a.id,
        "object": "account",
        "organization_id": a.organization_id,
        "livemode": a.livemode,
        "name": a.name,
        "code": a.code,
        "type": a.account_type.as_str(),
        "subtype": a.subtype,
        "currency": a.currency,
        "description": a.description,
        "is_active": a.status.accepts_postings(),
        "status": a.status.as_str(),
        "parent_id": a.parent_id,
        "is_system": a.is_system,
        "metadata": a.metadata,
        "created_at": timestamp(a.created_at),
        "updated_at": timestamp(a.updated_at),
    });
    if let Some(t) = totals {
        v["balance"] = balance(a, t);
    }
    v
}

/// `{debit, credit, net}` of an account, net in its normal direction.
pub fn balance(a: &Account, t: Totals) -> Value {
    json!({
        "debit": amount(t.debit, &a.currency),
        "credit": amount(t.credit, &a.currency),
        "net": amount(a.account_type.net(t.debit, t.credit), &a.currency),
    })
}

/// The transaction object with its entries.
pub fn transaction(t: &Transaction) -> Value {
    let entries: Vec<Value> = t
        .entries
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "account_id": e.line.account_id,
                "entry_type": e.line.entry_type.as_str(),
                "amount": amount(e.line.amount, &t.currency),
                "description": e.line.description,
            })
        })
        .collect();
    json!({
        "id": t.id,
        "object": "transaction",
        "organization_id": t.organization_id,
        "livemode": t.livemode,
        "description": t.description,
        "date": timestamp(t.date),
        "status": t.status.as_str(),
        "amount": amount(t.amount, &t.currency),
        "currency": t.currency,
        "reference": t.reference,
        "reversal_of": t.reversal_of,
        "reversed_by": t.reversed_by,
        "reversal_reason": t.reversal_reason,
        "entries": entries,
        "metadata": t.metadata,
        "posted_at": opt_timestamp(t.posted_at),
        "created_at": timestamp(t.created_at),
        "updated_at": timestamp(t.updated_at),
    })
}

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
        "last_used_at": opt_timestamp(k.last_used_at),
        "created_at": timestamp(k.created_at),
    });
    if let Some(secret) = secret {
        v["key"] = Value::String(secret.to_owned());
    }
    v
}

/// The event record (spec 2.11).
pub fn event(e: &Event) -> Value {
    json!({
        "id": e.id,
        "object": "event",
        "event_type": e.event_type,
        "entity_type": e.entity_type,
        "entity_id": e.entity_id,
        "timestamp": timestamp(e.created_at),
        "api_key_id": e.api_key_id,
        "before_state": e.before_state,
        "after_state": e.after_state,
    })
}

/// The queued-write envelope (spec 4.2, DECISIONS 4).
pub fn job_envelope(j: &Job, base_path: &str) -> Value {
    let (resource_type, resource_id) = j.command.resource();
    let mut data = json!({
        "status": j.status.as_str(),
        "operation": j.command.name(),
        "resource_type": resource_type,
        "resource_id": resource_id,
        "status_url": format!("{base_path}/organizations/{}/requests/{}", j.organization_id, j.id),
        "estimated_completion": timestamp(j.run_at + time::Duration::seconds(1)),
        "attempts": j.attempts,
    });
    if let Some(result) = &j.result {
        data["result"] = result.clone();
    }
    let duration_ms = j
        .completed_at
        .map_or(0, |c| (c - j.created_at).whole_milliseconds().max(0));
    json!({
        "request_id": j.id,
        "object": "request",
        "success": !matches!(j.status, crate::jobs::JobStatus::Failed),
        "data": data,
        "error": j.error.clone().unwrap_or(Value::Null),
        "duration_ms": duration_ms,
        "credit_cost": j.credit_cost,
        "created_at": timestamp(j.created_at),
    })
}
