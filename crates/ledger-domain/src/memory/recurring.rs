//! Recurring schedules and runs in memory, checked in the SQL adapter's order. The one
//! run per schedule and occurrence key is the SQL adapter's unique key.

use crate::error::Resource;
use time::Date;

use crate::ports::{Audit, Page, PageRequest, RecurringSchedules, StoreResult, Tenant, Written};
use crate::recurring::{RecurringRun, RecurringSchedule, ScheduleAdvance, ScheduleStatus};

use super::tenanted::{insert_new, live_mut, of_tenant, stored_mut, table_methods, tenant_of};
use super::{MemoryStore, page_of};

impl RecurringSchedules for MemoryStore {
    async fn insert_recurring_schedule(
        &self,
        schedule: RecurringSchedule,
        audit: Audit,
    ) -> StoreResult<Written<RecurringSchedule>> {
        self.state().audited(audit, |state| {
            insert_new(
                &mut state.recurring_schedules,
                schedule,
                "recurring schedule",
            )
        })
    }

    async fn update_recurring_schedule(
        &self,
        schedule: RecurringSchedule,
        audit: Audit,
    ) -> StoreResult<Written<RecurringSchedule>> {
        self.state().audited(audit, |state| {
            let stored = stored_mut(
                &mut state.recurring_schedules,
                &schedule,
                Resource::RecurringSchedule,
            )?;
            let (created_by, created_at) = (stored.created_by.clone(), stored.created_at);
            *stored = RecurringSchedule {
                created_by,
                created_at,
                ..schedule.clone()
            };
            Ok(schedule)
        })
    }

    table_methods! {
        fn delete_recurring_schedule(delete) -> RecurringSchedule: recurring_schedules;
        fn get_recurring_schedule(get) -> RecurringSchedule: recurring_schedules;
        fn list_recurring_schedules(page) -> RecurringSchedule: recurring_schedules;
    }

    async fn due_recurring_schedules(
        &self,
        today: Date,
        limit: i64,
    ) -> StoreResult<Vec<RecurringSchedule>> {
        let state = self.state();
        let mut found: Vec<RecurringSchedule> = state
            .recurring_schedules
            .iter()
            .filter(|r| {
                r.is_live()
                    && r.value.status == ScheduleStatus::Active
                    && r.value.next_run_date.is_some_and(|d| d <= today)
            })
            .map(|r| r.value.clone())
            .collect();
        found.sort_by(|a, b| (a.next_run_date, &a.id).cmp(&(b.next_run_date, &b.id)));
        found.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(found)
    }

    async fn record_recurring_run(
        &self,
        run: RecurringRun,
        advance: Option<ScheduleAdvance>,
    ) -> StoreResult<bool> {
        let mut state = self.state();
        let exists = state.recurring_runs.iter().any(|r| {
            r.organization_id == run.organization_id
                && r.schedule_id == run.schedule_id
                && r.occurrence_key == run.occurrence_key
        });
        let tenant = tenant_of(&run);
        if let Some(advance) = advance
            && let Some(stored) = live_mut(
                &mut state.recurring_schedules,
                &tenant,
                &advance.schedule_id,
            )
        {
            // A schedule paused or changed meanwhile is left as it is.
            if stored.next_index == advance.expected_index
                && stored.status == ScheduleStatus::Active
            {
                stored.next_index = advance.next_index;
                stored.next_run_date = advance.next_run_date;
                stored.occurrences = advance.occurrences;
                stored.last_run_date = advance.last_run_date;
                stored.updated_at = advance.updated_at;
                stored.status = advance.status;
            }
        }
        if !exists {
            state.recurring_runs.push(run);
        }
        Ok(!exists)
    }

    async fn list_recurring_runs(
        &self,
        tenant: &Tenant,
        schedule_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<RecurringRun>> {
        let mut found = of_tenant(&self.state().recurring_runs, tenant, |r| {
            r.schedule_id == schedule_id
        });
        found.sort_by(|a, b| {
            (b.occurrence_date, b.created_at, &b.id).cmp(&(a.occurrence_date, a.created_at, &a.id))
        });
        Ok(page_of(found, Some(page)))
    }
}
