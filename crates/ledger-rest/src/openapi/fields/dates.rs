//! Date members: a date or a date-time ([`FlexibleDate`]), or a date alone, with the
//! years the domain accepts.

use std::borrow::Cow;

use serde_json::json;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    KnownFormat, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type,
};
use utoipa::{PartialSchema, ToSchema};

/// The years a date may carry, 1000 to 9998 (`ledger_domain::dates::MIN_YEAR`,
/// `MAX_YEAR`), as the start of a pattern.
pub(super) const YEARS: &str = "^([1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-";

/// A date, `YYYY-MM-DD` or an RFC 3339 date-time.
pub(crate) struct FlexibleDate;

impl PartialSchema for FlexibleDate {
    fn schema() -> RefOr<Schema> {
        let year = YEARS;
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)))
                    .pattern(Some(year)),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                    .pattern(Some(year)),
            )
            .description(Some(
                "A date (`YYYY-MM-DD`) or an RFC 3339 date-time, years 1000 to 9998.",
            ))
            .examples([json!("2026-11-25")])
            .into()
    }
}

impl ToSchema for FlexibleDate {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("FlexibleDate")
    }
}

/// A `YYYY-MM-DD` date, years 1000 to 9998 (a member that takes no date-time).
pub(crate) fn date_only() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)))
        .pattern(Some(YEARS))
        .into()
}

/// [`date_only`] or `null` (not given).
pub(crate) fn optional_date_only() -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(date_only())
        .into()
}
