//! The queue of writes (DECISIONS 4): enqueue with credits, claim, fail and retry.
//!
//! A job moves `queued` -> `processing` (claimed: attempts + 1, leased until
//! `locked_until`) -> `completed` | `failed`, or back to `queued` for a retry. Every
//! transition after the claim is a conditional update on (`processing`, same attempts),
//! so a worker whose lease was taken over can no longer complete, fail or retry the job.

use diesel::dsl::sql;
use diesel::expression::SqlLiteral;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use ledger_domain::credits::LedgerKind;
use ledger_domain::events::Event;
use ledger_domain::jobs::Job;
use ledger_domain::ports::{
    AppliedWrite, CreditCharge, Effect, IdempotencyRecord, Jobs, StoreResult, Tenant, Written,
};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::credits::take_charge;
use crate::db::Db;
use crate::idempotency::settle_idempotent;
use crate::rows::{CreditLedgerRow, CreditUsageRow, IdempotencyRow, JobRow, json_text, to_db};
use crate::schema::{credit_ledger, credit_usage, jobs, organizations};

const QUEUED: &str = "queued";
const PROCESSING: &str = "processing";
const FAILED: &str = "failed";

/// `queued` as an SQL literal, not a bound value: the claim's indexes are partial
/// (`WHERE status = 'queued'`, `WHERE status = 'processing'`), and a plan can only use
/// them when the query's own test is the same literal.
pub(crate) fn queued_literal() -> SqlLiteral<Text> {
    sql::<Text>("'queued'")
}

/// `processing` as an SQL literal (see [`queued_literal`]).
fn processing_literal() -> SqlLiteral<Text> {
    sql::<Text>("'processing'")
}

/// The claim of the jobs the filters `$which` select: each is marked processing (one more
/// attempt) and leased until `$lease_end`, its row returned (the statement, to be run).
macro_rules! claim {
    ($lease_end:expr, $now:expr, $($which:expr),+ $(,)?) => {
        diesel::update(jobs::table)
            $(.filter($which))+
            .set((
                jobs::status.eq(PROCESSING),
                jobs::attempts.eq(jobs::attempts + 1),
                jobs::locked_until.eq(Some($lease_end)),
                jobs::updated_at.eq($now),
            ))
            .returning(JobRow::as_returning())
    };
}

impl Jobs for Db {
    async fn enqueue(
        &self,
        job: Job,
        charge: Option<CreditCharge>,
        idempotency: Option<IdempotencyRecord>,
    ) -> StoreResult<Written<Job>> {
        let job_row = JobRow::from_domain(&job)?;
        let idem_row = idempotency.as_ref().map(IdempotencyRow::from);
        let charged_at = job_row.created_at;
        let written = db_write!(self, |conn| {
            idempotency_guard!(conn, &idem_row);
            if let Some(charge) = &charge {
                take_charge(conn, charge, &job_row.id, Some(&job_row.id), charged_at).await?;
            }
            diesel::insert_into(jobs::table)
                .values(&job_row)
                .execute(conn)
                .await?;
            Ok(Written::Done(job))
        });
        settle_idempotent(self, written, idempotency).await
    }

    async fn record_applied(&self, write: AppliedWrite) -> StoreResult<Written<Job>> {
        self.record_applied_grouped(write).await
    }

    async fn get_job(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Job>> {
        read_first!(
            self,
            JobRow,
            Job::try_from,
            jobs::table
                .filter(tenant_of!(jobs, tenant))
                .filter(jobs::id.eq(id))
        )
    }

    async fn claim_jobs(
        &self,
        limit: i64,
        now: OffsetDateTime,
        lease: time::Duration,
    ) -> StoreResult<Vec<Job>> {
        if limit <= 0 {
            return Ok(Vec::new());
        }
        let lease_end = to_db(now + lease);
        let now = to_db(now);
        let rows: Vec<JobRow> = db_write!(
            self,
            postgres | conn | {
                // PostgreSQL: concurrent workers each lock and take different rows;
                // rows another worker has locked are skipped, never waited for or shared.
                // The subquery names the table through an alias: diesel refuses the same
                // table twice in one statement otherwise.
                let candidates = diesel::alias!(jobs as candidates);
                let runnable = candidates
                    .select(candidates.field(jobs::id))
                    .filter(
                        candidates
                            .field(jobs::status)
                            .eq(queued_literal())
                            .and(candidates.field(jobs::run_at).le(now))
                            .or(candidates
                                .field(jobs::status)
                                .eq(processing_literal())
                                .and(candidates.field(jobs::locked_until).lt(now))),
                    )
                    .order((
                        candidates.field(jobs::run_at).asc(),
                        candidates.field(jobs::id).asc(),
                    ))
                    .limit(limit)
                    .for_update()
                    .skip_locked();
                Ok(claim!(lease_end, now, jobs::id.eq_any(runnable))
                    .get_results(conn)
                    .await?)
            },
            sqlite | conn | {
                // SQLite has no row locks: the single writer connection and BEGIN
                // IMMEDIATE serialize claimers, so select-then-update cannot race.
                let ids: Vec<String> = jobs::table
                    .select(jobs::id)
                    .filter(
                        jobs::status
                            .eq(queued_literal())
                            .and(jobs::run_at.le(now))
                            .or(jobs::status
                                .eq(processing_literal())
                                .and(jobs::locked_until.lt(now))),
                    )
                    .order((jobs::run_at.asc(), jobs::id.asc()))
                    .limit(limit)
                    .load(conn)
                    .await?;
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                Ok(claim!(lease_end, now, jobs::id.eq_any(&ids))
                    .get_results(conn)
                    .await?)
            }
        )?;
        let mut claimed = rows
            .into_iter()
            .map(Job::try_from)
            .collect::<StoreResult<Vec<_>>>()?;
        claimed.sort_by(|a, b| (a.run_at, &a.id).cmp(&(b.run_at, &b.id)));
        Ok(claimed)
    }

    async fn claim_job(
        &self,
        id: &str,
        now: OffsetDateTime,
        lease: time::Duration,
    ) -> StoreResult<Option<Job>> {
        let lease_end = to_db(now + lease);
        let now = to_db(now);
        let id = id.to_owned();
        // One conditional update: on PostgreSQL a concurrent claimer waits for the row
        // lock and then no longer matches; on SQLite writers are serialized anyway.
        let row: Option<JobRow> = db_write!(self, |conn| {
            Ok(claim!(
                lease_end,
                now,
                jobs::id.eq(&id),
                jobs::status
                    .eq(QUEUED)
                    .and(jobs::run_at.le(now))
                    .or(jobs::status.eq(PROCESSING).and(jobs::locked_until.lt(now))),
            )
            .get_result(conn)
            .await
            .optional()?)
        })?;
        row.map(Job::try_from).transpose()
    }

    async fn apply_job(
        &self,
        job: &Job,
        effect: Effect,
        events: Vec<Event>,
        result: serde_json::Value,
        now: OffsetDateTime,
    ) -> StoreResult<()> {
        crate::apply::apply(self, job, effect, events, result, now).await
    }

    async fn fail_job(
        &self,
        job: &Job,
        error: serde_json::Value,
        now: OffsetDateTime,
    ) -> StoreResult<()> {
        let org = job.organization_id.clone();
        let job_id = job.id.clone();
        let attempts = job.attempts;
        let livemode = job.livemode;
        let cost = job.credit_cost;
        let pool_id = job.credit_pool_id.clone();
        let error = json_text(&error);
        let now = to_db(now);
        db_write!(self, |conn| {
            end_claim!(
                conn,
                &org,
                &job_id,
                attempts,
                (
                    jobs::status.eq(FAILED),
                    jobs::error.eq(Some(&error)),
                    jobs::locked_until.eq(None::<PrimitiveDateTime>),
                    jobs::completed_at.eq(Some(now)),
                    jobs::updated_at.eq(now),
                ),
            );
            if cost > 0 {
                if livemode {
                    diesel::update(organizations::table)
                        .filter(organizations::id.eq(&pool_id))
                        .set(
                            organizations::credits_remaining
                                .eq(organizations::credits_remaining + cost),
                        )
                        .execute(conn)
                        .await?;
                    let refund = CreditLedgerRow::new(
                        &pool_id,
                        &format!("{job_id}_refund"),
                        LedgerKind::Refund,
                        cost,
                        Some(job_id.as_str()),
                        now,
                    );
                    diesel::insert_into(credit_ledger::table)
                        .values(&refund)
                        .execute(conn)
                        .await?;
                } else {
                    // Test usage is append-only: the refund is a negative row.
                    let refund = CreditUsageRow {
                        organization_id: pool_id.clone(),
                        livemode: false,
                        id: format!("{job_id}_refund"),
                        credits: -cost,
                        job_id: Some(job_id.clone()),
                        created_at: now,
                    };
                    diesel::insert_into(credit_usage::table)
                        .values(&refund)
                        .execute(conn)
                        .await?;
                }
            }
            Ok(())
        })?;
        Ok(())
    }

    async fn retry_job(
        &self,
        job: &Job,
        error: serde_json::Value,
        run_at: OffsetDateTime,
    ) -> StoreResult<()> {
        let org = job.organization_id.clone();
        let job_id = job.id.clone();
        let attempts = job.attempts;
        let error = json_text(&error);
        let run_at = to_db(run_at);
        let now = to_db(OffsetDateTime::now_utc());
        db_write!(self, |conn| {
            end_claim!(
                conn,
                &org,
                &job_id,
                attempts,
                (
                    jobs::status.eq(QUEUED),
                    jobs::error.eq(Some(&error)),
                    jobs::run_at.eq(run_at),
                    jobs::locked_until.eq(None::<PrimitiveDateTime>),
                    jobs::updated_at.eq(now),
                ),
            );
            Ok(())
        })?;
        Ok(())
    }
}
