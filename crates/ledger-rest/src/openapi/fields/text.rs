//! Text members: names and free text with their lengths, whether they may be blank or
//! `null`, and the optional members where blank means "not given" (e-mail, country,
//! client data).

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    KnownFormat, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type,
};

/// Whether a text member takes `null` (leave it as it is, or not given).
#[derive(Clone, Copy)]
enum Null {
    Refused,
    Taken,
}

/// Whether a text member must say something (a character that is not a blank).
#[derive(Clone, Copy)]
enum Blank {
    Taken,
    Refused,
}

/// A text member: its lengths, whether `null` is taken and whether it may be blank.
fn text_schema(null: Null, min: Option<usize>, max: Option<usize>, blank: Blank) -> Schema {
    let object = match null {
        Null::Refused => ObjectBuilder::new().schema_type(Type::String),
        Null::Taken => {
            ObjectBuilder::new().schema_type(utoipa::openapi::schema::SchemaType::from_iter([
                Type::String,
                Type::Null,
            ]))
        }
    };
    let object = object.min_length(min).max_length(max);
    match blank {
        Blank::Taken => object.into(),
        Blank::Refused => object.pattern(Some(r"\S")).into(),
    }
}

/// A name as the domain checks it (`check_name`): 1 to 255 characters, not blank.
pub(crate) fn name() -> Schema {
    text_schema(Null::Refused, Some(1), Some(255), Blank::Refused)
}

/// [`name`] in a change, where `null` leaves it as it is.
pub(crate) fn optional_name() -> Schema {
    text_schema(Null::Taken, Some(1), Some(255), Blank::Refused)
}

/// Free text that must say something: not empty, not only blanks.
pub(crate) fn text() -> Schema {
    text_schema(Null::Refused, Some(1), None, Blank::Refused)
}

/// A text of 1 to 1000 characters that says something (an item's description).
pub(crate) fn text_1000() -> Schema {
    text_schema(Null::Refused, Some(1), Some(1000), Blank::Refused)
}

/// An optional free text of at most 255 characters (blank: not given).
pub(crate) fn optional_text_255() -> Schema {
    text_schema(Null::Taken, None, Some(255), Blank::Taken)
}

/// An optional text of at most 5000 characters (notes).
pub(crate) fn optional_text_5000() -> Schema {
    text_schema(Null::Taken, None, Some(5000), Blank::Taken)
}

/// A string that is empty or only blanks: an optional text member reads it as absent
/// (`ledger_domain::contacts::check_text`).
fn blank() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(r"^\s*$"))
}

/// `schema`, `null` or a blank string: an optional member where both mean "not given".
pub(super) fn optional_or_blank(schema: impl Into<RefOr<Schema>>, description: &str) -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(schema)
        .item(blank())
        .description(Some(description))
        .into()
}

/// An optional e-mail address (`ledger_domain::contacts::check_email`).
pub(crate) fn optional_email() -> Schema {
    optional_or_blank(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Email)))
            .pattern(Some(r"^[^\s@]+@[^\s@]+\.[^\s@]+$"))
            .max_length(Some(255)),
        "An e-mail address whose domain has a dot.",
    )
}

/// An optional ISO 3166-1 alpha-2 country code (`check_country`; any case is read).
pub(crate) fn optional_country() -> Schema {
    optional_or_blank(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(ledger_domain::contacts::country_codes())),
        "An ISO 3166-1 alpha-2 country code.",
    )
}

/// A JSON object of the client's own, or `null` (not given).
pub(crate) fn optional_object() -> Schema {
    ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            Type::Object,
            Type::Null,
        ]))
        .description(Some(
            "Free-form key-value data of the client (a JSON object).",
        ))
        .into()
}
