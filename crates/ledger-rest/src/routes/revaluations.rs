//! `POST /organizations/{org}/revaluations`: revalue the open currency positions at the
//! end of a date (docs/decisions.md); queued, answered like a batch.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::Write;
use serde::Deserialize;

use super::resource::{optional_json, organization_access};
use super::{Routes, State, at};
use crate::error::ApiError;
use crate::input::{FlexDate, read_body};
use crate::queued::submit;

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/organizations/{org}/revaluations").post(create::<S>));
}

#[derive(Deserialize, utoipa::ToSchema, Default)]
#[schema(as = RevaluationRequest)]
#[serde(deny_unknown_fields)]
struct Body {
    /// The day whose closing rates value the positions (default today).
    #[schema(value_type = Option<crate::openapi::FlexibleDate>)]
    date: Option<FlexDate>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/revaluations",
    operation_id = "revaluations_create",
    tag = "revaluations",
    summary = "Revalue foreign-currency balances (posts the unrealized gain or loss)",
    description = "Revalues the organization's foreign-currency balances at the end of `date` (today when absent) at the rates in force, and posts the unrealized gain or loss with its reversal on the next day.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = Body, content_type = "application/json", description = "Optional: an empty body takes the defaults."),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::TransactionBatch),
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
    let input: Body = optional_json(&req, &body)?;
    let write = Write::Revalue {
        date: input.date.map(|d| d.at.date()),
    };
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}
