//! What a schedule's template is turned into: the write that generates an occurrence,
//! the check of a template as a create would check it, and the template copied from an
//! invoice or bill.

use serde_json::Value;
use time::{Date, Time};

use crate::documents::DocumentKind;
use crate::error::{DomainError, DomainResult, Resource};
use crate::ports::Store;
use crate::recurring::{DocumentTemplate, RecurableType, Template, TransactionTemplate};

use crate::services::{
    Access, DocumentInput, DocumentItemInput, EntryInput, Ledger, NewTransactionInput, Write,
};

fn document_kind(kind: RecurableType) -> Option<DocumentKind> {
    match kind {
        RecurableType::Invoice => Some(DocumentKind::Invoice),
        RecurableType::Bill => Some(DocumentKind::Bill),
        RecurableType::Transaction => None,
    }
}

/// A refusal of the template's content, its field named under `template.`.
pub(super) fn in_template(error: DomainError) -> DomainError {
    match error {
        DomainError::Validation {
            code,
            field: Some(field),
            message,
        } if !field.starts_with("template") => DomainError::Validation {
            code,
            field: Some(format!("template.{field}")),
            message,
        },
        other => other,
    }
}

/// The write that generates the template's document dated `date` (the schedule starts
/// on `start`; a due date keeps the template's terms).
pub(super) fn instantiate(
    kind: RecurableType,
    template: &Template,
    start: Date,
    date: Date,
) -> DomainResult<Write> {
    match (template, document_kind(kind)) {
        (Template::Document(t), Some(kind)) => Ok(Write::CreateDocument {
            kind,
            input: document_input(t, start, date),
        }),
        (Template::Transaction(t), None) => {
            Ok(Write::CreateTransaction(transaction_input(t, date)?))
        }
        _ => Err(DomainError::Internal(
            "a template of another kind than its schedule".into(),
        )),
    }
}

fn document_input(t: &DocumentTemplate, start: Date, date: Date) -> DocumentInput {
    DocumentInput {
        contact_id: t.contact_id.clone(),
        issue_date: Some(date),
        due_date: t
            .terms_days(start)
            .map(|days| date + time::Duration::days(days)),
        items: t.items.as_ref().map(|items| {
            items
                .iter()
                .map(|i| DocumentItemInput {
                    description: i.description.clone(),
                    quantity: i.quantity.as_ref().map(|q| q.0.clone()),
                    unit_price: i.unit_price.as_ref().map(|p| p.0.clone()),
                    item_id: i.item_id.clone(),
                    account_id: i.account_id.clone(),
                    tax_ids: i.tax_ids.clone(),
                    category_id: i.category_id.clone(),
                })
                .collect()
        }),
        notes: t.notes.clone().map(Some),
    }
}

fn transaction_input(t: &TransactionTemplate, date: Date) -> DomainResult<NewTransactionInput> {
    Ok(NewTransactionInput {
        description: t
            .description
            .clone()
            .ok_or_else(|| DomainError::missing_field("template.description"))?,
        date: Some(date.with_time(Time::MIDNIGHT).assume_utc()),
        currency: t.currency.clone(),
        reference: t.reference.clone(),
        entries: t
            .entries
            .as_ref()
            .ok_or_else(|| DomainError::missing_field("template.entries"))?
            .iter()
            .map(|e| EntryInput {
                account_id: e.account_id.clone(),
                entry_type: e.entry_type.clone(),
                amount: e.amount.0.clone(),
                description: e.description.clone(),
            })
            .collect(),
        metadata: t.metadata.clone(),
        auto_post: t.auto_post,
        contact_id: t.contact_id.clone(),
        category_id: t.category_id.clone(),
    })
}

impl<S: Store> Ledger<S> {
    /// Validates a template of a `kind` schedule as a create on `date` would be, writing
    /// nothing.
    pub(super) async fn check_template(
        &self,
        access: &Access,
        kind: RecurableType,
        template: &Value,
        start: Date,
    ) -> DomainResult<()> {
        let parsed = Template::parse(kind, template)?;
        match instantiate(kind, &parsed, start, start).map_err(in_template)? {
            Write::CreateDocument { kind, input } => {
                let contact_id = input
                    .contact_id
                    .ok_or_else(|| DomainError::missing_field("template.contact_id"))?;
                let items = input
                    .items
                    .ok_or_else(|| DomainError::missing_field("template.items"))?;
                let issue = input.issue_date.unwrap_or(start);
                let due = input.due_date.unwrap_or(
                    issue + time::Duration::days(crate::services::documents::DEFAULT_TERMS_DAYS),
                );
                if due < issue {
                    return Err(DomainError::inconsistent(
                        "template.due_date",
                        "must not be before the issue date",
                    ));
                }
                self.check_draft_input(
                    &access.tenant,
                    &access.organization.base_currency,
                    kind,
                    &contact_id,
                    issue,
                    due,
                    &items,
                    input.notes.flatten().as_deref(),
                )
                .await
                .map_err(in_template)?;
            }
            Write::CreateTransaction(input) => {
                self.create_command(access, input, None)
                    .await
                    .map_err(in_template)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The create body of the document `id`, as a template of a `kind` schedule.
    pub(super) async fn template_of(
        &self,
        access: &Access,
        kind: RecurableType,
        id: &str,
    ) -> DomainResult<Value> {
        let Some(doc_kind) = document_kind(kind) else {
            return Err(DomainError::invalid_field(
                "recurable_id",
                "only an invoice or a bill can be copied; give a transaction schedule its template",
            ));
        };
        // A body member naming a document: one that is not there is `reference_not_found`
        // (422), as every reference a request body makes.
        let document = self
            .get_document(access, doc_kind, id)
            .await
            .map_err(|e| match e {
                DomainError::NotFound { .. } => DomainError::reference_not_found(
                    "recurable_id",
                    match doc_kind {
                        DocumentKind::Invoice => Resource::Invoice,
                        DocumentKind::Bill => Resource::Bill,
                    },
                    id,
                ),
                other => other,
            })?;
        let date_field = match doc_kind {
            DocumentKind::Invoice => "invoice_date",
            DocumentKind::Bill => "bill_date",
        };
        let items: Vec<Value> = document
            .items
            .iter()
            .map(|i| {
                serde_json::json!({
                    "description": i.description,
                    "quantity": crate::money::format_units(i.quantity, 4),
                    "unit_price": crate::money::format_units(i.unit_price, 4),
                    "item_id": i.item_id,
                    "account_id": i.account_id,
                    "tax_ids": i.tax_ids,
                    "category_id": i.category_id,
                })
            })
            .collect();
        let mut template = serde_json::json!({
            "contact_id": document.contact_id,
            "due_date": crate::views::date(document.due_date),
            "items": items,
            "notes": document.notes,
        });
        template[date_field] = Value::String(crate::views::date(document.issue_date));
        Ok(template)
    }
}

/// Refuses a template that reads as another kind's (an invoice template sent to a
/// transaction schedule) as `inconsistent_fields`: the schedule's stored kind decides, so
/// the request alone is well formed. A template that fits no kind stays a validation error
/// (from [`Template::parse`]).
pub(super) fn check_template_kind(kind: RecurableType, template: &Value) -> DomainResult<()> {
    if Template::parse(kind, template).is_ok() {
        return Ok(());
    }
    let other = [
        RecurableType::Invoice,
        RecurableType::Bill,
        RecurableType::Transaction,
    ]
    .into_iter()
    .find(|k| *k != kind && Template::parse(*k, template).is_ok());
    match other {
        Some(other) => Err(DomainError::inconsistent(
            "template",
            format!(
                "is a template of a {} schedule; this schedule makes {}s",
                other.as_str(),
                kind.as_str()
            ),
        )),
        None => Ok(()),
    }
}
