//! Changing a transaction: updating or deleting a pending one, posting it, reversing a
//! posted one; each validated here and queued.

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ids::{IdKind, new_id};
use crate::jobs::{Job, JobCommand};
use crate::ports::{Store, Written};
use crate::transactions::{Transaction, TransactionAction};

use crate::services::{Access, Dated, Ledger};

use super::{TransactionChanges, WriteOptions, check_description, reversal_dates, update_dates};

impl<S: Store> Ledger<S> {
    /// Validates changes to a pending transaction and queues them.
    ///
    /// # Errors
    /// `resource_not_found`, `transaction_reconciled`, `transaction_not_pending`,
    /// `period_locked` (its current or new date in a closed period), entry validation
    /// errors.
    pub(crate) async fn update_transaction(
        &self,
        access: &Access,
        id: &str,
        changes: TransactionChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_transaction(access, id).await?;
        self.check_not_reconciled(&access.tenant, &current.id)
            .await?;
        TransactionAction::Update.check(current.status)?;
        self.check_period_open(&access.tenant, &update_dates(&current, changes.date))
            .await?;
        let description = changes
            .description
            .as_deref()
            .map(check_description)
            .transpose()?;
        let entries = match &changes.entries {
            Some(entries) => Some(
                self.validate_entries(access, Some(&current.currency), entries)
                    .await?
                    .1,
            ),
            None => None,
        };
        let contact_id = match changes.contact_id.as_deref().map(str::trim) {
            Some(id) if !id.is_empty() => Some(self.check_contact_ref(access, id).await?),
            _ => None,
        };
        let category_id = match changes.category_id.as_deref().map(str::trim) {
            Some(id) if !id.is_empty() => Some(self.check_category_ref(access, id).await?),
            _ => None,
        };
        let command = JobCommand::UpdateTransaction {
            transaction_id: current.id,
            description,
            date: changes.date,
            entries,
            metadata: changes.metadata,
            contact_id,
            category_id,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues the posting of a pending transaction.
    ///
    /// # Errors
    /// `resource_not_found`, `transaction_not_pending`, `period_locked`, `account_inactive`.
    pub(crate) async fn post_transaction(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_transaction(access, id).await?;
        TransactionAction::Post.check(current.status)?;
        self.check_period_open(
            &access.tenant,
            &[Dated::at("the transaction", current.date)],
        )
        .await?;
        self.enqueue(
            access,
            JobCommand::PostTransaction {
                transaction_id: current.id,
            },
            options,
        )
        .await
    }

    /// Queues the reversal of a posted transaction.
    ///
    /// # Errors
    /// `missing_field` on `reason`, `resource_not_found`, `transaction_reconciled`,
    /// `transaction_not_posted`,
    /// `period_locked` (the original or the reversal, dated now, in a closed period).
    pub(crate) async fn reverse_transaction(
        &self,
        access: &Access,
        id: &str,
        reason: Option<String>,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let reason = reason
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty())
            .ok_or_else(|| DomainError::missing_field("reason"))?;
        let current = self.get_transaction(access, id).await?;
        self.check_not_reconciled(&access.tenant, &current.id)
            .await?;
        TransactionAction::Reverse.check(current.status)?;
        self.check_not_document_posting(access, &current).await?;
        self.check_period_open(&access.tenant, &reversal_dates(&current, self.now()))
            .await?;
        let command = JobCommand::ReverseTransaction {
            transaction_id: current.id,
            mirror_id: new_id(IdKind::Transaction),
            reason,
        };
        self.enqueue(access, command, options).await
    }

    /// Refuses to reverse the posting of a live invoice or bill on its own: the document
    /// would no longer match the books. Voiding the document reverses it.
    async fn check_not_document_posting(
        &self,
        access: &Access,
        txn: &Transaction,
    ) -> DomainResult<()> {
        let source = txn
            .metadata
            .get("source")
            .and_then(serde_json::Value::as_str);
        let kind = match source {
            Some("invoice") => crate::documents::DocumentKind::Invoice,
            Some("bill") => crate::documents::DocumentKind::Bill,
            _ => return Ok(()),
        };
        let Some(doc_id) = txn
            .metadata
            .get(format!("{}_id", kind.as_str()))
            .and_then(serde_json::Value::as_str)
        else {
            return Ok(());
        };
        match self
            .store
            .get_document(&access.tenant, kind, doc_id)
            .await?
        {
            Some(doc) => Err(DomainError::rule(
                ErrorCode::ResourceInUse,
                format!(
                    "transaction {} posts {} {}; void the {} instead",
                    txn.id,
                    kind.as_str(),
                    doc.number,
                    kind.as_str()
                ),
            )),
            None => Ok(()),
        }
    }

    /// Queues the soft delete of a pending transaction.
    ///
    /// # Errors
    /// `resource_not_found`, `transaction_reconciled`, `transaction_not_pending`.
    pub(crate) async fn delete_transaction(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_transaction(access, id).await?;
        self.check_not_reconciled(&access.tenant, &current.id)
            .await?;
        TransactionAction::Delete.check(current.status)?;
        self.enqueue(
            access,
            JobCommand::DeleteTransaction {
                transaction_id: current.id,
            },
            options,
        )
        .await
    }
}
