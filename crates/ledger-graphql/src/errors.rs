//! The one mapping from the domain's errors to GraphQL errors (spec 7.2):
//! `errors[].extensions.code` is one of the codes below, `extensions.reason` the domain's
//! stable snake_case code, plus the error's details (`field`, `required`, `available`,
//! `totalDebits`, ...).

use juniper::{DefaultScalarValue, FieldError};
use ledger_domain::{DomainError, ErrorKind};
use serde_json::json;

/// Not authenticated: missing, malformed, unknown, expired or disabled key.
pub const UNAUTHENTICATED: &str = "UNAUTHENTICATED";
/// Another organization, or a permission the key lacks.
pub const FORBIDDEN: &str = "FORBIDDEN";
/// The document does not parse, fails schema validation or exceeds a limit.
pub const GRAPHQL_VALIDATION_FAILED: &str = "GRAPHQL_VALIDATION_FAILED";
/// Invalid input data, and an id in the operation's own arguments that names nothing.
pub const VALIDATION_ERROR: &str = "VALIDATION_ERROR";
/// A business rule refused the change (unbalanced transaction, resource in use, a
/// reference to a record that does not exist, members that contradict each other, ...).
pub const BUSINESS_RULE_VIOLATION: &str = "BUSINESS_RULE_VIOLATION";
/// Too few credits.
pub const CREDIT_LIMIT_EXCEEDED: &str = "CREDIT_LIMIT_EXCEEDED";
/// Too many requests.
pub const RATE_LIMIT_EXCEEDED: &str = "RATE_LIMIT_EXCEEDED";
/// The service cannot take the request now (its database cannot be reached); retry
/// after `Retry-After` seconds.
pub const SERVICE_UNAVAILABLE: &str = "SERVICE_UNAVAILABLE";
/// A failure of ours; nothing internal is shown.
pub const INTERNAL_SERVER_ERROR: &str = "INTERNAL_SERVER_ERROR";

/// The GraphQL code of a domain error.
pub fn code_of(error: &DomainError) -> &'static str {
    match error.kind() {
        ErrorKind::Authentication => UNAUTHENTICATED,
        ErrorKind::Authorization | ErrorKind::OrganizationNotFound => FORBIDDEN,
        ErrorKind::Validation | ErrorKind::Request | ErrorKind::NotFound | ErrorKind::Conflict => {
            VALIDATION_ERROR
        }
        ErrorKind::BusinessRule | ErrorKind::Payment => BUSINESS_RULE_VIOLATION,
        ErrorKind::CreditLimit => CREDIT_LIMIT_EXCEEDED,
        ErrorKind::RateLimit => RATE_LIMIT_EXCEEDED,
        ErrorKind::Unavailable => SERVICE_UNAVAILABLE,
        ErrorKind::Internal => INTERNAL_SERVER_ERROR,
    }
}

/// snake_case detail keys in camelCase, as GraphQL clients read them.
fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The `extensions` object of a domain error, as JSON.
pub fn extensions_json(error: &DomainError) -> serde_json::Value {
    let mut ext = json!({ "code": code_of(error), "reason": error.code().as_str() });
    if let Some(serde_json::Value::Object(details)) = error.details() {
        for (k, v) in details {
            ext[camel(&k)] = v;
        }
    }
    if let Some(retry_after) = error.retry_after() {
        ext["retryAfter"] = json!(retry_after);
    }
    ext
}

/// A domain error as a field error. Internal causes are logged here, once, and never
/// shown.
pub fn field_error(error: DomainError) -> FieldError<DefaultScalarValue> {
    if let DomainError::Internal(cause) = &error {
        tracing::error!(cause = %cause, "GraphQL resolver failed");
    }
    let ext = extensions_json(&error);
    FieldError::new(error.public_message(), crate::scalars::json_to_value(&ext))
}

/// A stored job error (`{code, message, details?}`) as a field error: read back with its
/// code, it maps like any other error.
pub fn stored_error(stored: &serde_json::Value) -> FieldError<DefaultScalarValue> {
    field_error(DomainError::from_stored(stored))
}

/// Shorthand for resolver results.
pub type GqlResult<T> = Result<T, FieldError<DefaultScalarValue>>;

/// Converts domain results in resolvers: `ledger.call().await.map_err(field_error)?`
/// reads as `ledger.call().await.gql()?`.
pub trait IntoGql<T> {
    fn gql(self) -> GqlResult<T>;
}

impl<T> IntoGql<T> for Result<T, DomainError> {
    fn gql(self) -> GqlResult<T> {
        self.map_err(field_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_details() {
        let e = DomainError::InsufficientCredits {
            required: 5,
            available: 2,
        };
        let ext = extensions_json(&e);
        assert_eq!(ext["code"], CREDIT_LIMIT_EXCEEDED);
        assert_eq!(
            (ext["required"].clone(), ext["available"].clone()),
            (json!(5), json!(2))
        );
        let e = DomainError::Unbalanced {
            currency: "USD".into(),
            total_debits: "10.00".into(),
            total_credits: "9.00".into(),
            difference: "1.00".into(),
        };
        let ext = extensions_json(&e);
        assert_eq!(ext["code"], BUSINESS_RULE_VIOLATION);
        assert_eq!(ext["totalDebits"], "10.00");
        assert_eq!(
            code_of(&DomainError::OrganizationNotFound("x".into())),
            FORBIDDEN
        );
        assert_eq!(
            camel("total_liabilities_and_equity"),
            "totalLiabilitiesAndEquity"
        );
    }

    fn ext_of(e: &FieldError<DefaultScalarValue>, key: &str) -> Option<String> {
        e.extensions()
            .as_object_value()
            .and_then(|o| o.get_field_value(key))
            .and_then(|v| v.as_scalar())
            .map(|s| s.to_string())
    }

    #[test]
    fn failed_jobs_keep_their_code() {
        let e = stored_error(&json!({
            "code": "duplicate_value", "message": "a contact with reference 'R' already exists",
            "details": { "field": "reference" },
        }));
        assert_eq!(e.message(), "a contact with reference 'R' already exists");
        assert_eq!(ext_of(&e, "code").as_deref(), Some("VALIDATION_ERROR"));
        assert_eq!(ext_of(&e, "field").as_deref(), Some("reference"));
        let e = stored_error(&json!({ "code": "resource_in_use", "message": "in use" }));
        assert_eq!(
            ext_of(&e, "code").as_deref(),
            Some("BUSINESS_RULE_VIOLATION")
        );
        assert_eq!(ext_of(&e, "reason").as_deref(), Some("resource_in_use"));
        let e = stored_error(&json!({ "code": "internal_error", "message": "boom" }));
        assert_eq!(ext_of(&e, "code").as_deref(), Some("INTERNAL_SERVER_ERROR"));
    }
}
