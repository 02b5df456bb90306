//! What the memory store's tables share: every record lives in one tenant under its id,
//! and is found, and soft-deleted, the same way in each of them.

use crate::accounts::Account;
use crate::attachments::Attachment;
use crate::categories::Category;
use crate::error::Resource;
use crate::events::Deletion;
use crate::exchange::ExchangeRate;
use crate::ports::{Page, PageRequest, StoreError, StoreResult, Tenant};
use crate::reconciliation::Reconciliation;
use crate::recurring::RecurringSchedule;
use crate::tax::Tax;
use crate::transactions::Transaction;
use crate::webhooks::WebhookEndpoint;

use time::OffsetDateTime;

use super::{Deleted, Row, State, in_tenant, page_of, tenant_of_deletion};

/// A record kept in one tenant under its id.
pub(crate) trait Tenanted {
    fn id(&self) -> &str;
    fn organization_id(&self) -> &str;
    fn livemode(&self) -> bool;
    fn created_at(&self) -> OffsetDateTime;
}

macro_rules! tenanted {
    ($($record:ty),* $(,)?) => {$(
        impl Tenanted for $record {
            fn id(&self) -> &str {
                &self.id
            }
            fn organization_id(&self) -> &str {
                &self.organization_id
            }
            fn livemode(&self) -> bool {
                self.livemode
            }
            fn created_at(&self) -> OffsetDateTime {
                self.created_at
            }
        }
    )*};
}

tenanted!(
    Account,
    Attachment,
    Category,
    ExchangeRate,
    Reconciliation,
    RecurringSchedule,
    Tax,
    Transaction,
    WebhookEndpoint,
);

/// The position in `rows` of the live record `id` of `tenant`.
pub(crate) fn live_in<T: Tenanted>(rows: &[Row<T>], tenant: &Tenant, id: &str) -> Option<usize> {
    rows.iter().position(|r| {
        r.is_live()
            && r.value.id() == id
            && in_tenant(tenant, r.value.organization_id(), r.value.livemode())
    })
}

/// One page of the live records of `tenant` in `rows`, oldest first (`created_at`, then
/// `id`), as the SQL store orders them.
pub(crate) fn live_page<T: Tenanted + Clone>(
    rows: &[Row<T>],
    tenant: &Tenant,
    page: PageRequest,
) -> Page<T> {
    let mut found: Vec<T> = rows
        .iter()
        .filter(|r| r.is_live() && in_tenant(tenant, r.value.organization_id(), r.value.livemode()))
        .map(|r| r.value.clone())
        .collect();
    found.sort_by(|a, b| (a.created_at(), a.id()).cmp(&(b.created_at(), b.id())));
    page_of(found, Some(page))
}

impl State {
    /// Soft-deletes the live record `id` of the deletion's tenant in the table `rows`
    /// picks, and keeps the deletion record; `Missing` (of `resource`) when there is none.
    pub(super) fn soft_delete<T: Tenanted>(
        &mut self,
        rows: impl FnOnce(&mut State) -> &mut Vec<Row<T>>,
        resource: Resource,
        id: &str,
        deletion: Deletion,
    ) -> StoreResult<()> {
        let table = rows(self);
        let index = live_in(table, &tenant_of_deletion(&deletion), id)
            .ok_or_else(|| StoreError::missing(resource, id))?;
        table[index].deleted = Some(Deleted::from(&deletion));
        self.record_deletion(deletion);
        Ok(())
    }
}
