//! The queue of writes in memory: enqueue with credits, writes applied at once, claims
//! with leases, failure with refunds and retries (the SQL adapter's `jobs` and `group`).
//!
//! Every transition after the claim is conditional on the job still being `processing`
//! with the claimer's `attempts`, so a worker whose lease was taken over gets `job_lost`.

use crate::ports::StoreError;
use time::OffsetDateTime;

use crate::events::Event;
use crate::jobs::{Job, JobStatus};
use crate::ports::{
    AppliedWrite, CreditCharge, Effect, IdempotencyRecord, Jobs, StoreResult, Tenant, Written,
};

use super::{MemoryStore, Row, State, Usage, in_tenant};

impl State {
    /// The stored job `job` was claimed as, if the claim still holds (still `processing`
    /// with the same attempts).
    pub(crate) fn claimed_job(&mut self, job: &Job) -> StoreResult<&mut Job> {
        self.jobs
            .get_mut(&job.id)
            .filter(|j| {
                j.organization_id == job.organization_id
                    && j.status == JobStatus::Processing
                    && j.attempts == job.attempts
            })
            .ok_or_else(|| StoreError::ClaimLost {
                job_id: job.id.clone(),
            })
    }

    /// Ends the claim of `job` (see [`State::claimed_job`]) at `at` as `status` with
    /// `error`, releasing its lease; the stored job, for what else the end sets.
    fn end_claim(
        &mut self,
        job: &Job,
        status: JobStatus,
        error: serde_json::Value,
        at: OffsetDateTime,
    ) -> StoreResult<&mut Job> {
        let stored = self.claimed_job(job)?;
        stored.status = status;
        stored.error = Some(error);
        stored.locked_until = None;
        stored.updated_at = at;
        Ok(stored)
    }

    /// Claims job `id` if it is runnable at `now` (queued and due, or processing with an
    /// expired lease).
    fn claim(&mut self, id: &str, now: OffsetDateTime, lease: time::Duration) -> Option<Job> {
        let job = self.jobs.get_mut(id)?;
        let runnable = match job.status {
            JobStatus::Queued => job.run_at <= now,
            JobStatus::Processing => job.locked_until.is_some_and(|until| until < now),
            JobStatus::Completed | JobStatus::Failed => false,
        };
        if !runnable {
            return None;
        }
        job.status = JobStatus::Processing;
        job.attempts += 1;
        job.locked_until = Some(now + lease);
        job.updated_at = now;
        Some(job.clone())
    }

    /// Checks a write applied at once as the group commit judges each write: its key,
    /// the contact and category it names, its accounts (live and active), its credits.
    fn check_applied(&self, write: &AppliedWrite) -> StoreResult<Option<IdempotencyRecord>> {
        if let Some(first) = self.replay_of(write.idempotency.as_ref()) {
            return Ok(Some(first));
        }
        let tenant = Tenant {
            organization_id: write.job.organization_id.clone(),
            livemode: write.job.livemode,
        };
        self.check_parties(&tenant, &write.transaction)?;
        let mut wanted: Vec<String> = write
            .transaction
            .entries
            .iter()
            .map(|e| e.line.account_id.clone())
            .collect();
        wanted.sort();
        wanted.dedup();
        self.check_accounts(&tenant, &wanted, false)?;
        self.check_charge(write.charge.as_ref())?;
        // The primary keys: a clash aborts the database transaction.
        if self.jobs.contains_key(&write.job.id)
            || self.transaction_exists(&write.job.organization_id, &write.transaction.id)
        {
            return Err(StoreError::Internal(format!(
                "job {} or transaction {} exists already",
                write.job.id, write.transaction.id
            )));
        }
        Ok(None)
    }
}

impl Jobs for MemoryStore {
    async fn enqueue(
        &self,
        job: Job,
        charge: Option<CreditCharge>,
        idempotency: Option<IdempotencyRecord>,
    ) -> StoreResult<Written<Job>> {
        // An enqueue records no event: the job's run will.
        self.state()
            .audited_events(idempotency, charge, Vec::new(), |state| {
                if state.jobs.contains_key(&job.id) {
                    return Err(StoreError::Internal(format!(
                        "job {} exists already",
                        job.id
                    )));
                }
                state.jobs.insert(job.id.clone(), job.clone());
                Ok(job)
            })
    }

    async fn record_applied(&self, write: AppliedWrite) -> StoreResult<Written<Job>> {
        let mut state = self.state();
        if let Some(first) = state.check_applied(&write)? {
            return Ok(Written::Replay(first));
        }
        let AppliedWrite {
            job,
            charge,
            idempotency,
            transaction,
            events,
        } = write;
        state.put_idempotency(idempotency);
        state.take_charge(charge.as_ref());
        state.jobs.insert(job.id.clone(), job.clone());
        state.transactions.push(Row::new(transaction));
        state.events.extend(events);
        Ok(Written::Done(job))
    }

    async fn get_job(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Job>> {
        let state = self.state();
        Ok(state
            .jobs
            .get(id)
            .filter(|j| in_tenant(tenant, &j.organization_id, j.livemode))
            .cloned())
    }

    async fn claim_jobs(
        &self,
        limit: i64,
        now: OffsetDateTime,
        lease: time::Duration,
    ) -> StoreResult<Vec<Job>> {
        let limit = usize::try_from(limit).unwrap_or(0);
        let mut state = self.state();
        let mut candidates: Vec<(OffsetDateTime, String)> = state
            .jobs
            .values()
            .map(|j| (j.run_at, j.id.clone()))
            .collect();
        candidates.sort();
        let mut claimed = Vec::new();
        for (_, id) in candidates {
            if claimed.len() >= limit {
                break;
            }
            if let Some(job) = state.claim(&id, now, lease) {
                claimed.push(job);
            }
        }
        Ok(claimed)
    }

    async fn claim_job(
        &self,
        id: &str,
        now: OffsetDateTime,
        lease: time::Duration,
    ) -> StoreResult<Option<Job>> {
        Ok(self.state().claim(id, now, lease))
    }

    async fn apply_job(
        &self,
        job: &Job,
        effect: Effect,
        events: Vec<Event>,
        result: serde_json::Value,
        now: OffsetDateTime,
    ) -> StoreResult<()> {
        self.before_apply().await?;
        self.state().apply(job, effect, events, result, now)
    }

    async fn fail_job(
        &self,
        job: &Job,
        error: serde_json::Value,
        now: OffsetDateTime,
    ) -> StoreResult<()> {
        let mut state = self.state();
        state
            .end_claim(job, JobStatus::Failed, error, now)?
            .completed_at = Some(now);
        // The refund: back to the live pool, or a negative test-mode usage row.
        let cost = job.credit_cost;
        if cost > 0 {
            if job.livemode {
                if let Some(pool) = state.organizations.get_mut(&job.credit_pool_id) {
                    pool.credits_remaining += cost;
                    state.add_ledger_entry(
                        &job.credit_pool_id,
                        crate::credits::LedgerKind::Refund,
                        cost,
                        Some(format!("{}_refund", job.id)),
                    );
                }
            } else {
                state.usage.push(Usage {
                    pool_id: job.credit_pool_id.clone(),
                    credits: -cost,
                });
            }
        }
        Ok(())
    }

    async fn retry_job(
        &self,
        job: &Job,
        error: serde_json::Value,
        run_at: OffsetDateTime,
    ) -> StoreResult<()> {
        // As the SQL adapter: the port passes no `now`; the wall clock stamps the row.
        let at = OffsetDateTime::now_utc();
        self.state()
            .end_claim(job, JobStatus::Queued, error, at)?
            .run_at = run_at;
        Ok(())
    }
}
