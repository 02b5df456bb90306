//! Audit events (spec 2.11, 6): one row per change, written in the change's transaction.

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

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

/// An audit event (spec 2.11): what changed, by which key, and the resource before and
/// after.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Event)]
pub struct EventView<'a> {
    id: &'a str,
    #[schema(example = "event")]
    object: &'static str,
    /// `<resource>.<change>` (`account.created`, `transaction.posted`, ...).
    #[schema(example = "account.created")]
    event_type: &'a str,
    #[schema(example = "account")]
    entity_type: &'a str,
    entity_id: &'a str,
    #[schema(format = DateTime)]
    timestamp: String,
    /// The key that made the change; null for the service's own changes.
    api_key_id: Option<&'a str>,
    /// The resource before the change; null on a creation.
    #[schema(value_type = Option<Object>)]
    before_state: Option<&'a serde_json::Value>,
    /// The resource after the change; null on a deletion.
    #[schema(value_type = Option<Object>)]
    after_state: Option<&'a serde_json::Value>,
}

impl<'a> EventView<'a> {
    /// The event record of `e`.
    pub fn of(e: &'a Event) -> Self {
        Self {
            id: &e.id,
            object: "event",
            event_type: &e.event_type,
            entity_type: &e.entity_type,
            entity_id: &e.entity_id,
            timestamp: crate::dates::timestamp(e.created_at),
            api_key_id: e.api_key_id.as_deref(),
            before_state: e.before_state.as_ref(),
            after_state: e.after_state.as_ref(),
        }
    }
}

/// The event record (spec 2.11).
pub fn view(e: &Event) -> serde_json::Value {
    crate::wire::json(&EventView::of(e))
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
