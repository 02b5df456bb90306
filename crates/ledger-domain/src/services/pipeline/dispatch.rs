//! Handing a write to its service method: a synchronous write is written at once and
//! answers its view; a queued one is validated and enqueued (a waited transaction create
//! or transfer is applied at once).
//!
//! Each dispatch is a chain of links by resource, each taking its own writes and passing
//! the rest on; the last link of the synchronous chain hands the queued writes back.

use std::time::Duration;

use crate::error::{DomainError, DomainResult};
use crate::jobs::Job;
use crate::ports::{Store, Written};

use crate::services::transactions::WriteOptions;
use crate::services::{Access, Ledger};

use super::{Synchronous, Write};

impl<S: Store> Ledger<S> {
    /// Writes a synchronous write at once, answering its view; hands a queued write back.
    /// This link writes the chart and its reference data (accounts, taxes, categories,
    /// exchange rates).
    pub(super) async fn write_synchronously(
        &self,
        access: &Access,
        write: Write,
        options: WriteOptions,
    ) -> DomainResult<Synchronous> {
        Ok(Synchronous::Written(match write {
            Write::CreateAccount(input) => self
                .create_account(access, input, options)
                .await?
                .map(|account| crate::views::account(&account, Some(Default::default()))),
            Write::UpdateAccount { id, changes } => {
                self.update_account(access, &id, changes, options).await?
            }
            Write::CreateTax(input) => self
                .create_tax(access, input, options)
                .await?
                .map(|tax| crate::views::tax(&tax)),
            Write::UpdateTax { id, changes } => {
                self.update_tax(access, &id, changes, options).await?
            }
            Write::DeleteTax { id } => self.delete_tax(access, &id, options).await?,
            // A new category has no children yet.
            Write::CreateCategory(input) => self
                .create_category(access, input, options)
                .await?
                .map(|category| crate::views::category(&category, Some(&[]))),
            Write::UpdateCategory { id, changes } => {
                self.update_category(access, &id, changes, options).await?
            }
            Write::DeleteCategory { id } => self.delete_category(access, &id, options).await?,
            Write::CreateExchangeRate(input) => self
                .create_exchange_rate(access, input, options)
                .await?
                .map(|rate| crate::views::exchange_rate(&rate)),
            Write::UpdateExchangeRate { id, changes } => {
                self.update_exchange_rate(access, &id, changes, options)
                    .await?
            }
            Write::DeleteExchangeRate { id } => {
                self.delete_exchange_rate(access, &id, options).await?
            }
            other => return self.write_attached(access, other, options).await,
        }))
    }

    /// The link of [`Ledger::write_synchronously`] for what hangs on the organization:
    /// ownership transfers, attachments, recurring schedules and webhooks.
    async fn write_attached(
        &self,
        access: &Access,
        write: Write,
        options: WriteOptions,
    ) -> DomainResult<Synchronous> {
        Ok(Synchronous::Written(match write {
            Write::InitiateOrganizationTransfer(input) => {
                self.initiate_transfer(access, input, options).await?
            }
            Write::AcceptOrganizationTransfer { id, relationship } => {
                self.accept_transfer(access, &id, relationship, options)
                    .await?
            }
            Write::RejectOrganizationTransfer { id } => {
                self.reject_transfer(access, &id, options).await?
            }
            Write::CancelOrganizationTransfer { id } => {
                self.cancel_transfer(access, &id, options).await?
            }
            Write::CreateAttachment(input) => {
                self.create_attachment(access, input, options).await?
            }
            Write::DeleteAttachment { id } => self.delete_attachment(access, &id, options).await?,
            Write::CreateRecurringSchedule(input) => {
                self.create_recurring_schedule(access, input, options)
                    .await?
            }
            Write::UpdateRecurringSchedule { id, input } => {
                self.update_recurring_schedule(access, &id, input, options)
                    .await?
            }
            Write::DeleteRecurringSchedule { id } => {
                self.delete_recurring_schedule(access, &id, options).await?
            }
            Write::CreateWebhookEndpoint(input) => {
                self.create_webhook_endpoint(access, input, options).await?
            }
            Write::UpdateWebhookEndpoint { id, changes } => {
                self.update_webhook_endpoint(access, &id, changes, options)
                    .await?
            }
            Write::DeleteWebhookEndpoint { id } => {
                self.delete_webhook_endpoint(access, &id, options).await?
            }
            Write::RotateWebhookSecret { id } => {
                self.rotate_webhook_secret(access, &id, options).await?
            }
            Write::ReplayWebhookDelivery {
                endpoint_id,
                delivery_id,
            } => {
                self.replay_webhook_delivery(access, &endpoint_id, &delivery_id, options)
                    .await?
            }
            other => return self.write_reconciliation(access, other, options).await,
        }))
    }

    /// The last link of [`Ledger::write_synchronously`]: reconciliations and their
    /// statement lines; every other write is queued and handed back.
    async fn write_reconciliation(
        &self,
        access: &Access,
        write: Write,
        options: WriteOptions,
    ) -> DomainResult<Synchronous> {
        Ok(Synchronous::Written(match write {
            Write::CreateReconciliation(input) => {
                self.create_reconciliation(access, input, options).await?
            }
            Write::UpdateReconciliation { id, changes } => {
                self.update_reconciliation(access, &id, changes, options)
                    .await?
            }
            Write::DeleteReconciliation { id } => {
                self.delete_reconciliation(access, &id, options).await?
            }
            Write::CompleteReconciliation { id } => {
                self.complete_reconciliation(access, &id, options).await?
            }
            Write::ImportStatement { id, input } => {
                self.import_statement(access, &id, input, options).await?
            }
            Write::AcceptStatementLine {
                id,
                line_id,
                entry_id,
            } => {
                self.accept_statement_line(access, &id, &line_id, entry_id, options)
                    .await?
            }
            Write::CreateStatementTransaction { id, line_id, input } => {
                self.create_statement_transaction(access, &id, &line_id, input, options)
                    .await?
            }
            queued => return Ok(Synchronous::Queued(Box::new((queued, options)))),
        }))
    }

    /// Validates a queued write and enqueues it. This link takes the journal's writes:
    /// transactions, batches, transfers, revaluations and account deletions.
    pub(super) async fn write_queued(
        &self,
        access: &Access,
        write: Write,
        options: WriteOptions,
        wait: Duration,
    ) -> DomainResult<Written<Job>> {
        Ok(match write {
            Write::CreateTransaction(input) => {
                // A caller that waits gets the write decided and applied at once, in one
                // database transaction grouped with concurrent ones.
                if self.config.run_inline && !wait.is_zero() {
                    self.create_transaction_now(access, input, options).await?
                } else {
                    self.create_transaction(access, input, options).await?
                }
            }
            Write::UpdateTransaction { id, changes } => {
                self.update_transaction(access, &id, changes, options)
                    .await?
            }
            Write::PostTransaction { id } => self.post_transaction(access, &id, options).await?,
            Write::ReverseTransaction { id, reason } => {
                self.reverse_transaction(access, &id, reason, options)
                    .await?
            }
            Write::DeleteTransaction { id } => {
                self.delete_transaction(access, &id, options).await?
            }
            Write::DeleteAccount { id } => self.delete_account(access, &id, options).await?,
            Write::CreateTransfer(input) => {
                let now = self.config.run_inline && !wait.is_zero();
                self.create_transfer(access, input, options, now).await?
            }
            Write::Revalue { date } => self.revalue(access, date, options).await?,
            Write::CreateTransactionBatch(inputs) => {
                self.create_transaction_batch(access, inputs, options)
                    .await?
            }
            Write::PostTransfer { id } => {
                let transfer = self.get_transfer(access, &id).await?;
                self.post_transaction(access, &transfer.id, options).await?
            }
            Write::ReverseTransfer { id, reason } => {
                let transfer = self.get_transfer(access, &id).await?;
                self.reverse_transaction(access, &transfer.id, reason, options)
                    .await?
            }
            other => return self.write_queued_document(access, other, options).await,
        })
    }

    /// The link of [`Ledger::write_queued`] for contacts, invoices and bills.
    async fn write_queued_document(
        &self,
        access: &Access,
        write: Write,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        Ok(match write {
            Write::CreateContact(input) => self.create_contact(access, input, options).await?,
            Write::UpdateContact { id, changes } => {
                self.update_contact(access, &id, changes, options).await?
            }
            Write::DeleteContact { id } => self.delete_contact(access, &id, options).await?,
            Write::CreateDocument { kind, input } => {
                self.create_document(access, kind, input, options).await?
            }
            Write::UpdateDocument { kind, id, input } => {
                self.update_document(access, kind, &id, input, options)
                    .await?
            }
            Write::DeleteDocument { kind, id } => {
                self.delete_document(access, kind, &id, options).await?
            }
            Write::IssueDocument { kind, id } => {
                self.issue_document(access, kind, &id, options).await?
            }
            Write::RecordPayment { kind, id, payment } => {
                self.record_payment(access, kind, &id, payment, options)
                    .await?
            }
            Write::VoidDocument { kind, id } => {
                self.void_document(access, kind, &id, options).await?
            }
            // The journal's writes were taken by `write_queued`; every other write is
            // synchronous and never queued.
            _ => {
                return Err(DomainError::Internal(
                    "a synchronous write reached the queue".into(),
                ));
            }
        })
    }
}
