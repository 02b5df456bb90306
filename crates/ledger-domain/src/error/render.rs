//! How a [`DomainError`] reads outside the domain: its machine-readable details, the
//! message a client may see, the object a failed job stores and reads back with its
//! code (and so its kind), and its code as the error envelope
//! ([`crate::views::ErrorEnvelopeView`]) writes and documents it.

use std::borrow::Cow;

use serde::{Serialize, Serializer};
use serde_json::{Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use super::{DomainError, ErrorCode};

/// A code is written as its snake_case text.
impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Every stable error code (DECISIONS 6), from the one table.
impl PartialSchema for ErrorCode {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some("The stable machine-readable code of the error."))
            .enum_values(Some(Self::ALL.iter().map(|c| c.as_str())))
            .into()
    }
}

impl ToSchema for ErrorCode {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ErrorCode")
    }
}

impl DomainError {
    /// Machine-readable details, when the error has any.
    pub fn details(&self) -> Option<Value> {
        match self {
            Self::Validation {
                field: Some(field), ..
            } => Some(json!({ "field": field })),
            Self::InsufficientPermissions { required } => Some(json!({ "required": required })),
            Self::Unbalanced {
                currency,
                total_debits,
                total_credits,
                difference,
            } => Some(json!({
                "currency": currency, "total_debits": total_debits,
                "total_credits": total_credits, "difference": difference,
            })),
            Self::InsufficientCredits {
                required,
                available,
            } => Some(json!({ "required": required, "available": available })),
            Self::NotFound { resource, id } => Some(json!({ "resource": resource, "id": id })),
            Self::InUse { resource, id, .. } | Self::Vanished { resource, id } => {
                Some(json!({ "resource": resource.as_str(), "id": id }))
            }
            Self::PeriodLocked { lock_date, .. } => Some(json!({ "lock_date": lock_date })),
            Self::ReferenceNotFound {
                field,
                resource,
                id,
                ..
            }
            | Self::ReferenceNotUsable {
                field,
                resource,
                id,
                ..
            } => Some(json!({ "field": field, "resource": resource.as_str(), "id": id })),
            Self::Inconsistent { field, .. } => Some(json!({ "field": field })),
            Self::Reported { details, .. } => details.clone(),
            _ => None,
        }
    }

    /// The message a client may see: internal causes never leak.
    pub fn public_message(&self) -> String {
        match self {
            Self::Internal(_) | Self::ClaimLost(_) => {
                "an internal error occurred; retry with backoff".to_owned()
            }
            other => other.to_string(),
        }
    }

    /// Whether a job that failed with this error may succeed on a retry.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Internal(_) | Self::Unavailable(_))
    }

    /// The error object stored on a failed job: `{code, message, details?}`.
    pub fn to_stored(&self) -> Value {
        let mut v = json!({ "code": self.code().as_str(), "message": self.public_message() });
        if let Some(details) = self.details() {
            v["details"] = details;
        }
        v
    }

    /// A stored error object read back (see [`DomainError::to_stored`]); it keeps its code
    /// and so its kind. An object without a known code reads as an internal error.
    pub fn from_stored(stored: &Value) -> Self {
        let code = stored["code"]
            .as_str()
            .and_then(ErrorCode::parse)
            .unwrap_or(ErrorCode::InternalError);
        let message = stored["message"]
            .as_str()
            .unwrap_or("the request failed")
            .to_owned();
        Self::Reported {
            code,
            message,
            details: stored.get("details").cloned(),
        }
    }
}
