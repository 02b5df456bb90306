//! The canonical JSON form of each resource (REST shapes, snake_case, amounts as decimal
//! strings at the currency's scale). REST answers with it, MCP relays it, and audit events
//! store it as `after_state`, so it is defined once, here.

use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::accounts::{Account, Totals};
use crate::categories::Category;
use crate::contacts::Contact;
use crate::credits::Billing;
use crate::documents::{Document, DocumentKind, Payment, StatusChange};
use crate::events::Deletion;
use crate::jobs::Job;
use crate::money::{Currency, format_units};
use crate::organizations::{ApiKey, Organization};
use crate::ports::{Setting, SystemInfo};
use crate::tax::{Tax, format_rate};
use crate::transactions::Transaction;

// The values every view writes the same way are defined with their types, below the
// views (and re-exported here for the interfaces).
pub use crate::dates::{iso_date as date, opt_timestamp, timestamp};
pub use crate::events::view as event;
pub use crate::money::{amount, decimals_of};

/// The account object; `totals` fills `balance` when known.
/// The answer to a soft delete: what was deleted and until when it can be restored.
pub fn deleted(object: &str, id: &str, recoverable_until: OffsetDateTime) -> Value {
    json!({
        "id": id,
        "object": object,
        "deleted": true,
        "recoverable_until": timestamp(recoverable_until),
    })
}

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
                "amount": amount(e.line.amount, e.line.currency_in(&t.currency)),
                "currency": e.line.currency_in(&t.currency),
                "description": e.line.description,
            })
        })
        .collect();
    let lines: Vec<crate::transactions::EntryLine> =
        t.entries.iter().map(|e| e.line.clone()).collect();
    let rates: serde_json::Map<String, Value> =
        crate::transactions::implied_rates(&lines, &t.currency)
            .into_iter()
            .map(|(code, rate)| (code, Value::String(rate)))
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
        "exchange_rates": rates,
        "reference": t.reference,
        "reversal_of": t.reversal_of,
        "reversed_by": t.reversed_by,
        "reversal_reason": t.reversal_reason,
        "contact_id": t.contact_id,
        "category_id": t.category_id,
        "entries": entries,
        "metadata": t.metadata,
        "posted_at": opt_timestamp(t.posted_at),
        "created_at": timestamp(t.created_at),
        "updated_at": timestamp(t.updated_at),
    })
}

/// What a job on a transaction answers: the transfer it records, else the transaction.
pub fn journal(t: &Transaction) -> Value {
    crate::transfers::view(t).unwrap_or_else(|| transaction(t))
}

/// A batch of transactions written together: its id and each transaction, in order.
pub fn batch(id: &str, transactions: Vec<Value>) -> Value {
    json!({
        "id": id,
        "object": "transaction_batch",
        "count": transactions.len(),
        "transactions": transactions,
    })
}

/// The complete contact object (spec 2.5).
pub fn contact(c: &Contact) -> Value {
    let f = &c.fields;
    json!({
        "id": c.id,
        "object": "contact",
        "organization_id": c.organization_id,
        "livemode": c.livemode,
        "contact_type": c.contact_type.as_str(),
        "name": f.name,
        "email": f.email,
        "phone": f.phone,
        "website": f.website,
        "tax_number": f.tax_number,
        "reference": f.reference,
        "address": f.address,
        "city": f.city,
        "state": f.state,
        "zip_code": f.zip_code,
        "country": f.country,
        "currency_id": f.currency_id,
        "enabled": f.enabled,
        "created_by": c.created_by,
        "metadata": f.metadata,
        "created_at": timestamp(c.created_at),
        "updated_at": timestamp(c.updated_at),
    })
}

/// The summary of a contact in the list (spec 2.5).
pub fn contact_summary(c: &Contact) -> Value {
    json!({
        "id": c.id,
        "contact_type": c.contact_type.as_str(),
        "name": c.fields.name,
        "email": c.fields.email,
        "phone": c.fields.phone,
        "reference": c.fields.reference,
        "enabled": c.fields.enabled,
        "created_at": timestamp(c.created_at),
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
        "previous_key_expires_at": opt_timestamp(k.previous_hash.as_ref().and(k.previous_expires_at)),
        "last_used_at": opt_timestamp(k.last_used_at),
        "created_at": timestamp(k.created_at),
    });
    if let Some(secret) = secret {
        v["key"] = Value::String(secret.to_owned());
    }
    v
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

/// A row of the soft-delete audit trail (DECISIONS 10).
pub fn deletion(d: &Deletion) -> Value {
    json!({
        "resource_type": d.resource_type,
        "resource_id": d.resource_id,
        "name": d.name,
        "organization_id": d.organization_id,
        "deleted_at": timestamp(d.deleted_at),
        "deleted_by": d.deleted_by,
        "recoverable_until": timestamp(d.recoverable_until),
    })
}

/// An uptime as `3d 4h 5m 6s` (leading zero units left out).
fn uptime(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    let (days, hours, minutes, seconds) = (
        secs / 86_400,
        secs % 86_400 / 3_600,
        secs % 3_600 / 60,
        secs % 60,
    );
    match (days, hours, minutes) {
        (0, 0, 0) => format!("{seconds}s"),
        (0, 0, _) => format!("{minutes}m {seconds}s"),
        (0, _, _) => format!("{hours}h {minutes}m {seconds}s"),
        _ => format!("{days}d {hours}h {minutes}m {seconds}s"),
    }
}

/// The system information record (spec 2.12). There is no cache yet: its figures are
/// zeros with status `disabled`.
pub fn system_info(s: &SystemInfo) -> Value {
    let by_type: serde_json::Map<String, Value> = s
        .events
        .events_by_type
        .iter()
        .map(|(t, n)| (t.clone(), json!(n)))
        .collect();
    let recent: Vec<Value> = s
        .events
        .recent_events
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "event_type": e.event_type,
                "entity_type": e.entity_type,
                "entity_id": e.entity_id,
                "timestamp": timestamp(e.created_at),
            })
        })
        .collect();
    let database_status = if s.database_up {
        "connected"
    } else {
        "unavailable"
    };
    let workers_status = if s.workers > 0 { "running" } else { "stopped" };
    json!({
        "object": "system",
        "version": s.version,
        "status": s.status.as_str(),
        "uptime": uptime(s.uptime),
        "uptime_seconds": s.uptime.as_secs(),
        "timestamp": timestamp(s.timestamp),
        "event_stats": {
            "total_events": s.events.total_events,
            "events_last_24h": s.events.events_since,
            "events_by_type": by_type,
            "recent_events": recent,
        },
        "database": {
            "status": database_status,
            "connection_pool_size": s.pool.max_size,
            "active_connections": s.pool.in_use,
            "pending_queries": s.pool.waiting,
        },
        "workers": {
            "status": workers_status,
            "active_workers": s.workers,
            "queued_jobs": s.jobs.queued,
            "completed_jobs_24h": s.jobs.completed_since,
            "failed_jobs_24h": s.jobs.failed_since,
        },
        "cache": {
            "status": "disabled",
            "hit_rate": 0,
            "memory_usage": 0,
            "keys_count": 0,
        },
    })
}

/// The tax object; the rate is a percentage string with four decimals (`"8.2500"`).
pub fn tax(t: &Tax) -> Value {
    json!({
        "id": t.id,
        "object": "tax",
        "organization_id": t.organization_id,
        "livemode": t.livemode,
        "name": t.name,
        "description": t.description,
        "rate": format_rate(t.rate),
        "tax_type": t.tax_type.as_str(),
        "is_compound": t.is_compound,
        "is_active": t.is_active,
        "created_at": timestamp(t.created_at),
        "updated_at": timestamp(t.updated_at),
    })
}

/// The category object; `subcategories` (the direct children) when known.
pub fn category(c: &Category, subcategories: Option<&[Category]>) -> Value {
    let mut v = json!({
        "id": c.id,
        "object": "category",
        "organization_id": c.organization_id,
        "livemode": c.livemode,
        "name": c.name,
        "description": c.description,
        "category_type": c.category_type.as_str(),
        "color": c.color,
        "is_active": c.is_active,
        "parent_id": c.parent_id,
        "created_at": timestamp(c.created_at),
        "updated_at": timestamp(c.updated_at),
    });
    if let Some(children) = subcategories {
        v["subcategories"] = children.iter().map(|k| category(k, None)).collect();
    }
    v
}

/// A quantity (four stored decimals) without trailing zeros: `2`, `1.5`.
pub fn quantity(units: i64) -> String {
    let text = format_units(units, 4);
    match text.split_once('.') {
        Some((whole, frac)) => {
            let frac = frac.trim_end_matches('0');
            if frac.is_empty() {
                whole.to_owned()
            } else {
                format!("{whole}.{frac}")
            }
        }
        None => text,
    }
}

/// An invoice or a bill with its items, taxes, totals and payments (spec 2.8). `status`
/// reads `overdue` when the due date is before `today` with a balance due.
pub fn document(d: &Document, payments: &[Payment], today: time::Date) -> Value {
    let money = |units: i64| amount(units, &d.currency);
    let items: Vec<Value> = d
        .items
        .iter()
        .map(|i| {
            json!({
                "description": i.description,
                "quantity": quantity(i.quantity),
                "unit_price": money(i.unit_price),
                "item_id": i.item_id,
                "account_id": i.account_id,
                "tax_ids": i.tax_ids,
                "category_id": i.category_id,
                "amount": money(i.amount),
                "tax_amount": money(i.tax_amount),
                "line_total": money(i.line_total()),
            })
        })
        .collect();
    let taxes: Vec<Value> = d
        .taxes
        .iter()
        .map(|t| {
            json!({
                "tax_id": t.tax_id,
                "name": t.name,
                "rate": format_rate(t.rate),
                "amount": money(t.amount),
            })
        })
        .collect();
    let (date_field, number_field) = (d.kind.date_field(), d.kind.number_field());
    let mut v = json!({
        "id": d.id,
        "object": d.kind.as_str(),
        "organization_id": d.organization_id,
        "livemode": d.livemode,
        "contact_id": d.contact_id,
        "due_date": date(d.due_date),
        "currency": d.currency,
        "status": d.display_status(today),
        "items": items,
        "taxes": taxes,
        "subtotal": money(d.subtotal),
        "tax_amount": money(d.tax_amount),
        "total": money(d.total),
        "amount_paid": money(d.amount_paid),
        "balance_due": money(d.balance_due()),
        "notes": d.notes,
        "posting_transaction_id": d.posting_id,
        "payments": payments.iter().map(payment).collect::<Vec<_>>(),
        "created_at": timestamp(d.created_at),
        "updated_at": timestamp(d.updated_at),
    });
    v[number_field] = json!(d.number);
    v[date_field] = json!(date(d.issue_date));
    v
}

/// A payment on an invoice or a bill (spec 2.8).
pub fn payment(p: &Payment) -> Value {
    let mut v = json!({
        "id": p.id,
        "object": "payment",
        "amount": amount(p.amount, &p.currency),
        "currency": p.currency,
        "payment_date": date(p.payment_date),
        "payment_method": p.payment_method,
        "reference": p.reference,
        "notes": p.notes,
        "account_id": p.account_id,
        "transaction_id": p.transaction_id,
        "created_at": timestamp(p.created_at),
    });
    let field = match p.kind {
        DocumentKind::Invoice => "invoice_id",
        DocumentKind::Bill => "bill_id",
    };
    v[field] = json!(p.document_id);
    v
}

/// A row of a document's status history (DECISIONS 10).
pub fn status_change(c: &StatusChange) -> Value {
    json!({
        "status": c.status.as_str(),
        "changed_at": timestamp(c.changed_at),
        "api_key_id": c.api_key_id,
        "note": c.note,
    })
}

/// A currency (global reference data, ISO 4217): its id is `cur_` and its code.
pub fn currency(c: &Currency) -> Value {
    json!({
        "id": crate::exchange::currency_id(c),
        "object": "currency",
        "code": c.code(),
        "name": c.name(),
        "symbol": c.symbol(),
        "decimals": c.decimals(),
    })
}

/// An exchange rate of an organization; the rate is its exact decimal text.
pub fn exchange_rate(r: &crate::exchange::ExchangeRate) -> Value {
    json!({
        "id": r.id,
        "object": "exchange_rate",
        "from_currency": r.from_currency,
        "to_currency": r.to_currency,
        "from_currency_id": format!("{}_{}", crate::exchange::CURRENCY_ID_PREFIX, r.from_currency),
        "to_currency_id": format!("{}_{}", crate::exchange::CURRENCY_ID_PREFIX, r.to_currency),
        "rate": r.rate,
        "effective_date": date(r.effective_date),
        "created_at": timestamp(r.created_at),
        "updated_at": timestamp(r.updated_at),
    })
}

/// A conversion (DECISIONS 10): both amounts at their currency's minor unit.
pub fn conversion(c: &crate::exchange::Conversion) -> Value {
    let from = c.rate.from_currency;
    let to = c.rate.to_currency;
    json!({
        "from_currency": from.code(),
        "to_currency": to.code(),
        "amount": format_units(c.amount, from.decimals()),
        "converted_amount": format_units(c.converted_amount, to.decimals()),
        "rate": c.rate.rate,
        "effective_date": date(c.rate.effective_date),
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

/// An attachment's metadata; `download_url` is the path of its bytes (the storage key
/// stays private).
pub fn attachment(a: &crate::attachments::Attachment) -> Value {
    json!({
        "id": a.id,
        "object": "attachment",
        "owner_type": a.owner_type.as_str(),
        "owner_id": a.owner_id,
        "file_name": a.file_name,
        "content_type": a.content_type,
        "size": a.size_bytes,
        "sha256": a.sha256,
        "download_url": format!("/organizations/{}/attachments/{}/content", a.organization_id, a.id),
        "created_by": a.created_by,
        "created_at": timestamp(a.created_at),
        "livemode": a.livemode,
    })
}

/// A reconciliation (balances in the account type's normal direction, DECISIONS 8):
/// the difference is computed here, on every read, from the matches.
pub fn reconciliation(r: &crate::reconciliation::Reconciliation) -> Value {
    let money = |units: i64| amount(units, &r.currency);
    let matches: Vec<Value> = r
        .matches
        .iter()
        .map(|m| {
            json!({
                "entry_id": m.entry_id,
                "transaction_id": m.transaction_id,
                "date": date(m.date),
                "amount": money(m.amount),
                "description": m.description,
                "statement_line_id": m.statement_line_id,
                "matched_at": timestamp(m.matched_at),
            })
        })
        .collect();
    json!({
        "id": r.id,
        "object": "reconciliation",
        "organization_id": r.organization_id,
        "account_id": r.account_id,
        "currency": r.currency,
        "start_date": date(r.start_date),
        "end_date": date(r.end_date),
        "opening_balance": money(r.opening_balance),
        "closing_balance": money(r.closing_balance),
        "cleared_balance": money(r.cleared_balance()),
        "difference": money(r.difference()),
        "status": r.status.as_str(),
        "matched_count": r.matches.len(),
        "matches": matches,
        "completed_at": opt_timestamp(r.completed_at),
        "created_at": timestamp(r.created_at),
        "updated_at": timestamp(r.updated_at),
        "livemode": r.livemode,
    })
}

/// A statement line with what it is matched to, or the match proposed for it.
pub fn statement_line(
    l: &crate::reconciliation::StatementLine,
    currency: &str,
    matched: Option<&crate::reconciliation::ReconciledEntry>,
    proposal: Option<&crate::reconciliation::matcher::Proposal>,
) -> Value {
    json!({
        "id": l.id,
        "object": "statement_line",
        "reconciliation_id": l.reconciliation_id,
        "line_number": l.line_number,
        "date": date(l.date),
        "amount": amount(l.amount, currency),
        "description": l.description,
        "reference": l.reference,
        "status": if matched.is_some() { "matched" } else { "unmatched" },
        "matched_entry_id": matched.map(|m| m.entry_id.clone()),
        "matched_transaction_id": matched.map(|m| m.transaction_id.clone()),
        "proposal": proposal.map(|p| json!({
            "entry_id": p.entry_id,
            "transaction_id": p.transaction_id,
            "confidence": p.confidence_text(),
            "reason": p.reason,
        })),
    })
}
