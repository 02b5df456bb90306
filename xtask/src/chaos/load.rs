//! The clients of a chaos or soak run: idempotent writes retried with their
//! `Idempotency-Key` until answered, and (in soak mode) reads beside them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::Rng;
use crate::bench::load::Target;

/// One logical write: a balanced transaction whose `reference` and `Idempotency-Key`
/// are the same unique text.
#[derive(Debug, Clone)]
pub(crate) struct Write {
    pub(crate) key: String,
    pub(crate) body: Value,
    /// What the write adds to Cash (account 1000): debits minus credits, in units of
    /// 1/10 000.
    pub(crate) cash_delta: i64,
}

impl Write {
    /// The `n`-th write of run `run`: three shapes (a sale, a sale split over two
    /// credit lines, a refund), amounts from 1.00 to 99.99.
    pub(crate) fn new(run: &str, n: u64, target: &Target) -> Write {
        let key = format!("chaos-{run}-{n}");
        let cents = 100 + (n * 7919) % 9900;
        let text = |c: u64| format!("{}.{:02}", c / 100, c % 100);
        let units = i64::try_from(cents).unwrap_or(0) * 100;
        let (entries, cash_delta) = match n % 3 {
            0 => (
                json!([
                    { "account_id": target.cash, "entry_type": "debit", "amount": text(cents) },
                    { "account_id": target.sales, "entry_type": "credit", "amount": text(cents) },
                ]),
                units,
            ),
            1 => {
                let first = cents / 3;
                (
                    json!([
                        { "account_id": target.cash, "entry_type": "debit", "amount": text(cents) },
                        { "account_id": target.sales, "entry_type": "credit", "amount": text(first) },
                        { "account_id": target.sales, "entry_type": "credit", "amount": text(cents - first) },
                    ]),
                    units,
                )
            }
            _ => (
                json!([
                    { "account_id": target.sales, "entry_type": "debit", "amount": text(cents) },
                    { "account_id": target.cash, "entry_type": "credit", "amount": text(cents) },
                ]),
                -units,
            ),
        };
        let body = json!({
            "description": format!("Chaos write {n}"),
            "date": "2026-01-15",
            "reference": key,
            "auto_post": true,
            "entries": entries,
            "metadata": { "chaos_run": run, "n": n },
        });
        Write {
            key,
            body,
            cash_delta,
        }
    }

    /// Sends this write to the organization of `target` under its `Idempotency-Key`,
    /// waiting for its job (a first attempt, a retry and a replay alike).
    pub(crate) async fn send(
        &self,
        client: &reqwest::Client,
        target: &Target,
    ) -> reqwest::Result<reqwest::Response> {
        target
            .post(client, "transactions")
            .header("Idempotency-Key", &self.key)
            .header("Prefer", "wait=10")
            .json(&self.body)
            .send()
            .await
    }
}

/// What became of one logical write.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub(crate) write: Write,
    /// The transaction id of the answer, when one came.
    pub(crate) acknowledged: Option<String>,
    pub(crate) attempts: u32,
    /// A final refusal (a 4xx answer other than a conflict to retry): our writes are
    /// valid, so any is a failure of the run.
    pub(crate) refused: Option<String>,
}

/// Counters shared by the clients, for progress lines.
#[derive(Default)]
pub(crate) struct Progress {
    pub(crate) attempts: AtomicU64,
    pub(crate) acknowledged: AtomicU64,
    pub(crate) reads: AtomicU64,
    pub(crate) read_errors: AtomicU64,
}

/// Sends `write` until the server answers it (201 with the transaction), it is
/// refused, or `give_up` passes. Every attempt carries the same `Idempotency-Key` and
/// body, with `Prefer: wait`.
pub(crate) async fn send_until_answered(
    client: &reqwest::Client,
    target: &Target,
    write: Write,
    give_up: Instant,
    progress: &Progress,
    rng: &mut Rng,
) -> Outcome {
    let mut outcome = Outcome {
        write,
        acknowledged: None,
        attempts: 0,
        refused: None,
    };
    let mut backoff_ms = 50u64;
    while Instant::now() < give_up {
        outcome.attempts += 1;
        progress.attempts.fetch_add(1, Ordering::Relaxed);
        let answer = outcome.write.send(client, target).await;
        // An error (the server is down, the connection was cut): ask again.
        if let Ok(response) = answer {
            let status = response.status();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            if status == StatusCode::CREATED || status == StatusCode::OK {
                if let Some(id) = body["id"].as_str().filter(|id| id.starts_with("txn_")) {
                    outcome.acknowledged = Some(id.to_owned());
                    progress.acknowledged.fetch_add(1, Ordering::Relaxed);
                    return outcome;
                }
            } else if status.is_client_error()
                && status != StatusCode::CONFLICT
                && status != StatusCode::TOO_MANY_REQUESTS
                && status != StatusCode::REQUEST_TIMEOUT
                || body["error"]["code"] == "idempotency_key_reused"
            {
                outcome.refused = Some(format!("{status}: {body}"));
                return outcome;
            }
            // 202 (still queued), 409 (in progress), 5xx: ask again.
        }
        let pause = backoff_ms + rng.below(backoff_ms);
        tokio::time::sleep(Duration::from_millis(pause)).await;
        backoff_ms = (backoff_ms * 2).min(1000);
    }
    outcome
}

/// The write clients: each takes the next write number until `window.0` and sends it
/// until answered (or until `window.1`, when it gives up).
pub(crate) async fn write_clients(
    clients: usize,
    client: &reqwest::Client,
    target: &Target,
    run: &str,
    window: (Instant, Instant),
    progress: &Arc<Progress>,
    seed: u64,
) -> Vec<Outcome> {
    let next = Arc::new(AtomicU64::new(0));
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            let (client, target, run) = (client.clone(), target.clone(), run.to_owned());
            let (next, progress) = (Arc::clone(&next), Arc::clone(progress));
            tokio::spawn(async move {
                let mut rng = Rng::new(seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9));
                let (stop_new, give_up) = window;
                let mut outcomes = Vec::new();
                while Instant::now() < stop_new {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let write = Write::new(&run, n, &target);
                    outcomes.push(
                        send_until_answered(&client, &target, write, give_up, &progress, &mut rng)
                            .await,
                    );
                }
                outcomes
            })
        })
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        if let Ok(outcomes) = task.await {
            all.extend(outcomes);
        }
    }
    all
}

/// Read clients (soak mode): balance, a page of history, the trial balance and a page
/// of the transaction list in turn, until `stop`.
pub(crate) async fn read_clients(
    clients: usize,
    client: &reqwest::Client,
    target: &Target,
    stop: Instant,
    progress: &Arc<Progress>,
) {
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            let (client, target, progress) = (client.clone(), target.clone(), Arc::clone(progress));
            tokio::spawn(async move {
                let mut n = i as u64;
                while Instant::now() < stop {
                    let path = match n % 4 {
                        0 => format!("accounts/{}/balance", target.cash),
                        1 => format!("accounts/{}/transactions?limit=20", target.sales),
                        2 => "reports/trial-balance".to_owned(),
                        _ => "transactions?limit=20".to_owned(),
                    };
                    n += 1;
                    let ok = target
                        .get(&client, &path)
                        .send()
                        .await
                        .is_ok_and(|r| r.status().is_success());
                    if ok {
                        progress.reads.fetch_add(1, Ordering::Relaxed);
                    } else {
                        progress.read_errors.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}
