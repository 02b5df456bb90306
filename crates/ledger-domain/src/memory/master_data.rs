//! Taxes and categories in memory: synchronous writes, each with its event, credits and
//! idempotency record (`State::audited`, the SQL adapter's `audited!`), and reads.
//!
//! Order of the checks, as in the SQL adapter: the key's replay, the credits, then the
//! write's own refusals ("in use" before "not found" for deletes).

use crate::categories::Category;
use crate::error::Resource;
use crate::events::{Deletion, Event};
use crate::ports::{
    Audit, Categories, CategoryFilter, CreditCharge, IdempotencyRecord, Page, PageRequest,
    StoreResult, TaxFilter, Taxes, Tenant, Written,
};
use crate::tax::Tax;

use super::tenanted::{insert_new, live_where, stored_mut, table_methods};
use super::{MemoryStore, State, page_of, tenant_of_deletion};

impl State {
    /// One audited write ([`Audit`]), in the SQL store's order: a key already used
    /// replays its first answer and writes nothing; short credits refuse; then `write`
    /// runs, and only when it succeeds are the key, the credits and the event kept.
    pub(super) fn audited<T>(
        &mut self,
        audit: Audit,
        write: impl FnOnce(&mut Self) -> StoreResult<T>,
    ) -> StoreResult<Written<T>> {
        let Audit {
            event,
            idempotency,
            charge,
        } = audit;
        self.audited_events(idempotency, charge, vec![event], write)
    }

    /// [`State::audited`] for a write that records several events (an ownership
    /// transfer's, one in each side's modes): the same order, every event kept or none.
    pub(super) fn audited_events<T>(
        &mut self,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
        events: Vec<Event>,
        write: impl FnOnce(&mut Self) -> StoreResult<T>,
    ) -> StoreResult<Written<T>> {
        if let Some(first) = self.replay_of(idempotency.as_ref()) {
            return Ok(Written::Replay(first));
        }
        self.check_charge(charge.as_ref())?;
        let value = write(self)?;
        self.put_idempotency(idempotency);
        self.take_charge(charge.as_ref());
        self.events.extend(events);
        Ok(Written::Done(value))
    }
}

impl Taxes for MemoryStore {
    async fn insert_tax(&self, tax: Tax, audit: Audit) -> StoreResult<Written<Tax>> {
        self.state()
            .audited(audit, |state| insert_new(&mut state.taxes, tax, "tax"))
    }

    async fn update_tax(&self, tax: Tax, audit: Audit) -> StoreResult<Written<Tax>> {
        self.state().audited(audit, |state| {
            let stored = stored_mut(&mut state.taxes, &tax, Resource::Tax)?;
            stored.name = tax.name.clone();
            stored.description = tax.description.clone();
            stored.rate = tax.rate;
            stored.tax_type = tax.tax_type;
            stored.is_compound = tax.is_compound;
            stored.is_active = tax.is_active;
            stored.updated_at = tax.updated_at;
            Ok(tax)
        })
    }

    table_methods! {
        fn get_tax(get) -> Tax: taxes;
    }

    async fn list_taxes(
        &self,
        tenant: &Tenant,
        filter: &TaxFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Tax>> {
        let mut found = live_where(&self.state().taxes, tenant, |t| {
            filter.tax_type.is_none_or(|k| t.tax_type == k)
                && filter.is_active.is_none_or(|a| t.is_active == a)
        });
        found.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        Ok(page_of(found, Some(page)))
    }

    async fn delete_tax(
        &self,
        tax_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        self.state().audited(audit, |state| {
            if let Some(refusal) =
                state.in_use(&tenant_of_deletion(&deletion), Resource::Tax, tax_id)
            {
                return Err(refusal);
            }
            state.soft_delete(|s| &mut s.taxes, Resource::Tax, tax_id, deletion)
        })
    }
}

impl Categories for MemoryStore {
    async fn insert_category(
        &self,
        category: Category,
        audit: Audit,
    ) -> StoreResult<Written<Category>> {
        self.state().audited(audit, |state| {
            insert_new(&mut state.categories, category, "category")
        })
    }

    async fn update_category(
        &self,
        category: Category,
        audit: Audit,
    ) -> StoreResult<Written<Category>> {
        self.state().audited(audit, |state| {
            let stored = stored_mut(&mut state.categories, &category, Resource::Category)?;
            stored.name = category.name.clone();
            stored.description = category.description.clone();
            stored.color = category.color.clone();
            stored.is_active = category.is_active;
            stored.parent_id = category.parent_id.clone();
            stored.updated_at = category.updated_at;
            Ok(category)
        })
    }

    table_methods! {
        fn get_category(get) -> Category: categories;
    }

    async fn list_categories(
        &self,
        tenant: &Tenant,
        filter: &CategoryFilter,
        page: Option<PageRequest>,
    ) -> StoreResult<Page<Category>> {
        let mut found = live_where(&self.state().categories, tenant, |c| {
            filter.category_type.is_none_or(|k| c.category_type == k)
                && filter.is_active.is_none_or(|a| c.is_active == a)
                && filter
                    .parent_id
                    .as_ref()
                    .is_none_or(|p| c.parent_id.as_ref() == Some(p))
        });
        found.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        Ok(page_of(found, page))
    }

    async fn delete_category(
        &self,
        category_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        self.state().audited(audit, |state| {
            if let Some(refusal) = state.in_use(
                &tenant_of_deletion(&deletion),
                Resource::Category,
                category_id,
            ) {
                return Err(refusal);
            }
            state.soft_delete(
                |s| &mut s.categories,
                Resource::Category,
                category_id,
                deletion,
            )
        })
    }
}
