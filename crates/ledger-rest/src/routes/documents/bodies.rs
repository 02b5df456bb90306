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

/// The body of an invoice as documented: [`DocumentBody`] with `invoice_date` and
/// without `bill_date` (which an invoice refuses).
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = InvoiceCreateRequest)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "the OpenAPI schema of a body read as JSON, never built"
)]
pub(super) struct InvoiceBody {
    #[schema(required = true, schema_with = crate::openapi::text)]
    contact_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    invoice_date: Option<FlexDate>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    due_date: Option<FlexDate>,
    #[schema(required = true, value_type = Vec<ItemBody>, min_items = 1, max_items = 200)]
    items: Option<Vec<ItemBody>>,
    #[schema(schema_with = crate::openapi::optional_text_5000)]
    notes: Option<String>,
}

/// The changes to an invoice as documented: [`DocumentBody`] with `invoice_date` and
/// without `bill_date` (which an invoice refuses).
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = InvoiceUpdateRequest)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "the OpenAPI schema of a body read as JSON, never built"
)]
pub(super) struct InvoiceUpdateBody {
    contact_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    invoice_date: Option<FlexDate>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    due_date: Option<FlexDate>,
    #[schema(min_items = 1, max_items = 200)]
    items: Option<Vec<ItemBody>>,
    #[schema(schema_with = crate::openapi::optional_text_5000)]
    notes: Option<String>,
}

/// The body of a bill as documented: [`DocumentBody`] with `bill_date` and without
/// `invoice_date`.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = BillCreateRequest)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "the OpenAPI schema of a body read as JSON, never built"
)]
pub(super) struct BillBody {
    #[schema(required = true, schema_with = crate::openapi::text)]
    contact_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    bill_date: Option<FlexDate>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    due_date: Option<FlexDate>,
    #[schema(required = true, value_type = Vec<ItemBody>, min_items = 1, max_items = 200)]
    items: Option<Vec<ItemBody>>,
    #[schema(schema_with = crate::openapi::optional_text_5000)]
    notes: Option<String>,
}

/// The changes to a bill as documented: [`DocumentBody`] with `bill_date` and without
/// `invoice_date`.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = BillUpdateRequest)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "the OpenAPI schema of a body read as JSON, never built"
)]
pub(super) struct BillUpdateBody {
    contact_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    bill_date: Option<FlexDate>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    due_date: Option<FlexDate>,
    #[schema(min_items = 1, max_items = 200)]
    items: Option<Vec<ItemBody>>,
    #[schema(schema_with = crate::openapi::optional_text_5000)]
    notes: Option<String>,
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
