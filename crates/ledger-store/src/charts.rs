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

use std::sync::Arc;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::accounts::AccountType;
use ledger_domain::ports::{StoreResult, Tenant};

use crate::chart_cache::ChartRow;
use crate::db::Db;
use crate::schema::{accounts, chart_versions};

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
