//! Audit events (spec 2.11, 6): one row per change, written in the change's transaction.

use time::OffsetDateTime;

/// An audit event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub event_type: String,
    pub entity_type: String,
    pub entity_id: String,
    pub api_key_id: Option<String>,
    pub before_state: Option<serde_json::Value>,
    pub after_state: Option<serde_json::Value>,
    pub created_at: OffsetDateTime,
}

/// The event record (spec 2.11).
pub fn view(e: &Event) -> serde_json::Value {
    serde_json::json!({
        "id": e.id,
        "object": "event",
        "event_type": e.event_type,
        "entity_type": e.entity_type,
        "entity_id": e.entity_id,
        "timestamp": crate::dates::timestamp(e.created_at),
        "api_key_id": e.api_key_id,
        "before_state": e.before_state,
        "after_state": e.after_state,
    })
}

/// A soft deletion: what was deleted, by which key, and until when it can be recovered.
#[derive(Debug, Clone, PartialEq)]
pub struct Deletion {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub resource_type: String,
    pub resource_id: String,
    pub name: String,
    pub deleted_at: OffsetDateTime,
    pub deleted_by: String,
    pub recoverable_until: OffsetDateTime,
}

/// Default soft-delete retention (DECISIONS 5).
pub const RETENTION_DAYS: i64 = 7;
