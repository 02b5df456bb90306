//! Recurring schedules (spec 2.9, 4.11; DECISIONS 7): synchronous create, read, list,
//! update, pause, resume and soft delete through the write pipeline; a manual run; the
//! runs history. Every route is served under the spec's `/organizations/{org}/recurring`
//! and, with the same handler, under the deprecated `.../recurring-schedules`; the
//! annotations document the spec's paths, and the document copies each operation to the
//! alias as deprecated (`crate::openapi`'s `DEPRECATED_ALIASES`).

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::recurring::{RecurringRunView, RecurringScheduleView};
use ledger_domain::services::{Access, Channel, RecurringScheduleInput, Write};
use serde::Deserialize;
use serde_json::Value;

use super::crud::{Crud, crud_operations};
use super::resource::{present, queue_action, resource_access};
use super::{Routes, State, at, list_response};
use crate::AppState;
use crate::error::{ApiError, validation};
use crate::input::{WholeNumber, page, read_body, whole};
// The bodies as documented; both are read as one `Body`.
use crate::openapi::{
    RecurringScheduleCreateRequest as CreateBody, RecurringScheduleUpdateRequest as UpdateBody,
};
use crate::queued::idempotency;

const RESOURCE: &str = "recurring_schedules";

/// The spec's collection path (4.11); every route is served under it.
pub(crate) const BASE: &str = "/organizations/{org}/recurring";
/// The first collection path, kept as a deprecated alias: the same handlers answer the
/// same requests under it.
pub(crate) const LEGACY_BASE: &str = "/organizations/{org}/recurring-schedules";

crud_operations! {
    Schedules, tag "recurring", schemas RecurringSchedule, RecurringScheduleList;
    paths "/organizations/{org}/recurring", "/organizations/{org}/recurring/{id}",
        then more_routes;
    create "recurring_create": "Create a recurring schedule",
        "Creates a schedule that makes an invoice, a bill or a transaction from its template at each occurrence (every N days, weeks, months, quarters or years); `recurable_id` copies an existing invoice or bill as the template.";
    get "recurring_get": "Get a recurring schedule",
        "Returns one recurring schedule with its template, frequency and next run.";
    update "recurring_update": "Update a recurring schedule",
        "Changes a recurring schedule: its rule, end, template, name, `auto_send`, or its status (`paused`, or `active` to resume).";
    patch "recurring_patch": "Update a recurring schedule (partial)",
        "Changes only the members given of a recurring schedule.";
    delete "recurring_delete": "Delete a recurring schedule",
        "Soft-deletes a recurring schedule: nothing more is generated, and what it made stays.";
    list "recurring_list": "List recurring schedules",
        "Lists the organization's recurring schedules, oldest first, with their next run.",
        filters();
}

/// The paths of a schedule's actions and runs under [`BASE`], then every path again
/// under [`LEGACY_BASE`], answered by the same handlers.
fn more_routes<S: Store>(r: &mut Routes<'_>) {
    actions::<S>(r, BASE);
    r.add(at(LEGACY_BASE).get(list::<S>).post(create::<S>)).add(
        at(format!("{LEGACY_BASE}/{{id}}"))
            .get(get::<S>)
            .put(update::<S>)
            .patch(patch::<S>)
            .delete(delete::<S>),
    );
    actions::<S>(r, LEGACY_BASE);
}

/// The paths of a schedule's pause, resume, run and runs under `base`.
fn actions<S: Store>(r: &mut Routes<'_>, base: &str) {
    r.add(at(format!("{base}/{{id}}/pause")).post(pause::<S>))
        .add(at(format!("{base}/{{id}}/resume")).post(resume::<S>))
        .add(at(format!("{base}/{{id}}/run")).post(run::<S>))
        .add(at(format!("{base}/{{id}}/runs")).get(runs::<S>));
}

/// The body of a create or an update; the document describes each
/// (`crate::openapi::RecurringScheduleCreateRequest`, `...UpdateRequest`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    name: Option<String>,
    recurable_type: Option<String>,
    recurable_id: Option<String>,
    template: Option<Value>,
    frequency: Option<String>,
    interval: Option<WholeNumber>,
    start_date: Option<String>,
    #[serde(default, deserialize_with = "present")]
    end_date: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    count: Option<Option<WholeNumber>>,
    auto_send: Option<bool>,
    status: Option<String>,
}

impl From<Body> for RecurringScheduleInput {
    fn from(b: Body) -> Self {
        Self {
            name: b.name,
            recurable_type: b.recurable_type,
            recurable_id: b.recurable_id,
            template: b.template,
            frequency: b.frequency,
            interval: whole(b.interval),
            start_date: b.start_date,
            end_date: b.end_date,
            count: b.count.map(whole),
            auto_send: b.auto_send,
            status: b.status,
        }
    }
}

struct Schedules;

impl Crud for Schedules {
    const RESOURCE: &'static str = RESOURCE;
    type CreateBody = Body;
    type UpdateBody = Body;

    fn create(input: Body) -> Result<Write, ApiError> {
        if input.status.is_some() {
            return Err(validation(
                ErrorCode::UnknownField,
                Some("status".into()),
                "a new schedule is active; pause it afterwards",
            ));
        }
        Ok(Write::CreateRecurringSchedule(input.into()))
    }

    fn update(id: String, input: Body) -> Result<Write, ApiError> {
        Ok(Write::UpdateRecurringSchedule {
            id,
            input: input.into(),
        })
    }

    fn delete(id: String) -> Write {
        Write::DeleteRecurringSchedule { id }
    }

    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError> {
        let schedule = state.ledger.get_recurring_schedule(access, id).await?;
        Ok(HttpResponse::Ok().json(RecurringScheduleView::of(&schedule)))
    }

    async fn list<S: Store>(
        state: &AppState<S>,
        _req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError> {
        let result = state.ledger.list_recurring_schedules(access, page).await?;
        Ok(list_response(page, &result, RecurringScheduleView::of))
    }
}

/// Pause (`paused`) or resume (`active`): an update of the status alone.
#[utoipa::path(
    post,
    path = "/organizations/{org}/recurring/{id}/pause",
    operation_id = "recurring_pause",
    tag = "recurring",
    summary = "Pause a recurring schedule",
    description = "Pauses a recurring schedule: it generates nothing until resumed.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::RecurringSchedule),
    ),
)]
async fn pause<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    set_status::<S>(state, req, path, "paused").await
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/recurring/{id}/resume",
    operation_id = "recurring_resume",
    tag = "recurring",
    summary = "Resume a recurring schedule",
    description = "Resumes a paused recurring schedule; occurrences that fell due while it was paused are skipped.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::RecurringSchedule),
    ),
)]
async fn resume<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    set_status::<S>(state, req, path, "active").await
}

async fn set_status<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    status: &'static str,
) -> Result<HttpResponse, ApiError> {
    queue_action(&state, &req, path, None, Scope::Write, RESOURCE, |id| {
        Write::UpdateRecurringSchedule {
            id,
            input: RecurringScheduleInput {
                status: Some(status.to_owned()),
                ..RecurringScheduleInput::default()
            },
        }
    })
    .await
}

/// Generates the schedule's document now (dated today), answering the run: 201 whether
/// it succeeded or failed (the run says which).
#[utoipa::path(
    post,
    path = "/organizations/{org}/recurring/{id}/run",
    operation_id = "recurring_run",
    tag = "recurring",
    summary = "Run a recurring schedule now",
    description = "Generates the schedule's document now, dated today, outside its rule (the next scheduled occurrence stays as it was); a refused document is a failed run, answered like a succeeded one.",
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::RecurringRun),
    ),
)]
async fn run<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let key = idempotency(&req, &body)?;
    let run = state
        .ledger
        .run_recurring_schedule(&access, &id, key, Channel::Rest)
        .await?;
    Ok(HttpResponse::Created().json(RecurringRunView::of(&run)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/recurring/{id}/runs",
    operation_id = "recurring_runs",
    tag = "recurring",
    summary = "List the runs of a recurring schedule",
    description = "Lists a schedule's runs, newest occurrence first, each with what it made or why it failed.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::RecurringRunList),
    ),
)]
async fn runs<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let result = state.ledger.list_recurring_runs(&access, &id, page).await?;
    Ok(list_response(page, &result, RecurringRunView::of))
}
