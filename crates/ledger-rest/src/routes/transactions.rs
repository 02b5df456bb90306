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

use super::resource::{organization_access, queue_action, queue_create, queue_update, required};
use super::{Routes, State, access, at, list_response};
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, FlexDate, page, parse_json, query_date, query_param, read_body};
use crate::queued::submit;

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/transactions")
            .get(list::<S>)
            .post(create::<S>),
    )
    // Before `{id}`, which would otherwise take `batch` for an id.
    .add(at("/organizations/{org}/transactions/batch").post(create_batch::<S>))
    .add(
        at("/organizations/{org}/transactions/{id}")
            .get(get::<S>)
            .put(update::<S>)
            .delete(delete::<S>),
    )
    .add(at("/organizations/{org}/transactions/{id}/post").post(post::<S>))
    .add(at("/organizations/{org}/transactions/{id}/reverse").post(reverse::<S>));
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TransactionEntryRequest)]
#[serde(deny_unknown_fields)]
struct EntryBody {
    account_id: String,
    #[schema(schema_with = crate::openapi::entry_type)]
    entry_type: String,
    #[schema(value_type = crate::openapi::PositiveAmount)]
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

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TransactionCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::text)]
    description: Option<String>,
    #[schema(required = true, value_type = crate::openapi::FlexibleDate)]
    date: Option<FlexDate>,
    #[schema(schema_with = crate::openapi::optional_currency_code)]
    currency: Option<String>,
    reference: Option<String>,
    /// At least one debit and one credit line.
    #[schema(required = true, value_type = Vec<EntryBody>, min_items = 2)]
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

#[utoipa::path(
    post,
    path = "/organizations/{org}/transactions",
    operation_id = "transactions_create",
    tag = "transactions",
    summary = "Create a transaction (balanced entries)",
    description = "Records a journal transaction: two or more entries whose debits equal their credits, posted at once with `auto_post`, else kept as a draft. `dry_run` checks it and writes nothing.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Transaction),
    ),
)]
async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Write, "transactions").await?;
    let body = read_body(payload).await?;
    let input: CreateBody = parse_json(&req, &body)?;
    let dry_run = input.dry_run || query_flag(&req, "dry_run")?;
    let input = input_of(input, "")?;
    if dry_run {
        let txn = state.ledger.preview_transaction(&access, input).await?;
        return Ok(HttpResponse::Ok().json(views::TransactionView::of(&txn).as_dry_run()));
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

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TransactionBatchRequest)]
#[serde(deny_unknown_fields)]
struct BatchBody {
    #[schema(required = true, schema_with = crate::openapi::batch_transactions)]
    transactions: Option<Vec<CreateBody>>,
}

/// `POST .../transactions/batch`: up to 1 000 transactions written all or none, under
/// one `Idempotency-Key`; a refused item is named by its index.
#[utoipa::path(
    post,
    path = "/organizations/{org}/transactions/batch",
    operation_id = "transactions_create_batch",
    tag = "transactions",
    summary = "Create several transactions at once",
    description = "Records up to 1000 transactions in one request, all or none: one that breaks a rule refuses the whole batch.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = BatchBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::TransactionBatch),
    ),
)]
async fn create_batch<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_create(
        &state,
        &req,
        path,
        payload,
        Scope::Write,
        "transactions",
        |input: BatchBody| {
            let items = required(input.transactions, "transactions")?;
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
            Ok(Write::CreateTransactionBatch(inputs))
        },
    )
    .await
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

#[utoipa::path(
    get,
    path = "/organizations/{org}/transactions/{id}",
    operation_id = "transactions_get",
    tag = "transactions",
    summary = "Get a transaction",
    description = "Returns one transaction with its entries and status.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Transaction),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "transactions").await?;
    let txn = state.ledger.get_transaction(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::TransactionView::of(&txn)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/transactions",
    operation_id = "transactions_list",
    tag = "transactions",
    summary = "List transactions",
    description = "Lists the organization's transactions, newest first, filtered by date range and status.",
    params(
        ("start_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        ("end_date" = Option<String>, Query, description = "A date (YYYY-MM-DD) or an RFC 3339 date-time."),
        ("status" = Option<String>, Query, description = "Filter by status."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::TransactionList),
    ),
)]
async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Read, "transactions").await?;
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
    Ok(list_response(page, &result, views::TransactionView::of))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TransactionUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    description: Option<String>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    date: Option<FlexDate>,
    entries: Option<Vec<EntryBody>>,
    metadata: Option<serde_json::Value>,
    contact_id: Option<String>,
    category_id: Option<String>,
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/transactions/{id}",
    operation_id = "transactions_update",
    tag = "transactions",
    summary = "Update a draft transaction",
    description = "Changes a draft transaction: its date, description, entries, contact, category or metadata. A posted transaction cannot change.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Transaction),
    ),
)]
async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_update(
        &state,
        &req,
        path,
        payload,
        Scope::Write,
        "transactions",
        |id, input: UpdateBody| {
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
            Ok(Write::UpdateTransaction { id, changes })
        },
    )
    .await
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/transactions/{id}/post",
    operation_id = "transactions_post",
    tag = "transactions",
    summary = "Post a draft transaction",
    description = "Posts a draft transaction: its entries count in balances and reports from then on, and it can no longer change.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Transaction),
    ),
)]
async fn post<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_action(
        &state,
        &req,
        path,
        Some(payload),
        Scope::Write,
        "transactions",
        |id| Write::PostTransaction { id },
    )
    .await
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TransactionReverseRequest)]
#[serde(deny_unknown_fields)]
struct ReverseBody {
    #[schema(required = true, schema_with = crate::openapi::text)]
    reason: Option<String>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/transactions/{id}/reverse",
    operation_id = "transactions_reverse",
    tag = "transactions",
    summary = "Reverse a posted transaction",
    description = "Reverses a posted transaction with a new transaction of the opposite entries, linked to it; the original stays as it was.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = ReverseBody, content_type = "application/json", description = "Why the transaction is reversed."),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Transaction),
    ),
)]
async fn reverse<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_update(
        &state,
        &req,
        path,
        payload,
        Scope::Write,
        "transactions",
        |id, input: ReverseBody| {
            Ok(Write::ReverseTransaction {
                id,
                reason: input.reason,
            })
        },
    )
    .await
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/transactions/{id}",
    operation_id = "transactions_delete",
    tag = "transactions",
    summary = "Delete a draft transaction",
    description = "Deletes a transaction that is still a draft; a posted one is reversed instead.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
    ),
)]
async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    queue_action(
        &state,
        &req,
        path,
        None,
        Scope::Write,
        "transactions",
        |id| Write::DeleteTransaction { id },
    )
    .await
}
