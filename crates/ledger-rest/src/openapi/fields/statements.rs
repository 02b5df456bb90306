//! The members of a statement import: the CSV mapping's columns, the format, how dates
//! and decimals are written.

use std::borrow::Cow;

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use super::names::optional_names;

/// A CSV statement's column: a header name, or a column number (1-based; whole numbers
/// as JSON Schema reads them, at most `routes::reconciliations::MAX_COLUMN`).
pub(crate) struct StatementColumn;

impl PartialSchema for StatementColumn {
    fn schema() -> RefOr<Schema> {
        let widest = crate::routes::reconciliations::MAX_COLUMN;
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .maximum(Some(i64::from(widest))),
            )
            .item(ObjectBuilder::new().schema_type(Type::String))
            .description(Some(format!(
                "A CSV column: a header name, or a 1-based column number (at most {widest})."
            )))
            .into()
    }
}

impl ToSchema for StatementColumn {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ReconciliationColumnRequest")
    }
}

/// A statement's format (sniffed when absent).
pub(crate) fn statement_format() -> Schema {
    optional_names(
        ["csv", "ofx", "qfx"],
        "`csv`, or `ofx` (`qfx` is the same), in any case; read from the content when absent.",
    )
}

/// How a CSV statement writes its dates (default `YYYY-MM-DD`).
pub(crate) fn statement_date_format() -> Schema {
    optional_names(
        [
            "YYYY-MM-DD",
            "MM/DD/YYYY",
            "DD/MM/YYYY",
            "DD.MM.YYYY",
            "YYYYMMDD",
        ],
        "How the dates are written (default `YYYY-MM-DD`).",
    )
}

/// The decimal separator of a CSV statement's amounts (default `.`).
pub(crate) fn decimal_separator() -> Schema {
    optional_names(
        [".", ","],
        "The decimal separator of the amounts (default `.`).",
    )
}
