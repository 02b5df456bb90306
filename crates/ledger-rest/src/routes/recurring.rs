//! Recurring schedules (spec 2.9, 4.11; DECISIONS 7): synchronous create, read, list,
//! update, pause, resume and soft delete through the write pipeline; a manual run; the
//! runs history. `POST /organizations/{org}/recurring` (the spec's path) is the create too.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{Channel, RecurringScheduleInput, Write};
use serde::Deserialize;
use serde_json::Value;

use super::{State, access, list_response};
use crate::error::{ApiError, validation};
use crate::input::{page, parse_json, read_body};
use crate::queued::{idempotency, submit};

const RESOURCE: &str = "recurring_schedules";

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    let base = "/organizations/{org}/recurring-schedules";
    cfg.service(
        web::resource(base)
            .route(web::get().to(list::<S>))
            .route(web::post().to(create::<S>)),
    )
    .service(
        web::resource("/organizations/{org}/recurring")
            .route(web::get().to(list::<S>))
            .route(web::post().to(create::<S>)),
    )
    .service(
        web::resource(format!("{base}/{{id}}"))
            .route(web::get().to(get::<S>))
            .route(web::put().to(update::<S>))
            .route(web::patch().to(update::<S>))
            .route(web::delete().to(delete::<S>)),
    )
    .route(
        &format!("{base}/{{id}}/pause"),
        web::post().to(|s, r, p| set_status::<S>(s, r, p, "paused")),
    )
    .route(
        &format!("{base}/{{id}}/resume"),
        web::post().to(|s, r, p| set_status::<S>(s, r, p, "active")),
    )
    .route(&format!("{base}/{{id}}/run"), web::post().to(run::<S>))
    .route(&format!("{base}/{{id}}/runs"), web::get().to(runs::<S>));
}

/// A member that may be `null` (clear it) or a value; absent stays `None`.
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    name: Option<String>,
    recurable_type: Option<String>,
    recurable_id: Option<String>,
    template: Option<Value>,
    frequency: Option<String>,
    interval: Option<i64>,
    start_date: Option<String>,
    #[serde(default, deserialize_with = "present")]
    end_date: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    count: Option<Option<i64>>,
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
            interval: b.interval,
            start_date: b.start_date,
            end_date: b.end_date,
            count: b.count,
            auto_send: b.auto_send,
            status: b.status,
        }
    }
}

async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: Body = parse_json(&req, &body)?;
    if input.status.is_some() {
        return Err(validation(
            ErrorCode::UnknownField,
            Some("status".into()),
            "a new schedule is active; pause it afterwards",
        ));
    }
    let write = Write::CreateRecurringSchedule(input.into());
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let schedule = state.ledger.get_recurring_schedule(&access, &id).await?;
    Ok(HttpResponse::Ok().json(schedule.view()))
}

async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: Body = parse_json(&req, &body)?;
    let write = Write::UpdateRecurringSchedule {
        id,
        input: input.into(),
    };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

/// Pause (`paused`) or resume (`active`): an update of the status alone.
async fn set_status<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    status: &'static str,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let write = Write::UpdateRecurringSchedule {
        id,
        input: RecurringScheduleInput {
            status: Some(status.to_owned()),
            ..RecurringScheduleInput::default()
        },
    };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let write = Write::DeleteRecurringSchedule { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

/// Generates the schedule's document now (dated today), answering the run: 201 whether
/// it succeeded or failed (the run says which).
async fn run<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let key = idempotency(&req, &body)?;
    let run = state
        .ledger
        .run_recurring_schedule(&access, &id, key, Channel::Rest)
        .await?;
    Ok(HttpResponse::Created().json(run.view()))
}

async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let result = state.ledger.list_recurring_schedules(&access, page).await?;
    Ok(list_response(page, &result, |s| s.view()))
}

async fn runs<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let result = state.ledger.list_recurring_runs(&access, &id, page).await?;
    Ok(list_response(page, &result, |r| r.view()))
}
