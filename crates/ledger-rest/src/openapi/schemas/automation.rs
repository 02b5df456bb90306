//! What runs on its own: recurring schedules with their runs, and webhook endpoints with
//! their deliveries.

#![expect(dead_code, reason = "documentation types: described, never built")]

use serde_json::Value;
use utoipa::ToSchema;

use super::list_of;

/// A recurring schedule that makes invoices or bills.
#[derive(ToSchema)]
pub(crate) struct RecurringSchedule {
    id: String,
    #[schema(example = "recurring_schedule")]
    object: String,
    organization_id: String,
    name: Option<String>,
    recurable_type: String,
    recurable_id: Option<String>,
    template: Option<Value>,
    frequency: String,
    interval: i64,
    start_date: String,
    end_date: Option<String>,
    count: Option<i64>,
    auto_send: bool,
    status: String,
    next_run_date: Option<String>,
    occurrences: i64,
    last_run_date: Option<String>,
    created_by: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    livemode: bool,
}

/// One run of a recurring schedule.
#[derive(ToSchema)]
pub(crate) struct RecurringRun {
    id: String,
    #[schema(example = "recurring_run")]
    object: String,
    schedule_id: String,
    occurrence_date: String,
    trigger: String,
    status: String,
    document_type: String,
    document_id: Option<String>,
    request_id: Option<String>,
    error: Option<Value>,
    #[schema(format = DateTime)]
    created_at: String,
    livemode: bool,
}

/// A webhook endpoint; `secret` only in the answer that made or rotated it.
#[derive(ToSchema)]
pub(crate) struct WebhookEndpoint {
    id: String,
    #[schema(example = "webhook_endpoint")]
    object: String,
    url: String,
    secret: Option<String>,
}

/// One delivery attempt series of an event to an endpoint.
#[derive(ToSchema)]
pub(crate) struct WebhookDelivery {
    id: String,
    #[schema(example = "webhook_delivery")]
    object: String,
}

list_of! {
    RecurringScheduleList => RecurringSchedule,
    RecurringRunList => RecurringRun,
    WebhookEndpointList => WebhookEndpoint,
    WebhookDeliveryList => WebhookDelivery,
}
