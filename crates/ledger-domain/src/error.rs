//! The one error vocabulary of the service.
//!
//! Every refusal the domain can make is a variant here with a stable snake_case `code`
//! (DECISIONS 6). Interfaces render these their own way in exactly one mapping function
//! each; they never invent codes of their own.

use serde_json::{Value, json};

/// How an interface should classify an error (maps to an HTTP status family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Validation,
    Authentication,
    Authorization,
    NotFound,
    OrganizationNotFound,
    Conflict,
    BusinessRule,
    CreditLimit,
    RateLimit,
    Internal,
}

/// A refusal or failure, with everything needed to render it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DomainError {
    #[error("{message}")]
    Validation {
        code: &'static str,
        field: Option<String>,
        message: String,
    },
    #[error("{message}")]
    Authentication { code: &'static str, message: String },
    #[error("this API key lacks the '{required}' permission")]
    InsufficientPermissions { required: String },
    #[error("no {resource} with id '{id}' exists in this organization")]
    NotFound { resource: &'static str, id: String },
    #[error("organization '{0}' does not exist or is not accessible with this key")]
    OrganizationNotFound(String),
    #[error("this Idempotency-Key was already used with a different request")]
    IdempotencyKeyReused,
    #[error(
        "transaction is not balanced: debits {total_debits} != credits {total_credits} (difference {difference})"
    )]
    Unbalanced {
        total_debits: String,
        total_credits: String,
        difference: String,
    },
    #[error("{message}")]
    BusinessRule { code: &'static str, message: String },
    #[error("insufficient credits: {required} required, {available} available")]
    InsufficientCredits { required: i64, available: i64 },
    #[error("rate limit exceeded; retry after {retry_after} seconds")]
    RateLimited { retry_after: u64 },
    #[error("internal error")]
    Internal(String),
}

/// The store's refusal of an effect whose decision read a state that changed since it was
/// decided; the job runner decides the job again from the new state.
pub const CONCURRENT_UPDATE: &str = "concurrent_update";

impl DomainError {
    /// See [`CONCURRENT_UPDATE`].
    pub fn concurrent_update(message: impl Into<String>) -> Self {
        Self::BusinessRule {
            code: CONCURRENT_UPDATE,
            message: message.into(),
        }
    }

    /// A validation error about one field.
    pub fn invalid_field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let field = field.into();
        Self::Validation {
            code: "invalid_field",
            message: format!("{field}: {}", message.into()),
            field: Some(field),
        }
    }

    /// A missing required field.
    pub fn missing_field(field: impl Into<String>) -> Self {
        let field = field.into();
        Self::Validation {
            code: "missing_field",
            message: format!("{field} is required"),
            field: Some(field),
        }
    }

    /// A value that must be unique and is not.
    pub fn duplicate_value(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Validation {
            code: "duplicate_value",
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// A business-rule refusal with a stable code.
    pub fn rule(code: &'static str, message: impl Into<String>) -> Self {
        Self::BusinessRule {
            code,
            message: message.into(),
        }
    }

    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Validation { code, .. }
            | Self::Authentication { code, .. }
            | Self::BusinessRule { code, .. } => code,
            Self::InsufficientPermissions { .. } => "insufficient_permissions",
            Self::NotFound { .. } => "resource_not_found",
            Self::OrganizationNotFound(_) => "organization_not_found",
            Self::IdempotencyKeyReused => "idempotency_key_reused",
            Self::Unbalanced { .. } => "unbalanced_transaction",
            Self::InsufficientCredits { .. } => "insufficient_credits",
            Self::RateLimited { .. } => "rate_limit_exceeded",
            Self::Internal(_) => "internal_error",
        }
    }

    /// The family the error belongs to.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Validation { .. } => ErrorKind::Validation,
            Self::Authentication { .. } => ErrorKind::Authentication,
            Self::InsufficientPermissions { .. } => ErrorKind::Authorization,
            Self::NotFound { .. } => ErrorKind::NotFound,
            Self::OrganizationNotFound(_) => ErrorKind::OrganizationNotFound,
            Self::IdempotencyKeyReused => ErrorKind::Conflict,
            Self::Unbalanced { .. } | Self::BusinessRule { .. } => ErrorKind::BusinessRule,
            Self::InsufficientCredits { .. } => ErrorKind::CreditLimit,
            Self::RateLimited { .. } => ErrorKind::RateLimit,
            Self::Internal(_) => ErrorKind::Internal,
        }
    }

    /// Machine-readable details, when the error has any.
    pub fn details(&self) -> Option<Value> {
        match self {
            Self::Validation {
                field: Some(field), ..
            } => Some(json!({ "field": field })),
            Self::InsufficientPermissions { required } => Some(json!({ "required": required })),
            Self::Unbalanced {
                total_debits,
                total_credits,
                difference,
            } => Some(json!({
                "total_debits": total_debits, "total_credits": total_credits, "difference": difference,
            })),
            Self::InsufficientCredits {
                required,
                available,
            } => Some(json!({ "required": required, "available": available })),
            Self::NotFound { resource, id } => Some(json!({ "resource": resource, "id": id })),
            _ => None,
        }
    }

    /// The message a client may see: internal causes never leak.
    pub fn public_message(&self) -> String {
        match self {
            Self::Internal(_) => "an internal error occurred; retry with backoff".to_owned(),
            other => other.to_string(),
        }
    }

    /// Whether a job that failed with this error may succeed on a retry.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Internal(_))
    }
}

/// Shorthand for results carrying a [`DomainError`].
pub type DomainResult<T> = Result<T, DomainError>;
