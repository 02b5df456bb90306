//! Recurring schedules (spec 2.9, 3.7, 4.11; DECISIONS 7): the schedule writes (through
//! [`Ledger::submit`], one credit each) in [`schedules`], their reads, and what a
//! template is turned into in [`templates`]; the manual run and the scheduler are in
//! [`runs`].

mod runs;
mod schedules;
mod templates;

use serde_json::Value;

use crate::error::DomainResult;
use crate::ports::{Page, PageRequest, Store};
use crate::recurring::{RecurringRun, RecurringSchedule};

use super::accounts::tenant_reads;
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

impl<S: Store> Ledger<S> {
    tenant_reads! {
        /// A live schedule of the tenant.
        ///
        /// # Errors
        /// `resource_not_found`.
        pub fn get_recurring_schedule(id) -> RecurringSchedule:
            RecurringSchedule, "recurring_schedule", get_recurring_schedule;

        /// The tenant's live schedules, oldest first.
        ///
        /// # Errors
        /// Storage failures.
        pub fn list_recurring_schedules(page) -> RecurringSchedule: list_recurring_schedules;
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
