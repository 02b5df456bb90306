//! The load: bounded loops of HTTP requests (or plain-SQL baseline inserts) from N
//! concurrent tasks, and their latencies.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use ledger_store::Db;
use ledger_store::bench::{BaselineTarget, insert_posted_transaction};
use serde_json::{Value, json};

use super::{AMOUNT_UNITS, Options, pool_size, round};

/// What a load phase needs to know about the organization.
#[derive(Clone)]
pub(crate) struct Target {
    pub(crate) base: String,
    pub(crate) key: String,
    pub(crate) org: String,
    pub(crate) cash: String,
    pub(crate) sales: String,
    /// The currency of the two accounts (the organization's base currency).
    pub(crate) currency: String,
}

impl Target {
    /// `GET {base}/organizations/{org}/{path}` under the organization's key.
    pub(crate) fn get(&self, client: &reqwest::Client, path: &str) -> reqwest::RequestBuilder {
        client.get(self.url(path)).bearer_auth(&self.key)
    }

    /// `POST {base}/organizations/{org}/{path}` under the organization's key.
    pub(crate) fn post(&self, client: &reqwest::Client, path: &str) -> reqwest::RequestBuilder {
        client.post(self.url(path)).bearer_auth(&self.key)
    }

    fn url(&self, path: &str) -> String {
        format!("{}/organizations/{}/{path}", self.base, self.org)
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Phase {
    Post,
    ReadBalance,
    /// Balance, a page of account history and the trial balance in turn.
    ReadMix,
    /// The balance as of a date in the middle of the seeded history.
    BalanceAsOf,
    TrialBalance,
}

/// The outcome of one phase: successes, failures and the latencies of successes.
#[derive(Debug, Default)]
pub(super) struct Measured {
    pub(super) ok: u64,
    pub(super) errors: u64,
    pub(super) first_error: Option<String>,
    pub(super) elapsed: Duration,
    pub(super) throughput: f64,
    /// Latencies of successful operations in microseconds, sorted.
    pub(super) latencies_us: Vec<u32>,
}

impl Measured {
    pub(super) fn merge(parts: Vec<Measured>, elapsed: Duration) -> Measured {
        let mut all = Measured {
            elapsed,
            ..Measured::default()
        };
        for part in parts {
            all.ok += part.ok;
            all.errors += part.errors;
            all.first_error = all.first_error.or(part.first_error);
            all.latencies_us.extend(part.latencies_us);
        }
        all.latencies_us.sort_unstable();
        let seconds = elapsed.as_secs_f64();
        all.throughput = if seconds > 0.0 {
            all.ok as f64 / seconds
        } else {
            0.0
        };
        all
    }

    /// The latency at quantile `q` (nearest rank) in milliseconds.
    pub(super) fn quantile_ms(&self, q: f64) -> f64 {
        if self.latencies_us.is_empty() {
            return 0.0;
        }
        let n = self.latencies_us.len();
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        f64::from(self.latencies_us[rank - 1]) / 1000.0
    }

    pub(super) fn to_json(&self) -> Value {
        json!({
            "ok": self.ok,
            "errors": self.errors,
            "first_error": self.first_error,
            "seconds": round(self.elapsed.as_secs_f64(), 2),
            "per_second": round(self.throughput, 1),
            "p50_ms": round(self.quantile_ms(0.50), 2),
            "p99_ms": round(self.quantile_ms(0.99), 2),
            "max_ms": round(self.quantile_ms(1.0), 2),
        })
    }
}

/// Shared bounds of a phase: a deadline and an optional request budget.
pub(super) struct Bounds {
    pub(super) deadline: Instant,
    pub(super) budget: Option<u64>,
    pub(super) issued: AtomicU64,
}

impl Bounds {
    pub(super) fn new(options: &Options) -> Arc<Bounds> {
        Arc::new(Bounds {
            deadline: Instant::now() + options.duration,
            budget: options.requests,
            issued: AtomicU64::new(0),
        })
    }

    /// Takes the next request number, or `None` when the phase is over.
    pub(super) fn next(&self) -> Option<u64> {
        if Instant::now() >= self.deadline {
            return None;
        }
        let n = self.issued.fetch_add(1, Ordering::Relaxed);
        match self.budget {
            Some(budget) if n >= budget => None,
            _ => Some(n),
        }
    }
}

pub(super) async fn load(
    options: &Options,
    client: &reqwest::Client,
    target: &Target,
    phase: Phase,
) -> Measured {
    let bounds = Bounds::new(options);
    let started = Instant::now();
    let tasks: Vec<_> = (0..options.clients)
        .map(|_| {
            let client = client.clone();
            let target = target.clone();
            let bounds = Arc::clone(&bounds);
            tokio::spawn(async move {
                let mut measured = Measured::default();
                while let Some(n) = bounds.next() {
                    let sent = Instant::now();
                    let outcome = match phase {
                        Phase::Post => post_transaction(&client, &target, n).await,
                        Phase::ReadBalance => read_balance(&client, &target, n).await,
                        Phase::ReadMix => read_mix(&client, &target, n).await,
                        Phase::BalanceAsOf => {
                            let path = format!("accounts/{}/balance?as_of=2021-06-30", target.cash);
                            get_ok(&client, &target, &path).await
                        }
                        Phase::TrialBalance => {
                            get_ok(&client, &target, "reports/trial-balance").await
                        }
                    };
                    record(&mut measured, sent, outcome);
                }
                measured
            })
        })
        .collect();
    let mut parts = Vec::with_capacity(tasks.len());
    for task in tasks {
        match task.await {
            Ok(part) => parts.push(part),
            Err(e) => parts.push(Measured {
                errors: 1,
                first_error: Some(format!("client task: {e}")),
                ..Measured::default()
            }),
        }
    }
    Measured::merge(parts, started.elapsed())
}

pub(super) fn record(measured: &mut Measured, sent: Instant, outcome: Result<(), String>) {
    match outcome {
        Ok(()) => {
            measured.ok += 1;
            let micros = u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX);
            measured.latencies_us.push(micros);
        }
        Err(e) => {
            measured.errors += 1;
            measured.first_error.get_or_insert(e);
        }
    }
}

pub(super) async fn post_transaction(
    client: &reqwest::Client,
    target: &Target,
    n: u64,
) -> Result<(), String> {
    let body = json!({
        "description": format!("Bench sale {n}"),
        "date": "2026-01-15",
        "auto_post": true,
        "entries": [
            { "account_id": target.cash, "entry_type": "debit", "amount": "100.00" },
            { "account_id": target.sales, "entry_type": "credit", "amount": "100.00" },
        ],
    });
    let response = target
        .post(client, "transactions")
        .header("Prefer", "wait=30")
        .json(&body)
        .send()
        .await
        .map_err(|e| format!("POST transaction: {e}"))?;
    expect_status(response, 201).await
}

pub(super) async fn read_balance(
    client: &reqwest::Client,
    target: &Target,
    n: u64,
) -> Result<(), String> {
    let account = if n.is_multiple_of(2) {
        &target.cash
    } else {
        &target.sales
    };
    let response = target
        .get(client, &format!("accounts/{account}/balance"))
        .send()
        .await
        .map_err(|e| format!("GET balance: {e}"))?;
    expect_status(response, 200).await
}

/// One read of the mix: the balance, the first page of history (20 rows) or the trial
/// balance, in turn.
pub(super) async fn read_mix(
    client: &reqwest::Client,
    target: &Target,
    n: u64,
) -> Result<(), String> {
    match n % 3 {
        0 => read_balance(client, target, n / 3).await,
        1 => {
            let path = format!("accounts/{}/transactions?limit=20", target.cash);
            get_ok(client, target, &path).await
        }
        _ => get_ok(client, target, "reports/trial-balance").await,
    }
}

/// `GET {base}/organizations/{org}/{path}`, expecting 200.
pub(super) async fn get_ok(
    client: &reqwest::Client,
    target: &Target,
    path: &str,
) -> Result<(), String> {
    let response = target
        .get(client, path)
        .send()
        .await
        .map_err(|e| format!("GET {path}: {e}"))?;
    expect_status(response, 200).await
}

/// Reads the whole answer (so its time counts) and checks the status.
pub(super) async fn expect_status(
    response: reqwest::Response,
    expected: u16,
) -> Result<(), String> {
    let status = response.status();
    let body = response
        .bytes()
        .await
        .map_err(|e| format!("reading the answer: {e}"))?;
    if status.as_u16() == expected {
        Ok(())
    } else {
        let text = String::from_utf8_lossy(&body);
        Err(format!(
            "{status}: {}",
            text.chars().take(300).collect::<String>()
        ))
    }
}

/// Inserts the rows of the HTTP write phase by plain SQL: the same concurrency, the
/// same pool kind and size, the same count (`--requests`) or duration.
pub(super) async fn baseline(
    options: &Options,
    database_url: &str,
    target: &Target,
) -> anyhow::Result<Measured> {
    let db = Db::connect(database_url, pool_size(database_url))
        .await
        .context("opening the database for the baseline")?;
    let rows = BaselineTarget {
        organization_id: target.org.clone(),
        livemode: false,
        currency: target.currency.clone(),
        debit_account_id: target.cash.clone(),
        credit_account_id: target.sales.clone(),
    };
    // Check once that the rows are accepted (a wrong currency or account would make
    // every insert fail).
    insert_posted_transaction(&db, &rows, AMOUNT_UNITS)
        .await
        .context("a first baseline insert")?;
    let bounds = Bounds::new(options);
    let started = Instant::now();
    let tasks: Vec<_> = (0..options.clients)
        .map(|_| {
            let db = db.clone();
            let rows = rows.clone();
            let bounds = Arc::clone(&bounds);
            tokio::spawn(async move {
                let mut measured = Measured::default();
                while bounds.next().is_some() {
                    let sent = Instant::now();
                    let outcome = insert_posted_transaction(&db, &rows, AMOUNT_UNITS)
                        .await
                        .map_err(|e| e.to_string());
                    record(&mut measured, sent, outcome);
                }
                measured
            })
        })
        .collect();
    let mut parts = Vec::with_capacity(tasks.len());
    for task in tasks {
        parts.push(task.await.context("a baseline task")?);
    }
    Ok(Measured::merge(parts, started.elapsed()))
}
