//! Recurring schedules and their runs.
//!
//! One run per schedule and occurrence is the unique index `recurring_runs_occurrence`;
//! a run is inserted with `ON CONFLICT DO NOTHING` (both backends), in the same database
//! transaction as the schedule's compare-and-set advance, so two schedulers recording
//! the same occurrence leave one row and advance the schedule once.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::ports::{Page, PageRequest, RecurringSchedules, StoreResult, Tenant};
use ledger_domain::recurring::{
    Frequency, RecurableType, RecurringRun, RecurringSchedule, RunStatus, RunTrigger,
    ScheduleAdvance, ScheduleStatus,
};
use time::{Date, PrimitiveDateTime};

use crate::db::Db;
use crate::rows::{from_db, to_db};
use crate::schema::{recurring_runs, recurring_schedules};

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = recurring_schedules, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
// An update (`AsChangeset`) sets every column but the key and the `skip_update` ones.
#[diesel(primary_key(organization_id, livemode, id), treat_none_as_null = true)]
struct ScheduleRow {
    organization_id: String,
    livemode: bool,
    id: String,
    name: Option<String>,
    #[diesel(skip_update)]
    recurable_type: String,
    #[diesel(skip_update)]
    recurable_id: Option<String>,
    template: String,
    frequency: String,
    interval_count: i64,
    start_date: Date,
    end_date: Option<Date>,
    max_occurrences: Option<i64>,
    auto_send: bool,
    status: String,
    next_index: i64,
    next_run_date: Option<Date>,
    occurrences: i64,
    last_run_date: Option<Date>,
    #[diesel(skip_update)]
    created_by: String,
    #[diesel(skip_update)]
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

impl From<&RecurringSchedule> for ScheduleRow {
    fn from(s: &RecurringSchedule) -> Self {
        Self {
            organization_id: s.organization_id.clone(),
            livemode: s.livemode,
            id: s.id.clone(),
            name: s.name.clone(),
            recurable_type: s.recurable_type.as_str().to_owned(),
            recurable_id: s.recurable_id.clone(),
            template: s.template.to_string(),
            frequency: s.frequency.as_str().to_owned(),
            interval_count: s.interval,
            start_date: s.start_date,
            end_date: s.end_date,
            max_occurrences: s.max_occurrences,
            auto_send: s.auto_send,
            status: s.status.as_str().to_owned(),
            next_index: s.next_index,
            next_run_date: s.next_run_date,
            occurrences: s.occurrences,
            last_run_date: s.last_run_date,
            created_by: s.created_by.clone(),
            created_at: to_db(s.created_at),
            updated_at: to_db(s.updated_at),
        }
    }
}

fn stored(what: &str, text: &str) -> StoreError {
    StoreError::Internal(format!("stored recurring {what} '{text}' is not known"))
}

impl TryFrom<ScheduleRow> for RecurringSchedule {
    type Error = StoreError;

    fn try_from(r: ScheduleRow) -> Result<Self, StoreError> {
        Ok(Self {
            recurable_type: RecurableType::parse(&r.recurable_type)
                .ok_or_else(|| stored("type", &r.recurable_type))?,
            frequency: Frequency::parse(&r.frequency)
                .ok_or_else(|| stored("frequency", &r.frequency))?,
            status: ScheduleStatus::parse(&r.status).ok_or_else(|| stored("status", &r.status))?,
            template: serde_json::from_str(&r.template)
                .map_err(|e| StoreError::Internal(format!("stored template: {e}")))?,
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            name: r.name,
            recurable_id: r.recurable_id,
            interval: r.interval_count,
            start_date: r.start_date,
            end_date: r.end_date,
            max_occurrences: r.max_occurrences,
            auto_send: r.auto_send,
            next_index: r.next_index,
            next_run_date: r.next_run_date,
            occurrences: r.occurrences,
            last_run_date: r.last_run_date,
            created_by: r.created_by,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = recurring_runs, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct RunRow {
    organization_id: String,
    livemode: bool,
    id: String,
    schedule_id: String,
    occurrence_key: String,
    occurrence_date: Date,
    run_trigger: String,
    status: String,
    document_type: String,
    document_id: Option<String>,
    job_id: Option<String>,
    error: Option<String>,
    created_at: PrimitiveDateTime,
}

impl From<&RecurringRun> for RunRow {
    fn from(r: &RecurringRun) -> Self {
        Self {
            organization_id: r.organization_id.clone(),
            livemode: r.livemode,
            id: r.id.clone(),
            schedule_id: r.schedule_id.clone(),
            occurrence_key: r.occurrence_key.clone(),
            occurrence_date: r.occurrence_date,
            run_trigger: r.trigger.as_str().to_owned(),
            status: r.status.as_str().to_owned(),
            document_type: r.document_type.as_str().to_owned(),
            document_id: r.document_id.clone(),
            job_id: r.job_id.clone(),
            error: r.error.as_ref().map(ToString::to_string),
            created_at: to_db(r.created_at),
        }
    }
}

impl TryFrom<RunRow> for RecurringRun {
    type Error = StoreError;

    fn try_from(r: RunRow) -> Result<Self, StoreError> {
        Ok(Self {
            trigger: RunTrigger::parse(&r.run_trigger)
                .ok_or_else(|| stored("trigger", &r.run_trigger))?,
            status: RunStatus::parse(&r.status).ok_or_else(|| stored("run status", &r.status))?,
            document_type: RecurableType::parse(&r.document_type)
                .ok_or_else(|| stored("document type", &r.document_type))?,
            error: r
                .error
                .as_deref()
                .map(serde_json::from_str)
                .transpose()
                .map_err(|e| StoreError::Internal(format!("stored run error: {e}")))?,
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            schedule_id: r.schedule_id,
            occurrence_key: r.occurrence_key,
            occurrence_date: r.occurrence_date,
            document_id: r.document_id,
            job_id: r.job_id,
            created_at: from_db(r.created_at),
        })
    }
}

impl RecurringSchedules for Db {
    resource_methods!(
        RecurringSchedule, ScheduleRow, recurring_schedules, Resource::RecurringSchedule;
        insert: insert_recurring_schedule,
        update: update_recurring_schedule,
        get: get_recurring_schedule,
        list: list_recurring_schedules,
        delete: delete_recurring_schedule,
    );

    async fn due_recurring_schedules(
        &self,
        today: Date,
        limit: i64,
    ) -> StoreResult<Vec<RecurringSchedule>> {
        // Across tenants, like the job queue: the partial index `recurring_schedules_due`.
        read_all!(
            self,
            ScheduleRow,
            RecurringSchedule::try_from,
            recurring_schedules::table
                .filter(recurring_schedules::deleted_at.is_null())
                .filter(recurring_schedules::status.eq(ScheduleStatus::Active.as_str()))
                .filter(recurring_schedules::next_run_date.le(today))
                .order((
                    recurring_schedules::next_run_date.asc(),
                    recurring_schedules::id.asc(),
                ))
                .limit(limit)
        )
    }

    async fn record_recurring_run(
        &self,
        run: RecurringRun,
        advance: Option<ScheduleAdvance>,
    ) -> StoreResult<bool> {
        let row = RunRow::from(&run);
        let advance = advance.map(|a| {
            (
                a.schedule_id,
                a.expected_index,
                a.next_index,
                a.next_run_date,
                a.status.as_str().to_owned(),
                a.occurrences,
                a.last_run_date,
                to_db(a.updated_at),
            )
        });
        Ok(db_write!(self, |conn| {
            let inserted = diesel::insert_into(recurring_runs::table)
                .values(&row)
                .on_conflict((
                    recurring_runs::organization_id,
                    recurring_runs::schedule_id,
                    recurring_runs::occurrence_key,
                ))
                .do_nothing()
                .execute(conn)
                .await?;
            if let Some((id, expected, next, next_date, status, occurrences, last, updated)) =
                &advance
            {
                use recurring_schedules as s;
                // Compare-and-set: only a schedule still active at the expected
                // occurrence moves; one paused or changed meanwhile stays as it is.
                diesel::update(s::table)
                    .filter(tenant_of!(s, row))
                    .filter(s::id.eq(id))
                    .filter(s::deleted_at.is_null())
                    .filter(s::status.eq(ScheduleStatus::Active.as_str()))
                    .filter(s::next_index.eq(*expected))
                    .set((
                        s::next_index.eq(*next),
                        s::next_run_date.eq(*next_date),
                        s::status.eq(status),
                        s::occurrences.eq(*occurrences),
                        s::last_run_date.eq(*last),
                        s::updated_at.eq(*updated),
                    ))
                    .execute(conn)
                    .await?;
            }
            Ok(inserted > 0)
        })?)
    }

    async fn list_recurring_runs(
        &self,
        tenant: &Tenant,
        schedule_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<RecurringRun>> {
        read_page!(
            self,
            RunRow,
            RecurringRun::try_from,
            page,
            (
                recurring_runs::occurrence_date.desc(),
                recurring_runs::created_at.desc(),
                recurring_runs::id.desc(),
            ),
            || {
                recurring_runs::table
                    .filter(tenant_of!(recurring_runs, tenant))
                    .filter(recurring_runs::schedule_id.eq(schedule_id))
            }
        )
    }
}
