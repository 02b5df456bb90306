//! Row structs of the invoice and bill tables.

use diesel::prelude::*;
use ledger_domain::StoreError;
use ledger_domain::documents::{
    Document, DocumentItem, DocumentKind, DocumentStatus, Payment, StatusChange, TaxLine,
};
use time::{Date, PrimitiveDateTime};

use super::{from_db, parsed, to_db};
use crate::schema::*;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = documents, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct DocumentRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub kind: String,
    pub sequence: i64,
    pub number: String,
    pub contact_id: String,
    pub issue_date: Date,
    pub due_date: Date,
    pub currency: String,
    pub status: String,
    pub items: String,
    pub taxes: String,
    pub subtotal: i64,
    pub tax_amount: i64,
    pub total: i64,
    pub amount_paid: i64,
    pub notes: Option<String>,
    pub posting_id: Option<String>,
    pub created_by: String,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
    pub deleted_at: Option<PrimitiveDateTime>,
    pub deleted_by: Option<String>,
    pub recoverable_until: Option<PrimitiveDateTime>,
}

/// The `target_type` of a `document_references` row naming a tax.
pub(crate) const TAX_TARGET: &str = "tax";
/// The `target_type` of a `document_references` row naming a category.
pub(crate) const CATEGORY_TARGET: &str = "category";

/// What a document names besides its contact: one row per tax or category its items
/// name (see [`crate::references`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Queryable, Selectable, Insertable)]
#[diesel(table_name = document_references, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
pub(crate) struct DocumentReferenceRow {
    pub organization_id: String,
    pub livemode: bool,
    pub document_id: String,
    pub target_type: String,
    pub target_id: String,
}

/// The reference rows of a document, each target once.
pub(crate) fn reference_rows(d: &Document) -> Vec<DocumentReferenceRow> {
    let row = |target_type: &str, target_id: &str| DocumentReferenceRow {
        organization_id: d.organization_id.clone(),
        livemode: d.livemode,
        document_id: d.id.clone(),
        target_type: target_type.to_owned(),
        target_id: target_id.to_owned(),
    };
    let mut rows: Vec<DocumentReferenceRow> = d
        .items
        .iter()
        .flat_map(|i| {
            i.tax_ids
                .iter()
                .map(|t| row(TAX_TARGET, t))
                .chain(i.category_id.iter().map(|c| row(CATEGORY_TARGET, c)))
        })
        .collect();
    rows.sort();
    rows.dedup();
    rows
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "[]".to_owned())
}

fn from_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Internal(format!("stored {what}: {e}")))
}

impl From<&Document> for DocumentRow {
    fn from(d: &Document) -> Self {
        Self {
            organization_id: d.organization_id.clone(),
            livemode: d.livemode,
            id: d.id.clone(),
            kind: d.kind.as_str().to_owned(),
            sequence: d.sequence,
            number: d.number.clone(),
            contact_id: d.contact_id.clone(),
            issue_date: d.issue_date,
            due_date: d.due_date,
            currency: d.currency.clone(),
            status: d.status.as_str().to_owned(),
            items: to_json(&d.items),
            taxes: to_json(&d.taxes),
            subtotal: d.subtotal,
            tax_amount: d.tax_amount,
            total: d.total,
            amount_paid: d.amount_paid,
            notes: d.notes.clone(),
            posting_id: d.posting_id.clone(),
            created_by: d.created_by.clone(),
            created_at: to_db(d.created_at),
            updated_at: to_db(d.updated_at),
            deleted_at: None,
            deleted_by: None,
            recoverable_until: None,
        }
    }
}

impl TryFrom<DocumentRow> for Document {
    type Error = StoreError;
    fn try_from(r: DocumentRow) -> Result<Self, StoreError> {
        let items: Vec<DocumentItem> = from_json("document items", &r.items)?;
        let taxes: Vec<TaxLine> = from_json("document taxes", &r.taxes)?;
        Ok(Document {
            kind: parsed(DocumentKind::parse, "document kind", &r.kind)?,
            status: parsed(DocumentStatus::parse, "document status", &r.status)?,
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            sequence: r.sequence,
            number: r.number,
            contact_id: r.contact_id,
            issue_date: r.issue_date,
            due_date: r.due_date,
            currency: r.currency,
            items,
            taxes,
            subtotal: r.subtotal,
            tax_amount: r.tax_amount,
            total: r.total,
            amount_paid: r.amount_paid,
            notes: r.notes,
            posting_id: r.posting_id,
            created_by: r.created_by,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = document_payments, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct PaymentRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub document_id: String,
    pub kind: String,
    pub amount: i64,
    pub currency: String,
    pub payment_date: Date,
    pub payment_method: String,
    pub reference: Option<String>,
    pub notes: Option<String>,
    pub account_id: String,
    pub transaction_id: String,
    pub created_by: String,
    pub created_at: PrimitiveDateTime,
}

impl From<&Payment> for PaymentRow {
    fn from(p: &Payment) -> Self {
        Self {
            organization_id: p.organization_id.clone(),
            livemode: p.livemode,
            id: p.id.clone(),
            document_id: p.document_id.clone(),
            kind: p.kind.as_str().to_owned(),
            amount: p.amount,
            currency: p.currency.clone(),
            payment_date: p.payment_date,
            payment_method: p.payment_method.clone(),
            reference: p.reference.clone(),
            notes: p.notes.clone(),
            account_id: p.account_id.clone(),
            transaction_id: p.transaction_id.clone(),
            created_by: p.created_by.clone(),
            created_at: to_db(p.created_at),
        }
    }
}

impl TryFrom<PaymentRow> for Payment {
    type Error = StoreError;
    fn try_from(r: PaymentRow) -> Result<Self, StoreError> {
        Ok(Payment {
            kind: parsed(DocumentKind::parse, "payment kind", &r.kind)?,
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            document_id: r.document_id,
            amount: r.amount,
            currency: r.currency,
            payment_date: r.payment_date,
            payment_method: r.payment_method,
            reference: r.reference,
            notes: r.notes,
            account_id: r.account_id,
            transaction_id: r.transaction_id,
            created_by: r.created_by,
            created_at: from_db(r.created_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = document_history, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct StatusChangeRow {
    pub organization_id: String,
    pub id: String,
    pub document_id: String,
    pub status: String,
    pub changed_at: PrimitiveDateTime,
    pub api_key_id: String,
    pub note: Option<String>,
}

impl From<&StatusChange> for StatusChangeRow {
    fn from(c: &StatusChange) -> Self {
        Self {
            organization_id: c.organization_id.clone(),
            id: c.id.clone(),
            document_id: c.document_id.clone(),
            status: c.status.as_str().to_owned(),
            changed_at: to_db(c.changed_at),
            api_key_id: c.api_key_id.clone(),
            note: c.note.clone(),
        }
    }
}

impl TryFrom<StatusChangeRow> for StatusChange {
    type Error = StoreError;
    fn try_from(r: StatusChangeRow) -> Result<Self, StoreError> {
        Ok(StatusChange {
            status: parsed(DocumentStatus::parse, "document status", &r.status)?,
            id: r.id,
            organization_id: r.organization_id,
            document_id: r.document_id,
            changed_at: from_db(r.changed_at),
            api_key_id: r.api_key_id,
            note: r.note,
        })
    }
}
