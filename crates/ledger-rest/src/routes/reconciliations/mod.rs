//! Bank reconciliations of an organization (spec 2.9, 4.11; DECISIONS 7): create, list,
//! get, update (period, closing balance, match and unmatch) and delete while open,
//! matches, completion, statement import, statement lines with proposed matches, and
//! accepting a line or booking it as a transaction. Every write is synchronous, through
//! the write pipeline.
//!
//! The statement (its import, its lines, accepting a line or booking it) is `statement`'s.

pub(crate) mod statement;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, NewReconciliationInput, ReconciliationChanges, Write};
use ledger_domain::views;
use serde::Deserialize;

use self::statement::{accept, create_transaction, import, lines};
use super::crud::{Crud, crud_operations};
use super::{Routes, State, access, at, list_response};
use crate::AppState;
use crate::error::ApiError;
use crate::input::{DecimalText, query_param};
use crate::queued::submit;
use crate::routes::resource::{queue_update, required, resource_access};

pub(crate) use self::statement::MAX_COLUMN;

const RESOURCE: &str = "reconciliations";
const BASE: &str = "/organizations/{org}/reconciliations";

crud_operations! {
    Reconciliations, tag "reconciliations", schemas Reconciliation, ReconciliationList;
    paths "/organizations/{org}/reconciliations", "/organizations/{org}/reconciliations/{id}",
        then more_routes;
    create "reconciliations_create": "Start a reconciliation",
        "Starts reconciling an asset or liability account for a statement period: its dates and the statement's closing balance.";
    get "reconciliations_get": "Get a reconciliation",
        "Returns a reconciliation with its closing balance, the cleared balance of its matched entries and the difference between them.";
    update "reconciliations_update": "Update a reconciliation",
        "Changes an open reconciliation's period or closing balance.";
    delete "reconciliations_delete": "Delete a reconciliation",
        "Soft-deletes an open reconciliation; the entries it matched may be matched again.";
    list "reconciliations_list": "List reconciliations",
        "Lists the organization's bank reconciliations, latest end date first, filtered by account and status.",
        filters(
            ("account_id" = Option<String>, Query, description = "Filter by account id."),
            ("status" = Option<String>, Query, description = "Filter by status."),
        );
}

/// The paths of a reconciliation's matches, completion and statement.
fn more_routes<S: Store>(r: &mut Routes<'_>) {
    r.add(at(format!("{BASE}/{{id}}/matches")).post(add_matches::<S>))
        .add(at(format!("{BASE}/{{id}}/matches/{{entry}}")).delete(remove_match::<S>))
        .add(at(format!("{BASE}/{{id}}/complete")).post(complete::<S>))
        .add(at(format!("{BASE}/{{id}}/statement")).post(import::<S>))
        .add(at(format!("{BASE}/{{id}}/statement-lines")).get(lines::<S>))
        .add(at(format!("{BASE}/{{id}}/statement-lines/{{line}}/accept")).post(accept::<S>))
        .add(
            at(format!(
                "{BASE}/{{id}}/statement-lines/{{line}}/create-transaction"
            ))
            .post(create_transaction::<S>),
        );
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ReconciliationCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, value_type = String)]
    account_id: Option<String>,
    #[schema(required = true, schema_with = crate::openapi::date_only)]
    start_date: Option<String>,
    #[schema(required = true, schema_with = crate::openapi::date_only)]
    end_date: Option<String>,
    #[schema(required = true, value_type = crate::openapi::Decimal)]
    closing_balance: Option<DecimalText>,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ReconciliationUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[schema(schema_with = crate::openapi::optional_date_only)]
    start_date: Option<String>,
    #[schema(schema_with = crate::openapi::optional_date_only)]
    end_date: Option<String>,
    #[schema(value_type = Option<crate::openapi::Decimal>)]
    closing_balance: Option<DecimalText>,
    match_entry_ids: Option<Vec<String>>,
    unmatch_entry_ids: Option<Vec<String>>,
}

struct Reconciliations;

impl Crud for Reconciliations {
    const RESOURCE: &'static str = RESOURCE;
    type CreateBody = CreateBody;
    type UpdateBody = UpdateBody;

    fn create(input: CreateBody) -> Result<Write, ApiError> {
        let input = NewReconciliationInput {
            account_id: required(input.account_id, "account_id")?,
            start_date: required(input.start_date, "start_date")?,
            end_date: required(input.end_date, "end_date")?,
            closing_balance: required(input.closing_balance, "closing_balance")?.0,
        };
        Ok(Write::CreateReconciliation(input))
    }

    fn update(id: String, input: UpdateBody) -> Result<Write, ApiError> {
        let changes = ReconciliationChanges {
            start_date: input.start_date,
            end_date: input.end_date,
            closing_balance: input.closing_balance.map(|b| b.0),
            match_entry_ids: input.match_entry_ids.unwrap_or_default(),
            unmatch_entry_ids: input.unmatch_entry_ids.unwrap_or_default(),
        };
        Ok(Write::UpdateReconciliation { id, changes })
    }

    fn delete(id: String) -> Write {
        Write::DeleteReconciliation { id }
    }

    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError> {
        let r = state.ledger.get_reconciliation(access, id).await?;
        Ok(HttpResponse::Ok().json(views::ReconciliationView::of(&r)))
    }

    /// Reconciliations latest end date first, optionally of one account or status.
    async fn list<S: Store>(
        state: &AppState<S>,
        req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError> {
        let result = state
            .ledger
            .list_reconciliations(
                access,
                query_param(req, "account_id").as_deref(),
                query_param(req, "status").as_deref(),
                page,
            )
            .await?;
        Ok(list_response(page, &result, views::ReconciliationView::of))
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ReconciliationMatchRequest)]
#[serde(deny_unknown_fields)]
struct MatchBody {
    #[schema(required = true, value_type = Vec<String>, min_items = 1)]
    entry_ids: Option<Vec<String>>,
    /// One more entry to match, with those of `entry_ids`.
    #[schema(deprecated)]
    entry_id: Option<String>,
}

/// Matches entries (`entry_ids`, or one `entry_id`); answers the reconciliation.
#[utoipa::path(
    post,
    path = "/organizations/{org}/reconciliations/{id}/matches",
    operation_id = "reconciliations_add_matches",
    tag = "reconciliations",
    summary = "Match entries",
    description = "Marks ledger entries of the account as cleared in this reconciliation.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = MatchBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Reconciliation),
    ),
)]
async fn add_matches<S: Store>(
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
        |id, input: MatchBody| {
            let mut ids = input.entry_ids.unwrap_or_default();
            ids.extend(input.entry_id);
            let ids = required(Some(ids).filter(|i| !i.is_empty()), "entry_ids")?;
            let changes = ReconciliationChanges {
                match_entry_ids: ids,
                ..ReconciliationChanges::default()
            };
            Ok(Write::UpdateReconciliation { id, changes })
        },
    )
    .await
}

/// Unmatches one entry; answers the reconciliation.
#[utoipa::path(
    delete,
    path = "/organizations/{org}/reconciliations/{id}/matches/{entry}",
    operation_id = "reconciliations_remove_match",
    tag = "reconciliations",
    summary = "Unmatch an entry",
    description = "Takes one entry out of the reconciliation's cleared entries.",
    params(
        ("entry" = String, Path, description = "The journal entry id."),
        crate::openapi::params::QueuedWrite,
    ),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Reconciliation),
    ),
)]
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

#[utoipa::path(
    post,
    path = "/organizations/{org}/reconciliations/{id}/complete",
    operation_id = "reconciliations_complete",
    tag = "reconciliations",
    summary = "Complete a reconciliation",
    description = "Completes an open reconciliation whose difference is zero: it can no longer change, and its matched entries' transactions are locked.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Reconciliation),
    ),
)]
async fn complete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Write, RESOURCE).await?;
    let write = Write::CompleteReconciliation { id };
    submit(&state, &req, &access, b"", StatusCode::OK, write).await
}
