//! Matching journal entries to a reconciliation: the entries a change or a statement
//! line names (each matched in one reconciliation at most), and the entries proposed for
//! the unmatched lines of a statement.

use serde_json::Value;

use crate::error::{DomainError, DomainResult, Resource};
use crate::ids::IdKind;
use crate::money::format_units;
use crate::ports::{EntryFilter, Store, StoreError, Taken, Tenant};
use crate::reconciliation::matcher::{DATE_WINDOW_DAYS, Proposal, propose};
use crate::reconciliation::{
    JournalEntry, ReconciledEntry, Reconciliation, ReconciliationStatus, StatementLine,
};
use crate::views;

use crate::services::{Access, Ledger};

impl<S: Store> Ledger<S> {
    /// The entries `ids` (field `field`) of the reconciliation's account that no other
    /// reconciliation matched, as matches; entries this one matched already are skipped.
    pub(super) async fn entries_to_match(
        &self,
        access: &Access,
        r: &Reconciliation,
        ids: &[String],
        field: &str,
        line: Option<&StatementLine>,
    ) -> DomainResult<Vec<ReconciledEntry>> {
        let mut parsed = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            let name = if line.is_some() {
                field.to_owned()
            } else {
                format!("{field}[{i}]")
            };
            let id = crate::ids::parse_reference(IdKind::Entry, Resource::Entry, &name, id)?;
            parsed.push((name, id));
        }
        if parsed.is_empty() {
            return Ok(Vec::new());
        }
        let found = self
            .store
            .journal_entries(
                &access.tenant,
                &EntryFilter {
                    account_id: r.account_id.clone(),
                    entry_ids: Some(parsed.iter().map(|(_, id)| id.clone()).collect()),
                    ..EntryFilter::default()
                },
            )
            .await?;
        let now = self.now();
        let mut out: Vec<ReconciledEntry> = Vec::new();
        for (name, id) in parsed {
            let entry = found.iter().find(|e| e.entry_id == id).ok_or_else(|| {
                DomainError::reference_not_found_in(
                    name.clone(),
                    Resource::Entry,
                    &id,
                    format!(
                        "'{id}' is no entry of a posted transaction on account {}",
                        r.account_id
                    ),
                )
            })?;
            match &entry.reconciliation_id {
                Some(other) if other != &r.id => {
                    return Err(StoreError::Taken(Taken::MatchedEntry {
                        entry_id: id,
                        reconciliation_id: Some(other.clone()),
                    })
                    .into());
                }
                Some(_) if line.is_none() => continue,
                _ => {}
            }
            if let Some(line) = line
                && line.amount != entry.amount
            {
                return Err(DomainError::inconsistent(
                    name,
                    format!(
                        "the entry's amount {} differs from the statement line's {}",
                        format_units(entry.amount, views::decimals_of(&r.currency)),
                        format_units(line.amount, views::decimals_of(&r.currency))
                    ),
                ));
            }
            if out.iter().any(|m| m.entry_id == entry.entry_id) {
                continue;
            }
            out.push(matched(entry, line.map(|l| l.id.clone()), now));
        }
        Ok(out)
    }

    /// The proposals for the unmatched `lines` of `r` among the account's unmatched
    /// entries dated near them.
    pub(super) async fn proposals(
        &self,
        tenant: &Tenant,
        r: &Reconciliation,
        lines: &[&StatementLine],
    ) -> DomainResult<Vec<Proposal>> {
        let (Some(first), Some(last)) = (
            lines.iter().map(|l| l.date).min(),
            lines.iter().map(|l| l.date).max(),
        ) else {
            return Ok(Vec::new());
        };
        let window = time::Duration::days(DATE_WINDOW_DAYS);
        let entries: Vec<JournalEntry> = self
            .store
            .journal_entries(
                tenant,
                &EntryFilter {
                    account_id: r.account_id.clone(),
                    entry_ids: None,
                    from: first.checked_sub(window),
                    until: last.checked_add(window),
                    unmatched_only: true,
                },
            )
            .await?;
        Ok(propose(lines, &entries, views::decimals_of(&r.currency)))
    }

    /// The views of `lines` of `r`: matched or not, and the match proposed for each
    /// unmatched one.
    pub(super) async fn line_views(
        &self,
        tenant: &Tenant,
        r: &Reconciliation,
        lines: &[StatementLine],
    ) -> DomainResult<Vec<Value>> {
        let matched_of = |l: &StatementLine| {
            r.matches
                .iter()
                .find(|m| m.statement_line_id.as_deref() == Some(l.id.as_str()))
        };
        let open: Vec<&StatementLine> = if r.status == ReconciliationStatus::Open {
            lines.iter().filter(|l| matched_of(l).is_none()).collect()
        } else {
            Vec::new()
        };
        let proposals = self.proposals(tenant, r, &open).await?;
        Ok(lines
            .iter()
            .map(|l| {
                let proposal = proposals.iter().find(|p| p.line_id == l.id);
                views::statement_line(l, &r.currency, matched_of(l), proposal)
            })
            .collect())
    }
}

/// A match of `entry`, from statement line `line` when given.
fn matched(
    entry: &JournalEntry,
    line: Option<String>,
    now: time::OffsetDateTime,
) -> ReconciledEntry {
    ReconciledEntry {
        entry_id: entry.entry_id.clone(),
        transaction_id: entry.transaction_id.clone(),
        date: entry.date,
        amount: entry.amount,
        description: entry.description.chars().take(1000).collect(),
        statement_line_id: line,
        matched_at: now,
    }
}
