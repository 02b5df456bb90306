//! The REST error envelope (DECISIONS 6) and the request id that ties a response to logs.
//!
//! `ApiError` wraps a domain error; [`classify`] is the one table from error code to HTTP
//! status and error type. The request id lives in a task-local set by the middleware, so
//! every envelope carries the same id as the `X-Request-Id` header.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use ledger_domain::{DomainError, ErrorKind};
use serde_json::{Value, json};

tokio::task_local! {
    /// The id of the request being served.
    pub static REQUEST_ID: String;
}

/// The current request id, or an empty string outside a request.
pub fn current_request_id() -> String {
    REQUEST_ID.try_with(Clone::clone).unwrap_or_default()
}

/// A refusal or failure on its way to the client.
#[derive(Debug)]
pub struct ApiError(pub DomainError);

impl From<DomainError> for ApiError {
    fn from(e: DomainError) -> Self {
        Self(e)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// HTTP status and error type of an error code.
pub fn classify(code: &str, kind: Option<ErrorKind>) -> (StatusCode, &'static str) {
    match code {
        "payload_too_large" => return (StatusCode::PAYLOAD_TOO_LARGE, "validation_error"),
        "unsupported_media_type" => {
            return (StatusCode::UNSUPPORTED_MEDIA_TYPE, "validation_error");
        }
        "method_not_allowed" => return (StatusCode::METHOD_NOT_ALLOWED, "invalid_request_error"),
        "route_not_found" => return (StatusCode::NOT_FOUND, "not_found_error"),
        "https_required" => return (StatusCode::FORBIDDEN, "authorization_error"),
        _ => {}
    }
    let kind = kind.unwrap_or(match code {
        "invalid_json" | "missing_field" | "invalid_field" | "unknown_field"
        | "duplicate_value" => ErrorKind::Validation,
        "missing_api_key" | "invalid_api_key" | "expired_api_key" | "disabled_api_key"
        | "unauthorized" => ErrorKind::Authentication,
        "insufficient_permissions" => ErrorKind::Authorization,
        "resource_not_found" => ErrorKind::NotFound,
        "organization_not_found" => ErrorKind::OrganizationNotFound,
        "idempotency_key_reused" => ErrorKind::Conflict,
        "insufficient_credits" => ErrorKind::CreditLimit,
        "rate_limit_exceeded" => ErrorKind::RateLimit,
        "internal_error" => ErrorKind::Internal,
        _ => ErrorKind::BusinessRule,
    });
    match kind {
        ErrorKind::Validation => (StatusCode::BAD_REQUEST, "validation_error"),
        ErrorKind::Authentication => (StatusCode::UNAUTHORIZED, "authentication_error"),
        ErrorKind::Authorization => (StatusCode::FORBIDDEN, "authorization_error"),
        ErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found_error"),
        ErrorKind::OrganizationNotFound => (StatusCode::NOT_FOUND, "authentication_error"),
        ErrorKind::Conflict => (StatusCode::CONFLICT, "idempotency_error"),
        ErrorKind::BusinessRule => (StatusCode::UNPROCESSABLE_ENTITY, "business_rule_error"),
        ErrorKind::CreditLimit => (StatusCode::PAYMENT_REQUIRED, "credit_limit_error"),
        ErrorKind::RateLimit => (StatusCode::TOO_MANY_REQUESTS, "rate_limit_error"),
        ErrorKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "api_error"),
    }
}

/// The envelope for an error object `{code, message, details?}` as stored on a failed job.
pub fn envelope_from_stored(stored: &Value) -> (StatusCode, Value) {
    let code = stored["code"].as_str().unwrap_or("internal_error");
    let (status, kind) = classify(code, None);
    let mut error = json!({
        "type": kind,
        "code": code,
        "message": stored["message"].clone(),
        "status": status.as_u16(),
        "request_id": current_request_id(),
    });
    if let Some(details) = stored.get("details") {
        error["details"] = details.clone();
    }
    (status, json!({ "error": error }))
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        classify(self.0.code(), Some(self.0.kind())).0
    }

    fn error_response(&self) -> HttpResponse {
        let (status, kind) = classify(self.0.code(), Some(self.0.kind()));
        if let DomainError::Internal(cause) = &self.0 {
            tracing::error!(request_id = %current_request_id(), cause = %cause, "internal error");
        }
        let mut error = json!({
            "type": kind,
            "code": self.0.code(),
            "message": self.0.public_message(),
            "status": status.as_u16(),
            "request_id": current_request_id(),
        });
        if let Some(details) = self.0.details() {
            error["details"] = details;
        }
        let mut response = HttpResponse::build(status);
        if let DomainError::RateLimited { retry_after } = &self.0 {
            error["retry_after"] = json!(retry_after);
            response.insert_header(("Retry-After", retry_after.to_string()));
        }
        response.json(json!({ "error": error }))
    }
}

/// A validation error with a code of its own (`invalid_json`, `unknown_field`, ...).
pub fn validation(
    code: &'static str,
    field: Option<String>,
    message: impl Into<String>,
) -> ApiError {
    ApiError(DomainError::Validation {
        code,
        field,
        message: message.into(),
    })
}
