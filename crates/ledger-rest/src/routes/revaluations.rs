//! `POST /organizations/{org}/revaluations`: revalue the open currency positions at the
//! end of a date (docs/decisions.md); queued, answered like a batch.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::Write;
use serde::Deserialize;

use super::{State, access};
use crate::error::ApiError;
use crate::input::{FlexDate, parse_json, read_body};
use crate::queued::submit;

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/organizations/{org}/revaluations",
        web::post().to(create::<S>),
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    /// The day whose closing rates value the positions (default today).
    date: Option<FlexDate>,
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
    let input: Body = if body.is_empty() {
        Body { date: None }
    } else {
        parse_json(&req, &body)?
    };
    let write = Write::Revalue {
        date: input.date.map(|d| d.at.date()),
    };
    submit(&state, &req, &access, &body, StatusCode::CREATED, write).await
}
