//! Background work: the queue workers, the webhook deliveries, and the periodic sweeps
//! every replica runs (purges, transfer expiry, recurring occurrences, the credit
//! reset), each until its stop signal turns true.

use std::time::Duration;

use tokio::sync::watch;

use crate::{AppLedger, TokioRuntime};

/// Runs the webhook fan-out and deliveries until `stop` turns true: a pass right after
/// a busy one, else after `poll`. Every step is safe with several replicas (idempotent
/// fan-out, claims that never share a delivery).
pub fn spawn_webhooks(
    ledger: &AppLedger,
    poll: Duration,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    let mut stop = stop.subscribe();
    tokio::spawn(async move {
        loop {
            if *stop.borrow() {
                break;
            }
            let claimed = match ledger.run_webhooks().await {
                Ok(n) => n,
                Err(e) => {
                    tracing::error!(error = %e, "a webhook pass failed");
                    0
                }
            };
            if claimed == 0 {
                tokio::select! {
                    _ = tokio::time::sleep(poll) => {}
                    _ = stop.changed() => break,
                }
            }
        }
    })
}

/// Starts queue workers; they run until `stop` turns true, finishing the job in hand.
pub fn spawn_workers(
    ledger: &AppLedger,
    count: usize,
    runtime: &TokioRuntime,
    stop: &watch::Sender<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..count)
        .map(|n| {
            let ledger = ledger.clone();
            let wake = runtime.wake.clone();
            let mut stop = stop.subscribe();
            tokio::spawn(async move {
                tracing::debug!(worker = n, "queue worker started");
                loop {
                    if *stop.borrow() {
                        break;
                    }
                    let claimed = match ledger.run_batch(16).await {
                        Ok(n) => n,
                        Err(e) => {
                            tracing::error!(error = %e, "claiming jobs failed");
                            0
                        }
                    };
                    if claimed == 0 {
                        tokio::select! {
                            _ = wake.notified() => {}
                            _ = stop.changed() => {}
                            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                        }
                    }
                }
                tracing::debug!(worker = n, "queue worker stopped");
            })
        })
        .collect()
}

/// How often the soft-delete purge runs (DECISIONS 5: daily).
const PURGE_INTERVAL: Duration = Duration::from_secs(24 * 60 * 60);

/// Runs `pass` now and then every `interval`, until `stop` turns true (the periodic
/// sweeps every replica runs: purge, OAuth purge, transfer expiry, recurring, credit
/// reset).
pub(crate) fn spawn_every<F, Fut>(
    interval: Duration,
    stop: &watch::Sender<bool>,
    mut pass: F,
) -> tokio::task::JoinHandle<()>
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let mut stop = stop.subscribe();
    tokio::spawn(async move {
        loop {
            if *stop.borrow() {
                break;
            }
            pass().await;
            tokio::select! {
                _ = tokio::time::sleep(interval) => {}
                _ = stop.changed() => break,
            }
        }
    })
}

/// Runs the purge of expired soft-deleted rows once now and then daily, until `stop`
/// turns true. A failed run is logged and retried at the next interval.
pub fn spawn_purge(ledger: &AppLedger, stop: &watch::Sender<bool>) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(PURGE_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            if let Err(e) = ledger.purge_expired().await {
                tracing::error!(error = %e, "purging expired soft-deleted rows failed");
            }
        }
    })
}

/// How often expired and revoked OAuth secrets (codes, tokens, sessions, sign-in links)
/// are deleted. They stop working at expiry without it; this only keeps the table small.
const OAUTH_PURGE_INTERVAL: Duration = Duration::from_secs(60 * 60);

/// Runs the purge of expired and revoked OAuth secrets now and then hourly, until `stop`
/// turns true. Deleting what is already gone is a no-op, so every replica may run it.
pub fn spawn_oauth_purge(
    ledger: &AppLedger,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(OAUTH_PURGE_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            if let Err(e) = ledger.purge_oauth_secrets().await {
                tracing::error!(error = %e, "purging expired OAuth secrets failed");
            }
        }
    })
}

/// How often pending ownership transfers past their expiry are stored as expired (they
/// read as expired at once; this stores the status and the event).
const TRANSFER_EXPIRY_INTERVAL: Duration = Duration::from_secs(5 * 60);

/// Runs the expiry of ownership transfers now and then every few minutes, until `stop`
/// turns true. Each expiry is a compare-and-set, so every replica may run it.
pub fn spawn_transfer_expiry(
    ledger: &AppLedger,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(TRANSFER_EXPIRY_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            if let Err(e) = ledger.expire_organization_transfers().await {
                tracing::error!(error = %e, "expiring organization transfers failed");
            }
        }
    })
}

/// How often the scheduler looks for due recurring occurrences.
const RECURRING_INTERVAL: Duration = Duration::from_secs(60);

/// Runs the recurring scheduler now and then every minute, until `stop` turns true: every
/// occurrence due up to today is generated (catching up after downtime). Each occurrence
/// is written once whichever replica or worker process generates it (see
/// `ledger_domain::services::Ledger::run_due_recurring`), so every process may run it.
pub fn spawn_recurring(
    ledger: &AppLedger,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(RECURRING_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            match ledger.run_due_recurring().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(runs = n, "recurring occurrences generated"),
                Err(e) => tracing::error!(error = %e, "the recurring scheduler failed"),
            }
        }
    })
}

/// How often pools not yet reset for the current month are looked for. A reset is
/// exactly-once per pool and month, so every replica runs the sweep.
const CREDIT_RESET_INTERVAL: Duration = Duration::from_secs(10 * 60);

/// Runs the monthly credit reset now and then every few minutes, until `stop` turns true.
pub fn spawn_credit_reset(
    ledger: &AppLedger,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(CREDIT_RESET_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            match ledger.reset_monthly_credits().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(pools = n, "monthly credits reset"),
                Err(e) => tracing::error!(error = %e, "resetting monthly credits failed"),
            }
        }
    })
}
