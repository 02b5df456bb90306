//! The error responses every operation shares (the DECISIONS 6 envelope): one
//! component per status, and on each operation the statuses it can answer.

use ledger_domain::error::ErrorCode;
use serde_json::json;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::{Components, ContentBuilder, Ref, RefOr, ResponseBuilder};

/// The error responses every operation shares, by what the operation takes.
const ERRORS: &[(&str, &str, &str, &str)] = &[
    (
        "400",
        "BadRequest",
        "The request is malformed or a field is invalid.",
        "validation_error",
    ),
    (
        "401",
        "Unauthorized",
        "No valid API key or token.",
        "authentication_error",
    ),
    (
        "402",
        "CreditLimit",
        "The organization has no credits left for this write.",
        "credit_limit_error",
    ),
    (
        "403",
        "Forbidden",
        "The key or token lacks the permission.",
        "authorization_error",
    ),
    (
        "404",
        "NotFound",
        "No such resource in this organization.",
        "not_found_error",
    ),
    (
        "409",
        "Conflict",
        "The idempotency key was used with another request, or is in flight.",
        "idempotency_error",
    ),
    (
        "413",
        "PayloadTooLarge",
        "The body is too large.",
        "validation_error",
    ),
    (
        "415",
        "UnsupportedMediaType",
        "The body is not of the documented media type.",
        "invalid_request_error",
    ),
    (
        "422",
        "BusinessRule",
        "The request is valid but breaks a business rule.",
        "business_rule_error",
    ),
    (
        "429",
        "RateLimited",
        "Too many requests; retry after `Retry-After` seconds.",
        "rate_limit_error",
    ),
    (
        "500",
        "InternalError",
        "An unexpected failure, logged with the request id.",
        "api_error",
    ),
    (
        "503",
        "ServiceUnavailable",
        "The database cannot be reached right now (a restart or a failover); nothing was \
         done: retry after `Retry-After` seconds.",
        "api_error",
    ),
];

/// The shared error responses, one component per status, each with an example.
pub(super) fn add_responses(components: &mut Components) {
    for (status, name, description, kind) in ERRORS {
        let example = json!({"error": {
            "type": kind,
            "code": example_code(status),
            "message": description,
            "status": status.parse::<u16>().unwrap_or(500),
            "request_id": "req_01JD0000000000000000000000",
        }});
        components.responses.insert(
            (*name).to_owned(),
            RefOr::T(
                ResponseBuilder::new()
                    .description(*description)
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                            .example(Some(example))
                            .build(),
                    )
                    .build(),
            ),
        );
    }
}

/// A code of each status for the examples.
fn example_code(status: &str) -> &'static str {
    match status {
        "400" => ErrorCode::MissingField,
        "401" => ErrorCode::InvalidApiKey,
        "402" => ErrorCode::InsufficientCredits,
        "403" => ErrorCode::InsufficientPermissions,
        "404" => ErrorCode::ResourceNotFound,
        "409" => ErrorCode::IdempotencyKeyReused,
        "413" => ErrorCode::PayloadTooLarge,
        "415" => ErrorCode::UnsupportedMediaType,
        "422" => ErrorCode::UnbalancedTransaction,
        "429" => ErrorCode::RateLimitExceeded,
        "503" => ErrorCode::ServiceUnavailable,
        _ => ErrorCode::InternalError,
    }
    .as_str()
}

/// Adds the error responses an operation can answer, each a reference to the shared one.
pub(super) fn add_errors(method: &str, operation: &mut Operation) {
    // `[{}]` marks a public operation; any named scheme, an authenticated one.
    let authenticated = operation.security.as_ref().is_some_and(|s| {
        serde_json::to_value(s)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .is_some_and(|all| {
                all.iter()
                    .any(|r| r.as_object().is_some_and(|o| !o.is_empty()))
            })
    });
    let params = operation.parameters.as_deref().unwrap_or_default();
    let path_params = params
        .iter()
        .any(|p| matches!(p.parameter_in, ParameterIn::Path));
    let checked_input = !params.is_empty() || operation.request_body.is_some();
    let write = method != "get";
    let idempotent = params.iter().any(|p| p.name == "Idempotency-Key");
    let mut wanted = vec!["500"];
    // Every authenticated operation reads the database (the key, at least).
    if authenticated {
        wanted.push("503");
    }
    if checked_input {
        wanted.push("400");
    }
    if authenticated {
        wanted.extend(["401", "403", "429"]);
    }
    // A path names a resource; so can a body (`parent_organization_id`).
    if path_params || (authenticated && operation.request_body.is_some()) {
        wanted.push("404");
    }
    if operation.request_body.is_some() {
        wanted.extend(["413", "415"]);
    }
    if write && authenticated {
        wanted.push("402");
    }
    // A read can break a rule too (a balance in a currency without a rate).
    if authenticated {
        wanted.push("422");
    }
    if idempotent {
        wanted.push("409");
    }
    for (status, name, _, _) in ERRORS {
        if wanted.contains(status) && !operation.responses.responses.contains_key(*status) {
            operation.responses.responses.insert(
                (*status).to_owned(),
                RefOr::Ref(Ref::new(format!("#/components/responses/{name}"))),
            );
        }
    }
}
