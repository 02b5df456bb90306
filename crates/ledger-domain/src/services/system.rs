//! `/system` (spec 2.12, 4.3; DECISIONS 10): service health and figures for holders of
//! the `system` permission.
//!
//! Database, queue and pool figures are service-wide; event figures cover the caller's
//! organization tree (its root and every descendant) in the caller's mode only.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::ErrorCode;

use crate::error::{DomainError, DomainResult};
use crate::organizations::Scope;
use crate::ports::{JobStats, PoolStats, Store};

use super::{Ledger, Principal};

/// How many recent events `/system` shows.
const RECENT_EVENTS: i64 = 10;

pub use crate::ports::{SystemInfo, SystemStatus};

/// The error `/system` answers for a failed authentication: a missing, malformed or
/// unknown key is `unauthorized` there (spec 7.1) instead of `invalid_api_key`; expired
/// and disabled keys keep their own codes.
pub fn system_auth_error(e: DomainError) -> DomainError {
    match e {
        DomainError::Authentication {
            code: ErrorCode::InvalidApiKey | ErrorCode::MissingApiKey,
            ..
        } => DomainError::Authentication {
            code: ErrorCode::Unauthorized,
            message: "a valid API key with the 'system' permission is required".into(),
        },
        other => other,
    }
}

impl<S: Store> Ledger<S> {
    /// The system information record. A database that does not answer makes the status
    /// `degraded` with zero figures rather than an error.
    ///
    /// # Errors
    /// `insufficient_permissions` without `system`.
    pub async fn system_info(&self, principal: &Principal) -> DomainResult<SystemInfo> {
        self.check_permission(principal, Scope::System, "system")?;
        let now = self.now();
        let since = now - time::Duration::hours(24);
        let database_up = self.store.ping().await;
        let (events, jobs) = if database_up {
            let root = format!("/{}/", principal.organization.root_id());
            let events = self
                .store
                .event_stats(&root, principal.key.livemode, since, RECENT_EVENTS)
                .await;
            let jobs = self.store.job_stats(since).await;
            match (events, jobs) {
                (Ok(events), Ok(jobs)) => (Some(events), Some(jobs)),
                (events, jobs) => {
                    for e in [events.err(), jobs.err()].into_iter().flatten() {
                        tracing::error!(error = %e, "system figures unavailable");
                    }
                    (None, None)
                }
            }
        } else {
            (None, None)
        };
        let complete = events.is_some() && jobs.is_some();
        Ok(SystemInfo {
            version: env!("CARGO_PKG_VERSION"),
            status: if database_up && complete {
                SystemStatus::Healthy
            } else {
                SystemStatus::Degraded
            },
            uptime: self.config.started_at.elapsed(),
            timestamp: now,
            database_up,
            events: events.unwrap_or_default(),
            pool: self.store.pool_stats(),
            jobs: jobs.unwrap_or_default(),
            workers: self.config.workers,
        })
    }
}

/// The entity types `/events/{entity_type}/{id}` knows (DECISIONS 10: singular names).
pub const EVENT_ENTITY_TYPES: [&str; 18] = [
    "account",
    "transaction",
    "contact",
    "invoice",
    "bill",
    "organization",
    "category",
    "tax",
    "api_key",
    "payment",
    "transfer",
    "exchange_rate",
    "organization_transfer",
    "attachment",
    "reconciliation",
    "recurring_schedule",
    "webhook_endpoint",
    "webhook_delivery",
];

impl<S: Store> Ledger<S> {
    /// The audit events of one entity of the principal's own organization and mode,
    /// oldest first.
    ///
    /// # Errors
    /// `insufficient_permissions` without `read` on events; `invalid_field` for an
    /// unknown entity type.
    pub async fn entity_events(
        &self,
        principal: &Principal,
        entity_type: &str,
        entity_id: &str,
    ) -> DomainResult<Vec<crate::events::Event>> {
        self.check_permission(principal, crate::organizations::Scope::Read, "events")?;
        if !EVENT_ENTITY_TYPES.contains(&entity_type) {
            return Err(DomainError::invalid_field(
                "entity_type",
                format!(
                    "entity_type must be one of {}",
                    EVENT_ENTITY_TYPES.join(", ")
                ),
            ));
        }
        let tenant = crate::ports::Tenant {
            organization_id: principal.organization.id.clone(),
            livemode: principal.key.livemode,
        };
        Ok(self
            .store
            .list_events(&tenant, entity_type, entity_id.trim())
            .await?)
    }
}

/// Lookups of one of the service's in-process caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheLookups {
    /// `api_key` (principals by key hash) or `account` (accounts read to validate entries).
    pub cache: &'static str,
    pub hits: u64,
    pub misses: u64,
}

/// Counters of what this process has done since it started (plain atomics: the domain
/// records, the HTTP edge exports).
#[derive(Debug, Default)]
pub(crate) struct Activity {
    credits_live: AtomicU64,
    credits_test: AtomicU64,
    jobs_completed: AtomicU64,
    jobs_failed: AtomicU64,
    jobs_retried: AtomicU64,
    jobs_lost: AtomicU64,
}

impl Activity {
    /// A write accepted (not replayed) at `credits`; a failed job's refund is not
    /// subtracted (`jobs_failed` counts those).
    pub(crate) fn charged(&self, livemode: bool, credits: i64) {
        let Ok(credits) = u64::try_from(credits) else {
            return;
        };
        let counter = if livemode {
            &self.credits_live
        } else {
            &self.credits_test
        };
        counter.fetch_add(credits, Ordering::Relaxed);
    }

    /// A run of a claimed job ended so.
    pub(crate) fn ran(&self, outcome: &super::runner::RunOutcome) {
        use super::runner::RunOutcome;
        let counter = match outcome {
            RunOutcome::Completed(_) => &self.jobs_completed,
            RunOutcome::Failed(_) => &self.jobs_failed,
            RunOutcome::Retrying => &self.jobs_retried,
            RunOutcome::Lost => &self.jobs_lost,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// Service-wide operating figures (`/metrics`): no tenant's data.
#[derive(Debug, Clone)]
pub struct ServiceFigures {
    /// Credits charged for accepted writes by this process, live and test mode.
    pub credits_charged: [(&'static str, u64); 2],
    /// Runs of claimed jobs by this process, by outcome.
    pub job_runs: [(&'static str, u64); 4],
    pub database_up: bool,
    /// `None` when the database did not answer.
    pub jobs: Option<JobStats>,
    pub pool: PoolStats,
    pub caches: [CacheLookups; 2],
    /// Queue workers configured in this process.
    pub workers: usize,
    pub uptime: std::time::Duration,
}

impl<S: Store> Ledger<S> {
    /// The service's operating figures: the readiness probe reads them, and the operator
    /// through `/metrics` (the adapter checks the operator's credential).
    pub async fn operating_figures(&self) -> ServiceFigures {
        let since = self.now() - time::Duration::hours(24);
        let database_up = self.store.ping().await;
        let jobs = if database_up {
            match self.store.job_stats(since).await {
                Ok(jobs) => Some(jobs),
                Err(e) => {
                    tracing::error!(error = %e, "queue figures unavailable");
                    None
                }
            }
        } else {
            None
        };
        let (key_hits, key_misses) = self.key_cache.lookups();
        let (account_hits, account_misses) = self.account_cache.lookups();
        let a = &self.activity;
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        ServiceFigures {
            credits_charged: [
                ("live", load(&a.credits_live)),
                ("test", load(&a.credits_test)),
            ],
            job_runs: [
                ("completed", load(&a.jobs_completed)),
                ("failed", load(&a.jobs_failed)),
                ("retried", load(&a.jobs_retried)),
                ("lost", load(&a.jobs_lost)),
            ],
            database_up,
            jobs,
            pool: self.store.pool_stats(),
            caches: [
                CacheLookups {
                    cache: "api_key",
                    hits: key_hits,
                    misses: key_misses,
                },
                CacheLookups {
                    cache: "account",
                    hits: account_hits,
                    misses: account_misses,
                },
            ],
            workers: self.config.workers,
            uptime: self.config.started_at.elapsed(),
        }
    }
}
