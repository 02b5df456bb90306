//! The charts reports keep in memory, by tenant, each with the count of chart changes it
//! was read at (see `charts` for why a kept chart is exact).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use ledger_domain::accounts::AccountType;
use ledger_domain::ports::Tenant;

/// One account of a chart, as reports show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChartRow {
    pub(crate) id: String,
    pub(crate) code: String,
    pub(crate) name: String,
    pub(crate) account_type: AccountType,
    pub(crate) currency: String,
}

/// Charts kept: at most this many rows in all (about 150 bytes each), so a few
/// thousand tenants with ordinary charts fit and memory stays bounded whatever the
/// number of tenants. A chart bigger than a quarter of it is not kept.
const MAX_ROWS: usize = 40_000;

/// The kept charts, by tenant, with the count each was read at.
#[derive(Default)]
pub(crate) struct ChartCache {
    inner: Mutex<Kept>,
}

/// A tenant: its organization and mode.
type TenantKey = (String, bool);

#[derive(Default)]
struct Kept {
    /// Each tenant's chart with the count it was read at.
    charts: HashMap<TenantKey, (i64, Arc<[ChartRow]>)>,
    rows: usize,
}

impl ChartCache {
    /// The tenant's chart if it was kept at `version`.
    pub(crate) fn get(&self, tenant: &Tenant, version: i64) -> Option<Arc<[ChartRow]>> {
        let kept = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        kept.charts
            .get(&(tenant.organization_id.clone(), tenant.livemode))
            .filter(|(at, _)| *at == version)
            .map(|(_, rows)| rows.clone())
    }

    /// Keeps `rows` as the tenant's chart at `version`, unless a chart kept at a later
    /// count is already there (a slower reader must not put an older chart back).
    pub(crate) fn put(&self, tenant: &Tenant, version: i64, rows: Arc<[ChartRow]>) {
        if rows.len() > MAX_ROWS / 4 {
            return;
        }
        let mut kept = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (tenant.organization_id.clone(), tenant.livemode);
        if let Some((at, old)) = kept.charts.get(&key) {
            if *at > version {
                return;
            }
            let old = old.len();
            kept.rows -= old;
        }
        // Full: forget charts (in no particular order) until this one fits.
        while kept.rows + rows.len() > MAX_ROWS {
            let Some(victim) = kept.charts.keys().find(|k| **k != key).cloned() else {
                break;
            };
            if let Some((_, gone)) = kept.charts.remove(&victim) {
                kept.rows -= gone.len();
            }
        }
        kept.rows += rows.len();
        kept.charts.insert(key, (version, rows));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenant(org: &str, livemode: bool) -> Tenant {
        Tenant {
            organization_id: org.into(),
            livemode,
        }
    }

    fn chart(n: usize) -> Arc<[ChartRow]> {
        (0..n)
            .map(|i| ChartRow {
                id: format!("act_{i}"),
                code: format!("{i}"),
                name: format!("Account {i}"),
                account_type: AccountType::Asset,
                currency: "USD".into(),
            })
            .collect()
    }

    #[test]
    fn a_chart_serves_only_at_the_count_it_was_read_at() {
        let cache = ChartCache::default();
        let t = tenant("org_a", false);
        assert!(cache.get(&t, 1).is_none());
        cache.put(&t, 1, chart(3));
        assert_eq!(cache.get(&t, 1).map(|c| c.len()), Some(3));
        assert!(cache.get(&t, 2).is_none(), "a later count misses");
        assert!(cache.get(&t, 0).is_none(), "an earlier count misses");
        // The other mode and another organization have charts of their own.
        assert!(cache.get(&tenant("org_a", true), 1).is_none());
        assert!(cache.get(&tenant("org_b", false), 1).is_none());
    }

    #[test]
    fn an_older_chart_does_not_replace_a_newer_one() {
        let cache = ChartCache::default();
        let t = tenant("org_a", false);
        cache.put(&t, 5, chart(2));
        cache.put(&t, 4, chart(7));
        assert_eq!(cache.get(&t, 5).map(|c| c.len()), Some(2));
        assert!(cache.get(&t, 4).is_none());
        cache.put(&t, 6, chart(1));
        assert_eq!(cache.get(&t, 6).map(|c| c.len()), Some(1));
    }

    #[test]
    fn memory_stays_bounded_whatever_the_number_of_tenants() {
        let cache = ChartCache::default();
        let size = MAX_ROWS / 8;
        for i in 0..40 {
            cache.put(&tenant(&format!("org_{i}"), false), 1, chart(size));
            let kept = cache.inner.lock().unwrap();
            assert!(kept.rows <= MAX_ROWS, "{} rows kept", kept.rows);
            assert_eq!(
                kept.rows,
                kept.charts.values().map(|(_, c)| c.len()).sum::<usize>()
            );
        }
        // The last one put is there; a chart too big to keep is not.
        assert!(cache.get(&tenant("org_39", false), 1).is_some());
        let big = tenant("org_big", false);
        cache.put(&big, 1, chart(MAX_ROWS / 4 + 1));
        assert!(cache.get(&big, 1).is_none());
    }
}
