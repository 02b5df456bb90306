//! Contacts, invoices and bills with their lines, taxes, payments and status history,
//! and the files attached to them: the views the handlers serialize, and the body of an
//! upload.

use ledger_domain::views;
use utoipa::ToSchema;

pub(crate) type Contact = ledger_domain::views::ContactView<'static>;
pub(crate) type ContactSummary = ledger_domain::views::ContactSummaryView<'static>;

pub(crate) type Document = views::DocumentView<'static>;
pub(crate) type DocumentList = views::List<views::DocumentView<'static>>;
pub(crate) type Payment = views::PaymentView<'static>;
pub(crate) type PaymentList = views::List<views::PaymentView<'static>>;
pub(crate) type StatusChangeList = views::List<views::StatusChangeView<'static>>;
pub(crate) type Attachment = views::AttachmentView<'static>;
pub(crate) type AttachmentList = views::List<views::AttachmentView<'static>>;

/// A file upload: one multipart part carrying the file and its name; any other part is
/// refused (400 `invalid_field`), so the object is closed.
#[derive(ToSchema)]
#[expect(dead_code, reason = "a request schema: described, never built")]
pub(crate) struct FileUpload {
    /// The file's bytes.
    #[schema(content_media_type = "application/octet-stream")]
    file: String,
}
