//! Queued writes (DECISIONS 4): job records, their commands and their state machine.
//!
//! A job is accepted only after synchronous validation; its effect and its completion
//! commit in one database transaction, so a crash never applies a job twice or loses it.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::contacts::{ContactChanges, ContactFields, ContactType};
use crate::documents::{DocumentItem, DocumentKind};
use crate::ids::names;
use crate::transactions::EntryLine;

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    Queued,
    Processing,
    Completed,
    Failed,
}

names!(
    JobStatus,
    exact,
    {
        Queued => "queued",
        Processing => "processing",
        Completed => "completed",
        Failed => "failed",
    }
);

impl JobStatus {
    /// Whether the job has ended.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Completed | Self::Failed)
    }
}

/// The validated content of a new or replaced transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransactionDraft {
    pub description: String,
    /// RFC 3339 accounting date-time.
    #[serde(with = "time::serde::rfc3339")]
    pub date: OffsetDateTime,
    pub currency: String,
    pub reference: Option<String>,
    pub entries: Vec<EntryLine>,
    pub metadata: serde_json::Value,
    /// A contact of the tenant, checked when the job was accepted.
    #[serde(default)]
    pub contact_id: Option<String>,
    /// A category of the tenant, checked when the job was accepted.
    #[serde(default)]
    pub category_id: Option<String>,
    /// What writes it when it is not a plain journal entry (`transfer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The validated content of a new or replaced invoice or bill. Items are priced again
/// from the taxes' current rates when the job runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentDraft {
    pub contact_id: String,
    pub issue_date: time::Date,
    pub due_date: time::Date,
    pub currency: String,
    pub items: Vec<DocumentItem>,
    pub notes: Option<String>,
}

/// A validated payment on an invoice or a bill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaymentDraft {
    pub amount: i64,
    pub payment_date: time::Date,
    pub payment_method: String,
    pub reference: Option<String>,
    pub notes: Option<String>,
    /// The bank or cash account; the Cash system account when the client named none.
    pub account_id: String,
}

/// One transaction of a batch: its id, its validated content, whether it posts at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchItem {
    pub transaction_id: String,
    pub draft: TransactionDraft,
    pub auto_post: bool,
}

/// What a job does. Serialised as the job's payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum JobCommand {
    CreateTransaction {
        transaction_id: String,
        draft: TransactionDraft,
        auto_post: bool,
    },
    UpdateTransaction {
        transaction_id: String,
        description: Option<String>,
        #[serde(default, with = "time::serde::rfc3339::option")]
        date: Option<OffsetDateTime>,
        entries: Option<Vec<EntryLine>>,
        metadata: Option<serde_json::Value>,
        #[serde(default)]
        contact_id: Option<String>,
        #[serde(default)]
        category_id: Option<String>,
    },
    PostTransaction {
        transaction_id: String,
    },
    ReverseTransaction {
        transaction_id: String,
        mirror_id: String,
        reason: String,
    },
    DeleteTransaction {
        transaction_id: String,
    },
    /// Creates every transaction of a batch, all or none.
    CreateTransactionBatch {
        batch_id: String,
        items: Vec<BatchItem>,
    },
    DeleteAccount {
        account_id: String,
    },
    CreateContact {
        contact_id: String,
        contact_type: ContactType,
        fields: ContactFields,
    },
    UpdateContact {
        contact_id: String,
        changes: ContactChanges,
    },
    DeleteContact {
        contact_id: String,
    },
    CreateDocument {
        document_id: String,
        kind: DocumentKind,
        draft: DocumentDraft,
    },
    UpdateDocument {
        document_id: String,
        kind: DocumentKind,
        draft: DocumentDraft,
    },
    DeleteDocument {
        document_id: String,
        kind: DocumentKind,
    },
    /// Send an invoice or approve a bill: post it.
    IssueDocument {
        document_id: String,
        kind: DocumentKind,
        transaction_id: String,
    },
    RecordPayment {
        document_id: String,
        kind: DocumentKind,
        payment_id: String,
        transaction_id: String,
        payment: PaymentDraft,
    },
    VoidDocument {
        document_id: String,
        kind: DocumentKind,
        /// The mirror transaction reversing the posting, if the document was posted.
        mirror_id: String,
    },
}

impl JobCommand {
    /// The resource type and id the job creates or changes.
    pub fn resource(&self) -> (&'static str, &str) {
        match self {
            Self::CreateTransaction { transaction_id, .. }
            | Self::UpdateTransaction { transaction_id, .. }
            | Self::PostTransaction { transaction_id }
            | Self::ReverseTransaction { transaction_id, .. }
            | Self::DeleteTransaction { transaction_id } => ("transaction", transaction_id),
            Self::CreateTransactionBatch { batch_id, .. } => ("transaction_batch", batch_id),
            Self::DeleteAccount { account_id } => ("account", account_id),
            Self::CreateContact { contact_id, .. }
            | Self::UpdateContact { contact_id, .. }
            | Self::DeleteContact { contact_id } => ("contact", contact_id),
            Self::CreateDocument {
                document_id, kind, ..
            }
            | Self::UpdateDocument {
                document_id, kind, ..
            }
            | Self::DeleteDocument { document_id, kind }
            | Self::IssueDocument {
                document_id, kind, ..
            }
            | Self::VoidDocument {
                document_id, kind, ..
            } => (kind.as_str(), document_id),
            Self::RecordPayment { payment_id, .. } => ("payment", payment_id),
        }
    }

    /// A short name of the operation, for logs and metrics.
    pub fn name(&self) -> &'static str {
        match self {
            Self::CreateTransaction { .. } => "transaction.create",
            Self::UpdateTransaction { .. } => "transaction.update",
            Self::PostTransaction { .. } => "transaction.post",
            Self::ReverseTransaction { .. } => "transaction.reverse",
            Self::DeleteTransaction { .. } => "transaction.delete",
            Self::CreateTransactionBatch { .. } => "transaction.batch",
            Self::DeleteAccount { .. } => "account.delete",
            Self::CreateContact { .. } => "contact.create",
            Self::UpdateContact { .. } => "contact.update",
            Self::DeleteContact { .. } => "contact.delete",
            Self::CreateDocument { kind, .. } => match kind {
                DocumentKind::Invoice => "invoice.create",
                DocumentKind::Bill => "bill.create",
            },
            Self::UpdateDocument { kind, .. } => match kind {
                DocumentKind::Invoice => "invoice.update",
                DocumentKind::Bill => "bill.update",
            },
            Self::DeleteDocument { kind, .. } => match kind {
                DocumentKind::Invoice => "invoice.delete",
                DocumentKind::Bill => "bill.delete",
            },
            Self::IssueDocument { kind, .. } => match kind {
                DocumentKind::Invoice => "invoice.send",
                DocumentKind::Bill => "bill.approve",
            },
            Self::RecordPayment { kind, .. } => match kind {
                DocumentKind::Invoice => "invoice.payment",
                DocumentKind::Bill => "bill.payment",
            },
            Self::VoidDocument { kind, .. } => match kind {
                DocumentKind::Invoice => "invoice.void",
                DocumentKind::Bill => "bill.void",
            },
        }
    }
}

/// A queued write.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub api_key_id: String,
    pub command: JobCommand,
    pub status: JobStatus,
    pub attempts: i32,
    pub credit_cost: i64,
    /// Where the credits were taken from (the root organization), for a refund.
    pub credit_pool_id: String,
    pub result: Option<serde_json::Value>,
    pub error: Option<serde_json::Value>,
    pub run_at: OffsetDateTime,
    pub locked_until: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
}

/// How many times a job runs before it ends `failed`.
pub const MAX_ATTEMPTS: i32 = 5;

/// A job lease of `seconds` (at least one).
pub fn lease_seconds(seconds: i64) -> time::Duration {
    time::Duration::seconds(seconds.max(1))
}

/// The delay before retry number `attempt` (1-based): 1 s, 2 s, 4 s, ... capped at 60 s.
pub fn retry_delay(attempt: i32) -> time::Duration {
    let exp = attempt.clamp(1, 7) - 1;
    time::Duration::seconds((1i64 << exp).min(60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_round_trip_as_json() {
        let cmd = JobCommand::ReverseTransaction {
            transaction_id: "txn_1".into(),
            mirror_id: "txn_2".into(),
            reason: "typo".into(),
        };
        let json = serde_json::to_value(&cmd).expect("serialise");
        assert_eq!(json["command"], "reverse_transaction");
        assert_eq!(
            serde_json::from_value::<JobCommand>(json).expect("parse"),
            cmd
        );
    }

    #[test]
    fn backoff_grows_and_caps() {
        assert_eq!(retry_delay(1), time::Duration::seconds(1));
        assert_eq!(retry_delay(3), time::Duration::seconds(4));
        assert_eq!(retry_delay(50), time::Duration::seconds(60));
    }
}
