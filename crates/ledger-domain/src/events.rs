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
