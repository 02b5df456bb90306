//! Row structs of the journal, the queue and the audit trail.

use diesel::prelude::*;
use ledger_domain::StoreError;
use ledger_domain::accounts::EntryType;
use ledger_domain::events::{Deletion, Event};
use ledger_domain::jobs::{Job, JobCommand, JobStatus};
use ledger_domain::ports::{AppliedWrite, IdempotencyRecord};
use ledger_domain::transactions::{EntryLine, StoredEntry, Transaction, TransactionStatus};
use time::PrimitiveDateTime;

use super::{
    from_db, json_text, opt_from_db, opt_to_db, parse_json, parse_opt_json, parsed, to_db,
};
use crate::schema::*;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = transactions, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct TransactionRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub description: String,
    pub date: PrimitiveDateTime,
    pub status: String,
    pub currency: String,
    pub amount: i64,
    pub reference: Option<String>,
    pub reversal_of: Option<String>,
    pub reversed_by: Option<String>,
    pub reversal_reason: Option<String>,
    pub metadata: String,
    pub posted_at: Option<PrimitiveDateTime>,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
    pub deleted_at: Option<PrimitiveDateTime>,
    pub deleted_by: Option<String>,
    pub recoverable_until: Option<PrimitiveDateTime>,
    pub contact_id: Option<String>,
    pub category_id: Option<String>,
    pub source: Option<String>,
}

impl From<&Transaction> for TransactionRow {
    fn from(t: &Transaction) -> Self {
        Self {
            organization_id: t.organization_id.clone(),
            livemode: t.livemode,
            id: t.id.clone(),
            description: t.description.clone(),
            date: to_db(t.date),
            status: t.status.as_str().to_owned(),
            currency: t.currency.clone(),
            amount: t.amount,
            reference: t.reference.clone(),
            reversal_of: t.reversal_of.clone(),
            reversed_by: t.reversed_by.clone(),
            reversal_reason: t.reversal_reason.clone(),
            metadata: json_text(&t.metadata),
            posted_at: opt_to_db(t.posted_at),
            created_at: to_db(t.created_at),
            updated_at: to_db(t.updated_at),
            deleted_at: None,
            deleted_by: None,
            recoverable_until: None,
            contact_id: t.contact_id.clone(),
            category_id: t.category_id.clone(),
            source: t.source.clone(),
        }
    }
}

impl TransactionRow {
    /// The transaction with its entries (already in line order).
    pub(crate) fn into_domain(self, entries: Vec<EntryRow>) -> Result<Transaction, StoreError> {
        Ok(Transaction {
            status: parsed(TransactionStatus::parse, "transaction status", &self.status)?,
            metadata: parse_json(&self.metadata)?,
            entries: entries
                .into_iter()
                .map(StoredEntry::try_from)
                .collect::<Result<_, _>>()?,
            id: self.id,
            organization_id: self.organization_id,
            livemode: self.livemode,
            description: self.description,
            date: from_db(self.date),
            currency: self.currency,
            amount: self.amount,
            reference: self.reference,
            reversal_of: self.reversal_of,
            reversed_by: self.reversed_by,
            reversal_reason: self.reversal_reason,
            contact_id: self.contact_id,
            category_id: self.category_id,
            source: self.source,
            posted_at: opt_from_db(self.posted_at),
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = ledger_entries, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct EntryRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub transaction_id: String,
    pub line_no: i32,
    pub account_id: String,
    pub entry_type: String,
    pub amount: i64,
    pub description: Option<String>,
    pub date: PrimitiveDateTime,
    pub counted: bool,
    pub currency: Option<String>,
}

/// The entry rows of a transaction: line numbers in order, `date` and `counted` copied
/// from the transaction.
pub(crate) fn entry_rows(t: &Transaction) -> Vec<EntryRow> {
    let counted = t.status.counts_in_balances();
    t.entries
        .iter()
        .zip(0i32..)
        .map(|(e, line_no)| EntryRow {
            organization_id: t.organization_id.clone(),
            livemode: t.livemode,
            id: e.id.clone(),
            transaction_id: t.id.clone(),
            line_no,
            account_id: e.line.account_id.clone(),
            entry_type: e.line.entry_type.as_str().to_owned(),
            amount: e.line.amount,
            description: e.line.description.clone(),
            date: to_db(t.date),
            counted,
            currency: e.line.currency.clone(),
        })
        .collect()
}

impl TryFrom<EntryRow> for StoredEntry {
    type Error = StoreError;
    fn try_from(r: EntryRow) -> Result<Self, StoreError> {
        Ok(StoredEntry {
            line: EntryLine {
                account_id: r.account_id,
                entry_type: parsed(EntryType::parse, "entry type", &r.entry_type)?,
                amount: r.amount,
                description: r.description,
                currency: r.currency,
            },
            id: r.id,
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = jobs, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct JobRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub api_key_id: String,
    pub command_name: String,
    pub command: String,
    pub resource_type: String,
    pub resource_id: String,
    pub status: String,
    pub attempts: i32,
    pub credit_cost: i64,
    pub credit_pool_id: String,
    pub result: Option<String>,
    pub error: Option<String>,
    pub run_at: PrimitiveDateTime,
    pub locked_until: Option<PrimitiveDateTime>,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
    pub completed_at: Option<PrimitiveDateTime>,
}

impl JobRow {
    pub(crate) fn from_domain(j: &Job) -> Result<Self, StoreError> {
        let command = serde_json::to_string(&j.command)
            .map_err(|e| StoreError::Internal(format!("job command: {e}")))?;
        let (resource_type, resource_id) = j.command.resource();
        Ok(Self {
            organization_id: j.organization_id.clone(),
            livemode: j.livemode,
            id: j.id.clone(),
            api_key_id: j.api_key_id.clone(),
            command_name: j.command.name().to_owned(),
            command,
            resource_type: resource_type.to_owned(),
            resource_id: resource_id.to_owned(),
            status: j.status.as_str().to_owned(),
            attempts: j.attempts,
            credit_cost: j.credit_cost,
            credit_pool_id: j.credit_pool_id.clone(),
            result: j.result.as_ref().map(json_text),
            error: j.error.as_ref().map(json_text),
            run_at: to_db(j.run_at),
            locked_until: opt_to_db(j.locked_until),
            created_at: to_db(j.created_at),
            updated_at: to_db(j.updated_at),
            completed_at: opt_to_db(j.completed_at),
        })
    }
}

impl TryFrom<JobRow> for Job {
    type Error = StoreError;
    fn try_from(r: JobRow) -> Result<Self, StoreError> {
        let command: JobCommand = serde_json::from_str(&r.command)
            .map_err(|e| StoreError::Internal(format!("stored job command: {e}")))?;
        Ok(Job {
            status: parsed(JobStatus::parse, "job status", &r.status)?,
            result: parse_opt_json(r.result.as_deref())?,
            error: parse_opt_json(r.error.as_deref())?,
            command,
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            api_key_id: r.api_key_id,
            attempts: r.attempts,
            credit_cost: r.credit_cost,
            credit_pool_id: r.credit_pool_id,
            run_at: from_db(r.run_at),
            locked_until: opt_from_db(r.locked_until),
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
            completed_at: opt_from_db(r.completed_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = idempotency_keys, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct IdempotencyRow {
    pub organization_id: String,
    pub livemode: bool,
    pub key: String,
    pub request_hash: String,
    pub job_id: Option<String>,
    /// The rendered result of a synchronous write, as JSON text.
    pub response_body: Option<String>,
    pub created_at: PrimitiveDateTime,
}

impl From<&IdempotencyRecord> for IdempotencyRow {
    fn from(r: &IdempotencyRecord) -> Self {
        Self {
            organization_id: r.organization_id.clone(),
            livemode: r.livemode,
            key: r.key.clone(),
            request_hash: r.request_hash.clone(),
            job_id: r.job_id.clone(),
            response_body: r.result.as_ref().map(serde_json::Value::to_string),
            created_at: to_db(r.created_at),
        }
    }
}

/// The domain record of a row (to ask the domain's window rule about it).
pub(crate) fn record_of(row: &IdempotencyRow) -> IdempotencyRecord {
    row.clone().into()
}

impl From<IdempotencyRow> for IdempotencyRecord {
    fn from(r: IdempotencyRow) -> Self {
        Self {
            organization_id: r.organization_id,
            livemode: r.livemode,
            key: r.key,
            request_hash: r.request_hash,
            job_id: r.job_id,
            // Text this store wrote from a JSON value; anything else reads as no result.
            result: r
                .response_body
                .as_deref()
                .and_then(|text| serde_json::from_str(text).ok()),
            created_at: from_db(r.created_at),
        }
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = credit_usage, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct CreditUsageRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub credits: i64,
    pub job_id: Option<String>,
    pub created_at: PrimitiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = events, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct EventRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub event_type: String,
    pub entity_type: String,
    pub entity_id: String,
    pub api_key_id: Option<String>,
    pub before_state: Option<String>,
    pub after_state: Option<String>,
    pub created_at: PrimitiveDateTime,
}

impl From<&Event> for EventRow {
    fn from(e: &Event) -> Self {
        Self::with_known_state(e, None)
    }
}

impl EventRow {
    /// As `From<&Event>`, taking `known`'s JSON text (a value and its text) for an
    /// after-state equal to that value instead of serializing it again.
    pub(crate) fn with_known_state(e: &Event, known: Option<(&serde_json::Value, &str)>) -> Self {
        let after_state = match (&e.after_state, known) {
            (Some(state), Some((value, text))) if state == value => Some(text.to_owned()),
            (state, _) => state.as_ref().map(json_text),
        };
        Self {
            organization_id: e.organization_id.clone(),
            livemode: e.livemode,
            id: e.id.clone(),
            event_type: e.event_type.clone(),
            entity_type: e.entity_type.clone(),
            entity_id: e.entity_id.clone(),
            api_key_id: e.api_key_id.clone(),
            before_state: e.before_state.as_ref().map(json_text),
            after_state,
            created_at: to_db(e.created_at),
        }
    }
}

impl TryFrom<EventRow> for Event {
    type Error = StoreError;
    fn try_from(r: EventRow) -> Result<Self, StoreError> {
        Ok(Event {
            before_state: parse_opt_json(r.before_state.as_deref())?,
            after_state: parse_opt_json(r.after_state.as_deref())?,
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            event_type: r.event_type,
            entity_type: r.entity_type,
            entity_id: r.entity_id,
            api_key_id: r.api_key_id,
            created_at: from_db(r.created_at),
        })
    }
}

/// The rows of a list of events.
pub(crate) fn event_rows(events: &[Event]) -> Vec<EventRow> {
    events.iter().map(EventRow::from).collect()
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = resource_deletions, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
pub(crate) struct DeletionRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub resource_type: String,
    pub resource_id: String,
    pub name: String,
    pub deleted_at: PrimitiveDateTime,
    pub deleted_by: String,
    pub recoverable_until: PrimitiveDateTime,
}

impl From<&Deletion> for DeletionRow {
    fn from(d: &Deletion) -> Self {
        Self {
            organization_id: d.organization_id.clone(),
            livemode: d.livemode,
            id: d.id.clone(),
            resource_type: d.resource_type.clone(),
            resource_id: d.resource_id.clone(),
            name: d.name.clone(),
            deleted_at: to_db(d.deleted_at),
            deleted_by: d.deleted_by.clone(),
            recoverable_until: to_db(d.recoverable_until),
        }
    }
}

/// The rows of one write of a batch.
pub(crate) struct WriteRows {
    pub(crate) idempotency: Option<IdempotencyRow>,
    pub(crate) job: JobRow,
    pub(crate) transaction: TransactionRow,
    pub(crate) entries: Vec<EntryRow>,
    pub(crate) events: Vec<EventRow>,
}

impl WriteRows {
    /// Builds a write's rows. An event whose state is the job's result (a create's
    /// `transaction.created` and `transaction.posted` carry the transaction's view, as
    /// does the result) takes the result's JSON text instead of serializing it again.
    pub(crate) fn of(w: &AppliedWrite) -> Result<Self, StoreError> {
        let job = JobRow::from_domain(&w.job)?;
        let events = w
            .events
            .iter()
            .map(|e| {
                EventRow::with_known_state(e, w.job.result.as_ref().zip(job.result.as_deref()))
            })
            .collect();
        Ok(Self {
            idempotency: w.idempotency.as_ref().map(IdempotencyRow::from),
            transaction: TransactionRow::from(&w.transaction),
            entries: entry_rows(&w.transaction),
            job,
            events,
        })
    }
}
