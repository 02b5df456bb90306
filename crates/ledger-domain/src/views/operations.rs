//! What operators and clients of queued writes read: soft deletes and their audit
//! trail, the queued-write envelope, and the `/system` record.

use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::events::Deletion;
use crate::jobs::Job;
use crate::ports::SystemInfo;

use super::timestamp;

/// The answer to a soft delete: what was deleted and until when it can be restored.
pub fn deleted(object: &str, id: &str, recoverable_until: OffsetDateTime) -> Value {
    json!({
        "id": id,
        "object": object,
        "deleted": true,
        "recoverable_until": timestamp(recoverable_until),
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
