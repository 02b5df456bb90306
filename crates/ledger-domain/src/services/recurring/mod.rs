//! Recurring schedules (spec 2.9, 3.7, 4.11; DECISIONS 7): the schedule writes (through
//! [`Ledger::submit`], one credit each), their reads, and what a template is turned into;
//! the manual run and the scheduler are in [`runs`].

mod runs;

use serde_json::Value;
use time::{Date, Time};

use crate::documents::DocumentKind;
use crate::error::{DomainError, DomainResult, ErrorCode, Resource};
use crate::ids::{IdKind, new_id, parse_id};
use crate::ports::{Page, PageRequest, Store, Written};
use crate::recurring::{
    DocumentTemplate, Frequency, MAX_INTERVAL, RecurableType, RecurringRun, RecurringSchedule,
    ScheduleStatus, Template, TransactionTemplate,
};

use super::{
    Access, DocumentInput, DocumentItemInput, EntryInput, Ledger, NewTransactionInput, Write,
    WriteOptions, with_result,
};

#[cfg(test)]
pub(crate) use runs::occurrence_key;

/// How far in the past a schedule may start (its occurrences since are generated).
const MAX_BACKFILL_DAYS: i64 = 366;

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

fn check_date(text: &str, field: &str) -> DomainResult<Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    Date::parse(text.trim(), &format)
        .map_err(|_| DomainError::invalid_field(field, "must be a date (YYYY-MM-DD)"))
}

fn document_kind(kind: RecurableType) -> Option<DocumentKind> {
    match kind {
        RecurableType::Invoice => Some(DocumentKind::Invoice),
        RecurableType::Bill => Some(DocumentKind::Bill),
        RecurableType::Transaction => None,
    }
}

/// A refusal of the template's content, its field named under `template.`.
fn in_template(error: DomainError) -> DomainError {
    match error {
        DomainError::Validation {
            code,
            field: Some(field),
            message,
        } if !field.starts_with("template") => DomainError::Validation {
            code,
            field: Some(format!("template.{field}")),
            message,
        },
        other => other,
    }
}

/// The write that generates the template's document dated `date` (the schedule starts
/// on `start`; a due date keeps the template's terms).
fn instantiate(
    kind: RecurableType,
    template: &Template,
    start: Date,
    date: Date,
) -> DomainResult<Write> {
    match (template, document_kind(kind)) {
        (Template::Document(t), Some(kind)) => Ok(Write::CreateDocument {
            kind,
            input: document_input(t, start, date),
        }),
        (Template::Transaction(t), None) => {
            Ok(Write::CreateTransaction(transaction_input(t, date)?))
        }
        _ => Err(DomainError::Internal(
            "a template of another kind than its schedule".into(),
        )),
    }
}

fn document_input(t: &DocumentTemplate, start: Date, date: Date) -> DocumentInput {
    DocumentInput {
        contact_id: t.contact_id.clone(),
        issue_date: Some(date),
        due_date: t
            .terms_days(start)
            .map(|days| date + time::Duration::days(days)),
        items: t.items.as_ref().map(|items| {
            items
                .iter()
                .map(|i| DocumentItemInput {
                    description: i.description.clone(),
                    quantity: i.quantity.as_ref().map(|q| q.0.clone()),
                    unit_price: i.unit_price.as_ref().map(|p| p.0.clone()),
                    item_id: i.item_id.clone(),
                    account_id: i.account_id.clone(),
                    tax_ids: i.tax_ids.clone(),
                    category_id: i.category_id.clone(),
                })
                .collect()
        }),
        notes: t.notes.clone().map(Some),
    }
}

fn transaction_input(t: &TransactionTemplate, date: Date) -> DomainResult<NewTransactionInput> {
    Ok(NewTransactionInput {
        description: t
            .description
            .clone()
            .ok_or_else(|| DomainError::missing_field("template.description"))?,
        date: Some(date.with_time(Time::MIDNIGHT).assume_utc()),
        currency: t.currency.clone(),
        reference: t.reference.clone(),
        entries: t
            .entries
            .as_ref()
            .ok_or_else(|| DomainError::missing_field("template.entries"))?
            .iter()
            .map(|e| EntryInput {
                account_id: e.account_id.clone(),
                entry_type: e.entry_type.clone(),
                amount: e.amount.0.clone(),
                description: e.description.clone(),
            })
            .collect(),
        metadata: t.metadata.clone(),
        auto_post: t.auto_post,
        contact_id: t.contact_id.clone(),
        category_id: t.category_id.clone(),
    })
}

impl<S: Store> Ledger<S> {
    /// Validates a template of a `kind` schedule as a create on `date` would be, writing
    /// nothing.
    async fn check_template(
        &self,
        access: &Access,
        kind: RecurableType,
        template: &Value,
        start: Date,
    ) -> DomainResult<()> {
        let parsed = Template::parse(kind, template)?;
        match instantiate(kind, &parsed, start, start).map_err(in_template)? {
            Write::CreateDocument { kind, input } => {
                let contact_id = input
                    .contact_id
                    .ok_or_else(|| DomainError::missing_field("template.contact_id"))?;
                let items = input
                    .items
                    .ok_or_else(|| DomainError::missing_field("template.items"))?;
                let issue = input.issue_date.unwrap_or(start);
                let due = input
                    .due_date
                    .unwrap_or(issue + time::Duration::days(super::documents::DEFAULT_TERMS_DAYS));
                if due < issue {
                    return Err(DomainError::inconsistent(
                        "template.due_date",
                        "must not be before the issue date",
                    ));
                }
                self.check_draft_input(
                    &access.tenant,
                    &access.organization.base_currency,
                    kind,
                    &contact_id,
                    issue,
                    due,
                    &items,
                    input.notes.flatten().as_deref(),
                )
                .await
                .map_err(in_template)?;
            }
            Write::CreateTransaction(input) => {
                self.create_command(access, input, None)
                    .await
                    .map_err(in_template)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The create body of the document `id`, as a template of a `kind` schedule.
    async fn template_of(
        &self,
        access: &Access,
        kind: RecurableType,
        id: &str,
    ) -> DomainResult<Value> {
        let Some(doc_kind) = document_kind(kind) else {
            return Err(DomainError::invalid_field(
                "recurable_id",
                "only an invoice or a bill can be copied; give a transaction schedule its template",
            ));
        };
        // A body member naming a document: one that is not there is `reference_not_found`
        // (422), as every reference a request body makes.
        let document = self
            .get_document(access, doc_kind, id)
            .await
            .map_err(|e| match e {
                DomainError::NotFound { .. } => DomainError::reference_not_found(
                    "recurable_id",
                    match doc_kind {
                        DocumentKind::Invoice => Resource::Invoice,
                        DocumentKind::Bill => Resource::Bill,
                    },
                    id,
                ),
                other => other,
            })?;
        let date_field = match doc_kind {
            DocumentKind::Invoice => "invoice_date",
            DocumentKind::Bill => "bill_date",
        };
        let items: Vec<Value> = document
            .items
            .iter()
            .map(|i| {
                serde_json::json!({
                    "description": i.description,
                    "quantity": crate::money::format_units(i.quantity, 4),
                    "unit_price": crate::money::format_units(i.unit_price, 4),
                    "item_id": i.item_id,
                    "account_id": i.account_id,
                    "tax_ids": i.tax_ids,
                    "category_id": i.category_id,
                })
            })
            .collect();
        let mut template = serde_json::json!({
            "contact_id": document.contact_id,
            "due_date": crate::views::date(document.due_date),
            "items": items,
            "notes": document.notes,
        });
        template[date_field] = Value::String(crate::views::date(document.issue_date));
        Ok(template)
    }

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
        let template = match (input.template, &recurable_id) {
            (Some(_), Some(_)) => {
                return Err(DomainError::invalid_field(
                    "recurable_id",
                    "give either a template or the recurable_id of a document to copy, not both",
                ));
            }
            (Some(template), None) => template,
            (None, Some(id)) => self.template_of(access, kind, id).await?,
            (None, None) => return Err(DomainError::missing_field("template")),
        };
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
            Some(text) => check_date(&text, "start_date")?,
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
        self.check_template(access, kind, &schedule.template, start_date)
            .await?;
        schedule.reschedule(0, start_date);
        let view = schedule.view();
        let event = self.event(
            access,
            "recurring_schedule.created",
            "recurring_schedule",
            &schedule.id,
            None,
            Some(view.clone()),
        );
        Ok(self
            .store
            .insert_recurring_schedule(
                schedule,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await?
            .map(|s| s.view()))
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
        if let Some(kind) = input.recurable_type
            && RecurableType::parse(&kind) != Some(before.recurable_type)
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
            schedule.start_date = check_date(&text, "start_date")?;
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
        let mut resume = false;
        if let Some(text) = input.status {
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
        let event = self.event(
            access,
            "recurring_schedule.updated",
            "recurring_schedule",
            &schedule.id,
            Some(before.view()),
            Some(view.clone()),
        );
        Ok(self
            .store
            .update_recurring_schedule(
                schedule,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
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
        let now = self.now();
        let deletion = crate::events::Deletion {
            id: new_id(IdKind::Deletion),
            organization_id: before.organization_id.clone(),
            livemode: before.livemode,
            resource_type: "recurring_schedule".into(),
            resource_id: before.id.clone(),
            name: before
                .name
                .clone()
                .unwrap_or_else(|| format!("{} schedule", before.recurable_type.as_str())),
            deleted_at: now,
            deleted_by: access.key_id.clone(),
            recoverable_until: now + time::Duration::days(self.config.retention_days),
        };
        let view =
            crate::views::deleted("recurring_schedule", &before.id, deletion.recoverable_until);
        let event = self.event(
            access,
            "recurring_schedule.deleted",
            "recurring_schedule",
            &before.id,
            Some(before.view()),
            None,
        );
        Ok(self
            .store
            .delete_recurring_schedule(
                &before.id,
                deletion,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await?
            .map(|()| view))
    }

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

/// Refuses a template that reads as another kind's (an invoice template sent to a
/// transaction schedule) as `inconsistent_fields`: the schedule's stored kind decides, so
/// the request alone is well formed. A template that fits no kind stays a validation error
/// (from [`Template::parse`]).
fn check_template_kind(kind: RecurableType, template: &Value) -> DomainResult<()> {
    if Template::parse(kind, template).is_ok() {
        return Ok(());
    }
    let other = [
        RecurableType::Invoice,
        RecurableType::Bill,
        RecurableType::Transaction,
    ]
    .into_iter()
    .find(|k| *k != kind && Template::parse(*k, template).is_ok());
    match other {
        Some(other) => Err(DomainError::inconsistent(
            "template",
            format!(
                "is a template of a {} schedule; this schedule makes {}s",
                other.as_str(),
                kind.as_str()
            ),
        )),
        None => Ok(()),
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
        schedule.end_date = end.map(|t| check_date(&t, "end_date")).transpose()?;
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
