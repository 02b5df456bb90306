//! The soft-delete audit trail and its daily purge (spec 3.6, DECISIONS 5).

use crate::error::DomainResult;
use crate::events::Deletion;
use crate::ids::{IdKind, new_id};
use crate::organizations::Scope;
use crate::ports::{Audit, Page, PageRequest, PurgeReport, Store, StoreResult, Tenant, Written};
use serde_json::Value;

use super::access::Author;
use super::accounts::tenant_reads;
use super::{Access, Ledger, Principal, WriteOptions};

/// How long an `Idempotency-Key` is remembered (DECISIONS 4).
const IDEMPOTENCY_WINDOW: time::Duration = time::Duration::hours(24);

/// A record a synchronous soft delete removes, as the delete names it: its kind
/// (`"tax"`), its id, the name its deletion record shows, and its view before the delete
/// (the event's before state).
pub(super) struct Removal<'a> {
    kind: &'a str,
    id: &'a str,
    name: &'a str,
    before: Value,
}

impl<'a> Removal<'a> {
    /// The removal of the record `kind` `id`, shown as `name`, whose view is `before`.
    pub(super) fn new(kind: &'a str, id: &'a str, name: &'a str, before: Value) -> Self {
        Self {
            kind,
            id,
            name,
            before,
        }
    }
}

impl<S: Store> Ledger<S> {
    /// A soft-deletion record of the author's tenant and key (a request's or its job's),
    /// stamped now.
    pub(super) fn soft_deletion(
        &self,
        by: &impl Author,
        resource_type: &str,
        resource_id: &str,
        name: &str,
    ) -> Deletion {
        let now = self.now();
        let Tenant {
            organization_id,
            livemode,
        } = by.tenant();
        Deletion {
            id: new_id(IdKind::Deletion),
            organization_id,
            livemode,
            resource_type: resource_type.to_owned(),
            resource_id: resource_id.to_owned(),
            name: name.to_owned(),
            deleted_at: now,
            deleted_by: by.key_id().to_owned(),
            recoverable_until: now + time::Duration::days(self.config.retention_days),
        }
    }

    /// Soft-deletes `record`: `delete` hands the store its deletion record and the audit
    /// carrying the `<kind>.deleted` event; answers the deleted view (`views::deleted`),
    /// or the first answer when the key replays.
    ///
    /// # Errors
    /// What the store reports (`Missing`, `InUse`, `CreditsShort`, ...), worded.
    pub(super) async fn soft_delete<Fut>(
        &self,
        access: &Access,
        options: WriteOptions,
        record: Removal<'_>,
        delete: impl FnOnce(Deletion, Audit) -> Fut,
    ) -> DomainResult<Written<Value>>
    where
        Fut: Future<Output = StoreResult<Written<()>>>,
    {
        let Removal {
            kind,
            id,
            name,
            before,
        } = record;
        let deletion = self.soft_deletion(access, kind, id, name);
        let event = self.event(
            access,
            &format!("{kind}.deleted"),
            kind,
            id,
            Some(before),
            None,
        );
        let view = crate::views::deleted(kind, id, deletion.recoverable_until);
        let audit = self.audit(access, options, event, &view);
        let written = delete(deletion, audit).await?;
        Ok(written.map(|()| view))
    }

    /// Refuses to delete `resource` `id` while something references it (DECISIONS 10,
    /// [`crate::references`]).
    ///
    /// # Errors
    /// `resource_in_use` naming the first reference found.
    pub(super) async fn check_not_in_use(
        &self,
        access: &Access,
        resource: crate::error::Resource,
        id: &str,
    ) -> DomainResult<()> {
        match self
            .store
            .first_reference(&access.tenant, resource, id)
            .await?
        {
            Some(by) => Err(crate::error::DomainError::InUse {
                resource,
                id: id.to_owned(),
                by,
            }),
            None => Ok(()),
        }
    }

    tenant_reads! {
        /// What was deleted in the tenant (any key), newest first.
        ///
        /// # Errors
        /// Storage failures only.
        pub fn recently_deleted(page) -> Deletion: list_deletions;
    }

    /// What the calling key deleted, in its mode, across the organizations it reaches,
    /// newest first.
    ///
    /// # Errors
    /// `insufficient_permissions` without `read`.
    pub async fn deleted_by_caller(
        &self,
        principal: &Principal,
        page: PageRequest,
    ) -> DomainResult<Page<Deletion>> {
        self.check_permission(principal, Scope::Read, "deletions")?;
        Ok(self
            .store
            .list_deletions_by_key(
                &principal.key.id,
                principal.key.livemode,
                &principal.organization.path,
                page,
            )
            .await?)
    }

    /// Removes for good what passed its `recoverable_until`, and idempotency records
    /// older than 24 hours (the daily purge).
    ///
    /// # Errors
    /// Storage failures; nothing is removed then.
    pub async fn purge_expired(&self) -> DomainResult<PurgeReport> {
        let now = self.now();
        let report = self
            .store
            .purge_expired(now, now - IDEMPOTENCY_WINDOW)
            .await?;
        tracing::info!(
            accounts = report.accounts,
            transactions = report.transactions,
            entries = report.entries,
            api_keys = report.api_keys,
            taxes = report.taxes,
            categories = report.categories,
            contacts = report.contacts,
            documents = report.documents,
            deletions = report.deletions,
            idempotency_records = report.idempotency_records,
            exchange_rates = report.exchange_rates,
            attachments = report.attachments,
            reconciliations = report.reconciliations,
            "purged expired soft-deleted rows"
        );
        Ok(report)
    }
}
