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

use crate::db::{Db, DbPool, prefix_pattern};
use crate::rows::{DeletionRow, EventRow, from_db, to_db};
use crate::schema::{
    accounts, api_keys, categories, contacts, document_history, document_references, documents,
    events, idempotency_keys, jobs, ledger_entries, organizations, resource_deletions, taxes,
    transactions,
};
use crate::schema::{attachments, exchange_rates, reconciliations};

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

fn page_of(rows: Vec<DeletionRow>, total_count: i64) -> Page<Deletion> {
    Page {
        items: rows.into_iter().map(Deletion::from).collect(),
        total_count,
    }
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
        let (rows, total): (Vec<DeletionRow>, i64) = db_read!(self, |conn| {
            let of_tenant =
                || resource_deletions::table.filter(tenant_of!(resource_deletions, tenant));
            let total: i64 = of_tenant().count().get_result(conn).await?;
            let rows = of_tenant()
                .order((
                    resource_deletions::deleted_at.desc(),
                    resource_deletions::id.desc(),
                ))
                .limit(page.limit)
                .offset(page.offset)
                .select(DeletionRow::as_select())
                .load(conn)
                .await?;
            Ok((rows, total))
        })?;
        Ok(page_of(rows, total))
    }

    async fn list_deletions_by_key(
        &self,
        key_id: &str,
        livemode: bool,
        path_prefix: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Deletion>> {
        let pattern = prefix_pattern(path_prefix);
        let (rows, total): (Vec<DeletionRow>, i64) = db_read!(self, |conn| {
            let by_key = || {
                let reached = organizations::table
                    .filter(organizations::path.like(&pattern).escape('\\'))
                    .select(organizations::id);
                resource_deletions::table
                    .filter(resource_deletions::organization_id.eq_any(reached))
                    .filter(resource_deletions::livemode.eq(livemode))
                    .filter(resource_deletions::deleted_by.eq(key_id))
            };
            let total: i64 = by_key().count().get_result(conn).await?;
            let rows = by_key()
                .order((
                    resource_deletions::deleted_at.desc(),
                    resource_deletions::id.desc(),
                ))
                .limit(page.limit)
                .offset(page.offset)
                .select(DeletionRow::as_select())
                .load(conn)
                .await?;
            Ok((rows, total))
        })?;
        Ok(page_of(rows, total))
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
            let expired_transactions = transactions::table
                .filter(transactions::deleted_at.is_not_null())
                .filter(transactions::recoverable_until.le(now))
                .select(transactions::id);
            report.entries = diesel::delete(
                ledger_entries::table
                    .filter(ledger_entries::transaction_id.eq_any(expired_transactions)),
            )
            .execute(conn)
            .await? as u64;
            report.transactions = diesel::delete(
                transactions::table
                    .filter(transactions::deleted_at.is_not_null())
                    .filter(transactions::recoverable_until.le(now)),
            )
            .execute(conn)
            .await? as u64;
            let expired_accounts: Vec<(String, String)> = accounts::table
                .filter(accounts::deleted_at.is_not_null())
                .filter(accounts::recoverable_until.le(now))
                .select((accounts::organization_id, accounts::id))
                .load(conn)
                .await?;
            for (org, id) in &expired_accounts {
                let referenced = ledger_entries::table
                    .filter(ledger_entries::organization_id.eq(org))
                    .filter(ledger_entries::account_id.eq(id));
                if diesel::select(exists(referenced)).get_result(conn).await? {
                    tracing::warn!(account = %id, "a deleted account still has entries; kept");
                    continue;
                }
                // Children of the purged account become top-level accounts.
                diesel::update(accounts::table)
                    .filter(accounts::organization_id.eq(org))
                    .filter(accounts::parent_id.eq(id))
                    .set(accounts::parent_id.eq(None::<String>))
                    .execute(conn)
                    .await?;
                report.accounts += diesel::delete(
                    accounts::table
                        .filter(accounts::organization_id.eq(org))
                        .filter(accounts::id.eq(id)),
                )
                .execute(conn)
                .await? as u64;
            }
            report.api_keys = diesel::delete(
                api_keys::table
                    .filter(api_keys::deleted_at.is_not_null())
                    .filter(api_keys::recoverable_until.le(now)),
            )
            .execute(conn)
            .await? as u64;
            report.taxes = diesel::delete(
                taxes::table
                    .filter(taxes::deleted_at.is_not_null())
                    .filter(taxes::recoverable_until.le(now)),
            )
            .execute(conn)
            .await? as u64;
            let expired_categories: Vec<(String, String)> = categories::table
                .filter(categories::deleted_at.is_not_null())
                .filter(categories::recoverable_until.le(now))
                .select((categories::organization_id, categories::id))
                .load(conn)
                .await?;
            for (org, id) in &expired_categories {
                // Children (only ever deleted ones) lose the parent; transactions the tag.
                diesel::update(categories::table)
                    .filter(categories::organization_id.eq(org))
                    .filter(categories::parent_id.eq(id))
                    .set(categories::parent_id.eq(None::<String>))
                    .execute(conn)
                    .await?;
                diesel::update(transactions::table)
                    .filter(transactions::organization_id.eq(org))
                    .filter(transactions::category_id.eq(id))
                    .set(transactions::category_id.eq(None::<String>))
                    .execute(conn)
                    .await?;
                report.categories += diesel::delete(
                    categories::table
                        .filter(categories::organization_id.eq(org))
                        .filter(categories::id.eq(id)),
                )
                .execute(conn)
                .await? as u64;
            }
            // Deleted invoices and bills are drafts: no payments, only their history.
            let expired_documents: Vec<(String, String)> = documents::table
                .filter(documents::deleted_at.is_not_null())
                .filter(documents::recoverable_until.le(now))
                .select((documents::organization_id, documents::id))
                .load(conn)
                .await?;
            for (org, id) in &expired_documents {
                diesel::delete(
                    document_references::table
                        .filter(document_references::organization_id.eq(org))
                        .filter(document_references::document_id.eq(id)),
                )
                .execute(conn)
                .await?;
                diesel::delete(
                    document_history::table
                        .filter(document_history::organization_id.eq(org))
                        .filter(document_history::document_id.eq(id)),
                )
                .execute(conn)
                .await?;
                report.documents += diesel::delete(
                    documents::table
                        .filter(documents::organization_id.eq(org))
                        .filter(documents::id.eq(id)),
                )
                .execute(conn)
                .await? as u64;
            }
            let expired_contacts: Vec<(String, String)> = contacts::table
                .filter(contacts::deleted_at.is_not_null())
                .filter(contacts::recoverable_until.le(now))
                .select((contacts::organization_id, contacts::id))
                .load(conn)
                .await?;
            for (org, id) in &expired_contacts {
                // Only soft-deleted transactions can still name a deleted contact.
                diesel::update(transactions::table)
                    .filter(transactions::organization_id.eq(org))
                    .filter(transactions::contact_id.eq(id))
                    .set(transactions::contact_id.eq(None::<String>))
                    .execute(conn)
                    .await?;
                report.contacts += diesel::delete(
                    contacts::table
                        .filter(contacts::organization_id.eq(org))
                        .filter(contacts::id.eq(id)),
                )
                .execute(conn)
                .await? as u64;
            }
            report.deletions = diesel::delete(
                resource_deletions::table.filter(resource_deletions::recoverable_until.le(now)),
            )
            .execute(conn)
            .await? as u64;
            // The scheduler's keys stay: they record that an occurrence was generated
            // (ledger_domain::recurring::OCCURRENCE_KEY_PREFIX; no LIKE wildcard in it).
            report.idempotency_records = diesel::delete(
                idempotency_keys::table
                    .filter(idempotency_keys::created_at.lt(idempotency_before))
                    .filter(idempotency_keys::key.not_like(format!(
                        "{}%",
                        ledger_domain::recurring::OCCURRENCE_KEY_PREFIX
                    ))),
            )
            .execute(conn)
            .await? as u64;
            report.exchange_rates = diesel::delete(
                exchange_rates::table
                    .filter(exchange_rates::deleted_at.is_not_null())
                    .filter(exchange_rates::recoverable_until.le(now)),
            )
            .execute(conn)
            .await? as u64;
            report.attachments = diesel::delete(
                attachments::table
                    .filter(attachments::deleted_at.is_not_null())
                    .filter(attachments::recoverable_until.le(now)),
            )
            .execute(conn)
            .await? as u64;
            // Their statement lines (and matches, removed at the delete) cascade.
            report.reconciliations = diesel::delete(
                reconciliations::table
                    .filter(reconciliations::deleted_at.is_not_null())
                    .filter(reconciliations::recoverable_until.le(now)),
            )
            .execute(conn)
            .await? as u64;
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
