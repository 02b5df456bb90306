//! Recurring schedules in GraphQL (camelCase): `RecurringScheduleNode`,
//! `RecurringRunNode`, the input of the create and update mutations, and the resolvers
//! the query and mutation roots share. Schedule writes go through the pipeline (1 credit
//! each); a manual run costs what its document's create costs on GraphQL.
//!
//! Dates are calendar dates: `DateTime` carries them as midnight UTC on output; inputs
//! take `YYYY-MM-DD` text as REST does. The template is the REST create body (snake_case
//! JSON), as on every interface.

use juniper::{DefaultScalarValue, GraphQLInputObject, ID, graphql_object};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::recurring::{RecurringRun, RecurringSchedule};
use ledger_domain::services::{Channel, RecurringScheduleInput, Write};
use time::{Date, Time};

use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql};
use crate::scalars::{DateTime, Json};

/// The permission resource of schedules.
const RESOURCE: &str = "recurring_schedules";

fn midnight(date: Date) -> DateTime {
    DateTime::at(date.with_time(Time::MIDNIGHT).assume_utc())
}

/// A recurring schedule of an organization.
pub struct RecurringScheduleNode<St>(pub RecurringSchedule, std::marker::PhantomData<fn() -> St>);

impl<St> RecurringScheduleNode<St> {
    pub fn new(schedule: RecurringSchedule) -> Self {
        Self(schedule, std::marker::PhantomData)
    }
}

/// A recurring schedule: a template generated on every occurrence of a calendar rule.
#[graphql_object(name = "RecurringScheduleNode", context = Ctx<St>, scalar = DefaultScalarValue)]
impl<St: Store> RecurringScheduleNode<St> {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    fn name(&self) -> Option<&str> {
        self.0.name.as_deref()
    }
    /// `invoice`, `bill` or `transaction`.
    fn recurable_type(&self) -> &str {
        self.0.recurable_type.as_str()
    }
    /// The document the template was copied from, if any.
    fn recurable_id(&self) -> Option<ID> {
        self.0.recurable_id.as_deref().map(ID::new)
    }
    /// The create body generated on each occurrence (REST's snake_case JSON).
    fn template(&self) -> Json {
        Json(self.0.template.clone())
    }
    /// `daily`, `weekly`, `monthly`, `quarterly` or `yearly`.
    fn frequency(&self) -> &str {
        self.0.frequency.as_str()
    }
    fn interval(&self) -> i32 {
        i32::try_from(self.0.interval).unwrap_or(i32::MAX)
    }
    fn start_date(&self) -> DateTime {
        midnight(self.0.start_date)
    }
    fn end_date(&self) -> Option<DateTime> {
        self.0.end_date.map(midnight)
    }
    /// Most scheduled occurrences generated.
    fn count(&self) -> Option<i32> {
        self.0
            .max_occurrences
            .map(|c| i32::try_from(c).unwrap_or(i32::MAX))
    }
    fn auto_send(&self) -> bool {
        self.0.auto_send
    }
    /// `active`, `paused` or `completed`.
    fn status(&self) -> &str {
        self.0.status.as_str()
    }
    fn next_run_date(&self) -> Option<DateTime> {
        self.0.next_run_date.map(midnight)
    }
    fn occurrences(&self) -> i32 {
        i32::try_from(self.0.occurrences).unwrap_or(i32::MAX)
    }
    fn last_run_date(&self) -> Option<DateTime> {
        self.0.last_run_date.map(midnight)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
    fn updated_at(&self) -> DateTime {
        DateTime::at(self.0.updated_at)
    }
    /// The schedule's runs, newest occurrence first.
    async fn runs(
        &self,
        context: &Ctx<St>,
        limit: Option<i32>,
        offset: Option<i32>,
    ) -> GqlResult<Vec<RecurringRunNode>> {
        let access = context
            .access(&self.0.organization_id, Scope::Read, RESOURCE)
            .await?;
        let page = crate::nodes::list_page(limit, offset)?;
        let runs = context
            .ledger
            .list_recurring_runs(&access, &self.0.id, page)
            .await
            .gql()?;
        Ok(runs.items.into_iter().map(RecurringRunNode).collect())
    }
}

/// One generation of a schedule's template.
pub struct RecurringRunNode(pub RecurringRun);

/// One generation of a schedule's template.
#[graphql_object(name = "RecurringRunNode", scalar = DefaultScalarValue)]
impl RecurringRunNode {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    fn schedule_id(&self) -> ID {
        ID::new(&self.0.schedule_id)
    }
    fn occurrence_date(&self) -> DateTime {
        midnight(self.0.occurrence_date)
    }
    /// `scheduled` or `manual`.
    fn trigger(&self) -> &str {
        self.0.trigger.as_str()
    }
    /// `succeeded` or `failed`.
    fn status(&self) -> &str {
        self.0.status.as_str()
    }
    fn document_type(&self) -> &str {
        self.0.document_type.as_str()
    }
    /// The generated invoice, bill or transaction.
    fn document_id(&self) -> Option<ID> {
        self.0.document_id.as_deref().map(ID::new)
    }
    /// The error of a failed run (`{code, message, details?}`).
    fn error(&self) -> Option<Json> {
        self.0.error.clone().map(Json)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
}

/// A schedule's fields; on an update, absent fields keep their value.
#[derive(Debug, GraphQLInputObject)]
#[graphql(name = "RecurringScheduleInput")]
pub struct RecurringScheduleInputGql {
    pub name: Option<String>,
    /// `invoice`, `bill` or `transaction` (create only).
    pub recurable_type: Option<String>,
    /// An invoice or bill to copy the template from (create only).
    pub recurable_id: Option<ID>,
    pub frequency: Option<String>,
    pub interval: Option<i32>,
    /// `YYYY-MM-DD`.
    pub start_date: Option<String>,
    /// `YYYY-MM-DD`, inclusive.
    pub end_date: Option<String>,
    pub count: Option<i32>,
    pub auto_send: Option<bool>,
    /// Updates only: `active` (resume) or `paused`.
    pub status: Option<String>,
}

impl From<RecurringScheduleInputGql> for RecurringScheduleInput {
    fn from(i: RecurringScheduleInputGql) -> Self {
        Self {
            name: i.name,
            recurable_type: i.recurable_type,
            recurable_id: i.recurable_id.map(|id| id.to_string()),
            template: None,
            frequency: i.frequency,
            interval: i.interval.map(i64::from),
            start_date: i.start_date,
            end_date: i.end_date.map(Some),
            count: i.count.map(|c| Some(i64::from(c))),
            auto_send: i.auto_send,
            status: i.status,
        }
    }
}

/// The organization a field acts in: `organization_id`, else the key's own.
fn org_of<St: Store>(context: &Ctx<St>, organization_id: Option<&str>) -> String {
    organization_id.map_or_else(|| context.own_org().to_owned(), str::to_owned)
}

pub(crate) async fn list<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    limit: Option<i32>,
    offset: Option<i32>,
) -> GqlResult<Vec<RecurringScheduleNode<St>>> {
    let access = context
        .access(&org_of(context, organization_id), Scope::Read, RESOURCE)
        .await?;
    let page = crate::nodes::list_page(limit, offset)?;
    let found = context
        .ledger
        .list_recurring_schedules(&access, page)
        .await
        .gql()?;
    Ok(found
        .items
        .into_iter()
        .map(RecurringScheduleNode::new)
        .collect())
}

pub(crate) async fn find<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    id: &str,
) -> GqlResult<Option<RecurringScheduleNode<St>>> {
    let access = context
        .access(&org_of(context, organization_id), Scope::Read, RESOURCE)
        .await?;
    match context.ledger.get_recurring_schedule(&access, id).await {
        Ok(schedule) => Ok(Some(RecurringScheduleNode::new(schedule))),
        Err(ledger_domain::DomainError::NotFound { .. }) => Ok(None),
        Err(e) => Err(crate::errors::field_error(e)),
    }
}

/// Creates (`id` none) or updates a schedule with `template` (the create body of its
/// type, REST's snake_case JSON; a separate argument, as `Json` is an output and
/// argument scalar) and reads it back.
pub(crate) async fn write<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    id: Option<&str>,
    input: RecurringScheduleInputGql,
    template: Option<Json>,
) -> GqlResult<RecurringScheduleNode<St>> {
    let access = context
        .access(&org_of(context, organization_id), Scope::Write, RESOURCE)
        .await?;
    let mut input = RecurringScheduleInput::from(input);
    // GraphQL cannot pass an object to a scalar, so the template comes as JSON text.
    input.template = template.map(|t| match t.0 {
        serde_json::Value::String(text) => {
            serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text))
        }
        other => other,
    });
    let write = match id {
        None => Write::CreateRecurringSchedule(input),
        Some(id) => Write::UpdateRecurringSchedule {
            id: id.to_owned(),
            input,
        },
    };
    let schedule = context
        .submit_and_read(&access, write, async |access, id| {
            context.ledger.get_recurring_schedule(access, id).await
        })
        .await?;
    Ok(RecurringScheduleNode::new(schedule))
}

/// Soft-deletes a schedule (1 credit; needs `admin`).
pub(crate) async fn delete<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    id: &str,
) -> GqlResult<bool> {
    let access = context
        .access(&org_of(context, organization_id), Scope::Admin, RESOURCE)
        .await?;
    context
        .submit(
            &access,
            Write::DeleteRecurringSchedule { id: id.to_owned() },
        )
        .await?;
    Ok(true)
}

/// Generates the schedule's document now (dated today) and answers the run.
pub(crate) async fn run<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    id: &str,
) -> GqlResult<RecurringRunNode> {
    let access = context
        .access(&org_of(context, organization_id), Scope::Write, RESOURCE)
        .await?;
    let run = context
        .ledger
        .run_recurring_schedule(&access, id, None, Channel::GraphQl)
        .await
        .gql()?;
    Ok(RecurringRunNode(run))
}
