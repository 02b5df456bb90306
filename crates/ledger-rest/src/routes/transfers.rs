//! Account-to-account transfers (DECISIONS 7 and 10): a transfer is a transaction
//! written by `transfer`; create, post and reverse are queued like any transaction write.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{TransferInput, Write};
use ledger_domain::transactions::TransactionStatus;
use ledger_domain::views;
use serde::Deserialize;

use super::resource::{
    list_access, queue_action, queue_create, queue_update, required, resource_access,
};
use super::{Routes, State, at, list_response};
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, FlexDate, query_param};

const RESOURCE: &str = "transfers";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/transfers")
            .get(list::<S>)
            .post(create::<S>),
    )
    .add(at("/organizations/{org}/transfers/{id}").get(get::<S>))
    .add(at("/organizations/{org}/transfers/{id}/post").post(post::<S>))
    .add(at("/organizations/{org}/transfers/{id}/reverse").post(reverse::<S>));
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TransferCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::text)]
    from_account_id: Option<String>,
    #[schema(required = true, schema_with = crate::openapi::text)]
    to_account_id: Option<String>,
    #[schema(required = true, value_type = crate::openapi::PositiveAmount)]
    amount: Option<DecimalText>,
    #[schema(value_type = Option<crate::openapi::PositiveAmount>)]
    to_amount: Option<DecimalText>,
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    date: Option<FlexDate>,
    description: Option<String>,
    reference: Option<String>,
    metadata: Option<serde_json::Value>,
    #[serde(default)]
    auto_post: bool,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/transfers",
    operation_id = "transfers_create",
    tag = "transfers",
    summary = "Create a transfer between two accounts",
    description = "Moves an amount from one account to another as a balanced transaction, pending unless `auto_post`; between accounts of two currencies, `to_amount` is what the destination receives.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Transfer),
    ),
)]
async fn create<S: Store>(
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
        RESOURCE,
        |input: CreateBody| {
            let input = TransferInput {
                from_account_id: required(input.from_account_id, "from_account_id")?,
                to_account_id: required(input.to_account_id, "to_account_id")?,
                amount: required(input.amount, "amount")?.0,
                to_amount: input.to_amount.map(|a| a.0),
                date: input.date.map(|d| d.at),
                description: input.description,
                reference: input.reference,
                metadata: input.metadata,
                auto_post: input.auto_post,
            };
            Ok(Write::CreateTransfer(input))
        },
    )
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/transfers/{id}",
    operation_id = "transfers_get",
    tag = "transfers",
    summary = "Get a transfer",
    description = "Returns one transfer with its accounts, amounts and status.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Transfer),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let txn = state.ledger.get_transfer(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::JournalView::of(&txn)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/transfers",
    operation_id = "transfers_list",
    tag = "transfers",
    summary = "List transfers",
    description = "Lists the organization's transfers, newest first, filtered by status.",
    params(
        ("status" = Option<String>, Query, description = "Filter by status."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::TransferList),
    ),
)]
async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, RESOURCE, 20).await?;
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
    let result = state.ledger.list_transfers(&access, status, page).await?;
    Ok(list_response(page, &result, views::JournalView::of))
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/transfers/{id}/post",
    operation_id = "transfers_post",
    tag = "transfers",
    summary = "Post a draft transfer",
    description = "Posts a draft transfer to the ledger.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Transfer),
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
        RESOURCE,
        |id| Write::PostTransfer { id },
    )
    .await
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TransferReverseRequest)]
#[serde(deny_unknown_fields)]
struct ReverseBody {
    reason: Option<String>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/transfers/{id}/reverse",
    operation_id = "transfers_reverse",
    tag = "transfers",
    summary = "Reverse a transfer",
    description = "Reverses a posted transfer with the opposite transaction; the original stays as it was.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = ReverseBody, content_type = "application/json", description = "`reason` is required: why the transfer is reversed (kept on the reversing transaction)."),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Transfer),
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
        RESOURCE,
        |id, input: ReverseBody| {
            Ok(Write::ReverseTransfer {
                id,
                reason: input.reason,
            })
        },
    )
    .await
}
