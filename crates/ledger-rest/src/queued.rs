//! Answering queued writes (DECISIONS 4): the 202 envelope, or with `Prefer: wait=N` the
//! final resource once the job is done; idempotent replays of the first answer.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use ledger_domain::jobs::Job;
use ledger_domain::ports::{IdempotencyRecord, Store, Written};
use ledger_domain::services::{Access, Ledger, WriteOptions};
use ledger_domain::views;
use ledger_domain::{DomainError, DomainResult};
use tokio::sync::Notify;

use crate::AppState;
use crate::auth::sha256_hex;
use crate::error::{ApiError, envelope_from_stored};
use crate::input::{idempotency_key, prefer_wait};

/// Wakes background workers when new work is queued.
#[derive(Clone, Default)]
pub struct JobWaker(pub Arc<Notify>);

impl JobWaker {
    /// Wakes one waiting worker.
    pub fn wake(&self) {
        self.0.notify_one();
    }
}

/// The idempotency record for this request, if it carries a key.
///
/// # Errors
/// `invalid_field` on a malformed key.
pub fn idempotency_for(
    req: &HttpRequest,
    access: &Access,
    body: &[u8],
    now: time::OffsetDateTime,
) -> Result<Option<IdempotencyRecord>, ApiError> {
    let Some(key) = idempotency_key(req)? else {
        return Ok(None);
    };
    let mut hashed = Vec::with_capacity(body.len() + 64);
    hashed.extend_from_slice(req.method().as_str().as_bytes());
    hashed.push(b' ');
    hashed.extend_from_slice(req.path().as_bytes());
    hashed.push(b'\n');
    hashed.extend_from_slice(body);
    Ok(Some(IdempotencyRecord {
        organization_id: access.tenant.organization_id.clone(),
        livemode: access.tenant.livemode,
        key,
        request_hash: sha256_hex(&hashed),
        job_id: None,
        response_status: None,
        response_body: None,
        created_at: now,
    }))
}

/// Looks for an earlier use of the request's idempotency key.
///
/// # Errors
/// `idempotency_key_reused` when the key was used with another request.
pub async fn replay_if_used<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    record: Option<&IdempotencyRecord>,
    success: StatusCode,
) -> Result<Option<HttpResponse>, ApiError> {
    let Some(record) = record else {
        return Ok(None);
    };
    let since = state.ledger.now() - time::Duration::hours(24);
    let Some(first) = state
        .ledger
        .store
        .find_idempotency(&access.tenant, &record.key, since)
        .await?
    else {
        return Ok(None);
    };
    replay(state, req, access, record, first, success)
        .await
        .map(Some)
}

async fn replay<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    record: &IdempotencyRecord,
    first: IdempotencyRecord,
    success: StatusCode,
) -> Result<HttpResponse, ApiError> {
    if first.request_hash != record.request_hash {
        return Err(ApiError(DomainError::IdempotencyKeyReused));
    }
    if let Some(job_id) = &first.job_id {
        let job = state.ledger.get_job(access, job_id).await?;
        return Ok(answer_job(state, req, job, success, false, false)
            .await?
            .with_replay());
    }
    let status = first
        .response_status
        .and_then(|s| u16::try_from(s).ok())
        .and_then(|s| StatusCode::from_u16(s).ok())
        .unwrap_or(StatusCode::OK);
    let body = first.response_body.unwrap_or_default();
    Ok(HttpResponse::build(status)
        .content_type("application/json")
        .insert_header(("Idempotent-Replayed", "true"))
        .body(body))
}

trait Replayed {
    fn with_replay(self) -> Self;
}

impl Replayed for HttpResponse {
    fn with_replay(mut self) -> Self {
        self.headers_mut().insert(
            actix_web::http::header::HeaderName::from_static("idempotent-replayed"),
            actix_web::http::header::HeaderValue::from_static("true"),
        );
        self
    }
}

/// Answers a write the service accepted (or found already accepted).
///
/// # Errors
/// Storage failures while waiting.
pub async fn answer_written<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    record: Option<&IdempotencyRecord>,
    written: Written<Job>,
    success: StatusCode,
) -> Result<HttpResponse, ApiError> {
    match written {
        Written::Done(job) => answer_job(state, req, job, success, true, false).await,
        Written::Replay(first) => match record {
            Some(record) => replay(state, req, access, record, first, success).await,
            None => Err(ApiError(DomainError::Internal(
                "replay without an idempotency record".into(),
            ))),
        },
    }
}

/// Starts the job at once in a task of its own (so a client that hangs up cannot cancel
/// it half-way), then answers: the final resource when the client asked to wait and the
/// job ended in time, else the 202 envelope.
async fn answer_job<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    job: Job,
    success: StatusCode,
    fresh: bool,
    synchronous: bool,
) -> Result<HttpResponse, ApiError> {
    let wait = if synchronous {
        Some(MAX_WAIT_SECONDS)
    } else {
        prefer_wait(req)
    };
    if fresh && !state.run_inline {
        state.waker.wake();
    }
    let run = if fresh && state.run_inline && !job.status.is_final() {
        let ledger = state.ledger.clone();
        let id = job.id.clone();
        Some(tokio::spawn(async move { ledger.run_now(&id).await }))
    } else {
        None
    };
    let mut job = job;
    if let Some(seconds) = wait.filter(|s| *s > 0 && !job.status.is_final()) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(seconds);
        if let Some(handle) = run {
            let _ = tokio::time::timeout_at(deadline, handle).await;
        }
        job = wait_final(&state.ledger, &job, deadline).await?;
    }
    Ok(render_job(&job, wait.is_some_and(|s| s > 0), success))
}

async fn wait_final<S: Store>(
    ledger: &Ledger<S>,
    job: &Job,
    deadline: tokio::time::Instant,
) -> DomainResult<Job> {
    let tenant = ledger_domain::ports::Tenant {
        organization_id: job.organization_id.clone(),
        livemode: job.livemode,
    };
    let mut pause = Duration::from_millis(5);
    loop {
        let current = ledger
            .store
            .get_job(&tenant, &job.id)
            .await?
            .unwrap_or_else(|| job.clone());
        if current.status.is_final() || tokio::time::Instant::now() >= deadline {
            return Ok(current);
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

/// The response for a job: final resource or error when waited for and done, else the
/// envelope (202 while not final).
pub fn render_job(job: &Job, waited: bool, success: StatusCode) -> HttpResponse {
    let location = format!("/organizations/{}/requests/{}", job.organization_id, job.id);
    if waited && job.status.is_final() {
        if let Some(error) = job
            .error
            .as_ref()
            .filter(|_| job.status == ledger_domain::jobs::JobStatus::Failed)
        {
            let (status, body) = envelope_from_stored(error);
            return HttpResponse::build(status).json(body);
        }
        if let Some(result) = &job.result {
            return HttpResponse::build(success).json(result);
        }
    }
    let status = if job.status.is_final() {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    HttpResponse::build(status)
        .insert_header(("Location", location))
        .json(views::job_envelope(job, ""))
}

/// Runs one queued write for a request: replays an earlier use of its idempotency key,
/// else calls `write` with the key's record and answers what it accepted (202, or the
/// final resource with `success` when the client waits).
///
/// # Errors
/// The write's refusal, or a malformed or reused idempotency key.
pub async fn queued_write<S, F, Fut>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    body: &[u8],
    success: StatusCode,
    write: F,
) -> Result<HttpResponse, ApiError>
where
    S: Store,
    F: FnOnce(WriteOptions) -> Fut,
    Fut: std::future::Future<Output = DomainResult<Written<Job>>>,
{
    write_through_queue(state, req, access, body, success, false, write).await
}

async fn write_through_queue<S, F, Fut>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    body: &[u8],
    success: StatusCode,
    synchronous: bool,
    write: F,
) -> Result<HttpResponse, ApiError>
where
    S: Store,
    F: FnOnce(WriteOptions) -> Fut,
    Fut: std::future::Future<Output = DomainResult<Written<Job>>>,
{
    let record = idempotency_for(req, access, body, state.ledger.now())?;
    if let Some(replayed) = replay_if_used(state, req, access, record.as_ref(), success).await? {
        return Ok(replayed);
    }
    match write(options(record.as_ref())).await? {
        Written::Done(job) => answer_job(state, req, job, success, true, synchronous).await,
        written => answer_written(state, req, access, record.as_ref(), written, success).await,
    }
}

/// How long a synchronous write waits for its job before it answers with the envelope.
const MAX_WAIT_SECONDS: u64 = 30;

/// Runs a write the spec answers synchronously (an invoice payment) through the queue:
/// like [`queued_write`], but always waiting for the job, as with `Prefer: wait=30`.
///
/// # Errors
/// As [`queued_write`].
pub async fn synchronous_write<S, F, Fut>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    body: &[u8],
    success: StatusCode,
    write: F,
) -> Result<HttpResponse, ApiError>
where
    S: Store,
    F: FnOnce(WriteOptions) -> Fut,
    Fut: std::future::Future<Output = DomainResult<Written<Job>>>,
{
    write_through_queue(state, req, access, body, success, true, write).await
}

/// Shorthand: the write options for a request's idempotency record.
pub fn options(record: Option<&IdempotencyRecord>) -> WriteOptions {
    WriteOptions {
        idempotency: record.cloned(),
    }
}
