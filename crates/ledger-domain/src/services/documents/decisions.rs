//! Deciding a document job from the current state: the effect, its postings, its events.

use serde_json::{Value, json};
use time::Date;

use crate::documents::{
    Document, DocumentKind, DocumentStatus, Payment, StatusChange, check_draft, check_payment,
    check_void, format_number, payment_entries, status_after_payment,
};
use crate::error::{DomainError, DomainResult};
use crate::events::Event;
use crate::ids::{IdKind, new_id};
use crate::jobs::{Job, JobCommand};
use crate::ports::{DocumentEffect, DocumentTransition, Effect, Reversal, Store, Tenant};
use crate::transactions::{
    EntryLine, StoredEntry, Transaction, TransactionStatus, check_balanced, mirror_entries,
};
use crate::views;

use crate::services::accounts::not_found;
use crate::services::runner::Decision;
use crate::services::{Dated, Ledger};

use super::title;

/// The move of `before` to `document` with its history line, written only while the
/// status and the amount paid are still those the decision read; nothing else comes with
/// it until the caller adds it (a posting, a reversal, a payment).
fn moved(before: &Document, document: Document, history: StatusChange) -> DocumentTransition {
    DocumentTransition {
        document,
        expected_status: before.status,
        expected_paid: before.amount_paid,
        posting: None,
        reversal: None,
        payment: None,
        history,
    }
}

/// The effect of a document's transition.
fn transition(t: DocumentTransition) -> Effect {
    Effect::Document(DocumentEffect::Transition(Box::new(t)))
}

impl<S: Store> Ledger<S> {
    /// The event `<kind>.<verb>` of `job`'s change to the document `id`: its views
    /// `before` (none for a new one) and `after` (none for a deletion).
    fn document_event(
        &self,
        job: &Job,
        kind: DocumentKind,
        verb: &str,
        id: &str,
        before: Option<Value>,
        after: Option<Value>,
    ) -> Event {
        let event_type = format!("{}.{verb}", kind.as_str());
        self.event(job, &event_type, kind.as_str(), id, before, after)
    }

    /// A posted transaction of a document's job.
    #[expect(
        clippy::too_many_arguments,
        reason = "the parts of a posting as each document job names them"
    )]
    pub(super) fn document_posting(
        &self,
        job: &Job,
        id: &str,
        doc: &Document,
        description: String,
        date: Date,
        lines: Vec<EntryLine>,
        extra: Value,
    ) -> DomainResult<Transaction> {
        let now = self.now();
        let amount = check_balanced(&lines, &doc.currency)?;
        let mut metadata =
            json!({ "source": doc.kind.as_str(), format!("{}_id", doc.kind.as_str()): doc.id });
        if let (Some(m), Value::Object(extra)) = (metadata.as_object_mut(), extra) {
            m.extend(extra);
        }
        Ok(Transaction {
            id: id.to_owned(),
            organization_id: job.organization_id.clone(),
            livemode: job.livemode,
            description,
            date: date.midnight().assume_utc(),
            status: TransactionStatus::Posted,
            currency: doc.currency.clone(),
            amount,
            reference: Some(doc.number.clone()),
            reversal_of: None,
            reversed_by: None,
            reversal_reason: None,
            contact_id: Some(doc.contact_id.clone()),
            category_id: None,
            source: Some(doc.kind.as_str().to_owned()),
            metadata,
            entries: lines
                .into_iter()
                .map(|line| StoredEntry {
                    id: new_id(IdKind::Entry),
                    line,
                })
                .collect(),
            posted_at: Some(now),
            created_at: now,
            updated_at: now,
        })
    }

    pub(super) fn status_change(
        &self,
        job: &Job,
        document_id: &str,
        status: DocumentStatus,
        note: Option<String>,
    ) -> StatusChange {
        StatusChange {
            id: new_id(IdKind::Event).replacen("evt_", "dsc_", 1),
            organization_id: job.organization_id.clone(),
            document_id: document_id.to_owned(),
            status,
            changed_at: self.now(),
            api_key_id: job.api_key_id.clone(),
            note,
        }
    }

    /// Decides a document job from the current state.
    pub(in crate::services) async fn document_decision(
        &self,
        job: &Job,
        tenant: &Tenant,
    ) -> DomainResult<Decision> {
        let now = self.now();
        let today = now.date();
        match &job.command {
            JobCommand::CreateDocument {
                document_id,
                kind,
                draft,
            } => {
                // The contact may have been deleted or disabled since validation.
                let contact = self
                    .store
                    .get_contact(tenant, &draft.contact_id)
                    .await?
                    .filter(|c| c.fields.enabled)
                    .ok_or_else(|| {
                        DomainError::invalid_field(
                            "contact_id",
                            format!("contact '{}' is no longer available", draft.contact_id),
                        )
                    })?;
                let sequence = self.store.next_document_sequence(tenant, *kind).await?;
                let prefix = self
                    .store
                    .get_setting(tenant, kind.prefix_setting())
                    .await?
                    .map_or_else(|| kind.default_prefix().to_owned(), |s| s.value);
                let base = Document {
                    id: document_id.clone(),
                    organization_id: job.organization_id.clone(),
                    livemode: job.livemode,
                    kind: *kind,
                    sequence,
                    number: format_number(&prefix, sequence),
                    contact_id: contact.id,
                    issue_date: draft.issue_date,
                    due_date: draft.due_date,
                    currency: draft.currency.clone(),
                    status: DocumentStatus::Draft,
                    items: Vec::new(),
                    taxes: Vec::new(),
                    subtotal: 0,
                    tax_amount: 0,
                    total: 0,
                    amount_paid: 0,
                    notes: None,
                    posting_id: None,
                    created_by: job.api_key_id.clone(),
                    created_at: now,
                    updated_at: now,
                };
                let document = self.build_document(job, tenant, base, draft).await?;
                let result = views::document(&document, &[], today);
                let events = vec![self.document_event(
                    job,
                    *kind,
                    "created",
                    &document.id,
                    None,
                    Some(result.clone()),
                )];
                let history = self.status_change(job, &document.id, DocumentStatus::Draft, None);
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Insert { document, history }),
                    events,
                    result,
                })
            }
            JobCommand::UpdateDocument {
                document_id,
                kind,
                draft,
            } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                check_draft(&before, "updated")?;
                let document = self
                    .build_document(job, tenant, before.clone(), draft)
                    .await?;
                let result = views::document(&document, &[], today);
                let events = vec![self.document_event(
                    job,
                    *kind,
                    "updated",
                    &document.id,
                    Some(views::document(&before, &[], today)),
                    Some(result.clone()),
                )];
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Replace(document)),
                    events,
                    result,
                })
            }
            JobCommand::DeleteDocument { document_id, kind } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                check_draft(&before, "deleted")?;
                let deletion = self.soft_deletion(job, kind.as_str(), &before.id, &before.number);
                let result = json!({
                    "id": before.id,
                    "object": kind.as_str(),
                    "deleted": true,
                    "recoverable_until": views::timestamp(deletion.recoverable_until),
                });
                let events = vec![self.document_event(
                    job,
                    *kind,
                    "deleted",
                    &before.id,
                    Some(views::document(&before, &[], today)),
                    None,
                )];
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Delete {
                        document_id: before.id.clone(),
                        deletion,
                    }),
                    events,
                    result,
                })
            }
            JobCommand::IssueDocument {
                document_id,
                kind,
                transaction_id,
            } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                check_draft(&before, kind.issue_verb())?;
                self.recheck_period_open(tenant, &[Dated::on("the posting", before.issue_date)])
                    .await?;
                let base = self.base_currency(tenant).await?;
                let (lines, metadata) = self.issue_posting_lines(tenant, &before, &base).await?;
                let verb = kind.issue_verb();
                let posting = self.document_posting(
                    job,
                    transaction_id,
                    &before,
                    format!("{} {} {verb}", title(*kind), before.number),
                    before.issue_date,
                    lines,
                    metadata,
                )?;
                let document = Document {
                    status: kind.issued_status(),
                    posting_id: Some(posting.id.clone()),
                    updated_at: now,
                    ..before.clone()
                };
                let payments = self
                    .store
                    .list_payments(tenant, std::slice::from_ref(&document.id))
                    .await?;
                let result = views::document(&document, &payments, today);
                let posting_json = views::transaction(&posting);
                let events = vec![
                    self.document_event(
                        job,
                        *kind,
                        verb,
                        &document.id,
                        Some(views::document(&before, &payments, today)),
                        Some(result.clone()),
                    ),
                    self.transaction_event(job, "posted", &posting.id, None, Some(posting_json)),
                ];
                let history = self.status_change(job, &document.id, kind.issued_status(), None);
                Ok(Decision {
                    effect: transition(DocumentTransition {
                        posting: Some(posting),
                        ..moved(&before, document, history)
                    }),
                    events,
                    result,
                })
            }
            JobCommand::RecordPayment {
                document_id,
                kind,
                payment_id,
                transaction_id,
                payment,
            } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                let decimals = views::decimals_of(&before.currency);
                check_payment(&before, payment.amount, decimals)?;
                self.recheck_period_open(tenant, &[Dated::on("the payment", payment.payment_date)])
                    .await?;
                let base = self.base_currency(tenant).await?;
                let (lines, mut metadata) = if before.currency == base {
                    let control = self.control_account(tenant, *kind).await?;
                    let lines =
                        payment_entries(*kind, payment.amount, &payment.account_id, &control);
                    (lines, json!({}))
                } else {
                    let foreign = self
                        .foreign_payment(tenant, &before, &base, payment)
                        .await?;
                    (foreign.lines, foreign.metadata)
                };
                self.check_lines(tenant, &before.currency, &lines).await?;
                if let Some(m) = metadata.as_object_mut() {
                    m.insert("payment_id".into(), json!(payment_id));
                }
                let posting = self.document_posting(
                    job,
                    transaction_id,
                    &before,
                    format!("Payment of {} {}", kind.as_str(), before.number),
                    payment.payment_date,
                    lines,
                    metadata,
                )?;
                let status = status_after_payment(&before, payment.amount);
                let record = Payment {
                    id: payment_id.clone(),
                    organization_id: job.organization_id.clone(),
                    livemode: job.livemode,
                    document_id: before.id.clone(),
                    kind: *kind,
                    amount: payment.amount,
                    currency: before.currency.clone(),
                    payment_date: payment.payment_date,
                    payment_method: payment.payment_method.clone(),
                    reference: payment.reference.clone(),
                    notes: payment.notes.clone(),
                    account_id: payment.account_id.clone(),
                    transaction_id: posting.id.clone(),
                    created_by: job.api_key_id.clone(),
                    created_at: now,
                };
                let document = Document {
                    status,
                    amount_paid: before.amount_paid + payment.amount,
                    updated_at: now,
                    ..before.clone()
                };
                let result = views::payment(&record);
                let mut events = vec![
                    self.event(
                        job,
                        "payment.created",
                        "payment",
                        &record.id,
                        None,
                        Some(result.clone()),
                    ),
                    self.document_event(
                        job,
                        *kind,
                        status.as_str(),
                        &document.id,
                        Some(views::document(&before, &[], today)),
                        Some(views::document(&document, &[], today)),
                    ),
                ];
                events.push(self.transaction_event(
                    job,
                    "posted",
                    &posting.id,
                    None,
                    Some(views::transaction(&posting)),
                ));
                let history = self.status_change(
                    job,
                    &document.id,
                    status,
                    Some(format!(
                        "payment {} of {} {}",
                        record.id,
                        crate::money::format_units(record.amount, decimals),
                        record.currency
                    )),
                );
                Ok(Decision {
                    effect: transition(DocumentTransition {
                        posting: Some(posting),
                        payment: Some(record),
                        ..moved(&before, document, history)
                    }),
                    events,
                    result,
                })
            }
            JobCommand::VoidDocument {
                document_id,
                kind,
                mirror_id,
            } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                check_void(&before)?;
                let reversal = match &before.posting_id {
                    None => None,
                    Some(posting_id) => {
                        let original = self
                            .store
                            .get_transaction(tenant, posting_id)
                            .await?
                            .ok_or_else(|| not_found("transaction", posting_id))?;
                        self.check_not_reconciled(tenant, &original.id).await?;
                        let touched = [
                            Dated::at("the posting", original.date),
                            Dated::on("the reversal", today),
                        ];
                        self.recheck_period_open(tenant, &touched).await?;
                        let lines: Vec<EntryLine> =
                            original.entries.iter().map(|e| e.line.clone()).collect();
                        let reason = format!("{} {} voided", title(*kind), before.number);
                        let mut mirror = self.document_posting(
                            job,
                            mirror_id,
                            &before,
                            format!("Reversal of {}", original.description),
                            today,
                            mirror_entries(&lines),
                            json!({}),
                        )?;
                        mirror.reversal_of = Some(original.id.clone());
                        Some(Reversal {
                            transaction_id: original.id,
                            reason,
                            mirror,
                        })
                    }
                };
                let document = Document {
                    status: DocumentStatus::Void,
                    updated_at: now,
                    ..before.clone()
                };
                let result = views::document(&document, &[], today);
                let mut events = vec![self.document_event(
                    job,
                    *kind,
                    "voided",
                    &document.id,
                    Some(views::document(&before, &[], today)),
                    Some(result.clone()),
                )];
                if let Some(r) = &reversal {
                    events.push(self.transaction_event(
                        job,
                        "reversed",
                        &r.transaction_id,
                        None,
                        Some(views::transaction(&r.mirror)),
                    ));
                }
                let history = self.status_change(job, &document.id, DocumentStatus::Void, None);
                Ok(Decision {
                    effect: transition(DocumentTransition {
                        reversal,
                        ..moved(&before, document, history)
                    }),
                    events,
                    result,
                })
            }
            other => Err(DomainError::Internal(format!(
                "{} is not a document job",
                other.name()
            ))),
        }
    }
}
