//! The envelopes every resource shares: the error envelope with its stable codes, the
//! request envelope of a queued write, and the answer to a delete.

#![expect(dead_code, reason = "documentation types: described, never built")]

use std::borrow::Cow;

use ledger_domain::error::ErrorCode;
use serde_json::Value;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

/// The error envelope of every REST refusal (DECISIONS 6).
#[derive(ToSchema)]
#[schema(example = json!({"error": {
    "type": "validation_error",
    "code": "missing_field",
    "message": "name is required",
    "status": 400,
    "request_id": "req_01JD0000000000000000000000",
    "details": {"field": "name"}
}}))]
pub(crate) struct ErrorEnvelope {
    error: ErrorBody,
}

/// The body of an error.
#[derive(ToSchema)]
pub(crate) struct ErrorBody {
    /// The family of the error; it decides the status.
    #[schema(rename = "type")]
    kind: ErrorType,
    code: ErrorCodeSchema,
    /// A human-readable explanation, safe to show.
    message: String,
    /// The HTTP status, repeated.
    status: u16,
    /// The id of the request, as in the `X-Request-Id` header.
    request_id: String,
    /// More about the error (the field at fault, a limit, the current state).
    details: Option<Value>,
    /// Seconds until a rate-limited request may be retried (429 only).
    retry_after: Option<u64>,
}

/// Error families (DECISIONS 6).
#[expect(
    clippy::enum_variant_names,
    reason = "the variants are the wire names (`validation_error`, ...), which all end in `_error`"
)]
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
pub(crate) enum ErrorType {
    ValidationError,
    InvalidRequestError,
    AuthenticationError,
    AuthorizationError,
    NotFoundError,
    IdempotencyError,
    BusinessRuleError,
    CreditLimitError,
    PaymentError,
    RateLimitError,
    ApiError,
}

/// Every stable error code (DECISIONS 6), from the domain's one table.
pub(crate) struct ErrorCodeSchema;

impl PartialSchema for ErrorCodeSchema {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some("The stable machine-readable code of the error."))
            .enum_values(Some(ErrorCode::ALL.iter().map(|c| c.as_str())))
            .into()
    }
}

impl ToSchema for ErrorCodeSchema {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ErrorCode")
    }
}

/// The envelope of a queued write (spec 4.2, DECISIONS 4): answered with 202 while the
/// job runs; `status_url` (also the `Location` header) answers its progress.
#[derive(ToSchema)]
#[schema(example = json!({
    "request_id": "req_01JD0000000000000000000000",
    "object": "request",
    "success": true,
    "data": {
        "status": "queued",
        "operation": "create_account",
        "resource_type": "account",
        "resource_id": null,
        "status_url": "/organizations/org_01JD0000000000000000000000/requests/req_01JD0000000000000000000000",
        "estimated_completion": "2026-11-25T12:00:01Z",
        "attempts": 0
    },
    "error": null,
    "duration_ms": 0,
    "credit_cost": 1,
    "created_at": "2026-11-25T12:00:00Z"
}))]
pub(crate) struct QueuedRequest {
    request_id: String,
    #[schema(example = "request")]
    object: String,
    /// False once the job failed.
    success: bool,
    data: QueuedRequestData,
    /// The refusal of a failed job, in the error body's shape; null otherwise.
    error: Option<Value>,
    duration_ms: i64,
    credit_cost: Option<i64>,
    #[schema(format = DateTime)]
    created_at: String,
}

/// Where a queued write stands.
#[derive(ToSchema)]
pub(crate) struct QueuedRequestData {
    /// `queued`, `processing`, `completed` or `failed`.
    status: String,
    operation: String,
    resource_type: Option<String>,
    resource_id: Option<String>,
    status_url: String,
    #[schema(format = DateTime)]
    estimated_completion: String,
    attempts: i64,
    /// The resource, once the job completed.
    result: Option<Value>,
}

/// The answer to a soft delete.
#[derive(ToSchema)]
pub(crate) struct Deleted {
    id: String,
    object: String,
    deleted: bool,
    /// Until when it can be restored (not for API keys, which are revoked for good).
    recoverable_until: Option<String>,
}
