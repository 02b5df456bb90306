//! Organizations, users, credits and API keys in memory.

use crate::ports::StoreError;
use time::OffsetDateTime;

use crate::error::Resource;
use crate::events::{Deletion, Event};
use crate::organizations::{ApiKey, Organization, User};
use crate::ports::{
    ApiKeys, CreditCharge, NewOrganization, Organizations, Page, PageRequest, StoreResult, Tenant,
};

use super::tenanted::{live_copy, live_in, live_where, sort_newest_first, tenant_of};
use super::{Deleted, MemoryStore, Row, page_of, tenant_of_deletion};

fn key_not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::ApiKey, id)
}

impl Organizations for MemoryStore {
    async fn create_organization(&self, new: NewOrganization) -> StoreResult<Organization> {
        let NewOrganization {
            user,
            mut organization,
            accounts,
            keys,
            events,
        } = new;
        let mut state = self.state();
        // The checks the database's keys make, before anything is written.
        if state.organizations.contains_key(&organization.id) {
            return Err(StoreError::Internal(format!(
                "organization {} exists already",
                organization.id
            )));
        }
        if let Some(parent_id) = &organization.parent_id {
            let expected = state
                .organizations
                .get(parent_id)
                .map(|p| p.child_path(&organization.id));
            if expected.as_deref() != Some(organization.path.as_str()) {
                return Err(StoreError::changed(parent_id));
            }
        }
        for key in &keys {
            if state
                .keys
                .iter()
                .any(|k| k.value.key_hash == key.key_hash || k.value.id == key.id)
            {
                return Err(StoreError::Internal("an API key hash collided".into()));
            }
        }
        if let Some(user) = user {
            // A returning user (same provider id) keeps its row and owns the organization.
            match state
                .users
                .iter()
                .find(|u| u.provider_id == user.provider_id)
            {
                Some(existing) => organization.owner_user_id = existing.id.clone(),
                None => {
                    organization.owner_user_id = user.id.clone();
                    state.users.push(user);
                }
            }
        }
        if organization.is_root() {
            state.credit_pools.insert(
                organization.id.clone(),
                (0, crate::credits::period_of(organization.created_at)),
            );
            if organization.credits_remaining != 0 {
                state.add_ledger_entry(
                    &organization.id,
                    crate::credits::LedgerKind::Grant,
                    organization.credits_remaining,
                    Some(crate::credits::GRANT_ENTRY_ID.to_owned()),
                );
            }
        }
        state
            .organizations
            .insert(organization.id.clone(), organization.clone());
        state.accounts.extend(accounts.into_iter().map(Row::new));
        state.keys.extend(keys.into_iter().map(Row::new));
        state.events.extend(events);
        Ok(organization)
    }

    async fn find_user(&self, provider_id: &str) -> StoreResult<Option<User>> {
        let state = self.state();
        Ok(state
            .users
            .iter()
            .find(|u| u.provider_id == provider_id)
            .cloned())
    }

    async fn test_credits_used(&self, pool_id: &str) -> StoreResult<i64> {
        let state = self.state();
        Ok(state
            .usage
            .iter()
            .filter(|u| u.pool_id == pool_id)
            .map(|u| u.credits)
            .sum())
    }

    async fn get_organization(&self, id: &str) -> StoreResult<Option<Organization>> {
        Ok(self.state().organizations.get(id).cloned())
    }

    async fn list_descendants(
        &self,
        path: &str,
        page: crate::ports::PageRequest,
    ) -> StoreResult<crate::ports::Page<Organization>> {
        let state = self.state();
        let mut found: Vec<Organization> = state
            .organizations
            .values()
            .filter(|o| o.path.starts_with(path) && o.path != path)
            .cloned()
            .collect();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(super::page_of(found, Some(page)))
    }

    async fn get_user(&self, id: &str) -> StoreResult<Option<User>> {
        let state = self.state();
        Ok(state.users.iter().find(|u| u.id == id).cloned())
    }

    async fn spend_credits(
        &self,
        charge: CreditCharge,
        _usage_id: &str,
        _at: OffsetDateTime,
    ) -> StoreResult<()> {
        let mut state = self.state();
        state.check_charge(Some(&charge))?;
        state.take_charge(Some(&charge));
        Ok(())
    }
}

impl ApiKeys for MemoryStore {
    async fn find_principal_by_hash(
        &self,
        hash: &str,
    ) -> StoreResult<Option<(ApiKey, Organization)>> {
        let state = self.state();
        let live = || state.keys.iter().filter(|k| k.is_live());
        let key = live()
            .find(|k| k.value.key_hash == hash)
            .or_else(|| live().find(|k| k.value.previous_hash.as_deref() == Some(hash)));
        Ok(key.and_then(|k| {
            state
                .organizations
                .get(&k.value.organization_id)
                .map(|org| (k.value.clone(), org.clone()))
        }))
    }

    async fn insert_key(&self, key: ApiKey, event: Event) -> StoreResult<ApiKey> {
        let mut state = self.state();
        if state.keys.iter().any(|k| {
            k.value.key_hash == key.key_hash
                || (k.value.organization_id == key.organization_id && k.value.id == key.id)
        }) {
            return Err(StoreError::Internal("an API key hash collided".into()));
        }
        state.keys.push(Row::new(key.clone()));
        state.events.push(event);
        Ok(key)
    }

    async fn get_key(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<ApiKey>> {
        Ok(live_copy(&self.state().keys, tenant, id))
    }

    async fn list_keys(&self, tenant: &Tenant, page: PageRequest) -> StoreResult<Page<ApiKey>> {
        let mut keys = live_where(&self.state().keys, tenant, |_| true);
        sort_newest_first(&mut keys);
        Ok(page_of(keys, Some(page)))
    }

    async fn update_key(&self, key: ApiKey, event: Event) -> StoreResult<ApiKey> {
        let mut state = self.state();
        let Some(index) = live_in(&state.keys, &tenant_of(&key), &key.id) else {
            return Err(key_not_found(&key.id));
        };
        if state
            .keys
            .iter()
            .enumerate()
            .any(|(i, k)| i != index && k.value.key_hash == key.key_hash)
        {
            return Err(StoreError::Internal("an API key hash collided".into()));
        }
        let stored = &mut state.keys[index].value;
        stored.name = key.name.clone();
        stored.disabled = key.disabled;
        stored.key_hash = key.key_hash.clone();
        stored.last4 = key.last4.clone();
        stored.previous_hash = key.previous_hash.clone();
        stored.previous_expires_at = key.previous_expires_at;
        state.events.push(event);
        Ok(key)
    }

    async fn delete_key(&self, key_id: &str, deletion: Deletion, event: Event) -> StoreResult<()> {
        let mut state = self.state();
        let Some(index) = live_in(&state.keys, &tenant_of_deletion(&deletion), key_id) else {
            return Err(key_not_found(key_id));
        };
        state.keys[index].deleted = Some(Deleted::from(&deletion));
        state.record_deletion(deletion);
        state.events.push(event);
        Ok(())
    }
}
