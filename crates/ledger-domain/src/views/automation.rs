//! What runs by itself: the webhook endpoints that hear of changes, with the deliveries
//! made to them and their attempts.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::webhooks::{DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint};

use super::timestamp;

/// A webhook endpoint (DECISIONS 9); `secret` only in the answer that made or rotated
/// it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookEndpoint)]
pub struct WebhookEndpointView<'a> {
    id: &'a str,
    #[schema(example = "webhook_endpoint")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    #[schema(example = "https://example.com/hooks/ledger")]
    url: &'a str,
    description: Option<&'a str>,
    /// The event kinds delivered; `["*"]`: every kind.
    event_types: Vec<&'a str>,
    enabled: bool,
    /// Why a disabled endpoint is disabled: `manual` or `failure_streak`.
    disabled_reason: Option<&'a str>,
    /// Consecutive failed attempts (reset by a success).
    failure_streak: i64,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// The signing secret (`whsec_...`), in the answer that made or rotated it only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    secret: Option<&'a str>,
}

impl<'a> WebhookEndpointView<'a> {
    /// The endpoint as clients see it; the secret only when `with_secret` (creation and
    /// rotation answers).
    pub fn of(e: &'a WebhookEndpoint, with_secret: bool) -> Self {
        Self {
            id: &e.id,
            object: "webhook_endpoint",
            organization_id: &e.organization_id,
            livemode: e.livemode,
            url: &e.url,
            description: e.description.as_deref(),
            event_types: if e.event_types.is_empty() {
                vec!["*"]
            } else {
                e.event_types.iter().map(String::as_str).collect()
            },
            enabled: e.enabled,
            disabled_reason: e.disabled_reason.as_deref(),
            failure_streak: e.failure_streak,
            created_at: timestamp(e.created_at),
            updated_at: timestamp(e.updated_at),
            secret: with_secret.then_some(e.secret.as_str()),
        }
    }
}

/// The delivery of one event to one endpoint, with its retries (DECISIONS 9).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookDelivery)]
pub struct WebhookDeliveryView<'a> {
    id: &'a str,
    #[schema(example = "webhook_delivery")]
    object: &'static str,
    endpoint_id: &'a str,
    event_id: &'a str,
    event_type: &'a str,
    entity_type: &'a str,
    entity_id: &'a str,
    /// `pending`, `delivered` or `failed`.
    status: &'static str,
    /// Attempts started.
    attempts: i64,
    /// When the next attempt is due, while pending.
    #[schema(format = DateTime)]
    next_attempt_at: Option<String>,
    /// The receiver's status of the last attempt, when it answered.
    last_status_code: Option<i64>,
    last_error: Option<&'a str>,
    #[schema(format = DateTime)]
    delivered_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    /// The exact body sent: the event as JSON (as a string if it does not parse).
    payload: Value,
    /// The attempts, oldest first, on a single delivery.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    attempt_log: Option<Vec<WebhookAttemptView<'a>>>,
}

impl<'a> WebhookDeliveryView<'a> {
    /// The delivery as clients see it, with its `attempts` when given.
    pub fn of(d: &'a WebhookDelivery, attempts: Option<&'a [WebhookAttempt]>) -> Self {
        Self {
            id: &d.id,
            object: "webhook_delivery",
            endpoint_id: &d.endpoint_id,
            event_id: &d.event_id,
            event_type: &d.event_type,
            entity_type: &d.entity_type,
            entity_id: &d.entity_id,
            status: d.status.as_str(),
            attempts: d.attempts,
            next_attempt_at: (d.status == DeliveryStatus::Pending)
                .then(|| timestamp(d.next_attempt_at)),
            last_status_code: d.last_status_code,
            last_error: d.last_error.as_deref(),
            delivered_at: d.delivered_at.map(timestamp),
            created_at: timestamp(d.created_at),
            payload: serde_json::from_str(&d.payload)
                .unwrap_or_else(|_| Value::String(d.payload.clone())),
            attempt_log: attempts.map(|log| log.iter().map(WebhookAttemptView::of).collect()),
        }
    }
}

/// One attempt of a webhook delivery.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookAttempt)]
pub struct WebhookAttemptView<'a> {
    id: &'a str,
    /// 1 for the first attempt.
    attempt: i64,
    #[schema(format = DateTime)]
    started_at: String,
    duration_ms: i64,
    /// The receiver's status, when it answered.
    status_code: Option<i64>,
    /// Why no answer counted: a timeout, a refused address, a connection error.
    error: Option<&'a str>,
    /// The start of the receiver's body.
    response_snippet: Option<&'a str>,
}

impl<'a> WebhookAttemptView<'a> {
    /// The attempt object.
    pub fn of(a: &'a WebhookAttempt) -> Self {
        Self {
            id: &a.id,
            attempt: a.attempt,
            started_at: timestamp(a.started_at),
            duration_ms: a.duration_ms,
            status_code: a.status_code,
            error: a.error.as_deref(),
            response_snippet: a.response_snippet.as_deref(),
        }
    }
}
