//! The 202 answer of a queued write (DECISIONS 4): every operation that takes `Prefer`
//! (the [`QueuedWrite`](crate::openapi::params::QueuedWrite) headers) may answer with
//! the request envelope while the write runs.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};

/// Adds the 202 answer to a queued write.
pub(super) fn add_queued_answer(operation: &mut Operation) {
    let queued = operation
        .parameters
        .iter()
        .flatten()
        .any(|p| p.name == "Prefer");
    if !queued {
        return;
    }
    let response = ResponseBuilder::new()
        .description("Queued: the write runs in the background; follow `Location`.")
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("QueuedRequest")))
                .build(),
        )
        .header(
            "Location",
            HeaderBuilder::new()
                .schema(ObjectBuilder::new().schema_type(Type::String))
                .description(Some("The status URL of the queued write."))
                .build(),
        )
        .build();
    operation
        .responses
        .responses
        .insert("202".to_owned(), RefOr::T(response));
}
