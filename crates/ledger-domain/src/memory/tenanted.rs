//! What the memory store's tables share: every record lives in one tenant under its id,
//! and is found, ordered, and soft-deleted, the same way in each of them.

use crate::accounts::Account;
use crate::attachments::Attachment;
use crate::categories::Category;
use crate::contacts::Contact;
use crate::credits::CreditPurchase;
use crate::documents::{Document, Payment};
use crate::error::Resource;
use crate::events::{Deletion, Event};
use crate::exchange::ExchangeRate;
use crate::jobs::Job;
use crate::organizations::ApiKey;
use crate::ports::{Page, PageRequest, StoreError, StoreResult, Tenant};
use crate::reconciliation::{Reconciliation, StatementLine};
use crate::recurring::{RecurringRun, RecurringSchedule};
use crate::tax::Tax;
use crate::transactions::Transaction;
use crate::webhooks::{WebhookDelivery, WebhookEndpoint};

use time::OffsetDateTime;

use super::{Deleted, Row, State, in_tenant, page_of, push_new, tenant_of_deletion};

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
    Contact,
    CreditPurchase,
    Document,
    ApiKey,
    Event,
    ExchangeRate,
    Job,
    Payment,
    Reconciliation,
    RecurringRun,
    RecurringSchedule,
    StatementLine,
    Tax,
    Transaction,
    WebhookDelivery,
    WebhookEndpoint,
);

/// Copies of the records of `tenant` in `records` that `keep` accepts, in the table's
/// order: the lookup of a table without soft deletes (events, payments, runs, ...).
pub(crate) fn of_tenant<T: Tenanted + Clone>(
    records: &[T],
    tenant: &Tenant,
    keep: impl Fn(&T) -> bool,
) -> Vec<T> {
    records
        .iter()
        .filter(|r| in_tenant(tenant, r.organization_id(), r.livemode()) && keep(r))
        .cloned()
        .collect()
}

/// Sorts `records` oldest first (`created_at`, then `id`), as the SQL store orders them.
pub(crate) fn sort_oldest_first<T: Tenanted>(records: &mut [T]) {
    records.sort_by(|a, b| (a.created_at(), a.id()).cmp(&(b.created_at(), b.id())));
}

/// Sorts `records` newest first (`created_at`, then `id`, both descending).
pub(crate) fn sort_newest_first<T: Tenanted>(records: &mut [T]) {
    records.sort_by(|a, b| (b.created_at(), b.id()).cmp(&(a.created_at(), a.id())));
}

/// The position in `rows` of the live record `id` of `tenant`.
pub(crate) fn live_in<T: Tenanted>(rows: &[Row<T>], tenant: &Tenant, id: &str) -> Option<usize> {
    rows.iter().position(|r| {
        r.is_live()
            && r.value.id() == id
            && in_tenant(tenant, r.value.organization_id(), r.value.livemode())
    })
}

/// The live record `id` of `tenant` in `rows`, to change in place.
pub(crate) fn live_mut<'a, T: Tenanted>(
    rows: &'a mut [Row<T>],
    tenant: &Tenant,
    id: &str,
) -> Option<&'a mut T> {
    live_in(rows, tenant, id).map(|i| &mut rows[i].value)
}

/// The tenant a record lives in.
pub(crate) fn tenant_of<T: Tenanted>(record: &T) -> Tenant {
    Tenant {
        organization_id: record.organization_id().to_owned(),
        livemode: record.livemode(),
    }
}

/// A copy of the live record `id` of `tenant` in `rows`.
pub(crate) fn live_copy<T: Tenanted + Clone>(
    rows: &[Row<T>],
    tenant: &Tenant,
    id: &str,
) -> Option<T> {
    live_in(rows, tenant, id).map(|i| rows[i].value.clone())
}

/// The live records of `tenant` in `rows`, in the table's order.
pub(crate) fn live_rows<'a, T: Tenanted>(
    rows: &'a [Row<T>],
    tenant: &'a Tenant,
) -> impl Iterator<Item = &'a T> {
    rows.iter()
        .filter(move |r| {
            r.is_live() && in_tenant(tenant, r.value.organization_id(), r.value.livemode())
        })
        .map(|r| &r.value)
}

/// Copies of the live records of `tenant` in `rows` that `keep` accepts, in the table's
/// order.
pub(crate) fn live_where<T: Tenanted + Clone>(
    rows: &[Row<T>],
    tenant: &Tenant,
    keep: impl Fn(&T) -> bool,
) -> Vec<T> {
    live_rows(rows, tenant)
        .filter(|r| keep(r))
        .cloned()
        .collect()
}

/// Stores a new record `what` in `rows` and answers it; its id already used in its
/// organization (the primary key) is an internal error.
pub(crate) fn insert_new<T: Tenanted + Clone>(
    rows: &mut Vec<Row<T>>,
    record: T,
    what: &str,
) -> StoreResult<T> {
    let same = |r: &T| r.organization_id() == record.organization_id() && r.id() == record.id();
    push_new(rows, record.clone(), same, what, record.id())?;
    Ok(record)
}

/// The position in `rows` of the live record stored under `record`'s id in its tenant;
/// `Missing` (of `resource`) when there is none.
pub(crate) fn stored_index<T: Tenanted>(
    rows: &[Row<T>],
    record: &T,
    resource: Resource,
) -> StoreResult<usize> {
    live_in(rows, &tenant_of(record), record.id())
        .ok_or_else(|| StoreError::missing(resource, record.id()))
}

/// The live record stored under `record`'s id in its tenant, to update in place;
/// `Missing` (of `resource`) when there is none.
pub(crate) fn stored_mut<'a, T: Tenanted>(
    rows: &'a mut [Row<T>],
    record: &T,
    resource: Resource,
) -> StoreResult<&'a mut T> {
    let index = stored_index(rows, record, resource)?;
    Ok(&mut rows[index].value)
}

/// Port methods over one table of [`Tenanted`] records (the path from the store's state
/// to its rows), that read or write it as every such table does: `fn name(get) -> Record:
/// table;` the live record of the tenant by id, `fn name(page) -> Record: table;` a page of
/// the tenant's live records, oldest first, and `fn name(delete) -> Resource: table;` an
/// audited soft delete ([`State::soft_delete`]).
macro_rules! table_methods {
    () => {};
    (fn $name:ident(get) -> $record:ty: $($table:ident).+; $($rest:tt)*) => {
        async fn $name(
            &self,
            tenant: &$crate::ports::Tenant,
            id: &str,
        ) -> $crate::ports::StoreResult<Option<$record>> {
            let state = self.state();
            Ok($crate::memory::tenanted::live_copy(&state.$($table).+, tenant, id))
        }
        table_methods! { $($rest)* }
    };
    (fn $name:ident(page) -> $record:ty: $($table:ident).+; $($rest:tt)*) => {
        async fn $name(
            &self,
            tenant: &$crate::ports::Tenant,
            page: $crate::ports::PageRequest,
        ) -> $crate::ports::StoreResult<$crate::ports::Page<$record>> {
            let state = self.state();
            Ok($crate::memory::tenanted::live_page(&state.$($table).+, tenant, page))
        }
        table_methods! { $($rest)* }
    };
    (fn $name:ident(delete) -> $resource:ident: $($table:ident).+; $($rest:tt)*) => {
        async fn $name(
            &self,
            id: &str,
            deletion: $crate::events::Deletion,
            audit: $crate::ports::Audit,
        ) -> $crate::ports::StoreResult<$crate::ports::Written<()>> {
            let resource = $crate::error::Resource::$resource;
            self.state().audited(audit, |state| {
                state.soft_delete(|s| &mut s.$($table).+, resource, id, deletion)
            })
        }
        table_methods! { $($rest)* }
    };
}
pub(super) use table_methods;

/// One page of the live records of `tenant` in `rows`, oldest first (`created_at`, then
/// `id`), as the SQL store orders them.
pub(crate) fn live_page<T: Tenanted + Clone>(
    rows: &[Row<T>],
    tenant: &Tenant,
    page: PageRequest,
) -> Page<T> {
    let mut found = live_where(rows, tenant, |_| true);
    sort_oldest_first(&mut found);
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
