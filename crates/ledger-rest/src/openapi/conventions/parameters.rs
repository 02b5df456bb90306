//! The constraints of the shared parameters, one place for each name: what the
//! handlers' common input helpers accept.

use utoipa::PartialSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};

use crate::openapi::fields::{
    FlexibleDate, account_type, category_type, contact_type, currency_code, names, tax_type,
    typed_id,
};

/// Gives the shared parameters the constraints the server checks, one place for each
/// name (the handlers read them all through the same helpers of `crate::input`): the
/// `Idempotency-Key` header, paging, dates, currencies, the closed sets of the list
/// filters and the typed ids. Without them a client (or schemathesis) would take a value
/// the document allows for one the server accepts.
pub(super) fn constrain_parameters(path: &str, operation: &mut Operation) {
    for parameter in operation.parameters.iter_mut().flatten() {
        if matches!(parameter.parameter_in, ParameterIn::Header)
            && let Some(RefOr::T(Schema::Object(schema))) = parameter.schema.as_mut()
            && let SchemaType::Array(types) = &mut schema.schema_type
        {
            // An optional header (`Option<String>`) is absent or text, never `null`: a
            // generated client would offer `None` and send it as the text "None".
            types.retain(|t| *t != Type::Null);
            if let [only] = types.as_slice() {
                schema.schema_type = SchemaType::Type(only.clone());
            }
        }
        let Some(schema) = parameter_schema(path, &parameter.name) else {
            continue;
        };
        parameter.schema = Some(if matches!(parameter.parameter_in, ParameterIn::Query) {
            // `crate::input::query_param` reads an empty value as an absent one, for
            // every query parameter (`limit=` is the default page size).
            OneOfBuilder::new()
                .item(schema)
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .max_length(Some(0)),
                )
                .into()
        } else {
            schema
        });
    }
}

/// The schema of the parameter `name` of `path`, when it is constrained.
fn parameter_schema(path: &str, name: &str) -> Option<RefOr<Schema>> {
    let string = || ObjectBuilder::new().schema_type(Type::String);
    let schema: Schema = match name {
        // `ledger_http::input::idempotency_key`: 1 to 255 visible ASCII characters
        // (spaces inside). Spaces and tabs around them are not part of the value (HTTP's
        // optional whitespace, RFC 9110 5.5), so the length is the pattern's, not a
        // `maxLength` of the text as sent.
        "Idempotency-Key" => string()
            .pattern(Some("^[ \t]*[!-~]([ -~]{0,253}[!-~])?[ \t]*$"))
            .into(),
        "limit" => ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(1))
            .maximum(Some(ledger_domain::ports::MAX_PAGE_SIZE))
            .into(),
        "offset" => ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .maximum(Some(i64::MAX))
            .into(),
        "setting_key" => string().pattern(Some("^[a-z0-9_]{1,64}$")).into(),
        "as_of" | "start_date" | "end_date" | "from_date" | "to_date" => {
            return Some(FlexibleDate::schema());
        }
        "currency" | "from_currency" | "to_currency" => currency_code(),
        "account_type" => account_type(),
        "category_type" => category_type(),
        "contact_type" => contact_type(),
        // The spec's examples also filter contacts by `type`.
        "type" if path.ends_with("/contacts") => contact_type(),
        "tax_type" => tax_type(),
        "entity_type" => names(
            ledger_domain::services::EVENT_ENTITY_TYPES,
            "The type of the entity.",
        ),
        "parent_id" if path.ends_with("/categories") => typed_id("cat"),
        // `query_bool`, and `all` for both (spec 4.7: the default is `true`).
        "enabled" if path.ends_with("/contacts") => names(
            ["true", "false", "1", "0", "all"],
            "Enabled contacts (`true`, the default), disabled ones (`false`) or `all`.",
        ),
        "status" => {
            let values: &[&str] = if path.ends_with("/invoices") {
                ledger_domain::documents::DocumentStatus::of_kind(
                    ledger_domain::documents::DocumentKind::Invoice,
                )
            } else if path.ends_with("/bills") {
                ledger_domain::documents::DocumentStatus::of_kind(
                    ledger_domain::documents::DocumentKind::Bill,
                )
            } else if path.ends_with("/transactions") || path.ends_with("/transfers") {
                &["pending", "posted", "reversed"]
            } else if path.ends_with("/reconciliations") {
                &["open", "completed"]
            } else if path.ends_with("/accounts") {
                &["active", "inactive", "suspended"]
            } else {
                return None;
            };
            names(values.iter().copied(), "Filter by status.")
        }
        _ => return None,
    };
    Some(RefOr::T(schema))
}
