//! Prometheus metrics (`GET /metrics`): the process-wide recorder, the middleware that
//! counts and times every request by route pattern and status, and the rendering of the
//! service's operating figures.
//!
//! Names follow Prometheus' conventions (`promtool check metrics` is clean): base units
//! (`_seconds`), `_total` on counters, snake_case, a help text on every family. Labels
//! hold route patterns (`/organizations/{org}/accounts/{id}`), never ids, so the number
//! of series stays bounded.

use std::sync::OnceLock;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use ledger_domain::services::ServiceFigures;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Request latency buckets, in seconds.
const LATENCY_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];
/// Writes per group commit.
const BATCH_BUCKETS: [f64; 10] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The process-wide recorder, installed on first use; `None` when another recorder was
/// installed first (then nothing is recorded here).
pub fn recorder() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &LATENCY_BUCKETS)
                .ok()?
                .set_buckets_for_metric(
                    Matcher::Full("ledger_group_commit_writes".into()),
                    &BATCH_BUCKETS,
                )
                .ok()?
                .install_recorder()
                .map_err(|e| tracing::warn!(error = %e, "metrics recorder not installed"))
                .ok()?;
            describe();
            Some(handle)
        })
        .as_ref()
}

fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "ledger_http_requests_total",
        "HTTP requests answered, by method, route pattern and status"
    );
    describe_histogram!(
        "ledger_http_request_duration_seconds",
        metrics::Unit::Seconds,
        "Time to answer an HTTP request, by method and route pattern"
    );
    describe_histogram!(
        "ledger_group_commit_writes",
        "Writes committed together in one database transaction by the group commit"
    );
    describe_gauge!(
        "ledger_database_up",
        "1 when the database answers a trivial query, else 0"
    );
    describe_gauge!(
        "ledger_jobs_queued",
        "Queued jobs waiting for a worker, service-wide"
    );
    describe_gauge!(
        "ledger_jobs_finished_last_day",
        "Jobs that completed or failed in the last 24 hours, by outcome"
    );
    describe_gauge!(
        "ledger_db_pool_connections",
        "Database connections: the pools' maximum and those in use"
    );
    describe_gauge!(
        "ledger_db_pool_waiting",
        "Callers waiting for a database connection"
    );
    describe_counter!(
        "ledger_cache_lookups_total",
        "Lookups of the in-process caches, by cache and result (hit or miss)"
    );
    describe_gauge!("ledger_workers", "Queue workers configured in this process");
    describe_counter!(
        "ledger_credits_charged_total",
        "Credits charged for accepted writes by this process, by mode (live or test)"
    );
    describe_counter!(
        "ledger_job_runs_total",
        "Runs of claimed jobs by this process, by outcome (completed, failed, retried, lost)"
    );
    describe_gauge!(
        "ledger_uptime_seconds",
        metrics::Unit::Seconds,
        "Seconds since the service started"
    );
}

/// Middleware body: counts and times each request under its route pattern (`unmatched`
/// for paths no route knows) and status.
pub async fn record_requests<B: MessageBody>(
    req: ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let started = Instant::now();
    let method = req.method().as_str().to_owned();
    let res = next.call(req).await?;
    let route = res
        .request()
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let status = res.status().as_u16().to_string();
    metrics::counter!(
        "ledger_http_requests_total",
        "method" => method.clone(),
        "route" => route.clone(),
        "status" => status
    )
    .increment(1);
    metrics::histogram!(
        "ledger_http_request_duration_seconds",
        "method" => method,
        "route" => route
    )
    .record(started.elapsed().as_secs_f64());
    Ok(res)
}

/// The exposition text: the recorded families with the operating figures set now.
/// `None` when the recorder could not be installed.
pub fn render(figures: &ServiceFigures) -> Option<String> {
    let handle = recorder()?;
    metrics::gauge!("ledger_database_up").set(if figures.database_up { 1.0 } else { 0.0 });
    if let Some(jobs) = figures.jobs {
        metrics::gauge!("ledger_jobs_queued").set(jobs.queued as f64);
        metrics::gauge!("ledger_jobs_finished_last_day", "outcome" => "completed")
            .set(jobs.completed_since as f64);
        metrics::gauge!("ledger_jobs_finished_last_day", "outcome" => "failed")
            .set(jobs.failed_since as f64);
    }
    metrics::gauge!("ledger_db_pool_connections", "state" => "max")
        .set(figures.pool.max_size as f64);
    metrics::gauge!("ledger_db_pool_connections", "state" => "in_use")
        .set(figures.pool.in_use as f64);
    metrics::gauge!("ledger_db_pool_waiting").set(figures.pool.waiting as f64);
    for cache in figures.caches {
        metrics::counter!("ledger_cache_lookups_total", "cache" => cache.cache, "result" => "hit")
            .absolute(cache.hits);
        metrics::counter!("ledger_cache_lookups_total", "cache" => cache.cache, "result" => "miss")
            .absolute(cache.misses);
    }
    metrics::gauge!("ledger_workers").set(figures.workers as f64);
    for (mode, credits) in figures.credits_charged {
        metrics::counter!("ledger_credits_charged_total", "mode" => mode).absolute(credits);
    }
    for (outcome, runs) in figures.job_runs {
        metrics::counter!("ledger_job_runs_total", "outcome" => outcome).absolute(runs);
    }
    metrics::gauge!("ledger_uptime_seconds").set(figures.uptime.as_secs_f64());
    Some(handle.render())
}

/// Folds the histogram samples recorded since the last call into their buckets.
///
/// The recorder keeps each histogram's new samples in a queue until they are drained,
/// which a scrape of `/metrics` does; `install_recorder` starts no task that does it
/// otherwise, so a server nobody scraped kept eight bytes and more per request for
/// ever (docs/decisions.md, "Session 16"). The server calls this every few seconds.
pub fn upkeep() {
    if let Some(handle) = recorder() {
        handle.run_upkeep();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upkeep folds the waiting samples into the buckets: none is lost, and a later
    /// scrape counts each once.
    #[test]
    fn upkeep_keeps_every_sample() {
        let handle = recorder().expect("the recorder installs in this test binary");
        for i in 0..1000 {
            metrics::histogram!("ledger_test_upkeep_seconds").record(f64::from(i) / 1000.0);
        }
        upkeep();
        metrics::histogram!("ledger_test_upkeep_seconds").record(0.5);
        upkeep();
        let text = handle.render();
        assert!(
            text.lines()
                .any(|l| l == "ledger_test_upkeep_seconds_count 1001"),
            "{text}"
        );
        // A second scrape finds nothing new to add.
        let again = handle.render();
        assert!(
            again
                .lines()
                .any(|l| l == "ledger_test_upkeep_seconds_count 1001"),
            "{again}"
        );
    }
}
