//! The body of an invoice or a bill, as read (one struct for both kinds, the other
//! kind's date refused) and as documented (one schema per kind and operation).

use ledger_domain::documents::DocumentKind;
use ledger_domain::error::ErrorCode;
use ledger_domain::services::{DocumentInput, DocumentItemInput};
use serde::Deserialize;

use super::Kind;
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, FlexDate};
use crate::routes::resource::present;

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = DocumentItemRequest)]
#[serde(deny_unknown_fields)]
struct ItemBody {
    #[schema(required = true, schema_with = crate::openapi::text_1000)]
    description: Option<String>,
    #[schema(required = true, value_type = crate::openapi::Quantity)]
    quantity: Option<DecimalText>,
    #[schema(required = true, value_type = crate::openapi::NonNegativeAmount)]
    unit_price: Option<DecimalText>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    item_id: Option<String>,
    account_id: Option<String>,
    #[serde(default)]
    #[schema(schema_with = crate::openapi::tax_ids)]
    tax_ids: Vec<String>,
    category_id: Option<String>,
}

impl From<ItemBody> for DocumentItemInput {
    fn from(i: ItemBody) -> Self {
        Self {
            description: i.description,
            quantity: i.quantity.map(|q| q.0),
            unit_price: i.unit_price.map(|p| p.0),
            item_id: i.item_id,
            account_id: i.account_id,
            tax_ids: i.tax_ids,
            category_id: i.category_id,
        }
    }
}

/// The body of a create or update. The date field is `invoice_date` or `bill_date`; the
/// other kind's name is refused as an unknown field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DocumentBody {
    contact_id: Option<String>,
    invoice_date: Option<FlexDate>,
    bill_date: Option<FlexDate>,
    due_date: Option<FlexDate>,
    items: Option<Vec<ItemBody>>,
    #[serde(default, deserialize_with = "present")]
    notes: Option<Option<String>>,
}

/// The two bodies of one kind as documented, a create's and an update's: [`DocumentBody`]
/// with the kind's date member `$date` and without the other kind's. Each keeps its doc
/// comment, which is its schema's description.
macro_rules! documented_bodies {
    (
        $(#[$create_doc:meta])* $create:ident as $create_schema:ident;
        $(#[$update_doc:meta])* $update:ident as $update_schema:ident;
        date $date:ident
    ) => {
        $(#[$create_doc])*
        #[derive(Deserialize, utoipa::ToSchema)]
        #[schema(as = $create_schema)]
        #[serde(deny_unknown_fields)]
        #[expect(
            dead_code,
            reason = "the OpenAPI schema of a body read as JSON, never built"
        )]
        pub(super) struct $create {
            #[schema(required = true, schema_with = crate::openapi::text)]
            contact_id: Option<String>,
            #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
            $date: Option<FlexDate>,
            #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
            due_date: Option<FlexDate>,
            #[schema(required = true, value_type = Vec<ItemBody>, min_items = 1, max_items = 200)]
            items: Option<Vec<ItemBody>>,
            #[schema(schema_with = crate::openapi::optional_text_5000)]
            notes: Option<String>,
        }

        $(#[$update_doc])*
        #[derive(Deserialize, utoipa::ToSchema)]
        #[schema(as = $update_schema)]
        #[serde(deny_unknown_fields)]
        #[expect(
            dead_code,
            reason = "the OpenAPI schema of a body read as JSON, never built"
        )]
        pub(super) struct $update {
            contact_id: Option<String>,
            #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
            $date: Option<FlexDate>,
            #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
            due_date: Option<FlexDate>,
            #[schema(min_items = 1, max_items = 200)]
            items: Option<Vec<ItemBody>>,
            #[schema(schema_with = crate::openapi::optional_text_5000)]
            notes: Option<String>,
        }
    };
}

documented_bodies! {
    /// The body of an invoice as documented: [`DocumentBody`] with `invoice_date` and
    /// without `bill_date` (which an invoice refuses).
    InvoiceBody as InvoiceCreateRequest;
    /// The changes to an invoice as documented: [`DocumentBody`] with `invoice_date` and
    /// without `bill_date` (which an invoice refuses).
    InvoiceUpdateBody as InvoiceUpdateRequest;
    date invoice_date
}

documented_bodies! {
    /// The body of a bill as documented: [`DocumentBody`] with `bill_date` and without
    /// `invoice_date`.
    BillBody as BillCreateRequest;
    /// The changes to a bill as documented: [`DocumentBody`] with `bill_date` and without
    /// `invoice_date`.
    BillUpdateBody as BillUpdateRequest;
    date bill_date
}

pub(super) fn document_input<K: Kind>(body: DocumentBody) -> Result<DocumentInput, ApiError> {
    let (mine, other) = match K::KIND {
        DocumentKind::Invoice => (body.invoice_date, body.bill_date.map(|_| "bill_date")),
        DocumentKind::Bill => (body.bill_date, body.invoice_date.map(|_| "invoice_date")),
    };
    if let Some(field) = other {
        return Err(validation(
            ErrorCode::UnknownField,
            Some(field.into()),
            format!("unknown field `{field}` on a {}", K::KIND.as_str()),
        ));
    }
    Ok(DocumentInput {
        contact_id: body.contact_id,
        issue_date: mine.map(|d| d.at.date()),
        due_date: body.due_date.map(|d| d.at.date()),
        items: body
            .items
            .map(|items| items.into_iter().map(Into::into).collect()),
        notes: body.notes,
    })
}
