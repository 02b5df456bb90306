//! Invoices and bills (spec 2.8, 3.3, 4.10; DECISIONS 5): one document model for both.
//!
//! A document is a dated list of priced, taxed lines owed by a customer (invoice) or to a
//! vendor (bill). Its amounts are computed here, exactly: each line's amount is
//! `quantity x unit_price` rounded half away from zero to the currency's minor unit, its
//! taxes come from [`crate::tax::line_tax`], and the totals are sums of those rounded
//! figures. Every status change with an accounting effect carries a balanced posting built
//! here ([`issue_entries`], [`payment_entries`]), so the books follow the documents.
//!
//! The types live here; the arithmetic in `pricing`, the postings in `posting` and the
//! status rules in `lifecycle`, all re-exported here.

pub mod foreign;
mod lifecycle;
mod posting;
mod pricing;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use time::{Date, OffsetDateTime};

use crate::contacts::ContactType;
use crate::ids::IdKind;

pub use lifecycle::{check_draft, check_payment, check_void, status_after_payment};
pub use posting::{PostingAccounts, issue_entries, payment_entries};
pub use pricing::{line_amount, price_items, totals};

/// Invoice (money owed to the organization) or bill (money it owes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentKind {
    Invoice,
    Bill,
}

impl DocumentKind {
    /// The resource name (`invoice`, `bill`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Invoice => "invoice",
            Self::Bill => "bill",
        }
    }

    /// Parses a stored kind.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Invoice, Self::Bill]
            .into_iter()
            .find(|k| k.as_str() == text)
    }

    /// The prefix of the document's id.
    pub fn id_kind(self) -> IdKind {
        match self {
            Self::Invoice => IdKind::Invoice,
            Self::Bill => IdKind::Bill,
        }
    }

    /// The number prefix used when the organization has not set one.
    pub fn default_prefix(self) -> &'static str {
        match self {
            Self::Invoice => "INV-",
            Self::Bill => "BILL-",
        }
    }

    /// The setting that overrides [`DocumentKind::default_prefix`].
    pub fn prefix_setting(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_number_prefix",
            Self::Bill => "bill_number_prefix",
        }
    }

    /// The status a document takes when it is issued (invoice sent, bill approved).
    pub fn issued_status(self) -> DocumentStatus {
        match self {
            Self::Invoice => DocumentStatus::Sent,
            Self::Bill => DocumentStatus::Open,
        }
    }

    /// The verb of issuing, for events and messages (`sent`, `approved`).
    pub fn issue_verb(self) -> &'static str {
        match self {
            Self::Invoice => "sent",
            Self::Bill => "approved",
        }
    }

    /// Whether a contact of `contact_type` may be the document's party: customers (or
    /// `other`) for invoices, vendors (or `other`) for bills.
    pub fn accepts(self, contact_type: ContactType) -> bool {
        matches!(
            (self, contact_type),
            (Self::Invoice, ContactType::Customer)
                | (Self::Bill, ContactType::Vendor)
                | (_, ContactType::Other)
        )
    }

    /// The name of the date field (`invoice_date`, `bill_date`).
    pub fn date_field(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_date",
            Self::Bill => "bill_date",
        }
    }

    /// The name of the number field (`invoice_number`, `bill_number`).
    pub fn number_field(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_number",
            Self::Bill => "bill_number",
        }
    }

    /// The code refusing a change to a document that is no longer a draft.
    pub fn not_draft_code(self) -> crate::error::ErrorCode {
        match self {
            Self::Invoice => crate::error::ErrorCode::InvoiceNotDraft,
            Self::Bill => crate::error::ErrorCode::InvalidStateTransition,
        }
    }
}

/// Where a document is in its life. `overdue` is not stored: see [`Document::display_status`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentStatus {
    Draft,
    /// An invoice sent to the customer (posted).
    Sent,
    /// A bill approved for payment (posted).
    Open,
    PartiallyPaid,
    Paid,
    Void,
}

impl DocumentStatus {
    const ALL: [Self; 6] = [
        Self::Draft,
        Self::Sent,
        Self::Open,
        Self::PartiallyPaid,
        Self::Paid,
        Self::Void,
    ];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Sent => "sent",
            Self::Open => "open",
            Self::PartiallyPaid => "partially_paid",
            Self::Paid => "paid",
            Self::Void => "void",
        }
    }

    /// Parses a stored status.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// The stored statuses a document of `kind` can have (a list filter accepts these;
    /// `overdue` is read, not stored): invoices are `sent`, bills `open` once posted.
    pub const fn of_kind(kind: DocumentKind) -> &'static [&'static str] {
        match kind {
            DocumentKind::Invoice => &["draft", "sent", "partially_paid", "paid", "void"],
            DocumentKind::Bill => &["draft", "open", "partially_paid", "paid", "void"],
        }
    }

    /// Parses a list filter's status for documents of `kind`.
    ///
    /// # Errors
    /// `invalid_field` on `status` naming the statuses of the kind.
    pub fn parse_filter(kind: DocumentKind, text: &str) -> Result<Self, crate::DomainError> {
        let text = text.trim();
        Self::of_kind(kind)
            .contains(&text)
            .then(|| Self::parse(text))
            .flatten()
            .ok_or_else(|| {
                crate::DomainError::invalid_field(
                    "status",
                    format!("must be one of {}", Self::of_kind(kind).join(", ")),
                )
            })
    }

    /// Whether the document is posted and still awaits payment.
    pub fn awaits_payment(self) -> bool {
        matches!(self, Self::Sent | Self::Open | Self::PartiallyPaid)
    }
}

/// One priced line of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentItem {
    pub description: String,
    /// Units of 1/10 000 (four decimals), positive.
    pub quantity: i64,
    /// Stored money units per unit of quantity, not negative.
    pub unit_price: i64,
    /// The client's catalog reference, kept as given.
    pub item_id: Option<String>,
    /// The revenue (invoice) or expense/asset (bill) account the line posts to.
    pub account_id: String,
    /// Taxes applied in this order (a compound one applies to the price plus those before).
    pub tax_ids: Vec<String>,
    /// The category the line is booked under, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category_id: Option<String>,
    /// `quantity x unit_price`, rounded to the minor unit.
    pub amount: i64,
    /// The line's taxes.
    pub tax_amount: i64,
}

impl DocumentItem {
    /// Amount plus taxes.
    pub fn line_total(&self) -> i64 {
        self.amount + self.tax_amount
    }
}

/// One tax's total over a document's lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxLine {
    pub tax_id: String,
    pub name: String,
    /// Percent in units of 1/10 000.
    pub rate: i64,
    pub amount: i64,
}

/// An invoice or a bill.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub kind: DocumentKind,
    /// Position in the tenant's gap-free sequence of this kind (1, 2, ...).
    pub sequence: i64,
    /// `prefix + sequence`, zero-padded: `INV-000001`.
    pub number: String,
    pub contact_id: String,
    pub issue_date: Date,
    pub due_date: Date,
    pub currency: String,
    pub status: DocumentStatus,
    pub items: Vec<DocumentItem>,
    pub taxes: Vec<TaxLine>,
    pub subtotal: i64,
    pub tax_amount: i64,
    pub total: i64,
    pub amount_paid: i64,
    pub notes: Option<String>,
    /// The posted transaction of issuing it.
    pub posting_id: Option<String>,
    pub created_by: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl Document {
    /// What is still owed.
    pub fn balance_due(&self) -> i64 {
        match self.status {
            DocumentStatus::Void => 0,
            _ => self.total - self.amount_paid,
        }
    }

    /// The status shown to clients: `overdue` when the due date is before `today` and a
    /// posted document still has a balance due.
    pub fn display_status(&self, today: Date) -> &'static str {
        if self.status.awaits_payment() && self.due_date < today && self.balance_due() > 0 {
            "overdue"
        } else {
            self.status.as_str()
        }
    }
}

/// A payment recorded against a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub document_id: String,
    pub kind: DocumentKind,
    pub amount: i64,
    pub currency: String,
    pub payment_date: Date,
    pub payment_method: String,
    pub reference: Option<String>,
    pub notes: Option<String>,
    /// The bank or cash account the money went into (invoice) or out of (bill).
    pub account_id: String,
    /// The posted transaction of the payment.
    pub transaction_id: String,
    pub created_by: String,
    pub created_at: OffsetDateTime,
}

/// One row of a document's status history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    pub id: String,
    pub organization_id: String,
    pub document_id: String,
    pub status: DocumentStatus,
    pub changed_at: OffsetDateTime,
    pub api_key_id: String,
    pub note: Option<String>,
}

/// The document number for `sequence`: `prefix` + the sequence zero-padded to six digits.
pub fn format_number(prefix: &str, sequence: i64) -> String {
    format!("{prefix}{sequence:06}")
}
