//! Atomic bulk posting (issue 17): up to [`MAX_BATCH`] transactions validated one by one,
//! then written by one job in one database transaction, all or none.

use serde_json::{Value, json};

use crate::error::{DomainError, DomainResult, ErrorKind};
use crate::ids::{IdKind, new_id};
use crate::jobs::{BatchItem, Job, JobCommand};
use crate::ports::{Store, Written};

use super::{Access, Ledger, NewTransactionInput, WriteOptions};

/// The most transactions one batch holds.
pub const MAX_BATCH: usize = 1_000;

/// The most entries one batch holds, all transactions together.
pub const MAX_BATCH_ENTRIES: usize = 10_000;

/// The refusal of a batch with refused items: the first refusal's code (so its status)
/// and its message naming the item, with every refused item in `details.errors`
/// (`{index, code, message, details}`), and `details.field` prefixed with the item
/// (`transactions[3].entries[0].amount`) for a validation error.
fn refused(errors: Vec<(usize, DomainError)>, total: usize) -> DomainError {
    let Some((first_index, first)) = errors.first() else {
        return DomainError::Internal("a batch refused without a reason".into());
    };
    let listed: Vec<Value> = errors
        .iter()
        .map(|(index, e)| {
            json!({
                "index": index,
                "code": e.code().as_str(),
                "message": e.public_message(),
                "details": e.details(),
            })
        })
        .collect();
    let mut details = json!({ "index": first_index, "errors": listed });
    if let Some(field) = first
        .details()
        .as_ref()
        .and_then(|d| d.get("field"))
        .and_then(Value::as_str)
    {
        details["field"] = json!(format!("transactions[{first_index}].{field}"));
    }
    DomainError::Reported {
        code: first.code(),
        message: format!(
            "transactions[{first_index}]: {} ({} of {} refused; nothing was written)",
            first.public_message(),
            errors.len(),
            total
        ),
        details: Some(details),
    }
}

impl<S: Store> Ledger<S> {
    /// Validates every transaction of a batch and queues them as one job: all are
    /// written together or none is.
    ///
    /// # Errors
    /// `invalid_field` on `transactions` (empty, more than [`MAX_BATCH`],
    /// more than [`MAX_BATCH_ENTRIES`] entries); any item's refusal as described in
    /// [`refused`]; `insufficient_credits`. Nothing is written then.
    pub(crate) async fn create_transaction_batch(
        &self,
        access: &Access,
        inputs: Vec<NewTransactionInput>,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let command = self.batch_command(access, inputs, None).await?;
        self.enqueue(access, command, options).await
    }

    /// Validates a batch (of transactions written by `source`, when not plain journal
    /// entries) into its command.
    pub(super) async fn batch_command(
        &self,
        access: &Access,
        inputs: Vec<NewTransactionInput>,
        source: Option<&str>,
    ) -> DomainResult<JobCommand> {
        if inputs.is_empty() {
            return Err(DomainError::invalid_field(
                "transactions",
                "must hold at least one transaction",
            ));
        }
        if inputs.len() > MAX_BATCH {
            return Err(DomainError::invalid_field(
                "transactions",
                format!("at most {MAX_BATCH} transactions per batch"),
            ));
        }
        let entries: usize = inputs.iter().map(|i| i.entries.len()).sum();
        if entries > MAX_BATCH_ENTRIES {
            return Err(DomainError::invalid_field(
                "transactions",
                format!("at most {MAX_BATCH_ENTRIES} entries per batch, all transactions together"),
            ));
        }
        let total = inputs.len();
        let mut items = Vec::with_capacity(total);
        let mut errors = Vec::new();
        for (index, input) in inputs.into_iter().enumerate() {
            match self.create_command(access, input, source).await {
                Ok((JobCommand::CreateTransaction { transaction_id, .. }, draft, auto_post)) => {
                    items.push(BatchItem {
                        transaction_id,
                        draft,
                        auto_post,
                    });
                }
                Ok(_) => {
                    return Err(DomainError::Internal(
                        "a create validated into another command".into(),
                    ));
                }
                // A failure of the service itself is no item's fault.
                Err(e) if e.kind() == ErrorKind::Internal => return Err(e),
                Err(e) => errors.push((index, e)),
            }
        }
        if !errors.is_empty() {
            return Err(refused(errors, total));
        }
        Ok(JobCommand::CreateTransactionBatch {
            batch_id: new_id(IdKind::Batch),
            items,
        })
    }
}
