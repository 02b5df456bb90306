//! The bodies of a recurring schedule's create and update, written by hand: which
//! members a create requires depends on `recurable_type`, and a schedule takes a
//! template or a document to copy, never both.

use std::borrow::Cow;

use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use super::dates::date_only;
use super::names::names;

/// The members a recurring schedule's create and update share (`ledger_domain::services::
/// recurring`'s `apply_fields`), each optional; `null` means "not given" (or, for
/// `end_date` and `count`, "none").
fn schedule_members(object: ObjectBuilder, invoice: bool) -> ObjectBuilder {
    use ledger_domain::recurring::{MAX_INTERVAL, MAX_OCCURRENCES};
    let nullable = |t: Type| {
        ObjectBuilder::new().schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            t,
            Type::Null,
        ]))
    };
    let object = object
        .property(
            "name",
            nullable(Type::String)
                .max_length(Some(255))
                .description(Some("A name for people (at most 255 characters).")),
        )
        .property(
            "interval",
            nullable(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(MAX_INTERVAL))
                .description(Some("Every how many periods (1 to 1000; default 1).")),
        )
        .property(
            "start_date",
            OneOfBuilder::new()
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .item(date_only())
                .description(Some(
                    "The first occurrence (default today; at most 366 days in the past).",
                )),
        )
        .property(
            "end_date",
            OneOfBuilder::new()
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .item(date_only())
                .description(Some("No occurrence after it (not before `start_date`).")),
        )
        .property(
            "count",
            nullable(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(MAX_OCCURRENCES))
                .description(Some("At most this many occurrences (1 to 10 000).")),
        );
    if invoice {
        object.property(
            "auto_send",
            nullable(Type::Boolean).description(Some("Send each invoice it generates.")),
        )
    } else {
        object
    }
}

/// A schedule's `frequency`.
fn frequency() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some([
            "daily",
            "weekly",
            "monthly",
            "quarterly",
            "yearly",
            "annually",
        ]))
        .description(Some("The period (`annually` is `yearly`)."))
}

/// The template component of each kind of schedule: the create body of what it makes.
const TEMPLATES: [(&str, &str); 3] = [
    ("invoice", "InvoiceCreateRequest"),
    ("bill", "BillCreateRequest"),
    ("transaction", "TransactionTemplate"),
];

/// The create body of a recurring schedule: which members are required depends on
/// `recurable_type` (the discriminator), and a schedule takes either a `template` (the
/// create body of what it makes) or, for an invoice or a bill, the `recurable_id` of a
/// document to copy, never both.
pub(crate) struct RecurringScheduleCreateRequest;

impl PartialSchema for RecurringScheduleCreateRequest {
    fn schema() -> RefOr<Schema> {
        let mut one_of = OneOfBuilder::new();
        for (kind, template) in TEMPLATES {
            let document = kind != "transaction";
            let base = || {
                schedule_members(
                    ObjectBuilder::new()
                        .schema_type(Type::Object)
                        .property(
                            "recurable_type",
                            ObjectBuilder::new()
                                .schema_type(Type::String)
                                .enum_values(Some([kind])),
                        )
                        .required("recurable_type")
                        .property("frequency", frequency())
                        .required("frequency"),
                    kind == "invoice",
                )
                .additional_properties(Some(
                    utoipa::openapi::schema::AdditionalProperties::FreeForm(false),
                ))
            };
            one_of = one_of.item(
                base()
                    .title(Some(format!("A {kind} schedule from a template")))
                    .property("template", Ref::from_schema_name(template))
                    .required("template"),
            );
            if document {
                one_of = one_of.item(
                    base()
                        .title(Some(format!("A {kind} schedule copying a {kind}")))
                        .property(
                            "recurable_id",
                            ObjectBuilder::new()
                                .schema_type(Type::String)
                                .min_length(Some(1))
                                .pattern(Some(r"\S"))
                                .description(Some(format!(
                                    "The {kind} to copy (its contact, items and terms)."
                                ))),
                        )
                        .required("recurable_id"),
                );
            }
        }
        one_of
            .description(Some(
                "A schedule of invoices, bills or transactions: `recurable_type` says which, and \
                 the `template` is the create body of what it makes (or `recurable_id` names an \
                 invoice or a bill to copy).",
            ))
            .into()
    }
}

impl ToSchema for RecurringScheduleCreateRequest {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("RecurringScheduleCreateRequest")
    }
}

/// The changes to a recurring schedule: every member optional; its kind and source never
/// change, so `recurable_type` and `recurable_id` are not among them, and a `template`
/// must be one of the schedule's own kind (another kind's is 422 `inconsistent_fields`).
pub(crate) struct RecurringScheduleUpdateRequest;

impl PartialSchema for RecurringScheduleUpdateRequest {
    fn schema() -> RefOr<Schema> {
        let mut templates = utoipa::openapi::schema::AnyOfBuilder::new().description(Some(
            "The create body of what the schedule makes (of its own kind).",
        ));
        for (_, template) in TEMPLATES {
            templates = templates.item(Ref::from_schema_name(template));
        }
        schedule_members(ObjectBuilder::new().schema_type(Type::Object), true)
            .property(
                "frequency",
                OneOfBuilder::new()
                    .item(ObjectBuilder::new().schema_type(Type::Null))
                    .item(frequency()),
            )
            .property(
                "status",
                OneOfBuilder::new()
                    .item(ObjectBuilder::new().schema_type(Type::Null))
                    .item(names(["active", "paused"], "Resume (`active`) or pause.")),
            )
            .property("template", templates)
            .additional_properties(Some(
                utoipa::openapi::schema::AdditionalProperties::FreeForm(false),
            ))
            .description(Some(
                "`auto_send` applies to invoice schedules only (another kind's is 422 \
                 `inconsistent_fields`).",
            ))
            .into()
    }
}

impl ToSchema for RecurringScheduleUpdateRequest {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("RecurringScheduleUpdateRequest")
    }
}
