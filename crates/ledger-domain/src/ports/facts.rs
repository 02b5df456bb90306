//! What a store reports when it does not do what it was asked: facts it observed, never
//! refusals.
//!
//! Error policy, by layer:
//! - A store (SQL or memory) returns [`StoreError`]: a small closed set of facts about
//!   rows (missing, vanished, a unique value taken, a status changed, still in use,
//!   inactive, a claim lost, changed meanwhile, credits short) or an internal failure. It never builds an [`ErrorCode`] or a [`DomainError`]; the tidy test
//!   `stores_report_facts` (tests/src/tidy.rs) fails when one does.
//! - The domain turns a fact into a refusal in exactly one place, the
//!   `From<StoreError> for DomainError` below: its code, its class and its words. A
//!   service that reads a fact differently in its context (a transfer that is no longer
//!   pending is a lost race for ownership) matches the fact itself, never a code.
//! - Interfaces render a [`DomainError`] (`ledger-http`, GraphQL, MCP), one mapping each.
//!
//! When several facts hold for one write, a store reports the first in this order (both
//! stores check in it; the contract suite compares them on every backend):
//! 1. [`StoreError::ClaimLost`]: the worker no longer holds the job; nothing else matters.
//! 2. [`StoreError::Vanished`], then [`StoreError::Inactive`], for the accounts a write
//!    posts to (in account-id order), then for the contact and categories it names.
//! 3. [`StoreError::StatusChanged`] and [`StoreError::Changed`]: the row the write changes
//!    is no longer as the write was decided on.
//! 4. [`StoreError::Missing`]: the row the write changes is gone.
//! 5. [`StoreError::Taken`] and [`StoreError::InUse`]: the write would break a uniqueness
//!    or a reference.
//! 6. [`StoreError::CreditsShort`]: checked last, so a refused write is never charged.
//!
//! [`StoreError::Unavailable`] (the database cannot be reached: retry) and
//! [`StoreError::Internal`] can happen at any point and end the write with nothing kept.

use time::Date;

use crate::error::{DomainError, ErrorCode, Resource, UsedBy};

/// A fact a store observed instead of doing what it was asked (see the module docs).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", DomainError::from(self.clone()))]
pub enum StoreError {
    /// No row `id` of `resource` exists for the tenant (or it was deleted).
    Missing { resource: Resource, id: String },
    /// A row the write names was deleted after the write was decided.
    Vanished { resource: Resource, id: String },
    /// A value that must be unique is taken.
    Taken(Taken),
    /// The row is no longer in the state the write needs.
    StatusChanged {
        resource: Resource,
        id: String,
        /// The state the write needs.
        expected: State,
    },
    /// Something still references the row.
    InUse {
        resource: Resource,
        id: String,
        by: UsedBy,
    },
    /// The row is not active (`status` says what it is instead).
    Inactive {
        resource: Resource,
        id: String,
        status: String,
    },
    /// The worker's claim on job `job_id` was taken over (its lease expired).
    ClaimLost { job_id: String },
    /// The row `id` (an id, or the number of a document) changed since the write was
    /// decided; deciding again may succeed.
    Changed { id: String },
    /// The credit pool holds fewer credits than the write costs.
    CreditsShort { required: i64, available: i64 },
    /// The storage cannot be reached now (connection refused or lost, no connection free
    /// in time, the database restarting or read-only after a failover); nothing was
    /// written, and the same request may succeed shortly. The text is for the log.
    Unavailable(String),
    /// The storage failed or holds what it should not (a corrupt row, an I/O error).
    Internal(String),
}

/// Which unique value a write found taken.
#[derive(Debug, Clone, PartialEq)]
pub enum Taken {
    /// An account of the organization has the code.
    AccountCode { code: String },
    /// A contact of the organization has the reference.
    ContactReference { reference: String },
    /// The pair has a rate effective on the date.
    ExchangeRate {
        from_currency: String,
        to_currency: String,
        effective_date: Date,
    },
    /// The account has an open reconciliation.
    OpenReconciliation { account_id: String },
    /// The journal entry is matched in a reconciliation (`reconciliation_id` when the
    /// one that holds it is known).
    MatchedEntry {
        entry_id: String,
        reconciliation_id: Option<String>,
    },
    /// The statement line is matched to an entry.
    MatchedStatementLine { line_id: String },
    /// The organization has a pending ownership transfer.
    PendingTransfer { organization_id: String },
}

/// The state a write needs a row to be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// A pending transaction or ownership transfer.
    Pending,
    /// A posted transaction.
    Posted,
    /// An open reconciliation.
    Open,
    /// A webhook delivery that is no longer pending (delivered or failed).
    Finished,
}

impl StoreError {
    /// An internal failure of the store about `what`.
    pub fn internal(what: impl Into<String>) -> Self {
        Self::Internal(what.into())
    }

    /// The storage cannot be reached now, because of `what`.
    pub fn unavailable(what: impl Into<String>) -> Self {
        Self::Unavailable(what.into())
    }

    /// No row `id` of `resource` for the tenant.
    pub fn missing(resource: Resource, id: impl Into<String>) -> Self {
        Self::Missing {
            resource,
            id: id.into(),
        }
    }

    /// Row `id` of `resource`, named by the write, was deleted meanwhile.
    pub fn vanished(resource: Resource, id: impl Into<String>) -> Self {
        Self::Vanished {
            resource,
            id: id.into(),
        }
    }

    /// Row `id` changed since the write was decided.
    pub fn changed(id: impl Into<String>) -> Self {
        Self::Changed { id: id.into() }
    }

    /// Row `id` of `resource` is no longer `expected`.
    pub fn status_changed(resource: Resource, id: impl Into<String>, expected: State) -> Self {
        Self::StatusChanged {
            resource,
            id: id.into(),
            expected,
        }
    }

    /// Transaction `id` is no longer pending.
    pub fn transaction_not_pending(id: &str) -> Self {
        Self::status_changed(Resource::Transaction, id, State::Pending)
    }

    /// Transaction `id` is no longer posted.
    pub fn transaction_not_posted(id: &str) -> Self {
        Self::status_changed(Resource::Transaction, id, State::Posted)
    }

    /// The code of the refusal the domain makes of this fact.
    pub fn code(&self) -> ErrorCode {
        DomainError::from(self.clone()).code()
    }
}

/// The facts of a reconciliation's writes, built alike by every store.
impl StoreError {
    /// Reconciliation `id` is no longer open: it is completed.
    pub fn reconciliation_completed(id: &str) -> Self {
        Self::status_changed(Resource::Reconciliation, id, State::Open)
    }

    /// The account has an open reconciliation already.
    pub fn open_reconciliation(account_id: &str) -> Self {
        Self::Taken(Taken::OpenReconciliation {
            account_id: account_id.to_owned(),
        })
    }

    /// The journal entry is matched in a reconciliation already.
    pub fn entry_matched(entry_id: &str) -> Self {
        Self::Taken(Taken::MatchedEntry {
            entry_id: entry_id.to_owned(),
            reconciliation_id: None,
        })
    }

    /// The statement line is matched to an entry already.
    pub fn line_matched(line_id: &str) -> Self {
        Self::Taken(Taken::MatchedStatementLine {
            line_id: line_id.to_owned(),
        })
    }
}

impl From<StoreError> for DomainError {
    /// The refusal each fact is, worded once.
    fn from(fact: StoreError) -> Self {
        match fact {
            StoreError::Missing { resource, id } => DomainError::not_found(resource, id),
            StoreError::Vanished { resource, id } => DomainError::Vanished { resource, id },
            StoreError::Taken(taken) => taken_refusal(taken),
            StoreError::StatusChanged {
                resource,
                id,
                expected,
            } => status_refusal(resource, &id, expected),
            StoreError::InUse { resource, id, by } => DomainError::InUse { resource, id, by },
            StoreError::Inactive {
                resource,
                id,
                status,
            } => match resource {
                Resource::Account => DomainError::account_inactive(&id, &status),
                other => DomainError::rule(
                    ErrorCode::InvalidStateTransition,
                    format!("{} {id} is {status}", other.as_str()),
                ),
            },
            StoreError::ClaimLost { job_id } => DomainError::ClaimLost(job_id),
            StoreError::Changed { id } => DomainError::concurrent_update(format!(
                "{id} changed since the write was decided; read it again and retry"
            )),
            StoreError::CreditsShort {
                required,
                available,
            } => DomainError::InsufficientCredits {
                required,
                available,
            },
            StoreError::Unavailable(cause) => DomainError::Unavailable(cause),
            StoreError::Internal(cause) => DomainError::Internal(cause),
        }
    }
}

fn taken_refusal(taken: Taken) -> DomainError {
    match taken {
        Taken::AccountCode { code } => DomainError::duplicate_value(
            "code",
            format!("an account with code {code} already exists"),
        ),
        Taken::ContactReference { reference } => DomainError::duplicate_value(
            "reference",
            format!("a contact with reference '{reference}' already exists"),
        ),
        Taken::ExchangeRate {
            from_currency,
            to_currency,
            effective_date,
        } => DomainError::duplicate_value(
            "effective_date",
            format!(
                "a {from_currency}/{to_currency} exchange rate effective {} already exists",
                crate::dates::iso_date(effective_date)
            ),
        ),
        Taken::OpenReconciliation { account_id } => DomainError::rule(
            ErrorCode::ReconciliationInProgress,
            format!(
                "account {account_id} already has an open reconciliation; complete or delete it first"
            ),
        ),
        Taken::MatchedEntry {
            entry_id,
            reconciliation_id: None,
        } => DomainError::Reported {
            code: ErrorCode::EntryAlreadyMatched,
            message: format!("entry {entry_id} is already matched in a reconciliation"),
            details: Some(serde_json::json!({ "entry_id": entry_id })),
        },
        Taken::MatchedEntry {
            entry_id,
            reconciliation_id: Some(other),
        } => DomainError::Reported {
            code: ErrorCode::EntryAlreadyMatched,
            message: format!("entry {entry_id} is already matched in reconciliation {other}"),
            details: Some(serde_json::json!({ "entry_id": entry_id, "reconciliation_id": other })),
        },
        Taken::MatchedStatementLine { line_id } => DomainError::rule(
            ErrorCode::StatementLineAlreadyMatched,
            format!("statement line {line_id} is already matched"),
        ),
        Taken::PendingTransfer { organization_id } => DomainError::rule(
            ErrorCode::TransferAlreadyPending,
            format!(
                "organization {organization_id} already has a pending transfer; cancel it first"
            ),
        ),
    }
}

fn status_refusal(resource: Resource, id: &str, expected: State) -> DomainError {
    match (resource, expected) {
        (Resource::Transaction, State::Pending) => DomainError::rule(
            ErrorCode::TransactionNotPending,
            format!("transaction {id} is no longer pending"),
        ),
        (Resource::Transaction, _) => DomainError::rule(
            ErrorCode::TransactionNotPosted,
            format!("transaction {id} is no longer posted"),
        ),
        // A reconciliation that is not open is completed.
        (Resource::Reconciliation, _) => crate::reconciliation::not_open(id),
        (Resource::WebhookDelivery, _) => DomainError::rule(
            ErrorCode::InvalidStateTransition,
            format!(
                "webhook delivery {id} is still pending; only a delivered or failed delivery is replayed"
            ),
        ),
        // An ownership transfer that is no longer pending lost a race: the service
        // reads the transfer again and answers with its present status.
        (other, _) => DomainError::concurrent_update(format!(
            "{} {id} is no longer {}",
            other.as_str(),
            expected.as_str()
        )),
    }
}

impl State {
    /// The state's name in a message.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Posted => "posted",
            Self::Open => "open",
            Self::Finished => "finished",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fact_is_one_refusal_with_its_class() {
        let cases = [
            (
                StoreError::Missing {
                    resource: Resource::Reconciliation,
                    id: "rec_1".into(),
                },
                ErrorCode::ResourceNotFound,
            ),
            (
                StoreError::Taken(Taken::AccountCode {
                    code: "1000".into(),
                }),
                ErrorCode::DuplicateValue,
            ),
            (
                StoreError::Taken(Taken::OpenReconciliation {
                    account_id: "acc_1".into(),
                }),
                ErrorCode::ReconciliationInProgress,
            ),
            (
                StoreError::StatusChanged {
                    resource: Resource::Transaction,
                    id: "txn_1".into(),
                    expected: State::Pending,
                },
                ErrorCode::TransactionNotPending,
            ),
            (
                StoreError::StatusChanged {
                    resource: Resource::OrganizationTransfer,
                    id: "otr_1".into(),
                    expected: State::Pending,
                },
                ErrorCode::ConcurrentUpdate,
            ),
            (
                StoreError::Inactive {
                    resource: Resource::Account,
                    id: "acc_1".into(),
                    status: "archived".into(),
                },
                ErrorCode::AccountInactive,
            ),
            (
                StoreError::ClaimLost {
                    job_id: "req_1".into(),
                },
                ErrorCode::JobLost,
            ),
            (
                StoreError::CreditsShort {
                    required: 5,
                    available: 1,
                },
                ErrorCode::InsufficientCredits,
            ),
            (
                StoreError::Internal("corrupt row".into()),
                ErrorCode::InternalError,
            ),
        ];
        for (fact, code) in cases {
            assert_eq!(fact.code(), code, "{fact:?}");
            assert_eq!(DomainError::from(fact.clone()).kind(), code.kind());
        }
    }

    #[test]
    fn a_fact_reads_as_its_refusal() {
        let fact = StoreError::Taken(Taken::ContactReference {
            reference: "C-1".into(),
        });
        assert_eq!(
            fact.to_string(),
            "a contact with reference 'C-1' already exists"
        );
        let matched = DomainError::from(StoreError::entry_matched("ent_1"));
        assert_eq!(
            matched.details(),
            Some(serde_json::json!({ "entry_id": "ent_1" }))
        );
        let elsewhere = DomainError::from(StoreError::Taken(Taken::MatchedEntry {
            entry_id: "ent_1".into(),
            reconciliation_id: Some("rec_2".into()),
        }));
        assert_eq!(elsewhere.code(), ErrorCode::EntryAlreadyMatched);
        assert_eq!(
            elsewhere.to_string(),
            "entry ent_1 is already matched in reconciliation rec_2"
        );
        assert_eq!(
            elsewhere.details(),
            Some(serde_json::json!({ "entry_id": "ent_1", "reconciliation_id": "rec_2" }))
        );
    }
}
