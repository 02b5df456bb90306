//! Short-lived copies of accounts for validating new entries.
//!
//! A waited transaction create reads its accounts only to validate them (they exist in
//! the tenant, accept postings, share the currency); the write itself share-locks them
//! and re-checks that they are live and active in the same database transaction, so a
//! stale copy can never post to a deleted or inactive account — at worst, within the
//! time to live, a write is refused at commit instead of at validation. Changes made
//! through this process forget the copy at once; other processes' changes show after
//! the time to live.

use std::time::Duration;

use super::ttl_cache::TtlCache;
use crate::accounts::Account;
use crate::ports::Tenant;

type Key = (String, bool, String);

/// The cache; a time to live of zero turns it off.
pub(crate) struct AccountCache(TtlCache<Key, Account>);

fn key(tenant: &Tenant, id: &str) -> Key {
    (
        tenant.organization_id.clone(),
        tenant.livemode,
        id.to_owned(),
    )
}

impl AccountCache {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self(TtlCache::new(ttl))
    }

    /// Lookups answered from the cache and not.
    pub(crate) fn lookups(&self) -> (u64, u64) {
        self.0.lookups()
    }

    /// The fresh copies among `ids`, and the ids to read.
    pub(crate) fn get(&self, tenant: &Tenant, ids: &[String]) -> (Vec<Account>, Vec<String>) {
        if self.0.is_off() {
            return (Vec::new(), ids.to_vec());
        }
        let keys: Vec<Key> = ids.iter().map(|id| key(tenant, id)).collect();
        let mut found = Vec::with_capacity(ids.len());
        let mut missing = Vec::new();
        for (id, copy) in ids.iter().zip(self.0.get_many(&keys)) {
            match copy {
                Some(account) => found.push(account),
                None => missing.push(id.clone()),
            }
        }
        (found, missing)
    }

    /// Remembers accounts just read.
    pub(crate) fn put(&self, tenant: &Tenant, accounts: &[Account]) {
        self.0
            .put_many(accounts.iter().map(|a| (key(tenant, &a.id), a.clone())));
    }

    /// Forgets an account that changed or was deleted.
    pub(crate) fn forget(&self, tenant: &Tenant, id: &str) {
        self.0.forget(&key(tenant, id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::{AccountStatus, AccountType};

    fn account(id: &str) -> Account {
        let now = time::OffsetDateTime::UNIX_EPOCH;
        Account {
            organization_id: "org_a".into(),
            livemode: false,
            id: id.into(),
            code: "1000".into(),
            name: "Cash".into(),
            account_type: AccountType::Asset,
            subtype: None,
            parent_id: None,
            currency: "USD".into(),
            status: AccountStatus::Active,
            description: None,
            metadata: serde_json::json!({}),
            is_system: false,
            created_at: now,
            updated_at: now,
        }
    }

    fn tenant(org: &str) -> Tenant {
        Tenant {
            organization_id: org.into(),
            livemode: false,
        }
    }

    #[test]
    fn serves_fresh_copies_of_its_tenant_and_forgets_on_demand() {
        let cache = AccountCache::new(Duration::from_secs(60));
        let ids = vec!["act_1".to_owned(), "act_2".to_owned()];
        assert_eq!(cache.get(&tenant("org_a"), &ids).1, ids);
        cache.put(&tenant("org_a"), &[account("act_1")]);
        let (found, missing) = cache.get(&tenant("org_a"), &ids);
        assert_eq!(found, vec![account("act_1")]);
        assert_eq!(missing, vec!["act_2".to_owned()]);
        // Another tenant (or mode) never sees it.
        assert_eq!(cache.get(&tenant("org_b"), &ids).1, ids);
        let test_mode = Tenant {
            livemode: true,
            ..tenant("org_a")
        };
        assert_eq!(cache.get(&test_mode, &ids).1, ids);
        cache.forget(&tenant("org_a"), "act_1");
        assert_eq!(cache.get(&tenant("org_a"), &ids).1, ids);
    }

    #[test]
    fn a_zero_time_to_live_keeps_nothing() {
        let cache = AccountCache::new(Duration::ZERO);
        cache.put(&tenant("org_a"), &[account("act_1")]);
        let ids = vec!["act_1".to_owned()];
        assert_eq!(cache.get(&tenant("org_a"), &ids).1, ids);
    }
}
