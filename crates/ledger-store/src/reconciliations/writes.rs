//! Reconciliation writes: creating one, saving a change (its matches and statement
//! lines), deleting one; each with its event, credits and idempotency key, in one
//! transaction.
//!
//! A change is applied only to the open reconciliation as it was read (`updated_at`
//! unchanged); when no row was updated, the live status says why (gone, completed, or
//! changed meanwhile).

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::events::Deletion;
use ledger_domain::ports::{Audit, StoreResult, Written};
use ledger_domain::reconciliation::{Reconciliation, ReconciliationChange};
use ledger_domain::{Resource, StoreError};

use super::rows::{LineRow, MatchRow, ReconciliationRow};
use crate::db::{Db, TxError, unique_or};
use crate::rows::{DeletionRow, to_db};
use crate::schema::{reconciliation_matches, reconciliations, statement_lines};

fn not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::Reconciliation, id)
}

/// Why a change of `id` updated no row: it is gone, completed, or changed meanwhile.
fn unchanged(status: Option<String>, id: &str) -> TxError {
    match status.as_deref() {
        None => not_found(id).into(),
        Some("open") => StoreError::changed(id).into(),
        Some(_) => StoreError::reconciliation_completed(id).into(),
    }
}

/// The live status of reconciliation `$id` of the tenant of `$row`, inside a write.
macro_rules! live_status {
    ($conn:ident, $row:expr, $id:expr) => {{
        let status: Option<String> = reconciliations::table
            .filter(tenant_of!(reconciliations, $row))
            .filter(reconciliations::id.eq($id))
            .filter(reconciliations::deleted_at.is_null())
            .select(reconciliations::status)
            .first($conn)
            .await
            .optional()?;
        status
    }};
}

/// Inside a change's write: removes the matches of the entries `$removed` from
/// reconciliation `$row` and adds the matches `$added` (their entries `$added_entries`,
/// their statement lines `$added_lines`), refused when one of those entries or lines is
/// matched already.
macro_rules! change_matches {
    (
        $conn:ident,
        $row:ident,
        $removed:ident,
        $added:ident,
        $added_entries:ident,
        $added_lines:ident
    ) => {{
        if !$removed.is_empty() {
            diesel::delete(
                reconciliation_matches::table
                    .filter(reconciliation_matches::organization_id.eq(&$row.organization_id))
                    .filter(reconciliation_matches::reconciliation_id.eq(&$row.id))
                    .filter(reconciliation_matches::entry_id.eq_any(&$removed)),
            )
            .execute($conn)
            .await?;
        }
        if !$added.is_empty() {
            let taken: Option<String> = reconciliation_matches::table
                .filter(reconciliation_matches::organization_id.eq(&$row.organization_id))
                .filter(reconciliation_matches::entry_id.eq_any(&$added_entries))
                .select(reconciliation_matches::entry_id)
                .first($conn)
                .await
                .optional()?;
            if let Some(entry) = taken {
                return Err(StoreError::entry_matched(&entry).into());
            }
            if !$added_lines.is_empty() {
                let taken: Option<Option<String>> = reconciliation_matches::table
                    .filter(reconciliation_matches::organization_id.eq(&$row.organization_id))
                    .filter(reconciliation_matches::statement_line_id.eq_any(&$added_lines))
                    .select(reconciliation_matches::statement_line_id)
                    .first($conn)
                    .await
                    .optional()?;
                if let Some(Some(line)) = taken {
                    return Err(StoreError::line_matched(&line).into());
                }
            }
            for m in &$added {
                diesel::insert_into(reconciliation_matches::table)
                    .values(m)
                    .execute($conn)
                    .await
                    .map_err(|e| unique_or(e, || StoreError::entry_matched(&m.entry_id)))?;
            }
        }
    }};
}

impl Db {
    pub(super) async fn write_new_reconciliation(
        &self,
        reconciliation: Reconciliation,
        audit: Audit,
    ) -> StoreResult<Written<Reconciliation>> {
        let row = ReconciliationRow::from(&reconciliation);
        audited!(self, audit, |conn| {
            diesel::insert_into(reconciliations::table)
                .values(&row)
                .execute(conn)
                .await
                .map_err(|e| unique_or(e, || StoreError::open_reconciliation(&row.account_id)))?;
            reconciliation
        })
    }

    pub(super) async fn write_reconciliation_change(
        &self,
        change: ReconciliationChange,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        let r = &change.reconciliation;
        let row = ReconciliationRow::from(r);
        let expected = to_db(change.expected_updated_at);
        let added: Vec<MatchRow> = change.add.iter().map(|m| MatchRow::of(r, m)).collect();
        let added_entries: Vec<String> = added.iter().map(|m| m.entry_id.clone()).collect();
        let added_lines: Vec<String> = added
            .iter()
            .filter_map(|m| m.statement_line_id.clone())
            .collect();
        let removed = change.remove.clone();
        let lines: Vec<LineRow> = change.lines.iter().map(LineRow::from).collect();
        audited!(self, audit, |conn| {
            let changed = diesel::update(reconciliations::table)
                .filter(tenant_of!(reconciliations, row))
                .filter(reconciliations::id.eq(&row.id))
                .filter(reconciliations::deleted_at.is_null())
                .filter(reconciliations::status.eq("open"))
                .filter(reconciliations::updated_at.eq(expected))
                .set((
                    reconciliations::start_date.eq(row.start_date),
                    reconciliations::end_date.eq(row.end_date),
                    reconciliations::closing_balance.eq(row.closing_balance),
                    reconciliations::status.eq(&row.status),
                    reconciliations::completed_at.eq(row.completed_at),
                    reconciliations::updated_at.eq(row.updated_at),
                ))
                .execute(conn)
                .await?;
            if changed == 0 {
                let status = live_status!(conn, row, &row.id);
                return Err(unchanged(status, &row.id));
            }
            change_matches!(conn, row, removed, added, added_entries, added_lines);
            for l in &lines {
                diesel::insert_into(statement_lines::table)
                    .values(l)
                    .execute(conn)
                    .await?;
            }
        })
    }

    pub(super) async fn write_reconciliation_deletion(
        &self,
        reconciliation_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        let id = reconciliation_id.to_owned();
        let deletion_row = DeletionRow::from(&deletion);
        audited!(self, audit, |conn| {
            let status = live_status!(conn, deletion_row, &id);
            match status.as_deref() {
                None => return Err(not_found(&id).into()),
                Some("open") => {}
                Some(_) => return Err(StoreError::reconciliation_completed(&id).into()),
            }
            let live = reconciliations::table
                .filter(tenant_of!(reconciliations, deletion_row))
                .filter(reconciliations::id.eq(&id))
                .filter(reconciliations::deleted_at.is_null())
                .filter(reconciliations::status.eq("open"));
            soft_delete!(
                conn,
                reconciliations,
                live,
                &deletion_row,
                not_found(&id).into()
            );
            diesel::delete(
                reconciliation_matches::table
                    .filter(
                        reconciliation_matches::organization_id.eq(&deletion_row.organization_id),
                    )
                    .filter(reconciliation_matches::reconciliation_id.eq(&id)),
            )
            .execute(conn)
            .await?;
        })
    }
}
