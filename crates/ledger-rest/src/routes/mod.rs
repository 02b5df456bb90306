//! Route table: spec section 4 paths, each to one handler.

mod accounts;
mod attachments;
mod categories;
mod contacts;
mod credits;
mod currencies;
mod deletions;
mod documents;
mod exchange_rates;
mod keys;
mod organization_transfers;
mod organizations;
mod pdf;
mod reconciliations;
mod recurring;
mod reports;
mod revaluations;
mod settings;
mod system;
mod system_info;
mod taxes;
mod transactions;
mod transfers;
mod webhooks;
mod x402;

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{Page, PageRequest, Store};
use ledger_domain::services::Access;

use crate::AppState;
use crate::auth::authenticate;
use crate::error::ApiError;

/// Shared state as handlers receive it.
pub(crate) type State<S> = web::Data<AppState<S>>;

/// Authenticates the request and clears it for `needed` on `resource` in `org`.
pub(crate) async fn access<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    org: &str,
    needed: Scope,
    resource: &str,
) -> Result<Access, ApiError> {
    let principal = authenticate(state, req).await?;
    Ok(state
        .ledger
        .authorize(&principal, org, needed, resource)
        .await?)
}

/// The list envelope of one page: `object`, `data` (each item through `view`),
/// `has_more` and `total_count`.
pub(crate) fn list_response<T>(
    page: PageRequest,
    result: &Page<T>,
    view: impl Fn(&T) -> serde_json::Value,
) -> HttpResponse {
    let data: Vec<serde_json::Value> = result.items.iter().map(view).collect();
    HttpResponse::Ok().json(serde_json::json!({
        "object": "list",
        "data": data,
        "has_more": page.offset + (result.items.len() as i64) < result.total_count,
        "total_count": result.total_count,
    }))
}

pub(crate) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    system::configure::<S>(cfg);
    organizations::configure::<S>(cfg);
    organization_transfers::configure::<S>(cfg);
    accounts::configure::<S>(cfg);
    transactions::configure::<S>(cfg);
    contacts::configure::<S>(cfg);
    documents::configure::<S>(cfg);
    reports::configure::<S>(cfg);
    keys::configure::<S>(cfg);
    settings::configure::<S>(cfg);
    taxes::configure::<S>(cfg);
    categories::configure::<S>(cfg);
    transfers::configure::<S>(cfg);
    revaluations::configure::<S>(cfg);
    deletions::configure::<S>(cfg);
    system_info::configure::<S>(cfg);
    exchange_rates::configure::<S>(cfg);
    attachments::configure::<S>(cfg);
    reconciliations::configure::<S>(cfg);
    currencies::configure::<S>(cfg);
    recurring::configure::<S>(cfg);
    webhooks::configure::<S>(cfg);
    credits::configure::<S>(cfg);
    x402::configure::<S>(cfg);
}
