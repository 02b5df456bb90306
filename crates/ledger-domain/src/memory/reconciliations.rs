//! Reconciliations in memory, checked in the SQL adapter's order: the key's replay, the
//! credits, then the write's own refusals (open state, one open per account, one match
//! per entry and per statement line). Matches live inside their reconciliation.

use crate::error::Resource;
use crate::events::Deletion;
use crate::ports::StoreError;
use crate::ports::{
    Audit, EntryFilter, Page, PageRequest, ReconciliationFilter, Reconciliations, StoreResult,
    Tenant, Written,
};
use crate::reconciliation::{
    JournalEntry, Reconciliation, ReconciliationChange, ReconciliationStatus, StatementLine, signed,
};

use super::tenanted::{
    insert_new, live_in, live_rows, live_where, of_tenant, stored_index, table_methods, tenant_of,
};
use super::{Deleted, MemoryStore, State, in_tenant, page_of, tenant_of_deletion};

impl State {
    /// The live reconciliation of the tenant that matched `entry_id`.
    fn matched_in<'a>(&'a self, tenant: &'a Tenant, entry_id: &str) -> Option<&'a Reconciliation> {
        live_rows(&self.reconciliations, tenant)
            .find(|r| r.matches.iter().any(|m| m.entry_id == entry_id))
    }
}

impl Reconciliations for MemoryStore {
    async fn insert_reconciliation(
        &self,
        reconciliation: Reconciliation,
        audit: Audit,
    ) -> StoreResult<Written<Reconciliation>> {
        self.state().audited(audit, |state| {
            let tenant = tenant_of(&reconciliation);
            let open = live_rows(&state.reconciliations, &tenant).any(|r| {
                r.account_id == reconciliation.account_id && r.status == ReconciliationStatus::Open
            });
            if open {
                return Err(StoreError::open_reconciliation(&reconciliation.account_id));
            }
            insert_new(&mut state.reconciliations, reconciliation, "reconciliation")
        })
    }

    async fn save_reconciliation(
        &self,
        change: ReconciliationChange,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        self.state().audited(audit, |state| {
            let new = &change.reconciliation;
            let tenant = tenant_of(new);
            let index = stored_index(&state.reconciliations, new, Resource::Reconciliation)?;
            if state.reconciliations[index].value.status != ReconciliationStatus::Open {
                return Err(StoreError::reconciliation_completed(&new.id));
            }
            let current = &state.reconciliations[index].value;
            if current.updated_at != change.expected_updated_at {
                return Err(StoreError::changed(&new.id));
            }
            let kept: Vec<_> = current
                .matches
                .iter()
                .filter(|m| !change.remove.contains(&m.entry_id))
                .cloned()
                .collect();
            for added in &change.add {
                let elsewhere = state
                    .matched_in(&tenant, &added.entry_id)
                    .is_some_and(|r| r.id != new.id);
                if elsewhere
                    || kept.iter().any(|m| m.entry_id == added.entry_id)
                    || change
                        .add
                        .iter()
                        .filter(|a| a.entry_id == added.entry_id)
                        .count()
                        > 1
                {
                    return Err(StoreError::entry_matched(&added.entry_id));
                }
                if let Some(line) = &added.statement_line_id {
                    let taken = kept
                        .iter()
                        .chain(change.add.iter())
                        .filter(|m| m.statement_line_id.as_ref() == Some(line))
                        .count();
                    if taken > 1 {
                        return Err(StoreError::line_matched(line));
                    }
                }
            }
            let mut matches = kept;
            matches.extend(change.add.iter().cloned());
            matches.sort_by(|a, b| (a.date, &a.entry_id).cmp(&(b.date, &b.entry_id)));
            let stored = &mut state.reconciliations[index].value;
            stored.start_date = new.start_date;
            stored.end_date = new.end_date;
            stored.closing_balance = new.closing_balance;
            stored.status = new.status;
            stored.completed_at = new.completed_at;
            stored.updated_at = new.updated_at;
            stored.matches = matches;
            state.statement_lines.extend(change.lines);
            Ok(())
        })
    }

    async fn delete_reconciliation(
        &self,
        reconciliation_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        self.state().audited(audit, |state| {
            let tenant = tenant_of_deletion(&deletion);
            let index = live_in(&state.reconciliations, &tenant, reconciliation_id)
                .ok_or_else(|| StoreError::missing(Resource::Reconciliation, reconciliation_id))?;
            if state.reconciliations[index].value.status != ReconciliationStatus::Open {
                return Err(StoreError::reconciliation_completed(reconciliation_id));
            }
            let row = &mut state.reconciliations[index];
            row.value.matches.clear();
            row.deleted = Some(Deleted::from(&deletion));
            state.record_deletion(deletion);
            Ok(())
        })
    }

    table_methods! {
        fn get_reconciliation(get) -> Reconciliation: reconciliations;
    }

    async fn list_reconciliations(
        &self,
        tenant: &Tenant,
        filter: &ReconciliationFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Reconciliation>> {
        let mut found = live_where(&self.state().reconciliations, tenant, |r| {
            filter
                .account_id
                .as_ref()
                .is_none_or(|a| &r.account_id == a)
                && filter.status.is_none_or(|s| r.status == s)
        });
        found.sort_by(|a, b| b.end_date.cmp(&a.end_date).then_with(|| a.id.cmp(&b.id)));
        Ok(page_of(found, Some(page)))
    }

    async fn statement_lines(
        &self,
        tenant: &Tenant,
        reconciliation_id: &str,
    ) -> StoreResult<Vec<StatementLine>> {
        let mut lines = of_tenant(&self.state().statement_lines, tenant, |l| {
            l.reconciliation_id == reconciliation_id
        });
        lines.sort_by_key(|l| l.line_number);
        Ok(lines)
    }

    async fn journal_entries(
        &self,
        tenant: &Tenant,
        filter: &EntryFilter,
    ) -> StoreResult<Vec<JournalEntry>> {
        let state = self.state();
        let mut found = Vec::new();
        for t in &state.transactions {
            let txn = &t.value;
            if !t.is_live()
                || !in_tenant(tenant, &txn.organization_id, txn.livemode)
                || !txn.status.counts_in_balances()
            {
                continue;
            }
            let day = txn.date.to_offset(time::UtcOffset::UTC).date();
            if filter.from.is_some_and(|f| day < f) || filter.until.is_some_and(|u| day > u) {
                continue;
            }
            for e in &txn.entries {
                if e.line.account_id != filter.account_id
                    || filter
                        .entry_ids
                        .as_ref()
                        .is_some_and(|ids| !ids.contains(&e.id))
                {
                    continue;
                }
                let matched = state.matched_in(tenant, &e.id).map(|r| r.id.clone());
                if filter.unmatched_only && matched.is_some() {
                    continue;
                }
                found.push(JournalEntry {
                    entry_id: e.id.clone(),
                    transaction_id: txn.id.clone(),
                    account_id: e.line.account_id.clone(),
                    date: day,
                    amount: signed(e.line.entry_type, e.line.amount),
                    description: match &e.line.description {
                        Some(d) if !d.is_empty() && d != &txn.description => {
                            format!("{} {d}", txn.description)
                        }
                        _ => txn.description.clone(),
                    },
                    reference: None,
                    transaction_reference: txn.reference.clone(),
                    reconciliation_id: matched,
                });
            }
        }
        found.sort_by(|a, b| (a.date, &a.entry_id).cmp(&(b.date, &b.entry_id)));
        Ok(found)
    }

    async fn reconciliation_locking(
        &self,
        tenant: &Tenant,
        transaction_id: &str,
    ) -> StoreResult<Option<String>> {
        let state = self.state();
        Ok(live_rows(&state.reconciliations, tenant)
            .find(|r| {
                r.status == ReconciliationStatus::Completed
                    && r.matches.iter().any(|m| m.transaction_id == transaction_id)
            })
            .map(|r| r.id.clone()))
    }
}
