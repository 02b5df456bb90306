//! Applying a job in memory: the claim, the effect's precondition and the effect, the
//! job's completion and the events, all or nothing (the SQL adapter's `apply`).
//!
//! Everything is checked first, in the order the SQL adapter's statements would refuse,
//! and only then written: a refusal leaves the state as it was, like a rollback.

use crate::ports::{StoreError, Taken};
use time::OffsetDateTime;

use crate::accounts::Account;
use crate::contacts::Contact;
use crate::documents::{Document, DocumentStatus};
use crate::error::Resource;
use crate::events::{Deletion, Event};
use crate::jobs::{Job, JobStatus};
use crate::ports::{DocumentEffect, DocumentTransition, Effect, StoreResult, Tenant};
use crate::transactions::{Transaction, TransactionStatus};

use super::tenanted::{Tenanted, live_in, live_mut};
use super::{Deleted, Row, State, in_tenant};

/// The distinct account ids of a transaction's entries, sorted.
fn account_ids(t: &Transaction) -> Vec<String> {
    let mut ids: Vec<String> = t
        .entries
        .iter()
        .map(|e| e.line.account_id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// The distinct category ids a document's items name, sorted.
fn category_ids(d: &Document) -> Vec<String> {
    let mut ids: Vec<String> = d
        .items
        .iter()
        .filter_map(|i| i.category_id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// The new transactions an effect inserts (a document transition's posting wins over its
/// reversal's mirror, as in the SQL adapter).
fn inserted(effect: &Effect) -> Vec<&Transaction> {
    match effect {
        Effect::InsertTransaction(t) => vec![t],
        Effect::InsertTransactions(batch) => batch.iter().collect(),
        Effect::ReverseTransaction { mirror, .. } => vec![mirror],
        Effect::Document(DocumentEffect::Transition(t)) => t
            .posting
            .as_ref()
            .or(t.reversal.as_ref().map(|r| &r.mirror))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

impl State {
    /// Checks that every account of `wanted` is live in the tenant, and active unless
    /// `any_status` (a reversal may correct an account deactivated since).
    ///
    /// # Errors
    /// `Vanished` (account) or `account_inactive`, for the first account in id order.
    pub(crate) fn check_accounts(
        &self,
        tenant: &Tenant,
        wanted: &[String],
        any_status: bool,
    ) -> StoreResult<()> {
        for id in wanted {
            match self
                .live_account(tenant, id)
                .map(|i| &self.accounts[i].value)
            {
                None => {
                    return Err(StoreError::Vanished {
                        resource: Resource::Account,
                        id: id.clone(),
                    });
                }
                Some(account) if !any_status && !account.status.accepts_postings() => {
                    return Err(StoreError::Inactive {
                        resource: Resource::Account,
                        id: id.clone(),
                        status: account.status.as_str().to_owned(),
                    });
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn live_contact(&self, tenant: &Tenant, id: &str) -> Option<usize> {
        live_in(&self.contacts, tenant, id)
    }

    pub(crate) fn live_category(&self, tenant: &Tenant, id: &str) -> Option<usize> {
        live_in(&self.categories, tenant, id)
    }

    /// The live document `id` of the tenant (any kind), by position.
    fn live_document(&self, tenant: &Tenant, id: &str) -> Option<usize> {
        live_in(&self.documents, tenant, id)
    }

    /// Checks that the contact and category a transaction names are still live.
    ///
    /// # Errors
    /// `Vanished` (contact, then category).
    pub(crate) fn check_parties(&self, tenant: &Tenant, t: &Transaction) -> StoreResult<()> {
        if let Some(contact) = &t.contact_id
            && self.live_contact(tenant, contact).is_none()
        {
            return Err(StoreError::Vanished {
                resource: Resource::Contact,
                id: contact.clone(),
            });
        }
        if let Some(category) = &t.category_id
            && self.live_category(tenant, category).is_none()
        {
            return Err(StoreError::Vanished {
                resource: Resource::Category,
                id: category.clone(),
            });
        }
        Ok(())
    }

    /// Checks that the categories a document's items name are still live.
    fn check_categories(&self, tenant: &Tenant, d: &Document) -> StoreResult<()> {
        match category_ids(d)
            .into_iter()
            .find(|id| self.live_category(tenant, id).is_none())
        {
            Some(id) => Err(StoreError::Vanished {
                resource: Resource::Category,
                id,
            }),
            None => Ok(()),
        }
    }

    /// Whether another live contact of the tenant has `contact`'s reference (the partial
    /// unique index), or a contact has its id.
    fn reference_taken(&self, tenant: &Tenant, id: &str, reference: Option<&String>) -> bool {
        self.contacts.iter().any(|c| {
            c.value.id != id
                && c.is_live()
                && in_tenant(tenant, &c.value.organization_id, c.value.livemode)
                && reference.is_some()
                && c.value.fields.reference.as_ref() == reference
        })
    }

    /// The accounts an effect posts to (checked live, and active unless `any_status`),
    /// and whether it is an account delete (locked, not checked).
    fn touched_accounts(&self, effect: &Effect, tenant: &Tenant) -> (Vec<String>, bool, bool) {
        match effect {
            Effect::InsertTransaction(t) | Effect::ReplaceTransaction(t) => {
                (account_ids(t), false, false)
            }
            Effect::InsertTransactions(batch) => {
                let mut ids: Vec<String> = batch.iter().flat_map(account_ids).collect();
                ids.sort();
                ids.dedup();
                (ids, false, false)
            }
            Effect::ReverseTransaction { mirror, .. } => (account_ids(mirror), true, false),
            Effect::PostTransaction { transaction_id, .. } => {
                let ids = self
                    .transactions
                    .iter()
                    .find(|t| {
                        t.value.organization_id == tenant.organization_id
                            && t.value.id == *transaction_id
                    })
                    .map(|t| account_ids(&t.value))
                    .unwrap_or_default();
                (ids, false, false)
            }
            Effect::DeleteAccount { account_id, .. } => (vec![account_id.clone()], true, true),
            Effect::Document(DocumentEffect::Transition(t)) => match (&t.posting, &t.reversal) {
                (Some(posting), _) => (account_ids(posting), false, false),
                (None, Some(reversal)) => (account_ids(&reversal.mirror), true, false),
                (None, None) => (Vec::new(), true, false),
            },
            _ => (Vec::new(), true, false),
        }
    }

    /// Every check of [`State::apply`], in the SQL adapter's order; nothing is written.
    fn check_effect(&self, job: &Job, tenant: &Tenant, effect: &Effect) -> StoreResult<()> {
        let still_claimed = self.jobs.get(&job.id).is_some_and(|j| {
            j.organization_id == job.organization_id
                && j.status == JobStatus::Processing
                && j.attempts == job.attempts
        });
        if !still_claimed {
            return Err(StoreError::ClaimLost {
                job_id: job.id.clone(),
            });
        }
        let (touched, any_status, exclusive) = self.touched_accounts(effect, tenant);
        if !touched.is_empty() && !exclusive {
            self.check_accounts(tenant, &touched, any_status)?;
        }
        match effect {
            Effect::InsertTransaction(t) | Effect::ReplaceTransaction(t) => {
                self.check_parties(tenant, t)?;
            }
            Effect::InsertTransactions(batch) => {
                for t in batch {
                    self.check_parties(tenant, t)?;
                }
            }
            Effect::Document(DocumentEffect::Transition(t)) => {
                if let Some(posting) = &t.posting {
                    self.check_parties(tenant, posting)?;
                }
            }
            _ => {}
        }
        let status_of = |id: &str| {
            self.live_transaction(tenant, id)
                .map(|i| self.transactions[i].value.status)
        };
        match effect {
            Effect::InsertTransaction(_) | Effect::InsertTransactions(_) => {}
            Effect::ReplaceTransaction(t) => {
                if status_of(&t.id) != Some(TransactionStatus::Pending) {
                    return Err(StoreError::transaction_not_pending(&t.id));
                }
            }
            Effect::PostTransaction { transaction_id, .. }
            | Effect::DeleteTransaction { transaction_id, .. } => {
                if status_of(transaction_id) != Some(TransactionStatus::Pending) {
                    return Err(StoreError::transaction_not_pending(transaction_id));
                }
            }
            Effect::ReverseTransaction { transaction_id, .. } => {
                if status_of(transaction_id) != Some(TransactionStatus::Posted) {
                    return Err(StoreError::transaction_not_posted(transaction_id));
                }
            }
            Effect::DeleteAccount { account_id, .. } => {
                if let Some(refusal) = self.in_use(tenant, Resource::Account, account_id) {
                    return Err(refusal);
                }
                if self.live_account(tenant, account_id).is_none() {
                    return Err(StoreError::missing(Resource::Account, account_id));
                }
            }
            Effect::InsertContact(c) => {
                let clash = self
                    .contacts
                    .iter()
                    .any(|s| s.value.organization_id == c.organization_id && s.value.id == c.id);
                if clash || self.reference_taken(tenant, &c.id, c.fields.reference.as_ref()) {
                    return Err(duplicate_reference(c.fields.reference.as_ref()));
                }
            }
            Effect::ReplaceContact(c) => {
                if self.live_contact(tenant, &c.id).is_none() {
                    return Err(StoreError::missing(Resource::Contact, &c.id));
                }
                if self.reference_taken(tenant, &c.id, c.fields.reference.as_ref()) {
                    return Err(duplicate_reference(c.fields.reference.as_ref()));
                }
            }
            Effect::DeleteContact { contact_id, .. } => {
                if let Some(refusal) = self.in_use(tenant, Resource::Contact, contact_id) {
                    return Err(refusal);
                }
                if self.live_contact(tenant, contact_id).is_none() {
                    return Err(StoreError::missing(Resource::Contact, contact_id));
                }
            }
            Effect::Document(doc) => self.check_document(tenant, doc)?,
        }
        for new in inserted(effect) {
            if self.transaction_exists(&new.organization_id, &new.id) {
                return Err(StoreError::Internal(format!(
                    "transaction {} exists already",
                    new.id
                )));
            }
        }
        Ok(())
    }

    fn check_document(&self, tenant: &Tenant, effect: &DocumentEffect) -> StoreResult<()> {
        let draft = |id: &str| {
            self.live_document(tenant, id)
                .is_some_and(|i| self.documents[i].value.status == DocumentStatus::Draft)
        };
        match effect {
            DocumentEffect::Insert { document, .. } => {
                self.check_categories(tenant, document)?;
                // The primary key and the sequence index (deleted documents keep theirs).
                let clash = self.documents.iter().any(|d| {
                    d.value.organization_id == document.organization_id
                        && (d.value.id == document.id
                            || (d.value.livemode == document.livemode
                                && d.value.kind == document.kind
                                && d.value.sequence == document.sequence))
                });
                if clash {
                    return Err(StoreError::changed(&document.number));
                }
            }
            DocumentEffect::Replace(document) => {
                self.check_categories(tenant, document)?;
                if !draft(&document.id) {
                    return Err(StoreError::changed(&document.id));
                }
            }
            DocumentEffect::Delete { document_id, .. } => {
                if !draft(document_id) {
                    return Err(StoreError::changed(document_id));
                }
            }
            DocumentEffect::Transition(t) => {
                let unchanged = self.live_document(tenant, &t.document.id).is_some_and(|i| {
                    let stored = &self.documents[i].value;
                    stored.status == t.expected_status && stored.amount_paid == t.expected_paid
                });
                if !unchanged {
                    return Err(StoreError::changed(&t.document.id));
                }
                if let Some(reversal) = &t.reversal {
                    let posted = self
                        .live_transaction(tenant, &reversal.transaction_id)
                        .is_some_and(|i| {
                            self.transactions[i].value.status == TransactionStatus::Posted
                        });
                    if !posted {
                        return Err(StoreError::transaction_not_posted(&reversal.transaction_id));
                    }
                }
            }
        }
        Ok(())
    }

    /// Soft-deletes the live record `id` of `tenant` in the table `rows` picks, stamped
    /// by `touch`, and keeps the deletion record: the delete of an effect whose
    /// precondition was checked.
    fn delete_checked<T: Tenanted>(
        &mut self,
        rows: impl FnOnce(&mut State) -> &mut Vec<Row<T>>,
        tenant: &Tenant,
        id: &str,
        deletion: Deletion,
        touch: impl FnOnce(&mut T),
    ) {
        let table = rows(self);
        if let Some(i) = live_in(table, tenant, id) {
            let row = &mut table[i];
            row.deleted = Some(Deleted::from(&deletion));
            touch(&mut row.value);
        }
        self.record_deletion(deletion);
    }

    /// Marks the transaction `id` reversed by `mirror_id`.
    fn mark_reversed(
        &mut self,
        tenant: &Tenant,
        id: &str,
        mirror_id: &str,
        reason: &str,
        now: OffsetDateTime,
    ) {
        if let Some(t) = live_mut(&mut self.transactions, tenant, id) {
            t.status = TransactionStatus::Reversed;
            t.reversed_by = Some(mirror_id.to_owned());
            t.reversal_reason = Some(reason.to_owned());
            t.updated_at = now;
        }
    }

    /// Writes a checked effect.
    fn write_effect(&mut self, tenant: &Tenant, effect: Effect, now: OffsetDateTime) {
        let new: Vec<Transaction> = inserted(&effect).into_iter().cloned().collect();
        match effect {
            Effect::InsertTransaction(_) | Effect::InsertTransactions(_) => {}
            Effect::ReplaceTransaction(t) => {
                if let Some(stored) = live_mut(&mut self.transactions, tenant, &t.id) {
                    stored.description = t.description;
                    stored.date = t.date;
                    stored.currency = t.currency;
                    stored.amount = t.amount;
                    stored.reference = t.reference;
                    stored.contact_id = t.contact_id;
                    stored.category_id = t.category_id;
                    stored.metadata = t.metadata;
                    stored.updated_at = t.updated_at;
                    stored.entries = t.entries;
                }
            }
            Effect::PostTransaction {
                transaction_id,
                posted_at,
            } => {
                if let Some(stored) = live_mut(&mut self.transactions, tenant, &transaction_id) {
                    stored.status = TransactionStatus::Posted;
                    stored.posted_at = Some(posted_at);
                    stored.updated_at = now;
                }
            }
            Effect::ReverseTransaction {
                transaction_id,
                reason,
                mirror,
            } => self.mark_reversed(tenant, &transaction_id, &mirror.id, &reason, now),
            Effect::DeleteTransaction {
                transaction_id,
                deletion,
            } => {
                let touch = |r: &mut Transaction| r.updated_at = now;
                self.delete_checked(
                    |s| &mut s.transactions,
                    tenant,
                    &transaction_id,
                    deletion,
                    touch,
                );
            }
            Effect::DeleteAccount {
                account_id,
                deletion,
            } => {
                let touch = |r: &mut Account| r.updated_at = now;
                self.delete_checked(|s| &mut s.accounts, tenant, &account_id, deletion, touch);
            }
            Effect::InsertContact(c) => self.contacts.push(Row::new(c)),
            Effect::ReplaceContact(c) => {
                if let Some(stored) = live_mut(&mut self.contacts, tenant, &c.id) {
                    stored.fields = c.fields;
                    stored.updated_at = c.updated_at;
                }
            }
            Effect::DeleteContact {
                contact_id,
                deletion,
            } => {
                let touch = |r: &mut Contact| r.updated_at = now;
                self.delete_checked(|s| &mut s.contacts, tenant, &contact_id, deletion, touch);
            }
            Effect::Document(doc) => self.write_document(tenant, doc, now),
        }
        for new in new {
            self.transactions.push(Row::new(new));
        }
    }

    fn write_document(&mut self, tenant: &Tenant, effect: DocumentEffect, now: OffsetDateTime) {
        match effect {
            DocumentEffect::Insert { document, history } => {
                self.documents.push(Row::new(document));
                self.history.push(history);
            }
            DocumentEffect::Replace(d) => {
                if let Some(stored) = live_mut(&mut self.documents, tenant, &d.id) {
                    stored.contact_id = d.contact_id;
                    stored.issue_date = d.issue_date;
                    stored.due_date = d.due_date;
                    stored.currency = d.currency;
                    stored.items = d.items;
                    stored.taxes = d.taxes;
                    stored.subtotal = d.subtotal;
                    stored.tax_amount = d.tax_amount;
                    stored.total = d.total;
                    stored.notes = d.notes;
                    stored.updated_at = d.updated_at;
                }
            }
            DocumentEffect::Delete {
                document_id,
                deletion,
            } => {
                let touch = |d: &mut Document| d.updated_at = now;
                self.delete_checked(|s| &mut s.documents, tenant, &document_id, deletion, touch);
            }
            DocumentEffect::Transition(t) => {
                let DocumentTransition {
                    document,
                    reversal,
                    payment,
                    history,
                    ..
                } = *t;
                if let Some(stored) = live_mut(&mut self.documents, tenant, &document.id) {
                    stored.status = document.status;
                    stored.amount_paid = document.amount_paid;
                    stored.posting_id = document.posting_id;
                    stored.updated_at = document.updated_at;
                }
                if let Some(r) = reversal {
                    self.mark_reversed(tenant, &r.transaction_id, &r.mirror.id, &r.reason, now);
                }
                if let Some(payment) = payment {
                    self.payments.push(payment);
                }
                self.history.push(history);
            }
        }
    }

    /// See [`crate::ports::Jobs::apply_job`]: completes the claimed job, applies the
    /// effect after its precondition, inserts the events; all or nothing.
    pub(crate) fn apply(
        &mut self,
        job: &Job,
        effect: Effect,
        events: Vec<Event>,
        result: serde_json::Value,
        now: OffsetDateTime,
    ) -> StoreResult<()> {
        let tenant = Tenant {
            organization_id: job.organization_id.clone(),
            livemode: job.livemode,
        };
        self.check_effect(job, &tenant, &effect)?;
        let stored = self.claimed_job(job)?;
        stored.status = JobStatus::Completed;
        stored.result = Some(result);
        stored.locked_until = None;
        stored.completed_at = Some(now);
        stored.updated_at = now;
        self.write_effect(&tenant, effect, now);
        self.events.extend(events);
        Ok(())
    }
}

/// A contact of the tenant has the reference already.
fn duplicate_reference(reference: Option<&String>) -> StoreError {
    StoreError::Taken(Taken::ContactReference {
        reference: reference.cloned().unwrap_or_default(),
    })
}
