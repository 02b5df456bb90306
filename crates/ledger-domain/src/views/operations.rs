//! What operators and clients of queued writes read: soft deletes and their audit
//! trail, the queued-write envelope, the `/system` record, readiness, and the error
//! envelope of every refusal.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::error::{DomainError, ErrorCode};
use crate::events::{Deletion, Event};
use crate::jobs::{Job, JobStatus};
use crate::ports::{JobStats, SystemInfo};

use super::{json, timestamp};

/// The answer to a delete: what was deleted and, for a soft delete, until when it can
/// be restored.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Deleted)]
pub struct DeletedView<'a> {
    id: &'a str,
    /// The kind of resource deleted (`account`, `contact`, `api_key`, ...).
    #[schema(example = "account")]
    object: &'a str,
    deleted: bool,
    /// Until when it can be restored (not for API keys, which are revoked for good).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    recoverable_until: Option<String>,
}

impl<'a> DeletedView<'a> {
    /// The soft delete of the `object` `id`, restorable until `recoverable_until`.
    pub fn soft(object: &'a str, id: &'a str, recoverable_until: OffsetDateTime) -> Self {
        Self {
            id,
            object,
            deleted: true,
            recoverable_until: Some(timestamp(recoverable_until)),
        }
    }

    /// The delete of the `object` `id` for good (a revoked API key).
    pub fn permanent(object: &'a str, id: &'a str) -> Self {
        Self {
            id,
            object,
            deleted: true,
            recoverable_until: None,
        }
    }
}

/// The answer to a soft delete: what was deleted and until when it can be restored.
pub fn deleted(object: &str, id: &str, recoverable_until: OffsetDateTime) -> Value {
    json(&DeletedView::soft(object, id, recoverable_until))
}

/// A row of the soft-delete audit trail (DECISIONS 10).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Deletion)]
pub struct DeletionView<'a> {
    /// The kind of resource deleted (`account`, `contact`, ...).
    resource_type: &'a str,
    resource_id: &'a str,
    /// The resource's name or number when it was deleted.
    name: &'a str,
    organization_id: &'a str,
    #[schema(format = DateTime)]
    deleted_at: String,
    /// The API key that deleted it.
    deleted_by: &'a str,
    #[schema(format = DateTime)]
    recoverable_until: String,
}

impl<'a> DeletionView<'a> {
    /// The row of the deletion `d`.
    pub fn of(d: &'a Deletion) -> Self {
        Self {
            resource_type: &d.resource_type,
            resource_id: &d.resource_id,
            name: &d.name,
            organization_id: &d.organization_id,
            deleted_at: timestamp(d.deleted_at),
            deleted_by: &d.deleted_by,
            recoverable_until: timestamp(d.recoverable_until),
        }
    }
}

/// A row of the soft-delete audit trail (DECISIONS 10).
pub fn deletion(d: &Deletion) -> Value {
    json(&DeletionView::of(d))
}

/// The envelope of a queued write (spec 4.2, DECISIONS 4): answered with 202 while the
/// job runs; `status_url` (also the `Location` header) answers its progress.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = QueuedRequest, example = json!({
    "request_id": "req_01JD0000000000000000000000",
    "object": "request",
    "success": true,
    "data": {
        "status": "queued",
        "operation": "transaction.create",
        "resource_type": "transaction",
        "resource_id": "txn_01JD0000000000000000000000",
        "status_url": "/organizations/org_01JD0000000000000000000000/requests/req_01JD0000000000000000000000",
        "estimated_completion": "2026-11-25T12:00:01Z",
        "attempts": 0
    },
    "error": null,
    "duration_ms": 0,
    "credit_cost": 1,
    "created_at": "2026-11-25T12:00:00Z"
}))]
pub struct QueuedRequestView<'a> {
    request_id: &'a str,
    #[schema(example = "request")]
    object: &'static str,
    /// False once the job failed.
    success: bool,
    data: QueuedRequestDataView<'a>,
    /// The refusal of a failed job (`code`, `message`, `details`); null otherwise.
    error: Option<&'a Value>,
    /// From the request to the job's completion; 0 until it completes.
    duration_ms: i64,
    credit_cost: i64,
    #[schema(format = DateTime)]
    created_at: String,
}

/// Where a queued write stands.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = QueuedRequestData)]
pub struct QueuedRequestDataView<'a> {
    /// `queued`, `processing`, `completed` or `failed`.
    status: &'static str,
    /// The write (`transaction.create`, `invoice.send`, ...).
    #[schema(example = "transaction.create")]
    operation: &'static str,
    /// The kind of resource the write makes or changes.
    #[schema(example = "transaction")]
    resource_type: &'static str,
    /// Its id, known before the job runs.
    resource_id: &'a str,
    status_url: String,
    #[schema(format = DateTime)]
    estimated_completion: String,
    attempts: i32,
    /// The resource, once the job completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
}

impl<'a> QueuedRequestView<'a> {
    /// The envelope of the job `j`; its `status_url` starts with `base_path`.
    pub fn of(j: &'a Job, base_path: &str) -> Self {
        let (resource_type, resource_id) = j.command.resource();
        let duration_ms = j.completed_at.map_or(0, |c| {
            let ms = (c - j.created_at).whole_milliseconds().max(0);
            i64::try_from(ms).unwrap_or(i64::MAX)
        });
        Self {
            request_id: &j.id,
            object: "request",
            success: !matches!(j.status, JobStatus::Failed),
            data: QueuedRequestDataView {
                status: j.status.as_str(),
                operation: j.command.name(),
                resource_type,
                resource_id,
                status_url: format!(
                    "{base_path}/organizations/{}/requests/{}",
                    j.organization_id, j.id
                ),
                estimated_completion: timestamp(j.run_at + time::Duration::seconds(1)),
                attempts: j.attempts,
                result: j.result.as_ref(),
            },
            error: j.error.as_ref(),
            duration_ms,
            credit_cost: j.credit_cost,
            created_at: timestamp(j.created_at),
        }
    }
}

/// The queued-write envelope (spec 4.2, DECISIONS 4).
pub fn job_envelope(j: &Job, base_path: &str) -> Value {
    json(&QueuedRequestView::of(j, base_path))
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
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SystemInfo)]
pub struct SystemInfoView<'a> {
    #[schema(example = "system")]
    object: &'static str,
    version: &'static str,
    /// `healthy` or `degraded`.
    status: &'static str,
    /// The uptime as `3d 4h 5m 6s` (leading zero units left out).
    #[schema(example = "4h 5m 6s")]
    uptime: String,
    uptime_seconds: u64,
    #[schema(format = DateTime)]
    timestamp: String,
    event_stats: EventStatsView<'a>,
    database: DatabaseView,
    workers: WorkersView,
    cache: CacheView,
}

/// The audit events of the caller's organization tree, in its mode.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SystemEventStats)]
pub struct EventStatsView<'a> {
    total_events: i64,
    events_last_24h: i64,
    /// Event count by event type.
    events_by_type: BTreeMap<&'a str, i64>,
    /// The newest events, newest first.
    recent_events: Vec<RecentEventView<'a>>,
}

/// One of the newest audit events.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SystemRecentEvent)]
pub struct RecentEventView<'a> {
    id: &'a str,
    event_type: &'a str,
    entity_type: &'a str,
    entity_id: &'a str,
    #[schema(format = DateTime)]
    timestamp: String,
}

/// The database connection pools.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SystemDatabase)]
pub struct DatabaseView {
    /// `connected` or `unavailable`.
    status: &'static str,
    connection_pool_size: u64,
    active_connections: u64,
    pending_queries: u64,
}

/// The job queue and its workers.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SystemWorkers)]
pub struct WorkersView {
    /// `running` or `stopped` (no worker in this process).
    status: &'static str,
    /// Queue workers configured in this process.
    active_workers: usize,
    queued_jobs: i64,
    completed_jobs_24h: i64,
    failed_jobs_24h: i64,
}

/// The cache: there is none yet, so always `disabled` with zeros.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SystemCache)]
pub struct CacheView {
    #[schema(example = "disabled")]
    status: &'static str,
    hit_rate: u64,
    memory_usage: u64,
    keys_count: u64,
}

impl<'a> SystemInfoView<'a> {
    /// The record of `s`.
    pub fn of(s: &'a SystemInfo) -> Self {
        let recent_event = |e: &'a Event| RecentEventView {
            id: &e.id,
            event_type: &e.event_type,
            entity_type: &e.entity_type,
            entity_id: &e.entity_id,
            timestamp: timestamp(e.created_at),
        };
        Self {
            object: "system",
            version: s.version,
            status: s.status.as_str(),
            uptime: uptime(s.uptime),
            uptime_seconds: s.uptime.as_secs(),
            timestamp: timestamp(s.timestamp),
            event_stats: EventStatsView {
                total_events: s.events.total_events,
                events_last_24h: s.events.events_since,
                events_by_type: s
                    .events
                    .events_by_type
                    .iter()
                    .map(|(t, n)| (t.as_str(), *n))
                    .collect(),
                recent_events: s.events.recent_events.iter().map(recent_event).collect(),
            },
            database: DatabaseView {
                status: if s.database_up {
                    "connected"
                } else {
                    "unavailable"
                },
                connection_pool_size: s.pool.max_size,
                active_connections: s.pool.in_use,
                pending_queries: s.pool.waiting,
            },
            workers: WorkersView {
                status: if s.workers > 0 { "running" } else { "stopped" },
                active_workers: s.workers,
                queued_jobs: s.jobs.queued,
                completed_jobs_24h: s.jobs.completed_since,
                failed_jobs_24h: s.jobs.failed_since,
            },
            cache: CacheView {
                status: "disabled",
                hit_rate: 0,
                memory_usage: 0,
                keys_count: 0,
            },
        }
    }
}

/// The system information record (spec 2.12). There is no cache yet: its figures are
/// zeros with status `disabled`.
pub fn system_info(s: &SystemInfo) -> Value {
    json(&SystemInfoView::of(s))
}

/// Readiness (`/ready`): whether the database answers and the job queue can be read.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Readiness)]
pub struct ReadinessView {
    /// `ready` or `not_ready`.
    status: &'static str,
    /// `up` or `down`.
    database: &'static str,
    /// `readable` or `unavailable`.
    queue: &'static str,
    /// Jobs waiting in the queue; null when it cannot be read.
    queued_jobs: Option<i64>,
    /// Queue workers configured in this process.
    workers: usize,
}

impl ReadinessView {
    /// Readiness from whether the database answered, the queue's figures when it could
    /// be read, and the workers of this process.
    pub fn of(database_up: bool, jobs: Option<JobStats>, workers: usize) -> Self {
        Self {
            status: if jobs.is_some() { "ready" } else { "not_ready" },
            database: if database_up { "up" } else { "down" },
            queue: if jobs.is_some() {
                "readable"
            } else {
                "unavailable"
            },
            queued_jobs: jobs.map(|j| j.queued),
            workers,
        }
    }

    /// Whether the replica may take traffic.
    pub fn is_ready(&self) -> bool {
        self.queued_jobs.is_some()
    }
}

/// The error envelope of every REST refusal (DECISIONS 6); MCP answers a failed tool
/// call with it too.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ErrorEnvelope, example = json!({"error": {
    "type": "validation_error",
    "code": "missing_field",
    "message": "name is required",
    "status": 400,
    "request_id": "req_01JD0000000000000000000000",
    "details": {"field": "name"}
}}))]
pub struct ErrorEnvelopeView {
    error: ErrorBodyView,
}

/// The body of an error.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ErrorBody)]
pub struct ErrorBodyView {
    /// The family of the error; it decides the status.
    #[serde(rename = "type")]
    kind: ErrorType,
    code: ErrorCode,
    /// A human-readable explanation, safe to show.
    message: String,
    /// The HTTP status, repeated.
    status: u16,
    /// The id of the request, as in the `X-Request-Id` header.
    request_id: String,
    /// More about the error (the field at fault, a limit, the current state).
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<Value>,
    /// Seconds until a rate-limited request may be retried (429 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after: Option<u64>,
}

impl ErrorEnvelopeView {
    /// The envelope of `error`, of family `kind` with HTTP `status`, answering the
    /// request `request_id`.
    pub fn of(error: &DomainError, kind: ErrorType, status: u16, request_id: String) -> Self {
        let retry_after = error.retry_after();
        Self {
            error: ErrorBodyView {
                kind,
                code: error.code(),
                message: error.public_message(),
                status,
                request_id,
                details: error.details(),
                retry_after,
            },
        }
    }
}

/// The family of an error as the REST envelope names it (DECISIONS 6); it decides the
/// HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    ValidationError,
    InvalidRequestError,
    AuthenticationError,
    AuthorizationError,
    NotFoundError,
    IdempotencyError,
    BusinessRuleError,
    CreditLimitError,
    PaymentError,
    RateLimitError,
    ApiError,
}
