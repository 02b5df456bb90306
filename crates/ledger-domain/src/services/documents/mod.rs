//! Invoices and bills (spec 4.10, DECISIONS 4-5): reads, and queued writes whose
//! accounting effects post balanced transactions through the journal's rules.
//!
//! Every write is validated here first (a refused one never enters the queue) and decided
//! again from the current state when its job runs: a document changed by another job in
//! between makes the store refuse the effect with `concurrent_update`, and the runner
//! decides the job again, so two payments racing for the same balance can never overpay.

mod decisions;
mod drafts;
mod foreign;
mod reads;
mod writes;

use time::Date;

use crate::accounts::Account;
use crate::documents::{Document, DocumentKind, Payment};
use crate::error::{DomainError, DomainResult, ErrorCode};

/// Most items on one document.
pub const MAX_ITEMS: usize = 200;
/// Most taxes on one item.
pub const MAX_ITEM_TAXES: usize = 5;
/// Days from the issue date to the due date when the client gives no due date.
pub const DEFAULT_TERMS_DAYS: i64 = 30;
/// The setting naming the account bill taxes are debited to (recoverable tax).
pub const RECOVERABLE_TAX_SETTING: &str = "recoverable_tax_account_id";

/// One item as a client sent it; amounts are decimal texts.
#[derive(Debug, Clone, Default)]
pub struct DocumentItemInput {
    pub description: Option<String>,
    pub quantity: Option<String>,
    pub unit_price: Option<String>,
    pub item_id: Option<String>,
    pub account_id: Option<String>,
    pub tax_ids: Vec<String>,
    /// A category of the tenant (DECISIONS 10: items may name one).
    pub category_id: Option<String>,
}

/// A new document, or the changes to a draft (`None` keeps the value).
#[derive(Debug, Clone, Default)]
pub struct DocumentInput {
    pub contact_id: Option<String>,
    pub issue_date: Option<Date>,
    pub due_date: Option<Date>,
    pub items: Option<Vec<DocumentItemInput>>,
    /// `Some(None)` clears the notes.
    pub notes: Option<Option<String>>,
}

/// A payment as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct PaymentInput {
    pub amount: String,
    pub payment_date: Option<Date>,
    pub payment_method: Option<String>,
    pub reference: Option<String>,
    pub notes: Option<String>,
    pub account_id: Option<String>,
}

/// A document with its payments, ready to render.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentView {
    pub document: Document,
    pub payments: Vec<Payment>,
}

fn check_text(field: &str, value: Option<&str>, max: usize) -> DomainResult<Option<String>> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) if text.chars().count() > max => Err(DomainError::invalid_field(
            field,
            format!("must be at most {max} characters"),
        )),
        Some(text) => Ok(Some(text.to_owned())),
    }
}

/// The system account of `subtype`, live and accepting postings.
fn system_account<'a>(accounts: &'a [Account], subtype: &str) -> DomainResult<&'a Account> {
    accounts
        .iter()
        .find(|a| a.is_system && a.subtype.as_deref() == Some(subtype))
        .ok_or_else(|| {
            DomainError::rule(
                ErrorCode::AccountInactive,
                format!("the organization has no live '{subtype}' system account"),
            )
        })
}

/// `Invoice` or `Bill`.
fn title(kind: DocumentKind) -> &'static str {
    match kind {
        DocumentKind::Invoice => "Invoice",
        DocumentKind::Bill => "Bill",
    }
}
