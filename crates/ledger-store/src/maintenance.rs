//! The soft-delete audit trail, its purge, and the figures `/system` reports.
//!
//! The purge and the queue figures are service-wide maintenance, not tenant reads: they
//! are the only queries here that do not filter on one organization. Organization-tree
//! reads select the tree by materialised path (`/root/.../`), escaped for `LIKE`.

use diesel::dsl::{count_star, exists};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::events::{Deletion, Event};
use ledger_domain::ports::{
    Deletions, EventStats, JobStats, Monitoring, Page, PageRequest, PoolStats, PurgeReport,
    StoreResult, Tenant,
};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::db::{Db, DbPool, page_from, prefix_pattern};
use crate::rows::{DeletionRow, EventRow, from_db, to_db};
use crate::schema::{
    accounts, api_keys, categories, contacts, document_history, document_references, documents,
    events, idempotency_keys, jobs, ledger_entries, organizations, resource_deletions, taxes,
    transactions,
};
use crate::schema::{attachments, exchange_rates, reconciliations};

/// The soft-deleted rows of `$table` whose recovery window closed by `$now`.
macro_rules! expired {
    ($table:ident, $now:expr) => {
        $table::table
            .filter($table::deleted_at.is_not_null())
            .filter($table::recoverable_until.le($now))
    };
}

/// The `(organization_id, id)` of every expired row of `$table` (see [`expired!`]).
macro_rules! expired_ids {
    ($conn:expr, $table:ident, $now:expr) => {{
        let ids: Vec<(String, String)> = expired!($table, $now)
            .select(($table::organization_id, $table::id))
            .load(&mut *$conn)
            .await?;
        ids
    }};
}

/// The rows of `$table` in organization `$org` whose `$column` is `$id`.
macro_rules! of_organization {
    ($table:ident :: $column:ident, $org:expr, $id:expr) => {
        $table::table
            .filter($table::organization_id.eq($org))
            .filter($table::$column.eq($id))
    };
}

/// Deletes the rows `$query` selects; evaluates to how many there were.
macro_rules! delete_count {
    ($conn:expr, $query:expr) => {
        diesel::delete($query).execute(&mut *$conn).await? as u64
    };
}

/// Clears `$table.$column` wherever it names `$id` in organization `$org`.
macro_rules! unlink {
    ($conn:expr, $table:ident :: $column:ident, $org:expr, $id:expr) => {
        diesel::update(of_organization!($table::$column, $org, $id))
            .set($table::$column.eq(None::<String>))
            .execute(&mut *$conn)
            .await?
    };
}

impl From<DeletionRow> for Deletion {
    fn from(r: DeletionRow) -> Self {
        Self {
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            resource_type: r.resource_type,
            resource_id: r.resource_id,
            name: r.name,
            deleted_at: from_db(r.deleted_at),
            deleted_by: r.deleted_by,
            recoverable_until: from_db(r.recoverable_until),
        }
    }
}

/// One page of the deletions `$query()` selects, newest first, with their count (see
/// [`load_page!`]).
macro_rules! deletions_page {
    ($conn:expr, $query:ident, $page:expr) => {{
        let order = (
            resource_deletions::deleted_at.desc(),
            resource_deletions::id.desc(),
        );
        load_page!($conn, $query, order, $page, DeletionRow)
    }};
}

impl Deletions for Db {
    async fn first_reference(
        &self,
        tenant: &Tenant,
        resource: ledger_domain::Resource,
        id: &str,
    ) -> StoreResult<Option<ledger_domain::UsedBy>> {
        let refusal = db_read!(self, |conn| {
            Ok(crate::references::in_use(
                conn,
                &tenant.organization_id,
                tenant.livemode,
                resource,
                id,
            )
            .await?)
        })?;
        Ok(match refusal {
            Some(ledger_domain::StoreError::InUse { by, .. }) => Some(by),
            _ => None,
        })
    }

    async fn list_deletions(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> StoreResult<Page<Deletion>> {
        db_read!(self, |conn| {
            let of_tenant =
                || resource_deletions::table.filter(tenant_of!(resource_deletions, tenant));
            Ok(deletions_page!(conn, of_tenant, page))
        })
        .and_then(|rows| page_from(rows, |row| Ok(Deletion::from(row))))
    }

    async fn list_deletions_by_key(
        &self,
        key_id: &str,
        livemode: bool,
        path_prefix: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Deletion>> {
        let pattern = prefix_pattern(path_prefix);
        db_read!(self, |conn| {
            let by_key = || {
                let reached = organizations::table
                    .filter(organizations::path.like(&pattern).escape('\\'))
                    .select(organizations::id);
                resource_deletions::table
                    .filter(resource_deletions::organization_id.eq_any(reached))
                    .filter(resource_deletions::livemode.eq(livemode))
                    .filter(resource_deletions::deleted_by.eq(key_id))
            };
            Ok(deletions_page!(conn, by_key, page))
        })
        .and_then(|rows| page_from(rows, |row| Ok(Deletion::from(row))))
    }

    async fn purge_expired(
        &self,
        now: OffsetDateTime,
        idempotency_before: OffsetDateTime,
    ) -> StoreResult<PurgeReport> {
        let now = to_db(now);
        let idempotency_before = to_db(idempotency_before);
        let report = db_write!(self, |conn| {
            let mut report = PurgeReport::default();
            // Transactions first: their entries are what could still reference accounts.
            let expired_transactions = expired!(transactions, now).select(transactions::id);
            report.entries = delete_count!(
                conn,
                ledger_entries::table
                    .filter(ledger_entries::transaction_id.eq_any(expired_transactions))
            );
            report.transactions = delete_count!(conn, expired!(transactions, now));
            for (org, id) in &expired_ids!(conn, accounts, now) {
                let referenced = of_organization!(ledger_entries::account_id, org, id);
                if diesel::select(exists(referenced)).get_result(conn).await? {
                    tracing::warn!(account = %id, "a deleted account still has entries; kept");
                    continue;
                }
                // Children of the purged account become top-level accounts.
                unlink!(conn, accounts::parent_id, org, id);
                report.accounts += delete_count!(conn, of_organization!(accounts::id, org, id));
            }
            report.api_keys = delete_count!(conn, expired!(api_keys, now));
            report.taxes = delete_count!(conn, expired!(taxes, now));
            for (org, id) in &expired_ids!(conn, categories, now) {
                // Children (only ever deleted ones) lose the parent; transactions the tag.
                unlink!(conn, categories::parent_id, org, id);
                unlink!(conn, transactions::category_id, org, id);
                report.categories += delete_count!(conn, of_organization!(categories::id, org, id));
            }
            // Deleted invoices and bills are drafts: no payments, only their history.
            for (org, id) in &expired_ids!(conn, documents, now) {
                delete_count!(
                    conn,
                    of_organization!(document_references::document_id, org, id)
                );
                delete_count!(
                    conn,
                    of_organization!(document_history::document_id, org, id)
                );
                report.documents += delete_count!(conn, of_organization!(documents::id, org, id));
            }
            for (org, id) in &expired_ids!(conn, contacts, now) {
                // Only soft-deleted transactions can still name a deleted contact.
                unlink!(conn, transactions::contact_id, org, id);
                report.contacts += delete_count!(conn, of_organization!(contacts::id, org, id));
            }
            report.deletions = delete_count!(
                conn,
                resource_deletions::table.filter(resource_deletions::recoverable_until.le(now))
            );
            // The scheduler's keys stay: they record that an occurrence was generated
            // (ledger_domain::recurring::OCCURRENCE_KEY_PREFIX; no LIKE wildcard in it).
            report.idempotency_records = delete_count!(
                conn,
                idempotency_keys::table
                    .filter(idempotency_keys::created_at.lt(idempotency_before))
                    .filter(idempotency_keys::key.not_like(format!(
                        "{}%",
                        ledger_domain::recurring::OCCURRENCE_KEY_PREFIX
                    )))
            );
            report.exchange_rates = delete_count!(conn, expired!(exchange_rates, now));
            report.attachments = delete_count!(conn, expired!(attachments, now));
            // Their statement lines (and matches, removed at the delete) cascade.
            report.reconciliations = delete_count!(conn, expired!(reconciliations, now));
            Ok(report)
        })?;
        Ok(report)
    }
}

impl Monitoring for Db {
    async fn event_stats(
        &self,
        path_prefix: &str,
        livemode: bool,
        since: OffsetDateTime,
        recent: i64,
    ) -> StoreResult<EventStats> {
        let pattern = prefix_pattern(path_prefix);
        let since = to_db(since);
        let (total, last, by_type, rows): (i64, i64, Vec<(String, i64)>, Vec<EventRow>) =
            db_read!(self, |conn| {
                let of_tree = || {
                    let tree = organizations::table
                        .filter(organizations::path.like(&pattern).escape('\\'))
                        .select(organizations::id);
                    events::table
                        .filter(events::organization_id.eq_any(tree))
                        .filter(events::livemode.eq(livemode))
                };
                let total: i64 = of_tree().count().get_result(conn).await?;
                let last: i64 = of_tree()
                    .filter(events::created_at.ge(since))
                    .count()
                    .get_result(conn)
                    .await?;
                let by_type: Vec<(String, i64)> = of_tree()
                    .group_by(events::event_type)
                    .select((events::event_type, count_star()))
                    .order(events::event_type.asc())
                    .load(conn)
                    .await?;
                let rows = of_tree()
                    .order((events::created_at.desc(), events::id.desc()))
                    .limit(recent)
                    .select(EventRow::as_select())
                    .load(conn)
                    .await?;
                Ok((total, last, by_type, rows))
            })?;
        Ok(EventStats {
            total_events: total,
            events_since: last,
            events_by_type: by_type,
            recent_events: rows
                .into_iter()
                .map(Event::try_from)
                .collect::<Result<_, _>>()?,
        })
    }

    async fn job_stats(&self, since: OffsetDateTime) -> StoreResult<JobStats> {
        let since: PrimitiveDateTime = to_db(since);
        db_read!(self, |conn| {
            let queued: i64 = jobs::table
                .filter(jobs::status.eq(crate::jobs::queued_literal()))
                .count()
                .get_result(conn)
                .await?;
            let ended = |status: &'static str| {
                jobs::table
                    .filter(jobs::status.eq(status))
                    .filter(jobs::completed_at.ge(since))
                    .count()
            };
            let completed: i64 = ended("completed").get_result(conn).await?;
            let failed: i64 = ended("failed").get_result(conn).await?;
            Ok(JobStats {
                queued,
                completed_since: completed,
                failed_since: failed,
            })
        })
    }

    fn pool_stats(&self) -> PoolStats {
        // deadpool's `Status` is not re-exported by diesel-async; read its fields here.
        let of = |max_size: usize, size: usize, available: usize, waiting: usize| PoolStats {
            max_size: max_size as u64,
            in_use: size.saturating_sub(available) as u64,
            waiting: waiting as u64,
        };
        match &self.pool {
            DbPool::Postgres(pool) => {
                let s = pool.status();
                of(s.max_size, s.size, s.available, s.waiting)
            }
            DbPool::Sqlite { writer, reader } => {
                let (w, r) = (writer.status(), reader.status());
                let w = of(w.max_size, w.size, w.available, w.waiting);
                let r = of(r.max_size, r.size, r.available, r.waiting);
                PoolStats {
                    max_size: w.max_size + r.max_size,
                    in_use: w.in_use + r.in_use,
                    waiting: w.waiting + r.waiting,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(super::prefix_pattern("/org_a/"), "/org\\_a/%");
        assert_eq!(super::prefix_pattern("50%\\"), "50\\%\\\\%");
    }
}
