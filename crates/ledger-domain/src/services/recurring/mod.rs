//! Recurring schedules (spec 2.9, 3.7, 4.11; DECISIONS 7): the schedule writes (through
//! [`Ledger::submit`], one credit each) in [`schedules`], their reads, and what a
//! template is turned into in [`templates`]; the manual run and the scheduler are in
//! [`runs`].

mod runs;
mod schedules;
mod templates;

use serde_json::Value;

use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, parse_id};
use crate::ports::{Page, PageRequest, Store};
use crate::recurring::{RecurringRun, RecurringSchedule};

use super::{Access, Ledger};

use templates::{in_template, instantiate};

#[cfg(test)]
pub(crate) use runs::occurrence_key;

/// Fields of a schedule as a client gave them; on an update `None` keeps the value
/// (`Some(None)` clears an end).
#[derive(Debug, Clone, Default)]
pub struct RecurringScheduleInput {
    pub name: Option<String>,
    pub recurable_type: Option<String>,
    pub recurable_id: Option<String>,
    pub template: Option<Value>,
    pub frequency: Option<String>,
    pub interval: Option<i64>,
    pub start_date: Option<String>,
    pub end_date: Option<Option<String>>,
    pub count: Option<Option<i64>>,
    pub auto_send: Option<bool>,
    /// Updates only: `active` (resume) or `paused`.
    pub status: Option<String>,
}

fn schedule_not_found(id: &str) -> DomainError {
    DomainError::NotFound {
        resource: "recurring_schedule",
        id: id.to_owned(),
    }
}

impl<S: Store> Ledger<S> {
    /// A live schedule of the tenant.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn get_recurring_schedule(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<RecurringSchedule> {
        let Some(parsed) = parse_id(IdKind::RecurringSchedule, id) else {
            return Err(schedule_not_found(id));
        };
        self.store
            .get_recurring_schedule(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| schedule_not_found(id))
    }

    /// The tenant's live schedules, oldest first.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn list_recurring_schedules(
        &self,
        access: &Access,
        page: PageRequest,
    ) -> DomainResult<Page<RecurringSchedule>> {
        Ok(self
            .store
            .list_recurring_schedules(&access.tenant, page)
            .await?)
    }

    /// The runs of a live schedule of the tenant, newest occurrence first.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn list_recurring_runs(
        &self,
        access: &Access,
        id: &str,
        page: PageRequest,
    ) -> DomainResult<Page<RecurringRun>> {
        let schedule = self.get_recurring_schedule(access, id).await?;
        Ok(self
            .store
            .list_recurring_runs(&access.tenant, &schedule.id, page)
            .await?)
    }
}
