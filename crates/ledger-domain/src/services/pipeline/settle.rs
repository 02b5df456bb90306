//! Answering a submitted write: a synchronous write's view, the replay of a key used
//! before (refused when the request differs), and the wait for a queued job, started at
//! once in a task of its own.

use std::time::Duration;

use serde_json::Value;

use crate::error::{DomainError, DomainResult};
use crate::jobs::Job;
use crate::ports::{IdempotencyRecord, Store, Tenant, Written};

use crate::services::{Access, Ledger};

use super::{Outcome, Submitted};

impl<S: Store> Ledger<S> {
    /// Answers a synchronous write: its view, or the replay of the request that won the
    /// race for the same key.
    pub(super) async fn settle_view(
        &self,
        access: &Access,
        record: Option<&IdempotencyRecord>,
        wait: Duration,
        written: Written<Value>,
    ) -> DomainResult<Submitted> {
        match written {
            Written::Done(view) => Ok(Submitted {
                outcome: Outcome::Done(view),
                replayed: false,
            }),
            Written::Replay(first) => self.replay_lost_race(access, record, first, wait).await,
        }
    }

    /// Answers a write that lost the race for its key: a concurrent request with the same
    /// key committed first.
    pub(super) async fn replay_lost_race(
        &self,
        access: &Access,
        record: Option<&IdempotencyRecord>,
        first: IdempotencyRecord,
        wait: Duration,
    ) -> DomainResult<Submitted> {
        match record {
            Some(record) => self.replay(access, record, first, wait).await,
            None => Err(DomainError::Internal(
                "a replay without an idempotency key".into(),
            )),
        }
    }

    /// The first outcome of a key used before: refused when the request differs.
    pub(super) async fn replay(
        &self,
        access: &Access,
        record: &IdempotencyRecord,
        first: IdempotencyRecord,
        wait: Duration,
    ) -> DomainResult<Submitted> {
        if first.request_hash != record.request_hash {
            return Err(DomainError::IdempotencyKeyReused);
        }
        let outcome = match (first.job_id, first.result) {
            (Some(job_id), _) => {
                let job = self.get_job(access, &job_id).await?;
                Outcome::Queued(Box::new(self.settle(job, false, wait).await?))
            }
            (None, Some(result)) => Outcome::Done(result),
            (None, None) => {
                return Err(DomainError::Internal(format!(
                    "idempotency record '{}' holds no outcome",
                    first.key
                )));
            }
        };
        Ok(Submitted {
            outcome,
            replayed: true,
        })
    }

    /// Starts a job just accepted (`fresh`) and waits up to `wait` for it to end.
    pub(super) async fn settle(&self, job: Job, fresh: bool, wait: Duration) -> DomainResult<Job> {
        if job.status.is_final() {
            return Ok(job);
        }
        let started = std::time::Instant::now();
        let mut run = None;
        if fresh {
            if self.config.run_inline {
                let ledger = self.clone();
                let id = job.id.clone();
                run = Some(self.runtime.spawn(Box::pin(async move {
                    if let Err(e) = ledger.run_now(&id).await {
                        tracing::warn!(job_id = %id, error = %e, "running a job at once failed; a worker will take it");
                    }
                })));
            } else {
                self.runtime.wake_workers();
            }
        }
        if wait.is_zero() {
            return Ok(job);
        }
        if let Some(run) = run {
            self.runtime.timeout(wait, run).await;
        }
        let tenant = Tenant {
            organization_id: job.organization_id.clone(),
            livemode: job.livemode,
        };
        let mut pause = Duration::from_millis(5);
        let mut current = job;
        loop {
            if let Some(found) = self.store.get_job(&tenant, &current.id).await? {
                current = found;
            }
            let elapsed = started.elapsed();
            if current.status.is_final() || elapsed >= wait {
                return Ok(current);
            }
            self.runtime.sleep(pause.min(wait - elapsed)).await;
            pause = (pause * 2).min(Duration::from_millis(200));
        }
    }
}
