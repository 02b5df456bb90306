//! Bank reconciliations in GraphQL (camelCase): `ReconciliationNode`, statement lines
//! with their proposed matches, and the resolvers the query and mutation roots share.
//! Writes go through the domain's pipeline like every mutation (1 credit each); reads
//! are free. Dates are calendar dates carried as midnight UTC, as for exchange rates.

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::reconciliation::statement::Column;
use ledger_domain::reconciliation::{ReconciledEntry, Reconciliation};
use ledger_domain::services::{
    NewReconciliationInput, ReconciliationChanges, StatementImportInput, StatementMappingInput,
    StatementTransactionInput, Write,
};
use ledger_domain::{DomainError, views};
use serde_json::Value;
use time::{Date, Time};

use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql, field_error};
use crate::scalars::{DateTime, Decimal, Json};

/// The permission resource of reconciliations.
const RESOURCE: &str = "reconciliations";

fn midnight(date: Date) -> DateTime {
    DateTime::at(date.with_time(Time::MIDNIGHT).assume_utc())
}

fn day_of(value: &DateTime) -> String {
    views::date(value.0.at.date())
}

/// A reconciliation of one account over a statement period; balances in the account
/// type's normal direction.
pub struct ReconciliationNode(pub Reconciliation);

/// A reconciliation of one account over a statement period.
#[graphql_object(name = "ReconciliationNode", scalar = DefaultScalarValue)]
impl ReconciliationNode {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    fn account_id(&self) -> ID {
        ID::new(&self.0.account_id)
    }
    fn currency(&self) -> &str {
        &self.0.currency
    }
    fn start_date(&self) -> DateTime {
        midnight(self.0.start_date)
    }
    fn end_date(&self) -> DateTime {
        midnight(self.0.end_date)
    }
    /// The closing balance of the account's previous completed reconciliation.
    fn opening_balance(&self) -> Decimal {
        Decimal(views::amount(self.0.opening_balance, &self.0.currency))
    }
    /// The statement's closing balance.
    fn closing_balance(&self) -> Decimal {
        Decimal(views::amount(self.0.closing_balance, &self.0.currency))
    }
    /// The opening balance plus the matched entries.
    fn cleared_balance(&self) -> Decimal {
        Decimal(views::amount(self.0.cleared_balance(), &self.0.currency))
    }
    /// The closing balance minus the cleared balance; zero before completion.
    fn difference(&self) -> Decimal {
        Decimal(views::amount(self.0.difference(), &self.0.currency))
    }
    /// `open` or `completed`.
    fn status(&self) -> &str {
        self.0.status.as_str()
    }
    fn matches(&self) -> Vec<ReconciledEntryNode> {
        self.0
            .matches
            .iter()
            .map(|m| ReconciledEntryNode(m.clone(), self.0.currency.clone()))
            .collect()
    }
    fn completed_at(&self) -> Option<DateTime> {
        self.0.completed_at.map(DateTime::at)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
    fn updated_at(&self) -> DateTime {
        DateTime::at(self.0.updated_at)
    }
}

/// A journal entry a reconciliation matched, and its currency.
pub struct ReconciledEntryNode(ReconciledEntry, String);

/// A journal entry the bank cleared.
#[graphql_object(name = "ReconciledEntryNode", scalar = DefaultScalarValue)]
impl ReconciledEntryNode {
    fn entry_id(&self) -> ID {
        ID::new(&self.0.entry_id)
    }
    fn transaction_id(&self) -> ID {
        ID::new(&self.0.transaction_id)
    }
    fn date(&self) -> DateTime {
        midnight(self.0.date)
    }
    /// Positive: money into the account (a debit).
    fn amount(&self) -> Decimal {
        Decimal(views::amount(self.0.amount, &self.1))
    }
    fn description(&self) -> &str {
        &self.0.description
    }
    fn statement_line_id(&self) -> Option<ID> {
        self.0.statement_line_id.as_deref().map(ID::new)
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v[key].as_str().map(str::to_owned)
}

/// A statement line (its REST view): matched, or with the match proposed for it.
pub struct StatementLineNode(pub Value);

/// A line of an imported bank statement.
#[graphql_object(name = "StatementLineNode", scalar = DefaultScalarValue)]
impl StatementLineNode {
    fn id(&self) -> ID {
        ID::new(text(&self.0, "id").unwrap_or_default())
    }
    fn line_number(&self) -> i32 {
        self.0["line_number"]
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .unwrap_or(0)
    }
    /// `YYYY-MM-DD`.
    fn date(&self) -> String {
        text(&self.0, "date").unwrap_or_default()
    }
    /// The bank's sign: positive is money in.
    fn amount(&self) -> Decimal {
        Decimal(text(&self.0, "amount").unwrap_or_default())
    }
    fn description(&self) -> String {
        text(&self.0, "description").unwrap_or_default()
    }
    fn reference(&self) -> Option<String> {
        text(&self.0, "reference")
    }
    /// `matched` or `unmatched`.
    fn status(&self) -> String {
        text(&self.0, "status").unwrap_or_default()
    }
    fn matched_entry_id(&self) -> Option<ID> {
        text(&self.0, "matched_entry_id").map(ID::new)
    }
    fn matched_transaction_id(&self) -> Option<ID> {
        text(&self.0, "matched_transaction_id").map(ID::new)
    }
    /// The proposed match of an unmatched line, if any.
    fn proposal(&self) -> Option<ProposalNode> {
        let p = &self.0["proposal"];
        p.is_object().then(|| ProposalNode(p.clone()))
    }
}

/// A proposed match.
pub struct ProposalNode(Value);

/// A journal entry proposed for a statement line, with how sure and why.
#[graphql_object(name = "StatementMatchProposalNode", scalar = DefaultScalarValue)]
impl ProposalNode {
    fn entry_id(&self) -> ID {
        ID::new(text(&self.0, "entry_id").unwrap_or_default())
    }
    fn transaction_id(&self) -> ID {
        ID::new(text(&self.0, "transaction_id").unwrap_or_default())
    }
    /// Between 0 and 1.
    fn confidence(&self) -> Decimal {
        Decimal(text(&self.0, "confidence").unwrap_or_default())
    }
    fn reason(&self) -> String {
        text(&self.0, "reason").unwrap_or_default()
    }
}

/// The outcome of a statement import.
pub struct StatementImportNode(Value);

/// What a statement import added.
#[graphql_object(name = "StatementImportNode", scalar = DefaultScalarValue)]
impl StatementImportNode {
    /// `csv` or `ofx`.
    fn format(&self) -> String {
        text(&self.0, "format").unwrap_or_default()
    }
    fn imported(&self) -> i32 {
        self.0["imported"]
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .unwrap_or(0)
    }
    /// Lines of the file imported before (same bank reference, or same date, amount and
    /// description), left out.
    fn skipped_duplicates(&self) -> i32 {
        self.0["skipped_duplicates"]
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .unwrap_or(0)
    }
    fn statement_lines(&self) -> Vec<StatementLineNode> {
        lines_of(&self.0["statement_lines"])
    }
}

fn lines_of(v: &Value) -> Vec<StatementLineNode> {
    v.as_array()
        .map(|all| all.iter().cloned().map(StatementLineNode).collect())
        .unwrap_or_default()
}

/// The reconciliations of the key's organization.
pub(crate) async fn list<St: Store>(
    context: &Ctx<St>,
    account_id: Option<String>,
    status: Option<String>,
    limit: Option<i32>,
    offset: Option<i32>,
) -> GqlResult<Vec<ReconciliationNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    let page = crate::nodes::list_page(limit, offset)?;
    let list = context
        .ledger
        .list_reconciliations(&access, account_id.as_deref(), status.as_deref(), page)
        .await
        .gql()?;
    Ok(list.items.into_iter().map(ReconciliationNode).collect())
}

/// A reconciliation of the key's organization; `None` when there is none with this id.
pub(crate) async fn find<St: Store>(
    context: &Ctx<St>,
    id: &str,
) -> GqlResult<Option<ReconciliationNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    match context.ledger.get_reconciliation(&access, id).await {
        Ok(r) => Ok(Some(ReconciliationNode(r))),
        Err(DomainError::NotFound { .. }) => Ok(None),
        Err(e) => Err(field_error(e)),
    }
}

/// The statement lines of a reconciliation with their matches and proposals.
pub(crate) async fn statement_lines<St: Store>(
    context: &Ctx<St>,
    id: &str,
) -> GqlResult<Vec<StatementLineNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    let lines = context
        .ledger
        .list_statement_lines(&access, id)
        .await
        .gql()?;
    Ok(lines.into_iter().map(StatementLineNode).collect())
}

/// Submits a reconciliation write and reads the reconciliation back.
async fn written<St: Store>(
    context: &Ctx<St>,
    scope: Scope,
    write: Write,
) -> GqlResult<ReconciliationNode> {
    let access = context.own(scope, RESOURCE).await?;
    let r = context
        .submit_and_read(&access, write, async |access, id| {
            context.ledger.get_reconciliation(access, id).await
        })
        .await?;
    Ok(ReconciliationNode(r))
}

pub(crate) async fn create<St: Store>(
    context: &Ctx<St>,
    account_id: String,
    start_date: DateTime,
    end_date: DateTime,
    closing_balance: Decimal,
) -> GqlResult<ReconciliationNode> {
    let input = NewReconciliationInput {
        account_id,
        start_date: day_of(&start_date),
        end_date: day_of(&end_date),
        closing_balance: closing_balance.0,
    };
    written(context, Scope::Write, Write::CreateReconciliation(input)).await
}

pub(crate) async fn update<St: Store>(
    context: &Ctx<St>,
    id: &str,
    changes: ReconciliationChanges,
) -> GqlResult<ReconciliationNode> {
    let write = Write::UpdateReconciliation {
        id: id.to_owned(),
        changes,
    };
    written(context, Scope::Write, write).await
}

pub(crate) async fn complete<St: Store>(
    context: &Ctx<St>,
    id: &str,
) -> GqlResult<ReconciliationNode> {
    written(
        context,
        Scope::Write,
        Write::CompleteReconciliation { id: id.to_owned() },
    )
    .await
}

pub(crate) async fn delete<St: Store>(context: &Ctx<St>, id: &str) -> GqlResult<bool> {
    let access = context.own(Scope::Admin, RESOURCE).await?;
    context
        .submit(&access, Write::DeleteReconciliation { id: id.to_owned() })
        .await?;
    Ok(true)
}

/// A column of a mapping given as JSON: a header name or a 1-based number.
fn column(v: &Value, key: &str) -> GqlResult<Option<Column>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(Column::Name(s.clone()))),
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(|n| Some(Column::Number(n)))
            .ok_or_else(|| {
                field_error(DomainError::invalid_field(
                    format!("mapping.{key}"),
                    "must be a header name or a column number from 1",
                ))
            }),
        Some(_) => Err(field_error(DomainError::invalid_field(
            format!("mapping.{key}"),
            "must be a header name or a column number from 1",
        ))),
    }
}

/// The CSV mapping of a `Json` argument (camelCase or snake_case members).
fn mapping_of(json: &Value) -> GqlResult<StatementMappingInput> {
    if !json.is_object() {
        return Err(field_error(DomainError::invalid_field(
            "mapping",
            "must be an object",
        )));
    }
    let get = |camel: &str, snake: &str| -> Value {
        json.get(camel)
            .or_else(|| json.get(snake))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let flat = serde_json::json!({
        "date": get("date", "date"),
        "amount": get("amount", "amount"),
        "debit": get("debit", "debit"),
        "credit": get("credit", "credit"),
        "description": get("description", "description"),
        "reference": get("reference", "reference"),
    });
    let string = |camel: &str, snake: &str| get(camel, snake).as_str().map(str::to_owned);
    Ok(StatementMappingInput {
        date: column(&flat, "date")?,
        amount: column(&flat, "amount")?,
        debit: column(&flat, "debit")?,
        credit: column(&flat, "credit")?,
        description: column(&flat, "description")?,
        reference: column(&flat, "reference")?,
        date_format: string("dateFormat", "date_format"),
        has_header: get("hasHeader", "has_header").as_bool(),
        delimiter: string("delimiter", "delimiter"),
        decimal_separator: string("decimalSeparator", "decimal_separator"),
    })
}

pub(crate) async fn import<St: Store>(
    context: &Ctx<St>,
    id: &str,
    content: String,
    format: Option<String>,
    mapping: Option<Json>,
) -> GqlResult<StatementImportNode> {
    let access = context.own(Scope::Write, RESOURCE).await?;
    let mapping = mapping.as_ref().map(|m| mapping_of(&m.0)).transpose()?;
    let write = Write::ImportStatement {
        id: id.to_owned(),
        input: StatementImportInput {
            content,
            format,
            mapping,
        },
    };
    Ok(StatementImportNode(context.submit(&access, write).await?))
}

pub(crate) async fn accept<St: Store>(
    context: &Ctx<St>,
    id: &str,
    line_id: &str,
    entry_id: Option<String>,
) -> GqlResult<StatementLineNode> {
    let access = context.own(Scope::Write, RESOURCE).await?;
    let write = Write::AcceptStatementLine {
        id: id.to_owned(),
        line_id: line_id.to_owned(),
        entry_id,
    };
    Ok(StatementLineNode(context.submit(&access, write).await?))
}

pub(crate) async fn create_transaction<St: Store>(
    context: &Ctx<St>,
    id: &str,
    line_id: &str,
    counter_account_id: String,
    description: Option<String>,
) -> GqlResult<StatementLineNode> {
    let access = context.own(Scope::Write, RESOURCE).await?;
    let write = Write::CreateStatementTransaction {
        id: id.to_owned(),
        line_id: line_id.to_owned(),
        input: StatementTransactionInput {
            counter_account_id,
            description,
        },
    };
    Ok(StatementLineNode(context.submit(&access, write).await?))
}
