//! Runs of recurring schedules: the manual run and the scheduler that generates each
//! due occurrence exactly once.
//!
//! Exactly once, across restarts and replicas: an occurrence's document is submitted
//! through the one write pipeline under the `Idempotency-Key`
//! `recurring:<schedule id>:<date>`, whose record the store inserts in the same database
//! transaction as the document's job. Two schedulers racing on one occurrence therefore
//! write one job (the loser replays the winner's), and a scheduler that finds the key
//! already used (at any age: the purge keeps these keys) reads that job instead of
//! writing again. The run row, unique per schedule and occurrence, is recorded once the
//! job has ended, together with the schedule's compare-and-set advance.

use std::time::Duration;

use serde_json::Value;
use sha2::{Digest, Sha256};
use time::{Date, OffsetDateTime};

use crate::documents::DocumentKind;
use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, new_id};
use crate::jobs::{Job, JobStatus};
use crate::organizations::{Permission, Scope};
use crate::ports::{PageRequest, Store, Tenant};
use crate::recurring::{
    OCCURRENCE_KEY_PREFIX, RecurableType, RecurringRun, RecurringSchedule, RunStatus, RunTrigger,
    ScheduleStatus, Template,
};

use super::{in_template, instantiate};
use crate::services::{Access, Channel, IdempotencyKey, Ledger, Outcome, Submission, Write};

/// How long the scheduler and a manual run wait for a generated document's job.
const RUN_WAIT: Duration = Duration::from_secs(10);
/// Schedules the scheduler reads per pass.
const DUE_BATCH: i64 = 100;
/// Occurrences of one schedule generated per pass (the next pass takes the rest).
const CATCH_UP_LIMIT: usize = 400;

/// What became of one write of a run.
enum Step {
    Done(Box<Job>),
    Refused(DomainError),
    /// The job has not ended yet; the scheduler looks again on its next pass.
    Pending,
}

/// A run's outcome before it is recorded.
struct Generated {
    status: RunStatus,
    document_id: Option<String>,
    job_id: Option<String>,
    error: Option<Value>,
}

impl Generated {
    fn failed(error: &DomainError, document_id: Option<String>, job_id: Option<String>) -> Self {
        Self {
            status: RunStatus::Failed,
            document_id,
            job_id,
            error: Some(error.to_stored()),
        }
    }
}

impl<S: Store> Ledger<S> {
    /// Generates the schedule's document now, dated today, outside its rule (the next
    /// scheduled occurrence stays as it was), in the caller's name and through the
    /// pipeline with the caller's `Idempotency-Key`: a retry with the same key answers the
    /// same run. A refused document is a failed run, answered like a succeeded one.
    ///
    /// # Errors
    /// `resource_not_found`; `idempotency_key_reused`; `internal_error` when the document
    /// is still being written after the wait.
    pub async fn run_recurring_schedule(
        &self,
        access: &Access,
        id: &str,
        idempotency: Option<IdempotencyKey>,
        channel: Channel,
    ) -> DomainResult<RecurringRun> {
        let schedule = self.get_recurring_schedule(access, id).await?;
        let date = self.now().date();
        let run_id = new_id(IdKind::RecurringRun);
        let send_key = idempotency.as_ref().map(|k| IdempotencyKey {
            key: format!("{}:send", k.key),
            request_hash: k.request_hash.clone(),
        });
        let first = self
            .submit_step(access, &schedule, date, idempotency, channel)
            .await?;
        let generated = match self
            .finish_run(access, &schedule, first, send_key, channel)
            .await?
        {
            Some(generated) => generated,
            None => {
                return Err(DomainError::Internal(
                    "the run's document is still being written; read the runs later".into(),
                ));
            }
        };
        let key = format!(
            "manual:{}",
            generated.job_id.clone().unwrap_or_else(|| run_id.clone())
        );
        let run = self.run_record(&schedule, run_id, key, date, RunTrigger::Manual, generated);
        self.store.record_recurring_run(run.clone(), None).await?;
        // A replayed request finds the run recorded by the first one.
        let runs = self
            .store
            .list_recurring_runs(
                &access.tenant,
                &schedule.id,
                PageRequest {
                    limit: crate::ports::MAX_PAGE_SIZE,
                    offset: 0,
                },
            )
            .await?;
        Ok(runs
            .items
            .into_iter()
            .find(|r| r.occurrence_key == run.occurrence_key)
            .unwrap_or(run))
    }

    fn run_record(
        &self,
        schedule: &RecurringSchedule,
        id: String,
        occurrence_key: String,
        date: Date,
        trigger: RunTrigger,
        generated: Generated,
    ) -> RecurringRun {
        RecurringRun {
            id,
            organization_id: schedule.organization_id.clone(),
            livemode: schedule.livemode,
            schedule_id: schedule.id.clone(),
            occurrence_key,
            occurrence_date: date,
            trigger,
            status: generated.status,
            document_type: schedule.recurable_type,
            document_id: generated.document_id,
            job_id: generated.job_id,
            error: generated.error,
            created_at: self.now(),
        }
    }

    /// Submits the template's document dated `date` under `idempotency` and waits for it.
    async fn submit_step(
        &self,
        access: &Access,
        schedule: &RecurringSchedule,
        date: Date,
        idempotency: Option<IdempotencyKey>,
        channel: Channel,
    ) -> DomainResult<Step> {
        let write = match Template::parse(schedule.recurable_type, &schedule.template)
            .and_then(|t| instantiate(schedule.recurable_type, &t, schedule.start_date, date))
        {
            Ok(write) => write,
            Err(e) => return Ok(Step::Refused(in_template(e))),
        };
        self.submit_write(access, write, idempotency, channel).await
    }

    async fn submit_write(
        &self,
        access: &Access,
        write: Write,
        idempotency: Option<IdempotencyKey>,
        channel: Channel,
    ) -> DomainResult<Step> {
        let submission = Submission {
            idempotency,
            channel,
            wait: RUN_WAIT,
        };
        match self.submit(access, write, submission).await {
            Ok(submitted) => match submitted.outcome {
                Outcome::Queued(job) => Ok(self.step_of(*job)),
                Outcome::Done(_) => Err(DomainError::Internal(
                    "a document create answered synchronously".into(),
                )),
            },
            Err(e) if e.is_transient() => Err(e),
            Err(e) => Ok(Step::Refused(e)),
        }
    }

    fn step_of(&self, job: Job) -> Step {
        match job.status {
            JobStatus::Completed => Step::Done(Box::new(job)),
            JobStatus::Failed => Step::Refused(
                job.error
                    .as_ref()
                    .map(DomainError::from_stored)
                    .unwrap_or_else(|| {
                        DomainError::Internal("a failed job without its error".into())
                    }),
            ),
            _ => Step::Pending,
        }
    }

    /// The created document's outcome, sending it first when the schedule says so;
    /// `None` while a job is still running.
    async fn finish_run(
        &self,
        access: &Access,
        schedule: &RecurringSchedule,
        first: Step,
        send_key: Option<IdempotencyKey>,
        channel: Channel,
    ) -> DomainResult<Option<Generated>> {
        let job = match first {
            Step::Pending => return Ok(None),
            Step::Refused(e) => return Ok(Some(Generated::failed(&e, None, None))),
            Step::Done(job) => job,
        };
        let document_id = job
            .result
            .as_ref()
            .and_then(|r| r["id"].as_str())
            .map(str::to_owned);
        if schedule.auto_send
            && schedule.recurable_type == RecurableType::Invoice
            && let Some(id) = &document_id
        {
            let send = Write::IssueDocument {
                kind: DocumentKind::Invoice,
                id: id.clone(),
            };
            match self.once(access, send_key, send, channel).await? {
                Step::Pending => return Ok(None),
                Step::Refused(e) => {
                    return Ok(Some(Generated::failed(&e, document_id, Some(job.id))));
                }
                Step::Done(_) => {}
            }
        }
        Ok(Some(Generated {
            status: RunStatus::Succeeded,
            document_id,
            job_id: Some(job.id),
            error: None,
        }))
    }

    /// Submits `write` under `key` unless a record of the key exists at any age, in which
    /// case the job it names is read (and awaited) instead of writing again.
    async fn once(
        &self,
        access: &Access,
        key: Option<IdempotencyKey>,
        write: Write,
        channel: Channel,
    ) -> DomainResult<Step> {
        if let Some(key) = &key
            && let Some(first) = self
                .store
                .find_idempotency(&access.tenant, &key.key, OffsetDateTime::UNIX_EPOCH)
                .await?
        {
            if first.request_hash != key.request_hash {
                return Ok(Step::Refused(DomainError::IdempotencyKeyReused));
            }
            let Some(job_id) = first.job_id else {
                return Err(DomainError::Internal(format!(
                    "idempotency record '{}' names no job",
                    key.key
                )));
            };
            return self.await_job(&access.tenant, &job_id).await;
        }
        self.submit_write(access, write, key, channel).await
    }

    /// The job `id` once it has ended, waiting up to [`RUN_WAIT`].
    async fn await_job(&self, tenant: &Tenant, id: &str) -> DomainResult<Step> {
        let started = std::time::Instant::now();
        loop {
            let job = self
                .store
                .get_job(tenant, id)
                .await?
                .ok_or_else(|| DomainError::Internal(format!("job {id} vanished")))?;
            let step = self.step_of(job);
            if !matches!(step, Step::Pending) || started.elapsed() >= RUN_WAIT {
                return Ok(step);
            }
            self.runtime.sleep(Duration::from_millis(50)).await;
        }
    }

    /// Who writes a schedule's occurrences: its creator's key id, with `write`, in the
    /// schedule's organization and mode.
    async fn schedule_access(&self, schedule: &RecurringSchedule) -> DomainResult<Access> {
        let organization = self
            .store
            .get_organization(&schedule.organization_id)
            .await?
            .ok_or_else(|| {
                DomainError::Internal(format!(
                    "the organization {} of a recurring schedule is gone",
                    schedule.organization_id
                ))
            })?;
        Ok(Access {
            tenant: Tenant {
                organization_id: schedule.organization_id.clone(),
                livemode: schedule.livemode,
            },
            organization,
            key_id: schedule.created_by.clone(),
            permissions: vec![Permission {
                scope: Scope::Write,
                resource: None,
            }],
        })
    }

    /// The scheduler's pass: generates every occurrence due up to today (the clock's) of
    /// every active schedule, each once, and records its run; a refused document is a
    /// failed run and the schedule moves on. Answers how many runs this pass recorded.
    ///
    /// # Errors
    /// Storage failures reading the due schedules; a schedule that fails otherwise is
    /// logged and taken again on the next pass.
    pub async fn run_due_recurring(&self) -> DomainResult<usize> {
        let today = self.now().date();
        let due = self.store.due_recurring_schedules(today, DUE_BATCH).await?;
        let mut recorded = 0;
        for schedule in due {
            let id = schedule.id.clone();
            match self.catch_up(schedule, today).await {
                Ok(n) => recorded += n,
                Err(e) => {
                    tracing::warn!(schedule_id = %id, error = %e, "generating a recurring occurrence failed; the next pass retries");
                }
            }
        }
        Ok(recorded)
    }

    async fn catch_up(&self, mut schedule: RecurringSchedule, today: Date) -> DomainResult<usize> {
        let tenant = Tenant {
            organization_id: schedule.organization_id.clone(),
            livemode: schedule.livemode,
        };
        let access = self.schedule_access(&schedule).await?;
        let mut recorded = 0;
        for _ in 0..CATCH_UP_LIMIT {
            let Some(date) = schedule.next_run_date.filter(|d| *d <= today) else {
                break;
            };
            if schedule.status != ScheduleStatus::Active {
                break;
            }
            let create_key = occurrence_key(&schedule.id, date, "");
            let send_key = occurrence_key(&schedule.id, date, ":send");
            let write = Template::parse(schedule.recurable_type, &schedule.template)
                .and_then(|t| instantiate(schedule.recurable_type, &t, schedule.start_date, date));
            let first = match write {
                Ok(write) => {
                    self.once(&access, Some(create_key), write, Channel::Rest)
                        .await?
                }
                Err(e) => Step::Refused(in_template(e)),
            };
            let Some(generated) = self
                .finish_run(&access, &schedule, first, Some(send_key), Channel::Rest)
                .await?
            else {
                break;
            };
            if generated.status == RunStatus::Failed {
                tracing::info!(schedule_id = %schedule.id, occurrence = %date, "a recurring occurrence failed; the schedule moves on");
            }
            let run = self.run_record(
                &schedule,
                new_id(IdKind::RecurringRun),
                crate::views::date(date),
                date,
                RunTrigger::Scheduled,
                generated,
            );
            let advance = schedule.advance(self.now());
            if self.store.record_recurring_run(run, Some(advance)).await? {
                recorded += 1;
            }
            match self
                .store
                .get_recurring_schedule(&tenant, &schedule.id)
                .await?
            {
                Some(current) => schedule = current,
                None => break,
            }
        }
        Ok(recorded)
    }
}

/// The `Idempotency-Key` (and its fingerprint) under which the scheduler writes the
/// occurrence `date` of schedule `schedule_id` (`suffix` `:send` for its sending).
pub(crate) fn occurrence_key(schedule_id: &str, date: Date, suffix: &str) -> IdempotencyKey {
    let key = format!(
        "{OCCURRENCE_KEY_PREFIX}{schedule_id}:{}{suffix}",
        crate::views::date(date)
    );
    let digest = Sha256::digest(format!("recurring occurrence {key}").as_bytes());
    IdempotencyKey {
        request_hash: digest.iter().map(|b| format!("{b:02x}")).collect(),
        key,
    }
}
