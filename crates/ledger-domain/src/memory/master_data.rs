//! Taxes and categories in memory: synchronous writes, each with its event, credits and
//! idempotency record (`State::audited`, the SQL adapter's `audited!`), and reads.
//!
//! Order of the checks, as in the SQL adapter: the key's replay, the credits, then the
//! write's own refusals ("in use" before "not found" for deletes).

use crate::categories::Category;
use crate::error::Resource;
use crate::events::{Deletion, Event};
use crate::ports::StoreError;
use crate::ports::{
    Audit, Categories, CategoryFilter, CreditCharge, IdempotencyRecord, Page, PageRequest,
    StoreResult, TaxFilter, Taxes, Tenant, Written,
};
use crate::tax::Tax;

use super::tenanted::live_in;
use super::{MemoryStore, State, in_tenant, page_of, push_new, tenant_of_deletion};

impl State {
    fn live_tax(&self, tenant: &Tenant, id: &str) -> Option<usize> {
        live_in(&self.taxes, tenant, id)
    }

    /// The shared start of an audited write: `Some(first)` when the key replays, else the
    /// credits are checked (and taken with the key by [`State::commit_audited`]).
    pub(super) fn begin_audited(
        &self,
        idempotency: Option<&IdempotencyRecord>,
        charge: Option<&CreditCharge>,
    ) -> StoreResult<Option<IdempotencyRecord>> {
        if let Some(first) = self.replay_of(idempotency) {
            return Ok(Some(first));
        }
        self.check_charge(charge)?;
        Ok(None)
    }

    /// The shared end of an audited write whose checks passed: the key, the credits and
    /// the event.
    pub(super) fn commit_audited(
        &mut self,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<&CreditCharge>,
        event: Event,
    ) {
        self.put_idempotency(idempotency);
        self.take_charge(charge);
        self.events.push(event);
    }

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
        if let Some(first) = self.begin_audited(idempotency.as_ref(), charge.as_ref())? {
            return Ok(Written::Replay(first));
        }
        let value = write(self)?;
        self.commit_audited(idempotency, charge.as_ref(), event);
        Ok(Written::Done(value))
    }
}

fn tenant_of(organization_id: &str, livemode: bool) -> Tenant {
    Tenant {
        organization_id: organization_id.to_owned(),
        livemode,
    }
}

impl Taxes for MemoryStore {
    async fn insert_tax(&self, tax: Tax, audit: Audit) -> StoreResult<Written<Tax>> {
        self.state().audited(audit, |state| {
            let same = |t: &Tax| t.organization_id == tax.organization_id && t.id == tax.id;
            push_new(&mut state.taxes, tax.clone(), same, "tax", &tax.id)?;
            Ok(tax)
        })
    }

    async fn update_tax(&self, tax: Tax, audit: Audit) -> StoreResult<Written<Tax>> {
        self.state().audited(audit, |state| {
            let tenant = tenant_of(&tax.organization_id, tax.livemode);
            let Some(index) = state.live_tax(&tenant, &tax.id) else {
                return Err(StoreError::missing(Resource::Tax, &tax.id));
            };
            let stored = &mut state.taxes[index].value;
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

    async fn get_tax(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Tax>> {
        let state = self.state();
        Ok(state
            .live_tax(tenant, id)
            .map(|i| state.taxes[i].value.clone()))
    }

    async fn list_taxes(
        &self,
        tenant: &Tenant,
        filter: &TaxFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Tax>> {
        let state = self.state();
        let mut found: Vec<Tax> = state
            .taxes
            .iter()
            .filter(|t| {
                t.is_live()
                    && in_tenant(tenant, &t.value.organization_id, t.value.livemode)
                    && filter.tax_type.is_none_or(|k| t.value.tax_type == k)
                    && filter.is_active.is_none_or(|a| t.value.is_active == a)
            })
            .map(|t| t.value.clone())
            .collect();
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
            let same =
                |c: &Category| c.organization_id == category.organization_id && c.id == category.id;
            push_new(
                &mut state.categories,
                category.clone(),
                same,
                "category",
                &category.id,
            )?;
            Ok(category)
        })
    }

    async fn update_category(
        &self,
        category: Category,
        audit: Audit,
    ) -> StoreResult<Written<Category>> {
        self.state().audited(audit, |state| {
            let tenant = tenant_of(&category.organization_id, category.livemode);
            let Some(index) = state.live_category(&tenant, &category.id) else {
                return Err(StoreError::missing(Resource::Category, &category.id));
            };
            let stored = &mut state.categories[index].value;
            stored.name = category.name.clone();
            stored.description = category.description.clone();
            stored.color = category.color.clone();
            stored.is_active = category.is_active;
            stored.parent_id = category.parent_id.clone();
            stored.updated_at = category.updated_at;
            Ok(category)
        })
    }

    async fn get_category(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Category>> {
        let state = self.state();
        Ok(state
            .live_category(tenant, id)
            .map(|i| state.categories[i].value.clone()))
    }

    async fn list_categories(
        &self,
        tenant: &Tenant,
        filter: &CategoryFilter,
        page: Option<PageRequest>,
    ) -> StoreResult<Page<Category>> {
        let state = self.state();
        let mut found: Vec<Category> = state
            .categories
            .iter()
            .filter(|c| {
                c.is_live()
                    && in_tenant(tenant, &c.value.organization_id, c.value.livemode)
                    && filter
                        .category_type
                        .is_none_or(|k| c.value.category_type == k)
                    && filter.is_active.is_none_or(|a| c.value.is_active == a)
                    && filter
                        .parent_id
                        .as_ref()
                        .is_none_or(|p| c.value.parent_id.as_ref() == Some(p))
            })
            .map(|c| c.value.clone())
            .collect();
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
