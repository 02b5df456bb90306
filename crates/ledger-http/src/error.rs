//! The REST error envelope (DECISIONS 6) and the request id that ties a response to logs.
//!
//! `ApiError` wraps a domain error; [`classify`] is the one table from error code to HTTP
//! status and error type, [`envelope`] the one body. The request id lives in a task-local set by the middleware, so
//! every envelope carries the same id as the `X-Request-Id` header.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use ledger_domain::error::ErrorCode;
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

/// The one table from error code to HTTP status and error type (DECISIONS 6).
pub fn classify(code: ErrorCode) -> (StatusCode, &'static str) {
    match code.kind() {
        ErrorKind::Request => match code {
            ErrorCode::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "validation_error"),
            ErrorCode::UnsupportedMediaType => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "invalid_request_error")
            }
            ErrorCode::MethodNotAllowed => {
                (StatusCode::METHOD_NOT_ALLOWED, "invalid_request_error")
            }
            ErrorCode::RouteNotFound => (StatusCode::NOT_FOUND, "not_found_error"),
            ErrorCode::NotAcceptable => (StatusCode::NOT_ACCEPTABLE, "invalid_request_error"),
            ErrorCode::HttpsRequired | ErrorCode::OriginNotAllowed => {
                (StatusCode::FORBIDDEN, "authorization_error")
            }
            _ => (StatusCode::BAD_REQUEST, "invalid_request_error"),
        },
        ErrorKind::Validation => (StatusCode::BAD_REQUEST, "validation_error"),
        ErrorKind::Authentication => (StatusCode::UNAUTHORIZED, "authentication_error"),
        ErrorKind::Authorization => (StatusCode::FORBIDDEN, "authorization_error"),
        ErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found_error"),
        ErrorKind::OrganizationNotFound => (StatusCode::NOT_FOUND, "authentication_error"),
        ErrorKind::Conflict => (StatusCode::CONFLICT, "idempotency_error"),
        ErrorKind::BusinessRule => (StatusCode::UNPROCESSABLE_ENTITY, "business_rule_error"),
        ErrorKind::CreditLimit => (StatusCode::PAYMENT_REQUIRED, "credit_limit_error"),
        ErrorKind::Payment => (StatusCode::PAYMENT_REQUIRED, "payment_error"),
        ErrorKind::RateLimit => (StatusCode::TOO_MANY_REQUESTS, "rate_limit_error"),
        ErrorKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "api_error"),
        ErrorKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "api_error"),
    }
}

/// The status and envelope of an error (the body every REST refusal has).
pub fn envelope(error: &DomainError) -> (StatusCode, Value) {
    let (status, kind) = classify(error.code());
    let mut body = json!({
        "type": kind,
        "code": error.code().as_str(),
        "message": error.public_message(),
        "status": status.as_u16(),
        "request_id": current_request_id(),
    });
    if let Some(details) = error.details() {
        body["details"] = details;
    }
    if let DomainError::RateLimited { retry_after } = error {
        body["retry_after"] = json!(retry_after);
    }
    (status, json!({ "error": body }))
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        classify(self.0.code()).0
    }

    fn error_response(&self) -> HttpResponse {
        if let DomainError::Internal(cause) = &self.0 {
            tracing::error!(request_id = %current_request_id(), cause = %cause, "internal error");
        }
        let (status, body) = envelope(&self.0);
        let mut response = HttpResponse::build(status);
        if let DomainError::RateLimited { retry_after } = &self.0 {
            response.insert_header(("Retry-After", retry_after.to_string()));
        }
        let mut response = response.json(body);
        if let DomainError::InsufficientPermissions { required } = &self.0 {
            // For the challenge of a token lacking a scope (see `auth::bearer_challenge`).
            response
                .extensions_mut()
                .insert(crate::auth::MissingPermission(required.clone()));
        }
        response
    }
}

/// A validation error with a code of its own (`invalid_json`, `unknown_field`, ...).
pub fn validation(code: ErrorCode, field: Option<String>, message: impl Into<String>) -> ApiError {
    ApiError(DomainError::validation(code, field, message))
}
