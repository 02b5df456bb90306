//! Recurring schedules of a tenant and the history of their runs.

use std::future::Future;

use time::Date;

use crate::events::Deletion;
use crate::recurring::{RecurringRun, RecurringSchedule, ScheduleAdvance};

use super::{Audit, Page, PageRequest, StoreResult, Tenant, Written};

/// Recurring schedules: synchronous writes with their event and credits, the scheduler's
/// reads across tenants, and the runs, each recorded once per occurrence.
pub trait RecurringSchedules: Send + Sync + 'static {
    /// Inserts a schedule and its event, taking the credits of `charge`; a used
    /// `idempotency` key is replayed instead (nothing is written).
    ///
    /// # Errors
    /// `CreditsShort` when a live pool is short; nothing is written then.
    fn insert_recurring_schedule(
        &self,
        schedule: RecurringSchedule,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<RecurringSchedule>>> + Send;

    /// Saves every mutable field of a live schedule (all but its id, tenant, creator and
    /// creation time) with its event, taking the credits; a used key is replayed instead.
    ///
    /// # Errors
    /// `Missing` when the schedule is not live in its tenant;
    /// `CreditsShort`. Nothing is written then.
    fn update_recurring_schedule(
        &self,
        schedule: RecurringSchedule,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<RecurringSchedule>>> + Send;

    /// Soft-deletes a schedule with its deletion record and event, taking the credits; a
    /// used key is replayed instead. Its runs stay readable by its id.
    ///
    /// # Errors
    /// `Missing` when the schedule is not live in the deletion's tenant;
    /// `CreditsShort`. Nothing is written then.
    fn delete_recurring_schedule(
        &self,
        schedule_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;

    /// A live schedule of the tenant.
    fn get_recurring_schedule(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<RecurringSchedule>>> + Send;

    /// The tenant's live schedules, oldest first.
    fn list_recurring_schedules(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<RecurringSchedule>>> + Send;

    /// Up to `limit` live, active schedules of any tenant whose next occurrence falls on
    /// or before `today`, earliest first (the scheduler's read).
    fn due_recurring_schedules(
        &self,
        today: Date,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<RecurringSchedule>>> + Send;

    /// In one database transaction: inserts `run` unless a run of its schedule with the
    /// same `occurrence_key` exists (then keeps that one), and applies `advance` to the
    /// schedule if it still stands at `advance.expected_index` and is live. Answers
    /// whether this call inserted the run.
    fn record_recurring_run(
        &self,
        run: RecurringRun,
        advance: Option<ScheduleAdvance>,
    ) -> impl Future<Output = StoreResult<bool>> + Send;

    /// The runs of a schedule of the tenant (live or deleted), newest occurrence first.
    fn list_recurring_runs(
        &self,
        tenant: &Tenant,
        schedule_id: &str,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<RecurringRun>>> + Send;
}
