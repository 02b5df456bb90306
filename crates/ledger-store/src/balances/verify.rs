//! The operator's check of the maintained totals: every running and daily total
//! recomputed from the journal and compared with what is stored.

use std::collections::BTreeMap;

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_async::RunQueryDsl;
use ledger_domain::accounts::Totals;
use ledger_domain::ports::StoreResult;
use time::{Date, PrimitiveDateTime};

use super::{CREDIT_SUM, DEBIT_SUM, EPOCH, Sums, day_number, floor_day};
use crate::db::Db;
use crate::schema::{account_daily_totals as adt, account_totals as at, ledger_entries as le};

/// A maintained total that differs from the journal (see [`Db::verify_balances`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotalsDifference {
    pub organization_id: String,
    pub livemode: bool,
    pub account_id: String,
    /// The day of a daily total; `None` for a running total.
    pub day: Option<Date>,
    /// Summed from the counted journal lines.
    pub journal: Totals,
    /// As maintained.
    pub stored: Totals,
    /// Counted journal lines.
    pub journal_entries: i64,
    /// Lines as maintained.
    pub stored_entries: i64,
}

/// Totals keyed by organization, mode, account and (for daily totals) day.
type Keyed = BTreeMap<(String, bool, String, Option<i32>), Sums>;

/// The journal's sums per organization, mode, account and day, as loaded.
type Line = (String, bool, String, PrimitiveDateTime, i64, i64, i64);
/// A running total as stored.
type Running = (String, bool, String, i64, i64, i64);
/// A daily total as stored.
type Daily = (String, bool, String, i32, i64, i64, i64);

impl Db {
    /// Recomputes every running and daily total from the journal and answers each one
    /// that differs from what is maintained (empty when the books agree). Reads the
    /// whole journal: an operator's check (`ledger-server verify-balances`), not a
    /// request path.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn verify_balances(&self) -> StoreResult<Vec<TotalsDifference>> {
        let (lines, running, days): (Vec<Line>, Vec<Running>, Vec<Daily>) =
            db_read!(self, |conn| {
                let lines: Vec<Line> = le::table
                    .filter(le::counted.eq(true))
                    .group_by((le::organization_id, le::livemode, le::account_id, le::date))
                    .select((
                        le::organization_id,
                        le::livemode,
                        le::account_id,
                        le::date,
                        sql::<BigInt>(DEBIT_SUM),
                        sql::<BigInt>(CREDIT_SUM),
                        sql::<BigInt>("CAST(COUNT(*) AS BIGINT)"),
                    ))
                    .load(conn)
                    .await?;
                let running = at::table
                    .select((
                        at::organization_id,
                        at::livemode,
                        at::account_id,
                        at::debit,
                        at::credit,
                        at::entries,
                    ))
                    .load(conn)
                    .await?;
                let days = adt::table
                    .select((
                        adt::organization_id,
                        adt::livemode,
                        adt::account_id,
                        adt::day,
                        adt::debit,
                        adt::credit,
                        adt::entries,
                    ))
                    .load(conn)
                    .await?;
                Ok((lines, running, days))
            })?;
        Ok(differences(
            &journal_keyed(lines),
            &stored_keyed(running, days),
        ))
    }
}

/// The journal's sums keyed by account, both as running totals and per day.
fn journal_keyed(lines: Vec<Line>) -> Keyed {
    let mut journal = Keyed::new();
    for (org, livemode, account, date, debit, credit, entries) in lines {
        let totals = Totals { debit, credit };
        for day in [None, Some(day_number(floor_day(date)))] {
            journal
                .entry((org.clone(), livemode, account.clone(), day))
                .or_default()
                .add(Sums { totals, entries });
        }
    }
    journal
}

/// The stored running and daily totals, keyed.
fn stored_keyed(running: Vec<Running>, days: Vec<Daily>) -> Keyed {
    let mut stored = Keyed::new();
    for (org, livemode, account, debit, credit, entries) in running {
        let totals = Totals { debit, credit };
        stored.insert((org, livemode, account, None), Sums { totals, entries });
    }
    for (org, livemode, account, day, debit, credit, entries) in days {
        let totals = Totals { debit, credit };
        stored.insert(
            (org, livemode, account, Some(day)),
            Sums { totals, entries },
        );
    }
    stored
}

/// Every total that differs between the journal and what is stored, in key order.
fn differences(journal: &Keyed, stored: &Keyed) -> Vec<TotalsDifference> {
    let keys: std::collections::BTreeSet<_> =
        journal.keys().chain(stored.keys()).cloned().collect();
    keys.into_iter()
        .filter_map(|key| {
            let journal = journal.get(&key).copied().unwrap_or_default();
            let stored = stored.get(&key).copied().unwrap_or_default();
            (journal != stored).then(|| {
                let (organization_id, livemode, account_id, day) = key;
                TotalsDifference {
                    organization_id,
                    livemode,
                    account_id,
                    day: day.map(|d| EPOCH + time::Duration::days(d.into())),
                    journal: journal.totals,
                    stored: stored.totals,
                    journal_entries: journal.entries,
                    stored_entries: stored.entries,
                }
            })
        })
        .collect()
}
