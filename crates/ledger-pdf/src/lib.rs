//! Renders an invoice or a bill into a PDF: A4 pages with a header (title, number,
//! status), the issuer and the recipient, the dates, an items table that flows over as many
//! pages as it needs (its header repeated, every page numbered), taxes, totals, the amount
//! paid, the balance due, the payments and the notes.
//!
//! The input is plain, already formatted text: this crate knows nothing of money, dates or
//! the other crates of the workspace, so the caller decides how every figure reads. The
//! fonts (DejaVu Sans, see `fonts/LICENSE-DejaVu.txt`) are compiled in and subset into each
//! file, so a PDF shows the same everywhere, Latin, Greek and Cyrillic text included. The
//! output depends on the input alone (no clock, no random id): the same document always
//! renders to the same bytes.

mod layout;
mod paint;
mod text;

/// An invoice or a bill, every field already formatted for reading (amounts such as
/// `"1,234.50"`, dates such as `"2026-11-22"`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InvoiceDocument {
    /// The document's kind as printed in the header: `"Invoice"`, `"Bill"`.
    pub title: String,
    /// `"INV-000012"`.
    pub number: String,
    /// `"Sent"`, `"Paid"`, `"Void"`, `"Draft"`, ...; its badge is coloured by the word.
    pub status: String,
    /// The organization.
    pub issuer: Party,
    /// Heading of the recipient's block; `"Bill to"` when empty (a bill may say `"Vendor"`).
    pub recipient_label: String,
    /// The contact.
    pub recipient: Party,
    pub issue_date: String,
    pub due_date: String,
    /// The currency code, printed in the details and beside the total and balance due.
    pub currency: String,
    pub items: Vec<DocumentLine>,
    pub subtotal: String,
    /// One `(label, amount)` per tax: `("VAT 20%", "12.00")`.
    pub taxes: Vec<(String, String)>,
    pub total: String,
    pub amount_paid: String,
    pub balance_due: String,
    pub payments: Vec<DocumentPayment>,
    pub notes: Option<String>,
}

/// A party's name and the lines printed under it (address lines, e-mail, tax id).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Party {
    pub name: String,
    pub lines: Vec<String>,
}

/// One row of the items table. A long description wraps inside its column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentLine {
    pub description: String,
    pub quantity: String,
    pub unit_price: String,
    /// The taxes applied, as one label (`"VAT 20%"`), empty for none.
    pub tax: String,
    pub line_total: String,
}

/// One payment received (or made, for a bill).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentPayment {
    pub date: String,
    pub method: String,
    pub reference: String,
    pub amount: String,
}

/// Why a document could not be rendered. Neither depends on the document's content: both
/// mean a broken build (a corrupt embedded font) or a bug in the PDF library.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the embedded font {0} cannot be read")]
    Font(&'static str),
    #[error("the PDF cannot be written: {0}")]
    Write(String),
}

/// Renders `doc` into the bytes of a PDF file.
///
/// Thread-safe; the fonts are parsed once per process. Rendering is CPU work (about 25 ms
/// for 60 items on three pages in a release build): an async caller runs it on a blocking thread
/// (`actix_web::web::block`, `tokio::task::spawn_blocking`).
///
/// ```
/// use ledger_pdf::{InvoiceDocument, render};
///
/// let doc = InvoiceDocument {
///     title: "Invoice".into(),
///     number: "INV-000001".into(),
///     total: "10.00".into(),
///     balance_due: "10.00".into(),
///     ..InvoiceDocument::default()
/// };
/// let pdf = render(&doc).expect("renders");
/// assert!(pdf.starts_with(b"%PDF-"));
/// ```
///
/// # Errors
/// Returns [`PdfError::Font`] when an embedded font cannot be parsed and
/// [`PdfError::Write`] when the PDF library refuses to serialize the pages.
pub fn render(doc: &InvoiceDocument) -> Result<Vec<u8>, PdfError> {
    let fonts = text::Fonts::get()?;
    let pages = layout::lay_out(doc, fonts);
    let title = format!("{} {}", doc.title.trim(), doc.number.trim());
    paint::paint(&pages, fonts, title.trim().to_owned())
}
