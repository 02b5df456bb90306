//! A reconciliation's bank statement: its import (CSV with a column mapping, or OFX),
//! its lines with their proposed matches, and accepting a line's match or booking the
//! line as a transaction. Each write is synchronous, through the write pipeline.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::reconciliation::statement::Column;
use ledger_domain::services::{
    StatementImportInput, StatementMappingInput, StatementTransactionInput, Write,
};
use ledger_domain::views;
use serde::Deserialize;

use super::RESOURCE;
use crate::error::ApiError;
use crate::input::read_body;
use crate::queued::submit;

use crate::routes::resource::{optional_json, queue_json, required, resource_access};
use crate::routes::{State, access};

/// The widest a statement can be: a column number above this is refused as malformed
/// (a spreadsheet's 16 384 columns; `openapi::StatementColumn` states it).
pub(crate) const MAX_COLUMN: u16 = 16_384;

/// A column as sent: a number as JSON Schema reads an integer (`3` or `3.0`,
/// `ledger_http::input::WholeNumber`), or a name.
enum ColumnBody {
    Number(usize),
    Name(String),
}

impl<'de> Deserialize<'de> for ColumnBody {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(name) => Ok(Self::Name(name)),
            number @ serde_json::Value::Number(_) => {
                let whole = crate::input::WholeNumber::deserialize(number)
                    .map_err(serde::de::Error::custom)?;
                usize::try_from(whole.0)
                    .ok()
                    .filter(|n| *n <= usize::from(MAX_COLUMN))
                    .map(Self::Number)
                    .ok_or_else(|| {
                        serde::de::Error::custom(format!(
                            "expected a column number up to {MAX_COLUMN}"
                        ))
                    })
            }
            _ => Err(serde::de::Error::custom(
                "expected a column number or a header name",
            )),
        }
    }
}

impl From<ColumnBody> for Column {
    fn from(c: ColumnBody) -> Self {
        match c {
            ColumnBody::Number(n) => Column::Number(n),
            ColumnBody::Name(s) => Column::Name(s),
        }
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ReconciliationMappingRequest)]
#[serde(deny_unknown_fields)]
struct MappingBody {
    #[schema(value_type = Option<crate::openapi::StatementColumn>)]
    date: Option<ColumnBody>,
    #[schema(value_type = Option<crate::openapi::StatementColumn>)]
    amount: Option<ColumnBody>,
    #[schema(value_type = Option<crate::openapi::StatementColumn>)]
    debit: Option<ColumnBody>,
    #[schema(value_type = Option<crate::openapi::StatementColumn>)]
    credit: Option<ColumnBody>,
    #[schema(value_type = Option<crate::openapi::StatementColumn>)]
    description: Option<ColumnBody>,
    #[schema(value_type = Option<crate::openapi::StatementColumn>)]
    reference: Option<ColumnBody>,
    #[schema(schema_with = crate::openapi::statement_date_format)]
    date_format: Option<String>,
    has_header: Option<bool>,
    /// One character, not a quote or a line break (default `,`).
    #[schema(min_length = 1, max_length = 1, pattern = "^[^\"\\r\\n\\x00]$")]
    delimiter: Option<String>,
    #[schema(schema_with = crate::openapi::decimal_separator)]
    decimal_separator: Option<String>,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ReconciliationImportRequest)]
#[serde(deny_unknown_fields)]
struct ImportBody {
    #[schema(required = true, schema_with = crate::openapi::text)]
    content: Option<String>,
    #[schema(schema_with = crate::openapi::statement_format)]
    format: Option<String>,
    mapping: Option<MappingBody>,
}

/// Imports a statement (`content`: the file's text; `format` sniffed when absent).
#[utoipa::path(
    post,
    path = "/organizations/{org}/reconciliations/{id}/statement",
    operation_id = "reconciliations_import",
    tag = "reconciliations",
    summary = "Import a bank statement (CSV text in JSON)",
    description = "Imports a bank statement (CSV, OFX or QFX text in the JSON body) into an open reconciliation: its lines are added, except those imported already (the same bank reference, or the same date, amount and description), and each unmatched line gets a proposed match.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = ImportBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::StatementImport),
    ),
)]
pub(super) async fn import<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Write, RESOURCE).await?;
    queue_json(
        &state,
        &req,
        &access,
        payload,
        StatusCode::CREATED,
        |input: ImportBody| {
            let input = StatementImportInput {
                content: required(input.content, "content")?,
                format: input.format,
                mapping: input.mapping.map(|m| StatementMappingInput {
                    date: m.date.map(Into::into),
                    amount: m.amount.map(Into::into),
                    debit: m.debit.map(Into::into),
                    credit: m.credit.map(Into::into),
                    description: m.description.map(Into::into),
                    reference: m.reference.map(Into::into),
                    date_format: m.date_format,
                    has_header: m.has_header,
                    delimiter: m.delimiter,
                    decimal_separator: m.decimal_separator,
                }),
            };
            Ok(Write::ImportStatement { id, input })
        },
    )
    .await
}

/// The statement lines, each matched or with its proposed match.
#[utoipa::path(
    get,
    path = "/organizations/{org}/reconciliations/{id}/statement-lines",
    operation_id = "reconciliations_lines",
    tag = "reconciliations",
    summary = "List the statement lines with match proposals",
    description = "Lists the imported statement lines, each with its match or the ledger entries proposed for it.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::StatementLineList),
    ),
)]
pub(super) async fn lines<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let data = state.ledger.list_statement_lines(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::List::all(data)))
}

#[derive(Deserialize, utoipa::ToSchema, Default)]
#[schema(as = ReconciliationAcceptRequest)]
#[serde(deny_unknown_fields)]
struct AcceptBody {
    entry_id: Option<String>,
}

/// Matches a line to its proposed entry, or to `entry_id`.
#[utoipa::path(
    post,
    path = "/organizations/{org}/reconciliations/{id}/statement-lines/{line}/accept",
    operation_id = "reconciliations_accept",
    tag = "reconciliations",
    summary = "Accept the proposed match of a statement line",
    description = "Matches a statement line to the entry proposed for it, or to `entry_id`, clearing that entry.",
    params(
        ("line" = String, Path, description = "The statement line id."),
        crate::openapi::params::QueuedWrite,
    ),
    request_body(content = AcceptBody, content_type = "application/json", description = "Optional: an empty body takes the defaults."),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::StatementLine),
    ),
)]
pub(super) async fn accept<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id, line_id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: AcceptBody = optional_json(&req, &body)?;
    let write = Write::AcceptStatementLine {
        id,
        line_id,
        entry_id: input.entry_id,
    };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ReconciliationTransactionRequest)]
#[serde(deny_unknown_fields)]
struct TransactionBody {
    #[schema(required = true, value_type = String)]
    counter_account_id: Option<String>,
    description: Option<String>,
}

/// Books an unmatched line as a posted transaction against `counter_account_id` and
/// matches it.
#[utoipa::path(
    post,
    path = "/organizations/{org}/reconciliations/{id}/statement-lines/{line}/create-transaction",
    operation_id = "reconciliations_create_transaction",
    tag = "reconciliations",
    summary = "Record a transaction for a statement line and match it",
    description = "Books an unmatched statement line as a new posted transaction between the reconciled account and `counter_account_id`, then matches the line to its entry.",
    params(
        ("line" = String, Path, description = "The statement line id."),
        crate::openapi::params::QueuedWrite,
    ),
    request_body(content = TransactionBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::StatementLine),
    ),
)]
pub(super) async fn create_transaction<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id, line_id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    queue_json(
        &state,
        &req,
        &access,
        payload,
        StatusCode::CREATED,
        |input: TransactionBody| {
            let input = StatementTransactionInput {
                counter_account_id: required(input.counter_account_id, "counter_account_id")?,
                description: input.description,
            };
            Ok(Write::CreateStatementTransaction { id, line_id, input })
        },
    )
    .await
}
