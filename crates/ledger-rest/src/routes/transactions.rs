//! Journal transactions (spec 4.6): every write is queued (DECISIONS 4).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{EntryInput, NewTransactionInput, TransactionChanges, Write};
use ledger_domain::transactions::TransactionStatus;
use ledger_domain::views;
use serde::Deserialize;
use serde_json::json;

use super::{State, access};
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, FlexDate, page, parse_json, query_date, query_param, read_body};
use crate::queued::submit;

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/organizations/{org}/transactions")
            .route(web::get().to(list::<S>))
            .route(web::post().to(create::<S>)),
    )
    // Before `{id}`: a resource matched by path answers 405 to other methods.
    .route(
        "/organizations/{org}/transactions/batch",
        web::post().to(create_batch::<S>),
    )
    .service(
        web::resource("/organizations/{org}/transactions/{id}")
            .route(web::get().to(get::<S>))
            .route(web::put().to(update::<S>))
            .route(web::delete().to(delete::<S>)),
    )
    .route(
        "/organizations/{org}/transactions/{id}/post",
        web::post().to(post::<S>),
    )
    .route(
        "/organizations/{org}/transactions/{id}/reverse",
        web::post().to(reverse::<S>),
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryBody {
    account_id: String,
    entry_type: String,
    amount: DecimalText,
    description: Option<String>,
}

impl From<EntryBody> for EntryInput {
    fn from(e: EntryBody) -> Self {
        Self {
            account_id: e.account_id,
            entry_type: e.entry_type,
            amount: e.amount.0,
            description: e.description,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    description: Option<String>,
    date: Option<FlexDate>,
    currency: Option<String>,
    reference: Option<String>,
    entries: Option<Vec<EntryBody>>,
    metadata: Option<serde_json::Value>,
    #[serde(default)]
    auto_post: bool,
    contact_id: Option<String>,
    category_id: Option<String>,
    /// Validate and answer the would-be transaction, writing and charging nothing.
    #[serde(default)]
    dry_run: bool,
}

async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(
        &state,
        &req,
        &path.into_inner(),
        Scope::Write,
        "transactions",
    )
    .await?;
    let body = read_body(payload).await?;
    let input: CreateBody = parse_json(&req, &body)?;
    let dry_run = input.dry_run || query_flag(&req, "dry_run")?;
    let input = input_of(input, "")?;
    if dry_run {
        let txn = state.ledger.preview_transaction(&access, input).await?;
        let mut view = views::transaction(&txn);
        view["dry_run"] = json!(true);
        return Ok(HttpResponse::Ok().json(view));
    }
    let write = Write::CreateTransaction(input);
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

/// The domain input of a create body; `prefix` names the item of a batch in errors.
fn input_of(input: CreateBody, prefix: &str) -> Result<NewTransactionInput, ApiError> {
    let missing = |field: &str| {
        validation(
            ErrorCode::MissingField,
            Some(format!("{prefix}{field}")),
            format!("{prefix}{field} is required"),
        )
    };
    Ok(NewTransactionInput {
        description: input.description.ok_or_else(|| missing("description"))?,
        date: input.date.map(|d| d.at),
        currency: input.currency,
        reference: input.reference,
        entries: input
            .entries
            .ok_or_else(|| missing("entries"))?
            .into_iter()
            .map(Into::into)
            .collect(),
        metadata: input.metadata,
        auto_post: input.auto_post,
        contact_id: input.contact_id,
        category_id: input.category_id,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchBody {
    transactions: Option<Vec<CreateBody>>,
}

/// `POST .../transactions/batch`: up to 1 000 transactions written all or none, under
/// one `Idempotency-Key`; a refused item is named by its index.
async fn create_batch<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(
        &state,
        &req,
        &path.into_inner(),
        Scope::Write,
        "transactions",
    )
    .await?;
    let body = read_body(payload).await?;
    let input: BatchBody = parse_json(&req, &body)?;
    let items = input.transactions.ok_or_else(|| {
        validation(
            ErrorCode::MissingField,
            Some("transactions".into()),
            "transactions is required",
        )
    })?;
    let mut inputs = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        if item.dry_run {
            return Err(validation(
                ErrorCode::InvalidField,
                Some(format!("transactions[{i}].dry_run")),
                "a batch is written all or none; dry_run applies to single creates",
            ));
        }
        inputs.push(input_of(item, &format!("transactions[{i}]."))?);
    }
    let write = Write::CreateTransactionBatch(inputs);
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

/// A boolean query flag: `true` or `false`, absent = false.
fn query_flag(req: &HttpRequest, name: &str) -> Result<bool, ApiError> {
    match query_param(req, name).as_deref() {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(validation(
            ErrorCode::InvalidField,
            Some(name.into()),
            format!("{name} must be true or false"),
        )),
    }
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "transactions").await?;
    let txn = state.ledger.get_transaction(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::transaction(&txn)))
}

async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(
        &state,
        &req,
        &path.into_inner(),
        Scope::Read,
        "transactions",
    )
    .await?;
    let page = page(&req, 20)?;
    let from = query_date(&req, "start_date")?.map(|d| d.at);
    let until = query_date(&req, "end_date")?.map(|d| d.inclusive_until());
    let status = query_param(&req, "status")
        .map(|s| {
            TransactionStatus::parse(&s).ok_or_else(|| {
                validation(
                    ErrorCode::InvalidField,
                    Some("status".into()),
                    "status must be pending, posted or reversed",
                )
            })
        })
        .transpose()?;
    let result = state
        .ledger
        .list_transactions(&access, status, from, until, page)
        .await?;
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "data": result.items.iter().map(views::transaction).collect::<Vec<_>>(),
        "has_more": page.offset + (result.items.len() as i64) < result.total_count,
        "total_count": result.total_count,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    description: Option<String>,
    date: Option<FlexDate>,
    entries: Option<Vec<EntryBody>>,
    metadata: Option<serde_json::Value>,
    contact_id: Option<String>,
    category_id: Option<String>,
}

async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, "transactions").await?;
    let body = read_body(payload).await?;
    let input: UpdateBody = parse_json(&req, &body)?;
    let changes = TransactionChanges {
        description: input.description,
        date: input.date.map(|d| d.at),
        entries: input
            .entries
            .map(|e| e.into_iter().map(Into::into).collect()),
        metadata: input.metadata,
        contact_id: input.contact_id,
        category_id: input.category_id,
    };
    let write = Write::UpdateTransaction { id, changes };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

async fn post<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, "transactions").await?;
    let body = read_body(payload).await?;
    submit(
        &state,
        &req,
        &access,
        &body,
        StatusCode::OK,
        Write::PostTransaction { id },
    )
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReverseBody {
    reason: Option<String>,
}

async fn reverse<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, "transactions").await?;
    let body = read_body(payload).await?;
    let input: ReverseBody = parse_json(&req, &body)?;
    let write = Write::ReverseTransaction {
        id,
        reason: input.reason,
    };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}

async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, "transactions").await?;
    let write = Write::DeleteTransaction { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}
