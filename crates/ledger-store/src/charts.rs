//! Each tenant's chart as reports read it, kept in memory while it stays the same.
//!
//! A report (trial balance, balance sheet, income statement) lists the whole chart: every
//! account's id, code, name, type and currency beside its totals. The totals move with
//! every posting and are read each time; the chart changes rarely (an account added,
//! renamed, deleted), so reading its rows again for every report was most of a report's
//! database work and of its decoding (docs/decisions.md, "Session 16: a report's chart
//! read once per change"). The database counts the changes (`chart_versions`, bumped by
//! triggers on `accounts` in the writer's own transaction, whichever process writes), and
//! a kept chart serves only while the count it was read at is still the count.
//!
//! Why that is exact: the count is read before the chart, in a statement of its own, and
//! a change commits its rows and its bump together. So a chart read after the count `v`
//! shows every change up to `v` (and maybe later ones, which bumped the count past `v`:
//! the next reader then sees a different count and reads the chart again). A kept chart
//! is never older than the count it is kept under.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::accounts::AccountType;
use ledger_domain::ports::{StoreResult, Tenant};

use crate::db::Db;
use crate::schema::{accounts, chart_versions};

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

impl Db {
    /// The tenant's chart (accounts not deleted, by code: unique among them), from
    /// memory while the database's count of its changes is the one it was read at.
    pub(crate) async fn chart(&self, tenant: &Tenant) -> StoreResult<Arc<[ChartRow]>> {
        // No row yet: no account was ever written, nothing to tell apart from 0.
        let version: i64 = db_read!(self, |conn| {
            Ok(chart_versions::table
                .find(&tenant.organization_id)
                .select(chart_versions::version)
                .first::<i64>(conn)
                .await
                .optional()?
                .unwrap_or(0))
        })?;
        if let Some(chart) = self.charts.get(tenant, version) {
            return Ok(chart);
        }
        // Only the columns a report shows (no metadata to parse, no timestamps), in the
        // code index's order without a sort.
        type Line = (String, String, String, String, String);
        macro_rules! chart {
            ($org:expr) => {
                accounts::table
                    .filter(tenant_of!(accounts, $org, tenant.livemode))
                    .filter(accounts::deleted_at.is_null())
                    .order(accounts::code.asc())
                    .select((
                        accounts::id,
                        accounts::code,
                        accounts::name,
                        accounts::account_type,
                        accounts::currency,
                    ))
            };
        }
        let lines: Vec<Line> = db_read!(
            self,
            postgres | conn | { Ok(chart!(&tenant.organization_id).load(conn).await?) },
            sqlite | conn | {
                Ok(crate::db::sqlite_load(conn, chart!(tenant.organization_id.clone())).await?)
            }
        )?;
        let chart = lines
            .into_iter()
            .map(|(id, code, name, kind, currency)| {
                Ok(ChartRow {
                    account_type: AccountType::parse(&kind)
                        .ok_or_else(|| crate::rows::corrupt("account type", &kind))?,
                    id,
                    code,
                    name,
                    currency,
                })
            })
            .collect::<StoreResult<Arc<[ChartRow]>>>()?;
        self.charts.put(tenant, version, chart.clone());
        Ok(chart)
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
