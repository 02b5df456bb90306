//! The system's own records: audit events, the soft-delete trail, the system
//! information and readiness.

#![expect(dead_code, reason = "documentation types: described, never built")]

use serde_json::Value;
use utoipa::ToSchema;

use super::list_of;

/// An audit event.
#[derive(ToSchema)]
pub(crate) struct Event {
    id: String,
    #[schema(example = "event")]
    object: String,
    event_type: String,
    entity_type: String,
    entity_id: String,
    #[schema(format = DateTime)]
    timestamp: String,
    api_key_id: Option<String>,
    before_state: Option<Value>,
    after_state: Option<Value>,
}

/// A row of the soft-delete audit trail.
#[derive(ToSchema)]
pub(crate) struct Deletion {
    resource_type: String,
    resource_id: String,
    name: Option<String>,
    organization_id: String,
    #[schema(format = DateTime)]
    deleted_at: String,
    deleted_by: Option<String>,
    #[schema(format = DateTime)]
    recoverable_until: String,
}

/// The system information record (spec 2.12).
#[derive(ToSchema)]
pub(crate) struct SystemInfo {
    #[schema(example = "system")]
    object: String,
    version: String,
    status: String,
    uptime: String,
    uptime_seconds: u64,
    #[schema(format = DateTime)]
    timestamp: String,
    event_stats: Value,
    database: Value,
    workers: Value,
    cache: Value,
}

/// Readiness: the database and the job queue.
#[derive(ToSchema)]
pub(crate) struct Readiness {
    /// `ready` or `not_ready`.
    status: String,
    /// `up` or `down`.
    database: String,
    /// `readable` or `unavailable`.
    queue: String,
    queued_jobs: Option<i64>,
    workers: i64,
}

list_of! {
    DeletionList => Deletion,
}
