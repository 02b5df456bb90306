//! The scale phase: reads on an account whose history grows from 10^3 to 10^6 entries.
//!
//! Two fresh accounts are seeded by set-based SQL (`ledger_store::bench::seed_history`,
//! dated over 1 000 days, the maintained totals kept by their triggers as for any write),
//! and the organization's chart is grown to 200 accounts. At each size the same number of
//! balance reads, balance-as-of reads (a date in the middle of the history) and trial
//! balances run with the bench's concurrency. Maintained balances keep the figures flat:
//! a balance costs one row and a report the accounts' totals, whatever the history.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use ledger_store::Db;
use ledger_store::bench::{BaselineTarget, seed_history};
use serde_json::{Value, json};

use super::load::{Phase, Target, load};
use super::process::RssSampler;
use super::{Options, round};

/// Entries per account at each step.
pub(super) const SIZES: [u64; 3] = [1_000, 100_000, 1_000_000];
/// Accounts in the chart the trial balance reports on.
const ACCOUNTS: usize = 200;
/// Requests per read phase at each size: as many reports as balances, so that a p99 is
/// the 30th slowest of 3 000 rather than the 6th of 600.
const READS: u64 = 3_000;
const REPORTS: u64 = 3_000;

/// Where the server's resident set is recorded: the seeding and the reads of each size
/// are laps of their own.
pub(super) struct Phases<'a> {
    pub(super) sampler: &'a RssSampler,
    pub(super) rss_by_phase: &'a mut Vec<(String, u64)>,
}

/// Runs the scale phase up to `options.scale_max` entries per account.
pub(super) async fn scale(
    options: &Options,
    client: &reqwest::Client,
    target: &Target,
    database_url: &str,
    phases: Phases<'_>,
) -> anyhow::Result<Value> {
    let max_entries = options.scale_max;
    let seeded = Target {
        cash: create_account(client, target, "1901", "Scale asset", "asset").await?,
        sales: create_account(client, target, "4901", "Scale revenue", "revenue").await?,
        ..target.clone()
    };
    let mut code = 6000;
    let existing = count_accounts(client, target).await?;
    for _ in existing..ACCOUNTS {
        code += 1;
        create_account(
            client,
            target,
            &code.to_string(),
            "Scale expense",
            "expense",
        )
        .await?;
    }
    let db = Db::connect(database_url, 2)
        .await
        .context("opening the database to seed history")?;
    let rows = BaselineTarget {
        organization_id: target.org.clone(),
        livemode: false,
        currency: target.currency.clone(),
        debit_account_id: seeded.cash.clone(),
        credit_account_id: seeded.sales.clone(),
    };
    let mut steps = Vec::new();
    let mut have = 0;
    for size in SIZES.into_iter().filter(|&s| s <= max_entries) {
        eprintln!("xtask bench: scale: seeding to {size} entries per account");
        let started = Instant::now();
        seed_history(&db, &rows, have, size - have, 1_000)
            .await
            .context("seeding history")?;
        let seed_seconds = started.elapsed().as_secs_f64();
        phases
            .rss_by_phase
            .push((format!("scale_seed_{size}"), phases.sampler.lap()));
        have = size;
        let bounded = |requests| Options {
            requests: Some(requests),
            duration: Duration::from_secs(120),
            ..options.clone()
        };
        let balance = load(&bounded(READS), client, &seeded, Phase::ReadBalance).await;
        let as_of = load(&bounded(READS), client, &seeded, Phase::BalanceAsOf).await;
        let report = load(&bounded(REPORTS), client, &seeded, Phase::TrialBalance).await;
        phases
            .rss_by_phase
            .push((format!("scale_reads_{size}"), phases.sampler.lap()));
        steps.push(json!({
            "entries_per_account": size,
            "seed_seconds": round(seed_seconds, 1),
            "balance": balance.to_json(),
            "balance_as_of": as_of.to_json(),
            "trial_balance": report.to_json(),
        }));
    }
    Ok(json!({ "accounts": ACCOUNTS, "steps": steps }))
}

async fn count_accounts(client: &reqwest::Client, target: &Target) -> anyhow::Result<usize> {
    let response = target
        .get(client, "accounts?limit=1")
        .send()
        .await
        .context("counting accounts")?;
    let body: Value = response.json().await.context("reading the account count")?;
    body["total_count"]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .context("account list without total_count")
}

async fn create_account(
    client: &reqwest::Client,
    target: &Target,
    code: &str,
    name: &str,
    account_type: &str,
) -> anyhow::Result<String> {
    let response = target
        .post(client, "accounts")
        .json(&json!({ "code": code, "name": name, "account_type": account_type }))
        .send()
        .await
        .context("creating an account")?;
    let status = response.status();
    let body: Value = response.json().await.context("reading the new account")?;
    if status.as_u16() != 201 {
        bail!("creating account {code} answered {status}: {body}");
    }
    body["id"]
        .as_str()
        .map(str::to_owned)
        .context("new account without an id")
}
