//! The REST error envelope (DECISIONS 6) and the request id that ties a response to logs.
//!
//! `ApiError` wraps a domain error; [`classify`] is the one table from error code to HTTP
//! status and error type, [`envelope`] the one body. The request id lives in a task-local set by the middleware, so
//! every envelope carries the same id as the `X-Request-Id` header.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use ledger_domain::error::ErrorCode;
use ledger_domain::views::{self, ErrorEnvelopeView, ErrorType};
use ledger_domain::{DomainError, ErrorKind};
use serde_json::Value;

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
pub fn classify(code: ErrorCode) -> (StatusCode, ErrorType) {
    match code.kind() {
        ErrorKind::Request => match code {
            ErrorCode::PayloadTooLarge => {
                (StatusCode::PAYLOAD_TOO_LARGE, ErrorType::ValidationError)
            }
            ErrorCode::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorType::InvalidRequestError,
            ),
            ErrorCode::MethodNotAllowed => (
                StatusCode::METHOD_NOT_ALLOWED,
                ErrorType::InvalidRequestError,
            ),
            ErrorCode::RouteNotFound => (StatusCode::NOT_FOUND, ErrorType::NotFoundError),
            ErrorCode::NotAcceptable => {
                (StatusCode::NOT_ACCEPTABLE, ErrorType::InvalidRequestError)
            }
            ErrorCode::HttpsRequired | ErrorCode::OriginNotAllowed => {
                (StatusCode::FORBIDDEN, ErrorType::AuthorizationError)
            }
            _ => (StatusCode::BAD_REQUEST, ErrorType::InvalidRequestError),
        },
        ErrorKind::Validation => (StatusCode::BAD_REQUEST, ErrorType::ValidationError),
        ErrorKind::Authentication => (StatusCode::UNAUTHORIZED, ErrorType::AuthenticationError),
        ErrorKind::Authorization => (StatusCode::FORBIDDEN, ErrorType::AuthorizationError),
        ErrorKind::NotFound => (StatusCode::NOT_FOUND, ErrorType::NotFoundError),
        ErrorKind::OrganizationNotFound => (StatusCode::NOT_FOUND, ErrorType::AuthenticationError),
        ErrorKind::Conflict => (StatusCode::CONFLICT, ErrorType::IdempotencyError),
        ErrorKind::BusinessRule => (
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorType::BusinessRuleError,
        ),
        ErrorKind::CreditLimit => (StatusCode::PAYMENT_REQUIRED, ErrorType::CreditLimitError),
        ErrorKind::Payment => (StatusCode::PAYMENT_REQUIRED, ErrorType::PaymentError),
        ErrorKind::RateLimit => (StatusCode::TOO_MANY_REQUESTS, ErrorType::RateLimitError),
        ErrorKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, ErrorType::ApiError),
        ErrorKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, ErrorType::ApiError),
    }
}

/// The status and envelope of an error (the body every REST refusal has).
pub fn envelope(error: &DomainError) -> (StatusCode, Value) {
    let (status, kind) = classify(error.code());
    let body = ErrorEnvelopeView::of(error, kind, status.as_u16(), current_request_id());
    (status, views::json(&body))
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
        if let Some(retry_after) = self.0.retry_after() {
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
