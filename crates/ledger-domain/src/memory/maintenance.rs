//! The soft-delete audit trail, its purge and the `/system` figures in memory (the SQL
//! adapter's `maintenance`).

use crate::ports::StoreError;
use std::collections::BTreeMap;

use time::OffsetDateTime;

use crate::error::{Resource, UsedBy};
use crate::events::Deletion;
use crate::jobs::JobStatus;
use crate::ports::{
    Deletions, EventStats, JobStats, Monitoring, Page, PageRequest, PoolStats, PurgeReport,
    StoreResult, Tenant,
};

use super::{MemoryStore, State, in_tenant, page_of};

/// Keeps the rows `keep` accepts; how many it removed.
fn retain_counted<T>(rows: &mut Vec<T>, keep: impl FnMut(&T) -> bool) -> u64 {
    let before = rows.len();
    rows.retain(keep);
    (before - rows.len()) as u64
}

/// `(organization_id, id)` of the rows of `$rows` whose retention is over at `$now`.
macro_rules! expired_ids {
    ($rows:expr, $now:expr) => {
        $rows
            .iter()
            .filter(|r| r.expired($now))
            .map(|r| (r.value.organization_id.clone(), r.value.id.clone()))
            .collect::<Vec<(String, String)>>()
    };
}

/// Clears `$field` of the rows of `$rows` in organization `$org` that name `$id` in it.
macro_rules! unlink {
    ($rows:expr, $field:ident, $org:expr, $id:expr) => {
        for row in $rows.iter_mut().filter(|r| {
            r.value.organization_id == *$org && r.value.$field.as_deref() == Some($id.as_str())
        }) {
            row.value.$field = None;
        }
    };
}

impl State {
    /// The ids of the organizations whose path starts with `path_prefix`.
    fn tree(&self, path_prefix: &str) -> Vec<&str> {
        self.organizations
            .values()
            .filter(|o| o.path.starts_with(path_prefix))
            .map(|o| o.id.as_str())
            .collect()
    }

    /// See [`Deletions::purge_expired`].
    fn purge(&mut self, now: OffsetDateTime, idempotency_before: OffsetDateTime) -> PurgeReport {
        let mut report = PurgeReport::default();
        // Transactions first: their entries are what could still reference accounts.
        let (expired, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.transactions)
            .into_iter()
            .partition(|t| t.expired(now));
        self.transactions = kept;
        report.transactions = expired.len() as u64;
        report.entries = expired.iter().map(|t| t.value.entries.len() as u64).sum();

        let expired_accounts = expired_ids!(self.accounts, now);
        for (org, id) in expired_accounts {
            let referenced = self.transactions.iter().any(|t| {
                t.value.organization_id == org
                    && t.value.entries.iter().any(|e| e.line.account_id == id)
            });
            if referenced {
                tracing::warn!(account = %id, "a deleted account still has entries; kept");
                continue;
            }
            // Children of the purged account become top-level accounts.
            unlink!(self.accounts, parent_id, &org, &id);
            report.accounts += retain_counted(&mut self.accounts, |a| {
                !(a.value.organization_id == org && a.value.id == id)
            });
        }

        report.api_keys = retain_counted(&mut self.keys, |k| !k.expired(now));
        report.taxes = retain_counted(&mut self.taxes, |t| !t.expired(now));

        let expired_categories = expired_ids!(self.categories, now);
        for (org, id) in &expired_categories {
            // Children (only ever deleted ones) lose the parent; transactions the tag.
            unlink!(self.categories, parent_id, org, id);
            unlink!(self.transactions, category_id, org, id);
        }
        report.categories = retain_counted(&mut self.categories, |c| !c.expired(now));

        // Deleted invoices and bills are drafts: no payments, only their history.
        let expired_documents = expired_ids!(self.documents, now);
        self.history.retain(|h| {
            !expired_documents
                .iter()
                .any(|(org, id)| h.organization_id == *org && h.document_id == *id)
        });
        report.documents = retain_counted(&mut self.documents, |d| !d.expired(now));

        let expired_contacts = expired_ids!(self.contacts, now);
        for (org, id) in &expired_contacts {
            // Only soft-deleted transactions can still name a deleted contact.
            unlink!(self.transactions, contact_id, org, id);
        }
        report.contacts = retain_counted(&mut self.contacts, |c| !c.expired(now));

        report.deletions = retain_counted(&mut self.deletions, |d| d.recoverable_until > now);

        let before = self.idempotency.len();
        // The scheduler's keys outlive the window: they are the record that an occurrence
        // was generated (see `crate::recurring::OCCURRENCE_KEY_PREFIX`).
        self.idempotency.retain(|(_, _, key), r| {
            r.created_at >= idempotency_before
                || key.starts_with(crate::recurring::OCCURRENCE_KEY_PREFIX)
        });
        report.idempotency_records = (before - self.idempotency.len()) as u64;

        report.exchange_rates = retain_counted(&mut self.exchange_rates, |r| !r.expired(now));
        report.attachments = retain_counted(&mut self.attachments, |r| !r.expired(now));
        report.reconciliations = retain_counted(&mut self.reconciliations, |r| !r.expired(now));
        let live: std::collections::HashSet<(String, String)> = self
            .reconciliations
            .iter()
            .map(|r| (r.value.organization_id.clone(), r.value.id.clone()))
            .collect();
        self.statement_lines
            .retain(|l| live.contains(&(l.organization_id.clone(), l.reconciliation_id.clone())));
        report
    }
}

/// Deletion records newest first, one page.
fn newest_first(mut found: Vec<Deletion>, page: PageRequest) -> Page<Deletion> {
    found.sort_by(|a, b| (b.deleted_at, &b.id).cmp(&(a.deleted_at, &a.id)));
    page_of(found, Some(page))
}

impl Deletions for MemoryStore {
    async fn first_reference(
        &self,
        tenant: &Tenant,
        resource: Resource,
        id: &str,
    ) -> StoreResult<Option<UsedBy>> {
        let state = self.state();
        Ok(match state.in_use(tenant, resource, id) {
            Some(StoreError::InUse { by, .. }) => Some(by),
            _ => None,
        })
    }

    async fn list_deletions(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> StoreResult<Page<Deletion>> {
        let state = self.state();
        let found = state
            .deletions
            .iter()
            .filter(|d| in_tenant(tenant, &d.organization_id, d.livemode))
            .cloned()
            .collect();
        Ok(newest_first(found, page))
    }

    async fn list_deletions_by_key(
        &self,
        key_id: &str,
        livemode: bool,
        path_prefix: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Deletion>> {
        let state = self.state();
        let tree = state.tree(path_prefix);
        let found = state
            .deletions
            .iter()
            .filter(|d| {
                d.livemode == livemode
                    && d.deleted_by == key_id
                    && tree.contains(&d.organization_id.as_str())
            })
            .cloned()
            .collect();
        Ok(newest_first(found, page))
    }

    async fn purge_expired(
        &self,
        now: OffsetDateTime,
        idempotency_before: OffsetDateTime,
    ) -> StoreResult<PurgeReport> {
        Ok(self.state().purge(now, idempotency_before))
    }
}

impl Monitoring for MemoryStore {
    async fn event_stats(
        &self,
        path_prefix: &str,
        livemode: bool,
        since: OffsetDateTime,
        recent: i64,
    ) -> StoreResult<EventStats> {
        let state = self.state();
        let tree = state.tree(path_prefix);
        let mut events: Vec<_> = state
            .events
            .iter()
            .filter(|e| e.livemode == livemode && tree.contains(&e.organization_id.as_str()))
            .collect();
        let mut by_type: BTreeMap<&str, i64> = BTreeMap::new();
        for e in &events {
            *by_type.entry(e.event_type.as_str()).or_default() += 1;
        }
        let total_events = events.len() as i64;
        let events_since = events.iter().filter(|e| e.created_at >= since).count() as i64;
        // The newest first.
        events.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(EventStats {
            total_events,
            events_since,
            events_by_type: by_type
                .into_iter()
                .map(|(t, n)| (t.to_owned(), n))
                .collect(),
            recent_events: events
                .into_iter()
                .take(usize::try_from(recent).unwrap_or(0))
                .cloned()
                .collect(),
        })
    }

    async fn job_stats(&self, since: OffsetDateTime) -> StoreResult<JobStats> {
        let state = self.state();
        let ended = |status: JobStatus| {
            state
                .jobs
                .values()
                .filter(|j| j.status == status && j.completed_at.is_some_and(|at| at >= since))
                .count() as i64
        };
        Ok(JobStats {
            queued: state
                .jobs
                .values()
                .filter(|j| j.status == JobStatus::Queued)
                .count() as i64,
            completed_since: ended(JobStatus::Completed),
            failed_since: ended(JobStatus::Failed),
        })
    }

    /// Memory has no connection pool: every figure is zero.
    fn pool_stats(&self) -> PoolStats {
        PoolStats::default()
    }
}
