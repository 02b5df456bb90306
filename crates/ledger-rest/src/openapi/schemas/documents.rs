//! Contacts, invoices and bills with their lines, taxes, payments and status history,
//! and the files attached to them.

#![expect(dead_code, reason = "documentation types: described, never built")]

use utoipa::ToSchema;

use super::list_of;

pub(crate) type Contact = ledger_domain::views::ContactView<'static>;
pub(crate) type ContactSummary = ledger_domain::views::ContactSummaryView<'static>;

/// One line of an invoice or bill.
#[derive(ToSchema)]
pub(crate) struct DocumentLine {
    description: Option<String>,
    quantity: String,
    unit_price: String,
    item_id: Option<String>,
    account_id: Option<String>,
    tax_ids: Vec<String>,
    category_id: Option<String>,
    amount: String,
    tax_amount: String,
    line_total: String,
}

/// A tax applied to a document.
#[derive(ToSchema)]
pub(crate) struct DocumentTax {
    tax_id: String,
    name: String,
    rate: String,
    amount: String,
}

/// An invoice or a bill (`object` says which; `invoice_number`/`invoice_date` or
/// `bill_number`/`bill_date` accordingly).
#[derive(ToSchema)]
pub(crate) struct Document {
    id: String,
    /// `invoice` or `bill`.
    object: String,
    organization_id: String,
    livemode: bool,
    contact_id: String,
    invoice_number: Option<String>,
    invoice_date: Option<String>,
    bill_number: Option<String>,
    bill_date: Option<String>,
    #[schema(format = Date)]
    due_date: String,
    currency: String,
    status: String,
    items: Vec<DocumentLine>,
    taxes: Vec<DocumentTax>,
    subtotal: String,
    tax_amount: String,
    total: String,
    amount_paid: String,
    balance_due: String,
    notes: Option<String>,
    posting_transaction_id: Option<String>,
    payments: Vec<Payment>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A payment of an invoice or a bill.
#[derive(ToSchema)]
pub(crate) struct Payment {
    id: String,
    #[schema(example = "payment")]
    object: String,
    amount: String,
    currency: String,
    #[schema(format = Date)]
    payment_date: String,
    payment_method: Option<String>,
    reference: Option<String>,
    notes: Option<String>,
    account_id: Option<String>,
    transaction_id: Option<String>,
    invoice_id: Option<String>,
    bill_id: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
}

/// A status change of a document.
#[derive(ToSchema)]
pub(crate) struct StatusChange {
    status: String,
    #[schema(format = DateTime)]
    changed_at: String,
    api_key_id: Option<String>,
    note: Option<String>,
}

/// A file attached to a transaction, invoice or bill.
#[derive(ToSchema)]
pub(crate) struct Attachment {
    id: String,
    #[schema(example = "attachment")]
    object: String,
    owner_type: String,
    owner_id: String,
    file_name: String,
    content_type: String,
    size: i64,
    download_url: String,
    created_by: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    livemode: bool,
}

/// A file upload: one multipart part carrying the file and its name; any other part is
/// refused (400 `invalid_field`), so the object is closed.
#[derive(ToSchema)]
pub(crate) struct FileUpload {
    /// The file's bytes.
    #[schema(content_media_type = "application/octet-stream")]
    file: String,
}

list_of! {
    DocumentList => Document,
    PaymentList => Payment,
    StatusChangeList => StatusChange,
    AttachmentList => Attachment,
}
