//! The statements a batch runs, for each backend: idempotency reads and deletes, and
//! the inserts of the accepted writes' rows (one `unnest` statement on PostgreSQL, one
//! statement per row on SQLite).

use std::future::Future;

use diesel::prelude::*;
use diesel::result::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::credits::CreditConn;
use crate::db::SqliteConn;
use crate::locks::AccountLocks;
use crate::rows::{
    CreditLedgerRow, CreditUsageRow, EntryRow, EventRow, IdempotencyRow, JobRow, TransactionRow,
};
use crate::schema::{
    credit_ledger, credit_usage, events, idempotency_keys, jobs, ledger_entries, transactions,
};
use crate::unnest::{TableRows, UnnestInsert, table_rows};

/// The rows a batch inserts, besides idempotency keys.
pub(crate) struct BatchRows {
    pub(super) usage: Vec<CreditUsageRow>,
    pub(super) ledger: Vec<CreditLedgerRow>,
    pub(super) jobs: Vec<JobRow>,
    pub(super) transactions: Vec<TransactionRow>,
    pub(super) entries: Vec<EntryRow>,
    pub(super) events: Vec<EventRow>,
}

/// The statements a batch needs, for both connection types: multi-row inserts (one
/// `unnest` statement for the batch's rows) on PostgreSQL; one row per statement on
/// SQLite, where diesel-async has no multi-row insert and statements cost no network
/// round trip (all of a batch's rows in one task on the connection's thread).
pub(crate) trait BatchConn: AccountLocks + CreditConn + Send {
    fn idempotency_rows<'a>(
        &'a mut self,
        org: &'a str,
        livemode: bool,
        keys: &'a [String],
    ) -> impl Future<Output = QueryResult<Vec<IdempotencyRow>>> + Send + 'a;
    fn delete_idempotency<'a>(
        &'a mut self,
        org: &'a str,
        livemode: bool,
        keys: &'a [String],
    ) -> impl Future<Output = QueryResult<usize>> + Send + 'a;
    fn insert_idempotency<'a>(
        &'a mut self,
        rows: &'a [IdempotencyRow],
    ) -> impl Future<Output = QueryResult<()>> + Send + 'a;
    fn insert_rows(&mut self, rows: BatchRows) -> impl Future<Output = QueryResult<()>> + Send;
}

/// The idempotency reads and deletes, identical on both backends.
macro_rules! batch_reads {
    () => {
        async fn idempotency_rows<'a>(
            &'a mut self,
            org: &'a str,
            livemode: bool,
            keys: &'a [String],
        ) -> QueryResult<Vec<IdempotencyRow>> {
            idempotency_keys::table
                .filter(tenant_of!(idempotency_keys, org, livemode))
                .filter(idempotency_keys::key.eq_any(keys))
                .select(IdempotencyRow::as_select())
                .load(self)
                .await
        }

        async fn delete_idempotency<'a>(
            &'a mut self,
            org: &'a str,
            livemode: bool,
            keys: &'a [String],
        ) -> QueryResult<usize> {
            diesel::delete(
                idempotency_keys::table
                    .filter(tenant_of!(idempotency_keys, org, livemode))
                    .filter(idempotency_keys::key.eq_any(keys)),
            )
            .execute(self)
            .await
        }
    };
}

impl BatchConn for AsyncPgConnection {
    batch_reads!();
    insert_chunks!(insert_idempotency, idempotency_keys::table, IdempotencyRow);

    /// One statement of fixed text for every table (see `unnest`).
    async fn insert_rows(&mut self, rows: BatchRows) -> QueryResult<()> {
        let BatchRows {
            usage,
            ledger,
            jobs,
            transactions,
            entries,
            events,
        } = rows;
        let [usage, ledger, jobs] = queue_tables(usage, ledger, jobs);
        let [transactions, entries, events] = journal_tables(transactions, entries, events);
        UnnestInsert(vec![usage, ledger, jobs, transactions, entries, events])
            .execute(self)
            .await?;
        Ok(())
    }
}

/// The credit usage, credit ledger and job rows of a batch, as `unnest` columns.
fn queue_tables(
    usage: Vec<CreditUsageRow>,
    ledger: Vec<CreditLedgerRow>,
    jobs: Vec<JobRow>,
) -> [TableRows; 3] {
    [
        table_rows!(
            "credit_usage",
            usage,
            CreditUsageRow {
                organization_id,
                livemode,
                id,
                credits,
                job_id,
                created_at,
            }
        ),
        table_rows!(
            "credit_ledger",
            ledger,
            CreditLedgerRow {
                organization_id,
                id,
                kind,
                credits,
                reference,
                created_at,
            }
        ),
        table_rows!(
            "jobs",
            jobs,
            JobRow {
                organization_id,
                livemode,
                id,
                api_key_id,
                command_name,
                command,
                resource_type,
                resource_id,
                status,
                attempts,
                credit_cost,
                credit_pool_id,
                result,
                error,
                run_at,
                locked_until,
                created_at,
                updated_at,
                completed_at,
            }
        ),
    ]
}

/// The transaction, entry and event rows of a batch, as `unnest` columns.
fn journal_tables(
    transactions: Vec<TransactionRow>,
    entries: Vec<EntryRow>,
    events: Vec<EventRow>,
) -> [TableRows; 3] {
    [
        table_rows!(
            "transactions",
            transactions,
            TransactionRow {
                organization_id,
                livemode,
                id,
                description,
                date,
                status,
                currency,
                amount,
                reference,
                reversal_of,
                reversed_by,
                reversal_reason,
                metadata,
                posted_at,
                created_at,
                updated_at,
                deleted_at,
                deleted_by,
                recoverable_until,
                contact_id,
                category_id,
                source,
            }
        ),
        table_rows!(
            "ledger_entries",
            entries,
            EntryRow {
                organization_id,
                livemode,
                id,
                transaction_id,
                line_no,
                account_id,
                entry_type,
                amount,
                description,
                date,
                counted,
                currency,
            }
        ),
        table_rows!(
            "events",
            events,
            EventRow {
                organization_id,
                livemode,
                id,
                event_type,
                entity_type,
                entity_id,
                api_key_id,
                before_state,
                after_state,
                created_at,
            }
        ),
    ]
}

impl BatchConn for SqliteConn {
    batch_reads!();
    insert_each!(insert_idempotency, idempotency_keys::table, IdempotencyRow);

    /// One statement per row, all of them in one task on the connection's thread:
    /// SQLite statements cost no network round trip, but each statement sent on its own
    /// is a hand-off to that thread and back (two context switches), and a posting
    /// inserts half a dozen rows (docs/benchmarks.md, session 13).
    async fn insert_rows(&mut self, rows: BatchRows) -> QueryResult<()> {
        self.spawn_blocking(move |conn| {
            macro_rules! each {
                ($table:path, $rows:expr) => {
                    for row in $rows {
                        diesel::RunQueryDsl::execute(
                            diesel::insert_into($table).values(row),
                            conn,
                        )?;
                    }
                };
            }
            each!(credit_usage::table, &rows.usage);
            each!(credit_ledger::table, &rows.ledger);
            each!(jobs::table, &rows.jobs);
            each!(transactions::table, &rows.transactions);
            each!(ledger_entries::table, &rows.entries);
            each!(events::table, &rows.events);
            Ok(())
        })
        .await
    }
}
