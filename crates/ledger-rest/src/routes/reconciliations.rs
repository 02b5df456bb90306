//! Bank reconciliations of an organization (spec 2.9, 4.11; DECISIONS 7): create, list,
//! get, update (period, closing balance, match and unmatch) and delete while open,
//! matches, completion, statement import, statement lines with proposed matches, and
//! accepting a line or booking it as a transaction. Every write is synchronous, through
//! the write pipeline.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::reconciliation::statement::Column;
use ledger_domain::services::{
    NewReconciliationInput, ReconciliationChanges, StatementImportInput, StatementMappingInput,
    StatementTransactionInput, Write,
};
use ledger_domain::views;
use serde::Deserialize;
use serde_json::json;

use super::exchange_rates::required;
use super::{State, access, list_response};
use crate::error::ApiError;
use crate::input::{DecimalText, page, parse_json, query_param, read_body};
use crate::queued::submit;

const RESOURCE: &str = "reconciliations";
const BASE: &str = "/organizations/{org}/reconciliations";

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource(BASE)
            .route(web::get().to(list::<S>))
            .route(web::post().to(create::<S>)),
    )
    .service(
        web::resource(format!("{BASE}/{{id}}"))
            .route(web::get().to(get::<S>))
            .route(web::put().to(update::<S>))
            .route(web::delete().to(delete::<S>)),
    )
    .service(
        web::resource(format!("{BASE}/{{id}}/matches")).route(web::post().to(add_matches::<S>)),
    )
    .service(
        web::resource(format!("{BASE}/{{id}}/matches/{{entry}}"))
            .route(web::delete().to(remove_match::<S>)),
    )
    .service(web::resource(format!("{BASE}/{{id}}/complete")).route(web::post().to(complete::<S>)))
    .service(web::resource(format!("{BASE}/{{id}}/statement")).route(web::post().to(import::<S>)))
    .service(
        web::resource(format!("{BASE}/{{id}}/statement-lines")).route(web::get().to(lines::<S>)),
    )
    .service(
        web::resource(format!("{BASE}/{{id}}/statement-lines/{{line}}/accept"))
            .route(web::post().to(accept::<S>)),
    )
    .service(
        web::resource(format!(
            "{BASE}/{{id}}/statement-lines/{{line}}/create-transaction"
        ))
        .route(web::post().to(create_transaction::<S>)),
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    account_id: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    closing_balance: Option<DecimalText>,
}

async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: CreateBody = parse_json(&req, &body)?;
    let input = NewReconciliationInput {
        account_id: required(input.account_id, "account_id")?,
        start_date: required(input.start_date, "start_date")?,
        end_date: required(input.end_date, "end_date")?,
        closing_balance: required(input.closing_balance, "closing_balance")?.0,
    };
    let write = Write::CreateReconciliation(input);
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

/// Reconciliations latest end date first, optionally of one account or status.
async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
    let result = state
        .ledger
        .list_reconciliations(
            &access,
            query_param(&req, "account_id").as_deref(),
            query_param(&req, "status").as_deref(),
            page,
        )
        .await?;
    Ok(list_response(page, &result, views::reconciliation))
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let r = state.ledger.get_reconciliation(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::reconciliation(&r)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    start_date: Option<String>,
    end_date: Option<String>,
    closing_balance: Option<DecimalText>,
    match_entry_ids: Option<Vec<String>>,
    unmatch_entry_ids: Option<Vec<String>>,
}

async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: UpdateBody = parse_json(&req, &body)?;
    let changes = ReconciliationChanges {
        start_date: input.start_date,
        end_date: input.end_date,
        closing_balance: input.closing_balance.map(|b| b.0),
        match_entry_ids: input.match_entry_ids.unwrap_or_default(),
        unmatch_entry_ids: input.unmatch_entry_ids.unwrap_or_default(),
    };
    let write = Write::UpdateReconciliation { id, changes };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Admin, RESOURCE).await?;
    let write = Write::DeleteReconciliation { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchBody {
    entry_ids: Option<Vec<String>>,
    entry_id: Option<String>,
}

/// Matches entries (`entry_ids`, or one `entry_id`); answers the reconciliation.
async fn add_matches<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: MatchBody = parse_json(&req, &body)?;
    let mut ids = input.entry_ids.unwrap_or_default();
    ids.extend(input.entry_id);
    let ids = required(Some(ids).filter(|i| !i.is_empty()), "entry_ids")?;
    let changes = ReconciliationChanges {
        match_entry_ids: ids,
        ..ReconciliationChanges::default()
    };
    let write = Write::UpdateReconciliation { id, changes };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

/// Unmatches one entry; answers the reconciliation.
async fn remove_match<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id, entry) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let changes = ReconciliationChanges {
        unmatch_entry_ids: vec![entry],
        ..ReconciliationChanges::default()
    };
    let write = Write::UpdateReconciliation { id, changes };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

async fn complete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let write = Write::CompleteReconciliation { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}

/// A CSV column: a header name, or a 1-based column number.
#[derive(Deserialize)]
#[serde(untagged)]
enum ColumnBody {
    Number(usize),
    Name(String),
}

impl From<ColumnBody> for Column {
    fn from(c: ColumnBody) -> Self {
        match c {
            ColumnBody::Number(n) => Column::Number(n),
            ColumnBody::Name(s) => Column::Name(s),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MappingBody {
    date: Option<ColumnBody>,
    amount: Option<ColumnBody>,
    debit: Option<ColumnBody>,
    credit: Option<ColumnBody>,
    description: Option<ColumnBody>,
    reference: Option<ColumnBody>,
    date_format: Option<String>,
    has_header: Option<bool>,
    delimiter: Option<String>,
    decimal_separator: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportBody {
    content: Option<String>,
    format: Option<String>,
    mapping: Option<MappingBody>,
}

/// Imports a statement (`content`: the file's text; `format` sniffed when absent).
async fn import<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: ImportBody = parse_json(&req, &body)?;
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
    let write = Write::ImportStatement { id, input };
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

/// The statement lines, each matched or with its proposed match.
async fn lines<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let data = state.ledger.list_statement_lines(&access, &id).await?;
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "total_count": data.len(),
        "has_more": false,
        "data": data,
    })))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct AcceptBody {
    entry_id: Option<String>,
}

/// Matches a line to its proposed entry, or to `entry_id`.
async fn accept<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id, line_id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: AcceptBody = if body.iter().all(u8::is_ascii_whitespace) {
        AcceptBody::default()
    } else {
        parse_json(&req, &body)?
    };
    let write = Write::AcceptStatementLine {
        id,
        line_id,
        entry_id: input.entry_id,
    };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TransactionBody {
    counter_account_id: Option<String>,
    description: Option<String>,
}

/// Books an unmatched line as a posted transaction against `counter_account_id` and
/// matches it.
async fn create_transaction<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id, line_id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: TransactionBody = parse_json(&req, &body)?;
    let input = StatementTransactionInput {
        counter_account_id: required(input.counter_account_id, "counter_account_id")?,
        description: input.description,
    };
    let write = Write::CreateStatementTransaction { id, line_id, input };
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}
