//! The parameters many operations share, each group declared once: an operation names
//! the group in its `params(...)` instead of repeating the members. The constraints of
//! the members are the conventions' (`super::conventions`), one place for each name.

use utoipa::IntoParams;
use utoipa::openapi::Required;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};

/// The path parameters of an organization's paths, `{org}` and `{id}`: not named by the
/// operations, added where the template names them (`super::conventions`, `implied`).
pub(crate) enum ResourcePath {}

/// The headers of a queued write (DECISIONS 4), `Idempotency-Key` and `Prefer`. An
/// operation that takes them also answers 202 with the request envelope (a convention).
pub(crate) enum QueuedWrite {}

/// The page of a list (`crate::input::page`): `limit` and `offset`.
pub(crate) enum Paging {}

const ORG: &str = "The organization id (`org_...`).";

impl IntoParams for ResourcePath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![path("org", ORG), path("id", "The id of the resource.")]
    }
}

impl IntoParams for QueuedWrite {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        // A header is text or absent, never `null` (the conventions say so for every
        // header).
        let text = || ObjectBuilder::new().schema_type(Type::String);
        vec![
            optional(
                ParameterIn::Header,
                "Idempotency-Key",
                "Makes the write safe to retry: the same key with the same request answers \
                 the first outcome.",
                text(),
            ),
            optional(
                ParameterIn::Header,
                "Prefer",
                "`wait=N` (seconds, at most 30): wait up to N seconds for the queued write \
                 and answer its final resource (201 or 200) rather than 202 with the \
                 request envelope.",
                text(),
            ),
        ]
    }
}

impl IntoParams for Paging {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let integer = |minimum: i64| {
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                .minimum(Some(minimum))
        };
        vec![
            optional(
                ParameterIn::Query,
                "limit",
                "Page size (1 to 100).",
                integer(1).maximum(Some(100)),
            ),
            optional(ParameterIn::Query, "offset", "Items to skip.", integer(0)),
        ]
    }
}

/// A required path parameter (a string).
fn path(name: &str, description: &str) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some(description))
        .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
        .build()
}

/// An optional parameter.
fn optional(
    parameter_in: ParameterIn,
    name: &str,
    description: &str,
    schema: ObjectBuilder,
) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(parameter_in)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(schema))
        .build()
}
