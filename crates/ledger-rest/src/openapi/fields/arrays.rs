//! Array members with their item schemas and bounds: a key's permissions, an item's
//! taxes, a batch's transactions and a webhook endpoint's event kinds.

use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};

use super::names::names;

/// The permissions of a key (`ledger_domain::organizations::Permission::parse`): at least
/// one, each a level on every resource (`read`, `write`, `admin`, or `system` for
/// `/system` and `/metrics` alone) or a level on one resource (`invoices:write`).
pub(crate) fn permissions() -> Schema {
    let scoped = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^[a-z_-]+:(read|write|admin)$"))
        .description(Some(
            "A level on one resource: `<resource>:<read|write|admin>` (`invoices:write`).",
        ));
    let permission = OneOfBuilder::new()
        .item(names(
            ["read", "write", "admin", "system"],
            "A level on every resource; `system` allows `/system` and `/metrics` only.",
        ))
        .item(scoped);
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(RefOr::T(Schema::OneOf(permission.build())))
        .min_items(Some(1))
        .description(Some(
            "`read`, `write`, `admin` or `system`, or a level on one resource \
             (`invoices:write`); read in any case.",
        ))
        .into()
}

/// The taxes of an item: at most five, each once (`tax_...` ids of the organization).
pub(crate) fn tax_ids() -> Schema {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(RefOr::T(Schema::Object(
            ObjectBuilder::new().schema_type(Type::String).build(),
        )))
        .max_items(Some(ledger_domain::services::MAX_ITEM_TAXES))
        .unique_items(true)
        .description(Some(
            "Taxes applied to the item, in order: at most 5, each once.",
        ))
        .into()
}

/// The transactions of a batch: 1 to 1000, each a create body without `dry_run`.
pub(crate) fn batch_transactions() -> Schema {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(RefOr::<Schema>::Ref(Ref::from_schema_name(
            "TransactionInput",
        )))
        .min_items(Some(1))
        .max_items(Some(ledger_domain::services::MAX_BATCH))
        .description(Some(
            "1 to 1000 transactions (at most 10 000 entries together), written all or none.",
        ))
        .into()
}

/// The event kinds a webhook endpoint receives (`check_event_types`): kinds such as
/// `invoice.created` (lowercase letters, digits and `_`, one or more dots; new kinds are
/// added without a change of the API, so the set is a pattern rather than a list), or
/// `["*"]` alone for every kind, as an empty list or `null` also means.
pub(crate) fn event_types() -> Schema {
    use utoipa::openapi::schema::ArrayBuilder;
    let kind = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$"))
        .max_length(Some(100));
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(
            ArrayBuilder::new()
                .items(RefOr::T(Schema::Object(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some(["*"]))
                        .build(),
                )))
                .min_items(Some(1))
                .max_items(Some(1)),
        )
        .item(
            ArrayBuilder::new()
                .items(RefOr::T(Schema::Object(kind.build())))
                .max_items(Some(ledger_domain::webhooks::MAX_EVENT_TYPES)),
        )
        .description(Some(
            "Event kinds such as `invoice.created`, or `[\"*\"]` (also an empty list) for every kind.",
        ))
        .into()
}
