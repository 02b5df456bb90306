//! Reconciliations, their matches and statement lines: synchronous writes (each with its
//! event and credits) and reads, on both backends.
//!
//! One open reconciliation per account is the partial unique index
//! `reconciliations_one_open`; one match per entry is the primary key of
//! `reconciliation_matches`, one per statement line its partial unique index. A change
//! is applied only to the open reconciliation as it was read (`updated_at` unchanged):
//! the conditional update takes its row lock, so changes of one reconciliation are
//! serialised and a completion never counts matches it did not see.
//!
//! The parts: `rows` (row structs and their conversions), `writes` (the synchronous
//! writes); the reads are here, beside the port's implementation.

mod rows;
mod writes;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::events::Deletion;
use ledger_domain::ports::{
    Audit, EntryFilter, Page, PageRequest, ReconciliationFilter, Reconciliations, StoreResult,
    Tenant, Written,
};
use ledger_domain::reconciliation::{
    JournalEntry, ReconciledEntry, Reconciliation, ReconciliationChange, ReconciliationStatus,
    StatementLine,
};
use time::{Date, PrimitiveDateTime, Time};

use crate::db::Db;
use crate::schema::{
    ledger_entries, reconciliation_matches, reconciliations, statement_lines, transactions,
};
use rows::{EntryRow, LineRow, MatchRow, ReconciliationRow, TxnRow, journal_of};

/// The matches of the reconciliations `ids` of an organization, by date then entry.
macro_rules! matches_of {
    ($conn:ident, $organization_id:expr, $ids:expr) => {{
        let rows: Vec<MatchRow> = reconciliation_matches::table
            .filter(reconciliation_matches::organization_id.eq($organization_id))
            .filter(reconciliation_matches::reconciliation_id.eq_any($ids))
            .order((
                reconciliation_matches::date.asc(),
                reconciliation_matches::entry_id.asc(),
            ))
            .select(MatchRow::as_select())
            .load($conn)
            .await?;
        rows
    }};
}

/// The reconciliation (live or completed, not deleted) matching each entry of `$entry_ids`,
/// as `(entry id, reconciliation id)`, in chunks of bounded size.
macro_rules! reconciliations_of_entries {
    ($conn:ident, $tenant:expr, $entry_ids:expr) => {{
        let mut matched: Vec<(String, String)> = Vec::new();
        for chunk in $entry_ids.chunks(crate::db::ROWS_PER_STATEMENT) {
            matched.extend(
                reconciliation_matches::table
                    .inner_join(
                        reconciliations::table.on(reconciliations::organization_id
                            .eq(reconciliation_matches::organization_id)
                            .and(
                                reconciliations::id.eq(reconciliation_matches::reconciliation_id),
                            )),
                    )
                    .filter(reconciliation_matches::organization_id.eq(&$tenant.organization_id))
                    .filter(reconciliation_matches::entry_id.eq_any(chunk))
                    .filter(reconciliations::deleted_at.is_null())
                    .select((
                        reconciliation_matches::entry_id,
                        reconciliation_matches::reconciliation_id,
                    ))
                    .load::<(String, String)>($conn)
                    .await?,
            );
        }
        matched
    }};
}

impl Reconciliations for Db {
    async fn insert_reconciliation(
        &self,
        reconciliation: Reconciliation,
        audit: Audit,
    ) -> StoreResult<Written<Reconciliation>> {
        self.write_new_reconciliation(reconciliation, audit).await
    }

    async fn save_reconciliation(
        &self,
        change: ReconciliationChange,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        self.write_reconciliation_change(change, audit).await
    }

    async fn delete_reconciliation(
        &self,
        reconciliation_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        self.write_reconciliation_deletion(reconciliation_id, deletion, audit)
            .await
    }

    async fn get_reconciliation(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> StoreResult<Option<Reconciliation>> {
        let found: Option<(ReconciliationRow, Vec<MatchRow>)> = db_read!(self, |conn| {
            let row: Option<ReconciliationRow> = reconciliations::table
                .filter(tenant_of!(reconciliations, tenant))
                .filter(reconciliations::id.eq(id))
                .filter(reconciliations::deleted_at.is_null())
                .select(ReconciliationRow::as_select())
                .first(conn)
                .await
                .optional()?;
            match row {
                None => Ok(None),
                Some(row) => {
                    let ids = vec![row.id.clone()];
                    let matches = matches_of!(conn, &tenant.organization_id, &ids);
                    Ok(Some((row, matches)))
                }
            }
        })?;
        found
            .map(|(row, matches)| row.into_domain(matches.into_iter().map(Into::into).collect()))
            .transpose()
    }

    async fn list_reconciliations(
        &self,
        tenant: &Tenant,
        filter: &ReconciliationFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Reconciliation>> {
        let account_id = filter.account_id.as_deref();
        let status = filter.status.map(ReconciliationStatus::as_str);
        let (rows, matches, total): (Vec<ReconciliationRow>, Vec<MatchRow>, i64) =
            db_read!(self, |conn| {
                // The filter is built twice (count and page): boxed queries are not Clone.
                let filtered = || {
                    live_filtered!(
                        reconciliations,
                        tenant,
                        account_id = account_id,
                        status = status,
                    )
                };
                let order = (reconciliations::end_date.desc(), reconciliations::id.asc());
                let (rows, total) = load_page!(conn, filtered, order, page, ReconciliationRow);
                let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
                let matches = matches_of!(conn, &tenant.organization_id, &ids);
                Ok((rows, matches, total))
            })?;
        let mut items = Vec::with_capacity(rows.len());
        for row in rows {
            let mine: Vec<ReconciledEntry> = matches
                .iter()
                .filter(|m| m.reconciliation_id == row.id)
                .cloned()
                .map(Into::into)
                .collect();
            items.push(row.into_domain(mine)?);
        }
        Ok(Page {
            items,
            total_count: total,
        })
    }

    async fn statement_lines(
        &self,
        tenant: &Tenant,
        reconciliation_id: &str,
    ) -> StoreResult<Vec<StatementLine>> {
        let rows: Vec<LineRow> = db_read!(self, |conn| {
            Ok(statement_lines::table
                .filter(tenant_of!(statement_lines, tenant))
                .filter(statement_lines::reconciliation_id.eq(reconciliation_id))
                .order(statement_lines::line_number.asc())
                .select(LineRow::as_select())
                .load(conn)
                .await?)
        })?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn journal_entries(
        &self,
        tenant: &Tenant,
        filter: &EntryFilter,
    ) -> StoreResult<Vec<JournalEntry>> {
        let midnight = |d: Date| PrimitiveDateTime::new(d, Time::MIDNIGHT);
        let from = filter.from.map(midnight);
        let until = filter.until.and_then(|d| d.next_day()).map(midnight);
        let account_id = filter.account_id.as_str();
        let ids = filter.entry_ids.as_deref();
        let (entries, txns, matched): (Vec<EntryRow>, Vec<TxnRow>, Vec<(String, String)>) =
            db_read!(self, |conn| {
                let mut query = ledger_entries::table
                    .filter(tenant_of!(ledger_entries, tenant))
                    .filter(ledger_entries::account_id.eq(account_id))
                    .filter(ledger_entries::counted.eq(true))
                    .into_boxed();
                if let Some(from) = from {
                    query = query.filter(ledger_entries::date.ge(from));
                }
                if let Some(until) = until {
                    query = query.filter(ledger_entries::date.lt(until));
                }
                if let Some(ids) = ids {
                    query = query.filter(ledger_entries::id.eq_any(ids));
                }
                let entries: Vec<EntryRow> = query
                    .order((ledger_entries::date.asc(), ledger_entries::id.asc()))
                    .select(EntryRow::as_select())
                    .load(conn)
                    .await?;
                let mut txn_ids: Vec<String> =
                    entries.iter().map(|e| e.transaction_id.clone()).collect();
                txn_ids.sort();
                txn_ids.dedup();
                let entry_ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
                let mut txns: Vec<TxnRow> = Vec::new();
                for chunk in txn_ids.chunks(crate::db::ROWS_PER_STATEMENT) {
                    txns.extend(
                        transactions::table
                            .filter(tenant_of!(transactions, tenant))
                            .filter(transactions::id.eq_any(chunk))
                            .filter(transactions::deleted_at.is_null())
                            .select((
                                transactions::id,
                                transactions::description,
                                transactions::reference,
                            ))
                            .load::<TxnRow>(conn)
                            .await?,
                    );
                }
                let matched = reconciliations_of_entries!(conn, tenant, &entry_ids);
                Ok((entries, txns, matched))
            })?;
        journal_of(entries, &txns, &matched, filter.unmatched_only)
    }

    async fn reconciliation_locking(
        &self,
        tenant: &Tenant,
        transaction_id: &str,
    ) -> StoreResult<Option<String>> {
        db_read!(self, |conn| {
            Ok(reconciliation_matches::table
                .inner_join(
                    reconciliations::table.on(reconciliations::organization_id
                        .eq(reconciliation_matches::organization_id)
                        .and(reconciliations::id.eq(reconciliation_matches::reconciliation_id))),
                )
                .filter(reconciliation_matches::organization_id.eq(&tenant.organization_id))
                .filter(reconciliation_matches::transaction_id.eq(transaction_id))
                .filter(reconciliations::livemode.eq(tenant.livemode))
                .filter(reconciliations::deleted_at.is_null())
                .filter(reconciliations::status.eq("completed"))
                .select(reconciliations::id)
                .first::<String>(conn)
                .await
                .optional()?)
        })
    }
}
