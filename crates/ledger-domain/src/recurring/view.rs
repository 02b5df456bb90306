//! The JSON form of schedules and runs, typed: what every interface sends (REST
//! snake_case), and the schema the OpenAPI document describes it with.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::dates::{iso_date, timestamp};

use super::{RecurringRun, RecurringSchedule};

impl RecurringSchedule {
    /// The schedule as every interface renders it (REST snake_case).
    pub fn view(&self) -> Value {
        crate::wire::json(&RecurringScheduleView::of(self))
    }
}

impl RecurringRun {
    /// The run as every interface renders it (REST snake_case).
    pub fn view(&self) -> Value {
        crate::wire::json(&RecurringRunView::of(self))
    }
}

/// A recurring schedule: a template of an invoice, a bill or a transaction, generated
/// on every occurrence of a calendar rule.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = RecurringSchedule)]
pub struct RecurringScheduleView<'a> {
    id: &'a str,
    #[schema(example = "recurring_schedule")]
    object: &'static str,
    organization_id: &'a str,
    name: Option<&'a str>,
    /// `invoice`, `bill` or `transaction`.
    recurable_type: &'static str,
    /// The document the template was copied from, when created from one.
    recurable_id: Option<&'a str>,
    /// The create body of `recurable_type` (an object; a schedule refuses any other JSON).
    #[schema(value_type = Object)]
    template: &'a Value,
    /// `daily`, `weekly`, `monthly`, `quarterly` or `yearly`.
    frequency: &'static str,
    /// How many `frequency` units pass between occurrences.
    interval: i64,
    /// The first occurrence, whose day of month later ones keep.
    #[schema(format = Date)]
    start_date: String,
    /// The last day an occurrence may fall on.
    #[schema(format = Date)]
    end_date: Option<String>,
    /// How many scheduled occurrences are generated at most.
    count: Option<i64>,
    /// Send each generated invoice at once.
    auto_send: bool,
    /// `active`, `paused` or `completed`.
    status: &'static str,
    /// `null` once completed.
    #[schema(format = Date)]
    next_run_date: Option<String>,
    /// Scheduled occurrences generated so far (succeeded or failed).
    occurrences: i64,
    #[schema(format = Date)]
    last_run_date: Option<String>,
    /// The API key that created the schedule; generated documents are written in its name.
    created_by: &'a str,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    livemode: bool,
}

impl<'a> RecurringScheduleView<'a> {
    /// The schedule object.
    pub fn of(s: &'a RecurringSchedule) -> Self {
        Self {
            id: &s.id,
            object: "recurring_schedule",
            organization_id: &s.organization_id,
            name: s.name.as_deref(),
            recurable_type: s.recurable_type.as_str(),
            recurable_id: s.recurable_id.as_deref(),
            template: &s.template,
            frequency: s.frequency.as_str(),
            interval: s.interval,
            start_date: iso_date(s.start_date),
            end_date: s.end_date.map(iso_date),
            count: s.max_occurrences,
            auto_send: s.auto_send,
            status: s.status.as_str(),
            next_run_date: s.next_run_date.map(iso_date),
            occurrences: s.occurrences,
            last_run_date: s.last_run_date.map(iso_date),
            created_by: &s.created_by,
            created_at: timestamp(s.created_at),
            updated_at: timestamp(s.updated_at),
            livemode: s.livemode,
        }
    }
}

/// One generation of a schedule's template.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = RecurringRun)]
pub struct RecurringRunView<'a> {
    id: &'a str,
    #[schema(example = "recurring_run")]
    object: &'static str,
    schedule_id: &'a str,
    #[schema(format = Date)]
    occurrence_date: String,
    /// `scheduled` or `manual`.
    trigger: &'static str,
    /// `succeeded` or `failed`.
    status: &'static str,
    /// `invoice`, `bill` or `transaction`.
    document_type: &'static str,
    /// The document generated, when the run succeeded.
    document_id: Option<&'a str>,
    /// The queued write that generated it.
    request_id: Option<&'a str>,
    /// The error (`{code, message, details?}`) of a failed run; null otherwise.
    #[schema(value_type = Option<Object>)]
    error: Option<&'a Value>,
    #[schema(format = DateTime)]
    created_at: String,
    livemode: bool,
}

impl<'a> RecurringRunView<'a> {
    /// The run object.
    pub fn of(r: &'a RecurringRun) -> Self {
        Self {
            id: &r.id,
            object: "recurring_run",
            schedule_id: &r.schedule_id,
            occurrence_date: iso_date(r.occurrence_date),
            trigger: r.trigger.as_str(),
            status: r.status.as_str(),
            document_type: r.document_type.as_str(),
            document_id: r.document_id.as_deref(),
            request_id: r.job_id.as_deref(),
            error: r.error.as_ref(),
            created_at: timestamp(r.created_at),
            livemode: r.livemode,
        }
    }
}
