//! The schedule writes: create (from a template, or copying an invoice or bill), change
//! (its rule, end, template, or pausing and resuming it) and delete, each synchronous and
//! one credit.

use serde_json::Value;

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ids::{IdKind, new_id};
use crate::ports::{Store, Written};
use crate::recurring::{Frequency, MAX_INTERVAL, RecurableType, RecurringSchedule, ScheduleStatus};

use crate::services::deletions::Removal;
use crate::services::{Access, Ledger, WriteOptions};

use super::RecurringScheduleInput;
use super::templates::check_template_kind;
use crate::dates::check_day;

/// How far in the past a schedule may start (its occurrences since are generated).
const MAX_BACKFILL_DAYS: i64 = 366;

impl<S: Store> Ledger<S> {
    /// Validates a new schedule and writes it (synchronous, one credit).
    ///
    /// # Errors
    /// Validation errors of the schedule and of its template (fields under `template.`),
    /// `resource_not_found` for a `recurable_id` not in the tenant, `insufficient_credits`.
    pub(crate) async fn create_recurring_schedule(
        &self,
        access: &Access,
        input: RecurringScheduleInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let mut schedule = self.new_schedule(access, input).await?;
        let (kind, start_date) = (schedule.recurable_type, schedule.start_date);
        self.check_template(access, kind, &schedule.template, start_date)
            .await?;
        schedule.reschedule(0, start_date);
        let view = schedule.view();
        let audit = self.created_audit(access, options, "recurring_schedule", &schedule.id, &view);
        Ok(self
            .store
            .insert_recurring_schedule(schedule, audit)
            .await?
            .map(|s| s.view()))
    }

    /// The schedule a create describes, its fields checked (not yet its template).
    async fn new_schedule(
        &self,
        access: &Access,
        input: RecurringScheduleInput,
    ) -> DomainResult<RecurringSchedule> {
        let today = self.now().date();
        let kind_text = input
            .recurable_type
            .ok_or_else(|| DomainError::missing_field("recurable_type"))?;
        let kind = RecurableType::parse(&kind_text).ok_or_else(|| {
            DomainError::invalid_field("recurable_type", "must be invoice, bill or transaction")
        })?;
        let recurable_id = input
            .recurable_id
            .map(|id| id.trim().to_owned())
            .filter(|id| !id.is_empty());
        let template = self
            .create_template(access, kind, input.template, recurable_id.as_deref())
            .await?;
        let frequency = Frequency::parse(
            &input
                .frequency
                .ok_or_else(|| DomainError::missing_field("frequency"))?,
        )
        .ok_or_else(|| {
            DomainError::invalid_field(
                "frequency",
                "must be daily, weekly, monthly, quarterly or yearly",
            )
        })?;
        let start_date = match input.start_date {
            Some(text) => check_day(&text, "start_date")?,
            None => today,
        };
        if (today - start_date).whole_days() > MAX_BACKFILL_DAYS {
            // It depends on today: a rule, not a malformed date.
            return Err(DomainError::inconsistent(
                "start_date",
                format!("may be at most {MAX_BACKFILL_DAYS} days in the past"),
            ));
        }
        let now = self.now();
        let mut schedule = RecurringSchedule {
            id: new_id(IdKind::RecurringSchedule),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            name: None,
            recurable_type: kind,
            recurable_id,
            template,
            frequency,
            interval: 1,
            start_date,
            end_date: None,
            max_occurrences: None,
            auto_send: false,
            status: ScheduleStatus::Active,
            next_index: 0,
            next_run_date: None,
            occurrences: 0,
            last_run_date: None,
            created_by: access.key_id.clone(),
            created_at: now,
            updated_at: now,
        };
        apply_fields(
            &mut schedule,
            input.name,
            input.interval,
            input.end_date,
            input.count,
            input.auto_send,
        )?;
        Ok(schedule)
    }

    /// The template of a create: the one given, or a copy of the invoice or bill
    /// `recurable_id` names (not both).
    async fn create_template(
        &self,
        access: &Access,
        kind: RecurableType,
        template: Option<Value>,
        recurable_id: Option<&str>,
    ) -> DomainResult<Value> {
        match (template, recurable_id) {
            (Some(_), Some(_)) => Err(DomainError::invalid_field(
                "recurable_id",
                "give either a template or the recurable_id of a document to copy, not both",
            )),
            (Some(template), None) => Ok(template),
            (None, Some(id)) => self.template_of(access, kind, id).await,
            (None, None) => Err(DomainError::missing_field("template")),
        }
    }

    /// Changes a schedule: its rule, end, template, name, `auto_send`, or its status
    /// (`paused`, or `active` to resume; a resumed schedule skips what fell due while it
    /// was paused). A changed rule applies from today (or after the last run).
    ///
    /// # Errors
    /// `resource_not_found`, validation errors as on a create, `invalid_state_transition`
    /// (resuming or pausing a completed schedule), `insufficient_credits`.
    pub(crate) async fn update_recurring_schedule(
        &self,
        access: &Access,
        id: &str,
        input: RecurringScheduleInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_recurring_schedule(access, id).await?;
        let mut schedule = before.clone();
        check_kept(&before, &input)?;
        let today = self.now().date();
        let mut rule_changed = false;
        if let Some(text) = input.frequency {
            schedule.frequency = Frequency::parse(&text).ok_or_else(|| {
                DomainError::invalid_field(
                    "frequency",
                    "must be daily, weekly, monthly, quarterly or yearly",
                )
            })?;
            rule_changed = true;
        }
        if let Some(text) = input.start_date {
            schedule.start_date = check_day(&text, "start_date")?;
            rule_changed = true;
        }
        rule_changed |=
            input.interval.is_some() || input.end_date.is_some() || input.count.is_some();
        apply_fields(
            &mut schedule,
            input.name,
            input.interval,
            input.end_date,
            input.count,
            input.auto_send,
        )?;
        if let Some(template) = input.template {
            check_template_kind(schedule.recurable_type, &template)?;
            self.check_template(access, schedule.recurable_type, &template, today)
                .await?;
            schedule.template = template;
        }
        let resume = change_status(&before, &mut schedule, input.status, rule_changed)?;
        if rule_changed || resume {
            // From today, and never again on or before the last occurrence generated.
            let mut from = today.max(schedule.start_date);
            if let Some(last) = schedule.last_run_date
                && last >= from
            {
                from = last.next_day().unwrap_or(last);
            }
            let from_index = if rule_changed { 0 } else { schedule.next_index };
            schedule.reschedule(from_index, from);
        }
        schedule.updated_at = self.now();
        let view = schedule.view();
        let audit = self.updated_audit(
            access,
            options,
            "recurring_schedule",
            &schedule.id,
            before.view(),
            &view,
        );
        Ok(self
            .store
            .update_recurring_schedule(schedule, audit)
            .await?
            .map(|s| s.view()))
    }

    /// Soft-deletes a schedule (synchronous, one credit); nothing more is generated.
    ///
    /// # Errors
    /// `resource_not_found`, `insufficient_credits`.
    pub(crate) async fn delete_recurring_schedule(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_recurring_schedule(access, id).await?;
        let name = before
            .name
            .clone()
            .unwrap_or_else(|| format!("{} schedule", before.recurable_type.as_str()));
        let removal = Removal::new("recurring_schedule", &before.id, &name, before.view());
        self.soft_delete(access, options, removal, |deletion, audit| {
            self.store
                .delete_recurring_schedule(&before.id, deletion, audit)
        })
        .await
    }
}

/// Applies the plain fields of an input to `schedule`, checking each.
fn apply_fields(
    schedule: &mut RecurringSchedule,
    name: Option<String>,
    interval: Option<i64>,
    end_date: Option<Option<String>>,
    count: Option<Option<i64>>,
    auto_send: Option<bool>,
) -> DomainResult<()> {
    if let Some(name) = name {
        let name = name.trim().to_owned();
        if name.chars().count() > 255 {
            return Err(DomainError::invalid_field(
                "name",
                "must be at most 255 characters",
            ));
        }
        schedule.name = Some(name).filter(|n| !n.is_empty());
    }
    if let Some(interval) = interval {
        if !(1..=MAX_INTERVAL).contains(&interval) {
            return Err(DomainError::invalid_field(
                "interval",
                format!("must be between 1 and {MAX_INTERVAL}"),
            ));
        }
        schedule.interval = interval;
    }
    if let Some(end) = end_date {
        schedule.end_date = end.map(|t| check_day(&t, "end_date")).transpose()?;
    }
    if schedule
        .end_date
        .is_some_and(|end| end < schedule.start_date)
    {
        // Invalid request data (400), as every end before its start.
        return Err(DomainError::invalid_field(
            "end_date",
            "must not be before start_date",
        ));
    }
    if let Some(count) = count {
        if count.is_some_and(|c| !(1..=crate::recurring::MAX_OCCURRENCES).contains(&c)) {
            return Err(DomainError::invalid_field(
                "count",
                format!("must be 1 to {}", crate::recurring::MAX_OCCURRENCES),
            ));
        }
        schedule.max_occurrences = count;
    }
    if let Some(auto_send) = auto_send {
        if auto_send && schedule.recurable_type != RecurableType::Invoice {
            return Err(DomainError::inconsistent(
                "auto_send",
                "only an invoice schedule can send what it generates",
            ));
        }
        schedule.auto_send = auto_send;
    }
    Ok(())
}

/// Refuses a change of what a schedule keeps for its life: its kind, and the document it
/// copied.
fn check_kept(before: &RecurringSchedule, input: &RecurringScheduleInput) -> DomainResult<()> {
    if let Some(kind) = &input.recurable_type
        && RecurableType::parse(kind) != Some(before.recurable_type)
    {
        return Err(DomainError::invalid_field(
            "recurable_type",
            "cannot change; create another schedule",
        ));
    }
    if input.recurable_id.is_some() {
        return Err(DomainError::invalid_field(
            "recurable_id",
            "cannot change; send a new template instead",
        ));
    }
    Ok(())
}

/// Applies a wanted `status` (`paused`, or `active` to resume) to `schedule`; a completed
/// schedule runs again only with a changed rule. Answers whether a paused schedule
/// resumes.
fn change_status(
    before: &RecurringSchedule,
    schedule: &mut RecurringSchedule,
    status: Option<String>,
    rule_changed: bool,
) -> DomainResult<bool> {
    let mut resume = false;
    if let Some(text) = status {
        let wanted = match ScheduleStatus::parse(&text) {
            Some(s @ (ScheduleStatus::Active | ScheduleStatus::Paused)) => s,
            _ => {
                return Err(DomainError::invalid_field(
                    "status",
                    "must be active (resume) or paused",
                ));
            }
        };
        if before.status == ScheduleStatus::Completed && !rule_changed {
            return Err(DomainError::rule(
                ErrorCode::InvalidStateTransition,
                format!(
                    "recurring schedule {} is completed; change its end to run it again",
                    before.id
                ),
            ));
        }
        resume = before.status == ScheduleStatus::Paused && wanted == ScheduleStatus::Active;
        schedule.status = wanted;
    }
    Ok(resume)
}
