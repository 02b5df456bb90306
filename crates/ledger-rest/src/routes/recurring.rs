//! Recurring schedules (spec 2.9, 4.11; DECISIONS 7): synchronous create, read, list,
//! update, pause, resume and soft delete through the write pipeline; a manual run; the
//! runs history. Every route is served under the spec's `/organizations/{org}/recurring`
//! and, with the same handler, under the deprecated `.../recurring-schedules`; the
//! annotations document the spec's paths, and the document copies each operation to the
//! alias as deprecated (`crate::openapi`'s `DEPRECATED_ALIASES`).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::recurring::{RecurringRunView, RecurringScheduleView};
use ledger_domain::services::{Channel, RecurringScheduleInput, Write};
use serde::Deserialize;
use serde_json::Value;

use super::resource::{
    list_access, present, queue_admin_write, queue_create, queue_update, resource_access,
};
use super::{Routes, State, at, list_response};
use crate::error::{ApiError, validation};
use crate::input::{WholeNumber, page, read_body, whole};
use crate::queued::{idempotency, submit};

const RESOURCE: &str = "recurring_schedules";

/// The spec's collection path (4.11); every route is served under it.
pub(crate) const BASE: &str = "/organizations/{org}/recurring";
/// The first collection path, kept as a deprecated alias: the same handlers answer the
/// same requests under it.
pub(crate) const LEGACY_BASE: &str = "/organizations/{org}/recurring-schedules";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    for base in [BASE, LEGACY_BASE] {
        r.add(at(base).get(list::<S>).post(create::<S>))
            .add(
                at(format!("{base}/{{id}}"))
                    .get(get::<S>)
                    .put(update::<S>)
                    .patch(update::<S>)
                    .delete(delete::<S>),
            )
            .add(at(format!("{base}/{{id}}/pause")).post(pause::<S>))
            .add(at(format!("{base}/{{id}}/resume")).post(resume::<S>))
            .add(at(format!("{base}/{{id}}/run")).post(run::<S>))
            .add(at(format!("{base}/{{id}}/runs")).get(runs::<S>));
    }
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

#[utoipa::path(
    post,
    path = "/organizations/{org}/recurring",
    operation_id = "recurring_create",
    tag = "recurring",
    summary = "Create a recurring schedule",
    description = "Creates a schedule that makes an invoice, a bill or a transaction from its template at each occurrence (every N days, weeks, months, quarters or years); `recurable_id` copies an existing invoice or bill as the template.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = crate::openapi::RecurringScheduleCreateRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::RecurringSchedule),
    ),
)]
async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_create(
        &state,
        &req,
        path,
        payload,
        Scope::Write,
        RESOURCE,
        |input: Body| {
            if input.status.is_some() {
                return Err(validation(
                    ErrorCode::UnknownField,
                    Some("status".into()),
                    "a new schedule is active; pause it afterwards",
                ));
            }
            Ok(Write::CreateRecurringSchedule(input.into()))
        },
    )
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/recurring/{id}",
    operation_id = "recurring_get",
    tag = "recurring",
    summary = "Get a recurring schedule",
    description = "Returns one recurring schedule with its template, frequency and next run.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::RecurringSchedule),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let schedule = state.ledger.get_recurring_schedule(&access, &id).await?;
    Ok(HttpResponse::Ok().json(RecurringScheduleView::of(&schedule)))
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/recurring/{id}",
    operation_id = "recurring_update",
    tag = "recurring",
    impl_for = __path_update_put,
    summary = "Update a recurring schedule",
    description = "Changes a recurring schedule: its rule, end, template, name, `auto_send`, or its status (`paused`, or `active` to resume).",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = crate::openapi::RecurringScheduleUpdateRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::RecurringSchedule),
    ),
)]
#[utoipa::path(
    patch,
    path = "/organizations/{org}/recurring/{id}",
    operation_id = "recurring_patch",
    tag = "recurring",
    impl_for = __path_update_patch,
    summary = "Update a recurring schedule (partial)",
    description = "Changes only the members given of a recurring schedule.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = crate::openapi::RecurringScheduleUpdateRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::RecurringSchedule),
    ),
)]
async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_update(
        &state,
        &req,
        path,
        payload,
        Scope::Write,
        RESOURCE,
        |id, input: Body| {
            Ok(Write::UpdateRecurringSchedule {
                id,
                input: input.into(),
            })
        },
    )
    .await
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
    let (access, id) = resource_access(&state, &req, path, Scope::Write, RESOURCE).await?;
    let write = Write::UpdateRecurringSchedule {
        id,
        input: RecurringScheduleInput {
            status: Some(status.to_owned()),
            ..RecurringScheduleInput::default()
        },
    };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/recurring/{id}",
    operation_id = "recurring_delete",
    tag = "recurring",
    summary = "Delete a recurring schedule",
    description = "Soft-deletes a recurring schedule: nothing more is generated, and what it made stays.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    queue_admin_write(&state, &req, path, RESOURCE, |id| {
        Write::DeleteRecurringSchedule { id }
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
    path = "/organizations/{org}/recurring",
    operation_id = "recurring_list",
    tag = "recurring",
    summary = "List recurring schedules",
    description = "Lists the organization's recurring schedules, oldest first, with their next run.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::RecurringScheduleList),
    ),
)]
async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, RESOURCE, 20).await?;
    let result = state.ledger.list_recurring_schedules(&access, page).await?;
    Ok(list_response(page, &result, RecurringScheduleView::of))
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

// The OpenAPI operations of the handler that serves PUT and PATCH.
#[expect(
    non_camel_case_types,
    reason = "utoipa names the operation type of handler `x` `__path_x`"
)]
mod operations {
    #[doc(hidden)]
    pub(crate) struct __path_update_put;
    #[doc(hidden)]
    pub(crate) struct __path_update_patch;
}
pub(crate) use operations::*;
