//! Account-to-account transfers (DECISIONS 7 and 10): a transfer is a transaction
//! written by `transfer`; create, post and reverse are queued like any transaction write.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{TransferInput, Write};
use ledger_domain::transactions::TransactionStatus;
use ledger_domain::views;
use serde::Deserialize;
use serde_json::json;

use super::{State, access};
use crate::error::{ApiError, validation};
use crate::input::{DecimalText, FlexDate, page, parse_json, query_param, read_body};
use crate::queued::submit;

const RESOURCE: &str = "transfers";

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/organizations/{org}/transfers")
            .route(web::get().to(list::<S>))
            .route(web::post().to(create::<S>)),
    )
    .route(
        "/organizations/{org}/transfers/{id}",
        web::get().to(get::<S>),
    )
    .route(
        "/organizations/{org}/transfers/{id}/post",
        web::post().to(post::<S>),
    )
    .route(
        "/organizations/{org}/transfers/{id}/reverse",
        web::post().to(reverse::<S>),
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    from_account_id: Option<String>,
    to_account_id: Option<String>,
    amount: Option<DecimalText>,
    to_amount: Option<DecimalText>,
    date: Option<FlexDate>,
    description: Option<String>,
    reference: Option<String>,
    metadata: Option<serde_json::Value>,
    #[serde(default)]
    auto_post: bool,
}

fn required<T>(value: Option<T>, field: &str) -> Result<T, ApiError> {
    value.ok_or_else(|| {
        validation(
            ErrorCode::MissingField,
            Some(field.into()),
            format!("{field} is required"),
        )
    })
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
    let write = Write::CreateTransfer(input);
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}

async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, RESOURCE).await?;
    let txn = state.ledger.get_transfer(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::journal(&txn)))
}

async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, RESOURCE).await?;
    let page = page(&req, 20)?;
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
    Ok(HttpResponse::Ok().json(json!({
        "object": "list",
        "data": result.items.iter().map(views::journal).collect::<Vec<_>>(),
        "has_more": page.offset + (result.items.len() as i64) < result.total_count,
        "total_count": result.total_count,
    })))
}

async fn post<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let write = Write::PostTransfer { id };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
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
    let access = access(&state, &req, &org, Scope::Write, RESOURCE).await?;
    let body = read_body(payload).await?;
    let input: ReverseBody = parse_json(&req, &body)?;
    let write = Write::ReverseTransfer {
        id,
        reason: input.reason,
    };
    submit(&state, &req, &access, &body, StatusCode::OK, write).await
}
