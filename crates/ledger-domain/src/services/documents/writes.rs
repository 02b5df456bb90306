//! The document writes a client asks for: each validated now, then queued as a job.

use crate::documents::{DocumentKind, check_draft, check_payment, check_void};
use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, new_id};
use crate::jobs::{Job, JobCommand, PaymentDraft};
use crate::money::parse_positive_units;
use crate::ports::{Store, Written};
use crate::views;

use crate::services::{Access, Dated, Ledger, WriteOptions};

use super::{DEFAULT_TERMS_DAYS, DocumentInput, DocumentItemInput, PaymentInput, check_text};

/// The posting of issuing `document`, dated on its issue date.
fn issue_dated(document: &crate::documents::Document) -> Dated {
    Dated::on("the posting", document.issue_date)
}

impl<S: Store> Ledger<S> {
    /// Validates a new invoice or bill and queues its creation.
    ///
    /// # Errors
    /// Validation errors, `account_inactive`, `currency_mismatch`, `insufficient_credits`.
    pub(crate) async fn create_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        input: DocumentInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let contact_id = input
            .contact_id
            .ok_or_else(|| DomainError::missing_field("contact_id"))?;
        let items = input
            .items
            .ok_or_else(|| DomainError::missing_field("items"))?;
        let issue_date = input.issue_date.unwrap_or_else(|| self.now().date());
        let due_date = input
            .due_date
            .unwrap_or(issue_date + time::Duration::days(DEFAULT_TERMS_DAYS));
        let draft = self
            .check_draft_input(
                &access.tenant,
                &access.organization.base_currency,
                kind,
                &contact_id,
                issue_date,
                due_date,
                &items,
                input.notes.flatten().as_deref(),
            )
            .await?;
        let command = JobCommand::CreateDocument {
            document_id: new_id(kind.id_kind()),
            kind,
            draft,
        };
        self.enqueue(access, command, options).await
    }

    /// Validates changes to a draft and queues them.
    ///
    /// # Errors
    /// `resource_not_found`, `invoice_not_draft` / `invalid_state_transition`, validation
    /// errors as for a new document.
    pub(crate) async fn update_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        input: DocumentInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        check_draft(&current, "updated")?;
        let items: Vec<DocumentItemInput> = match input.items {
            Some(items) => items,
            None => current
                .items
                .iter()
                .map(|i| DocumentItemInput {
                    description: Some(i.description.clone()),
                    quantity: Some(crate::money::format_units(i.quantity, 4)),
                    unit_price: Some(crate::money::format_units(i.unit_price, 4)),
                    item_id: i.item_id.clone(),
                    account_id: Some(i.account_id.clone()),
                    tax_ids: i.tax_ids.clone(),
                    category_id: i.category_id.clone(),
                })
                .collect(),
        };
        let contact_id = input.contact_id.unwrap_or(current.contact_id.clone());
        let notes = match input.notes {
            Some(notes) => notes,
            None => current.notes.clone(),
        };
        let draft = self
            .check_draft_input(
                &access.tenant,
                &access.organization.base_currency,
                kind,
                &contact_id,
                input.issue_date.unwrap_or(current.issue_date),
                input.due_date.unwrap_or(current.due_date),
                &items,
                notes.as_deref(),
            )
            .await?;
        let command = JobCommand::UpdateDocument {
            document_id: current.id,
            kind,
            draft,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues the soft delete of a draft.
    ///
    /// # Errors
    /// `resource_not_found`, `invoice_not_draft` / `invalid_state_transition`.
    pub(crate) async fn delete_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        check_draft(&current, "deleted")?;
        let command = JobCommand::DeleteDocument {
            document_id: current.id,
            kind,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues sending an invoice or approving a bill: it is posted to the books.
    ///
    /// # Errors
    /// `resource_not_found`, `invoice_not_draft` / `invalid_state_transition`,
    /// `period_locked` (issued in a closed period), `account_inactive`, `currency_mismatch`.
    pub(crate) async fn issue_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        check_draft(&current, kind.issue_verb())?;
        self.check_period_open(&access.tenant, &[issue_dated(&current)])
            .await?;
        let base = &access.organization.base_currency;
        if &current.currency != base {
            self.ensure_foreign_accounts(access, kind, &current.currency)
                .await?;
        }
        // Checks the accounts and the rate now, so a refused posting never enters the queue.
        self.issue_posting_lines(&access.tenant, &current, base)
            .await?;
        let command = JobCommand::IssueDocument {
            document_id: current.id,
            kind,
            transaction_id: new_id(IdKind::Transaction),
        };
        self.enqueue(access, command, options).await
    }

    /// Validates a payment and queues it.
    ///
    /// # Errors
    /// `resource_not_found`, validation errors, `invalid_state_transition` (a draft or a
    /// paid or void document), `overpayment`, `period_locked` (paid in a closed period),
    /// `account_inactive`, `currency_mismatch`.
    pub(crate) async fn record_payment(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        input: PaymentInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        let decimals = views::decimals_of(&current.currency);
        let amount = parse_positive_units(&input.amount, decimals)
            // The document's currency decides the places (400 past them).
            .map_err(|e| e.refusal("amount", &current.currency))?;
        let payment_method = check_text("payment_method", input.payment_method.as_deref(), 100)?
            .ok_or_else(|| DomainError::missing_field("payment_method"))?;
        let payment_date = input
            .payment_date
            .ok_or_else(|| DomainError::missing_field("payment_date"))?;
        self.check_period_open(&access.tenant, &[Dated::on("the payment", payment_date)])
            .await?;
        let base = &access.organization.base_currency;
        let account_id = self
            .money_account(
                &access.tenant,
                &current.currency,
                base,
                input.account_id.as_deref(),
            )
            .await?;
        check_payment(&current, amount, decimals)?;
        if &current.currency != base {
            self.ensure_foreign_accounts(access, kind, &current.currency)
                .await?;
            self.document_rate(&access.tenant, &current, base, payment_date)
                .await?;
        }
        let payment = PaymentDraft {
            amount,
            payment_date,
            payment_method,
            reference: check_text("reference", input.reference.as_deref(), 255)?,
            notes: check_text("notes", input.notes.as_deref(), 5000)?,
            account_id,
        };
        let command = JobCommand::RecordPayment {
            document_id: current.id,
            kind,
            payment_id: new_id(IdKind::Payment),
            transaction_id: new_id(IdKind::Transaction),
            payment,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues voiding a document: a draft simply ends, a posted one without payments has
    /// its posting reversed.
    ///
    /// # Errors
    /// `resource_not_found`, `invalid_state_transition`, `transaction_reconciled` (its
    /// posting is reconciled), `period_locked` (a posted document issued in a closed
    /// period, or the reversal dated today in one).
    pub(crate) async fn void_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        check_void(&current)?;
        if let Some(posting_id) = &current.posting_id {
            // Voiding reverses the posting, which a completed reconciliation locks.
            self.check_not_reconciled(&access.tenant, posting_id)
                .await?;
            let touched = [issue_dated(&current), Dated::at("the reversal", self.now())];
            self.check_period_open(&access.tenant, &touched).await?;
        }
        let command = JobCommand::VoidDocument {
            document_id: current.id,
            kind,
            mirror_id: new_id(IdKind::Transaction),
        };
        self.enqueue(access, command, options).await
    }
}
