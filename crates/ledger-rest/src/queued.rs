//! Writes from REST requests: the request becomes a [`Submission`] to the domain's one
//! write pipeline ([`Ledger::submit`](ledger_domain::services::Ledger::submit)), and its
//! outcome becomes the response (DECISIONS 4): the resource, the 202 envelope of a queued
//! write, or with `Prefer: wait=N` the final resource once the job is done.
//! Idempotency, prices and waiting are the pipeline's; this module only translates.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{HttpRequest, HttpResponse};
use ledger_domain::DomainError;
use ledger_domain::jobs::{Job, JobStatus};
use ledger_domain::ports::Store;
use ledger_domain::services::{
    Access, Channel, IdempotencyKey, MAX_WAIT, Outcome, Submission, Write,
};
use ledger_domain::views;

use crate::AppState;
use crate::auth::sha256_hex;
use crate::error::{ApiError, envelope};
use crate::input::{canonical_json, idempotency_key, prefer_wait};

/// The fingerprint of a request for its `Idempotency-Key`: method, path, query and what
/// the body means. A JSON body counts as parsed: its key order and whitespace do not
/// matter, its values (numbers as written) do; any other body counts byte for byte
/// (docs/decisions.md, "An idempotency key compares what the request means").
fn request_hash(req: &HttpRequest, body: &[u8]) -> String {
    let mut hashed = format!("{} {}\n", req.method(), req.path());
    let mut query: Vec<&str> = req
        .query_string()
        .split('&')
        .filter(|p| !p.is_empty())
        .collect();
    query.sort_unstable();
    hashed.push_str(&query.join("&"));
    hashed.push('\n');
    let mut hashed = hashed.into_bytes();
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(value) => hashed.extend_from_slice(canonical_json(&value).as_bytes()),
        Err(_) => hashed.extend_from_slice(body),
    }
    sha256_hex(&hashed)
}

/// The `Idempotency-Key` of a request with its fingerprint, for writes that submit
/// through the pipeline themselves (a recurring schedule's manual run).
///
/// # Errors
/// `invalid_field` on a malformed `Idempotency-Key`.
pub fn idempotency(req: &HttpRequest, body: &[u8]) -> Result<Option<IdempotencyKey>, ApiError> {
    Ok(idempotency_key(req)?.map(|key| IdempotencyKey {
        key,
        request_hash: request_hash(req, body),
    }))
}

/// The submission of a REST request: its key (if any) and how long it waits.
///
/// # Errors
/// `invalid_field` on a malformed `Idempotency-Key`.
fn submission(req: &HttpRequest, body: &[u8], wait: Duration) -> Result<Submission, ApiError> {
    let idempotency = idempotency_key(req)?.map(|key| IdempotencyKey {
        key,
        request_hash: request_hash(req, body),
    });
    Ok(Submission {
        idempotency,
        channel: Channel::Rest,
        wait,
    })
}

/// Submits a write and answers its outcome with `success` (201 or 200) when it is done,
/// or the 202 envelope while it is queued. The client waits with `Prefer: wait=N`.
///
/// # Errors
/// The write's refusal, or a malformed or reused idempotency key.
pub async fn submit<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    body: &[u8],
    success: StatusCode,
    write: Write,
) -> Result<HttpResponse, ApiError> {
    let wait = Duration::from_secs(prefer_wait(req).unwrap_or(0));
    submit_waiting(state, req, access, body, success, write, wait).await
}

/// [`submit`] for a write the spec answers synchronously (an invoice payment): it always
/// waits, as with `Prefer: wait=30`.
///
/// # Errors
/// As [`submit`].
pub async fn submit_synchronous<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    body: &[u8],
    success: StatusCode,
    write: Write,
) -> Result<HttpResponse, ApiError> {
    submit_waiting(state, req, access, body, success, write, MAX_WAIT).await
}

async fn submit_waiting<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    access: &Access,
    body: &[u8],
    success: StatusCode,
    write: Write,
    wait: Duration,
) -> Result<HttpResponse, ApiError> {
    let submission = submission(req, body, wait)?;
    let submitted = state.ledger.submit(access, write, submission).await?;
    let mut response = match submitted.outcome {
        Outcome::Done(view) => HttpResponse::build(success).json(view),
        Outcome::Queued(job) => render_job(&job, !wait.is_zero(), success),
    };
    if submitted.replayed {
        response.headers_mut().insert(
            HeaderName::from_static("idempotent-replayed"),
            HeaderValue::from_static("true"),
        );
    }
    Ok(response)
}

/// The response for a job: the final resource or error when waited for and done, else
/// the envelope (202 while not final).
pub fn render_job(job: &Job, waited: bool, success: StatusCode) -> HttpResponse {
    let location = format!("/organizations/{}/requests/{}", job.organization_id, job.id);
    if waited && job.status.is_final() {
        if let Some(error) = job
            .error
            .as_ref()
            .filter(|_| job.status == JobStatus::Failed)
        {
            let (status, body) = envelope(&DomainError::from_stored(error));
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
        .json(views::QueuedRequestView::of(job, ""))
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::request_hash;

    fn hash(uri: &str, body: &str) -> String {
        request_hash(
            &TestRequest::post().uri(uri).to_http_request(),
            body.as_bytes(),
        )
    }

    #[test]
    fn a_key_compares_what_the_request_means() {
        let path = "/organizations/org_1/taxes";
        let first = hash(path, r#"{"name":"VAT","rate":"20","tags":["a","b"]}"#);
        // Other spacing and another member order: the same request.
        let spaced = "{\n  \"tags\": [ \"a\", \"b\" ],\n  \"rate\": \"20\", \"name\": \"VAT\"\n}";
        assert_eq!(hash(path, spaced), first);
        // Another value, another element order, another path: another request.
        assert_ne!(
            hash(path, r#"{"name":"VAT","rate":"21","tags":["a","b"]}"#),
            first
        );
        assert_ne!(
            hash(path, r#"{"name":"VAT","rate":"20","tags":["b","a"]}"#),
            first
        );
        let other = "/organizations/org_2/taxes";
        assert_ne!(
            hash(other, r#"{"name":"VAT","rate":"20","tags":["a","b"]}"#),
            first
        );
        // Query parameters count in any order; a body that is not JSON counts as sent.
        assert_eq!(
            hash(&format!("{path}?a=1&b=2"), "{}"),
            hash(&format!("{path}?b=2&a=1"), "{}")
        );
        assert_ne!(hash(&format!("{path}?a=1"), "{}"), hash(path, "{}"));
        assert_ne!(hash(path, "not json"), hash(path, "not  json"));
    }
}
