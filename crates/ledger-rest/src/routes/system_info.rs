//! `GET /system` (spec 2.12, 4.3): the system information record for keys with the
//! `system` permission.

use actix_web::{HttpRequest, HttpResponse};
use ledger_domain::ports::Store;
use ledger_domain::services::system_auth_error;
use ledger_domain::views;

use super::State;
use super::{Routes, at};
use crate::auth::authenticate;
use crate::error::ApiError;

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/system").get(system::<S>));
}

#[utoipa::path(
    get,
    path = "/system",
    operation_id = "system_get",
    tag = "system",
    summary = "System information (keys with the system permission)",
    description = "Returns the server's version, status and uptime, the database, the workers and the recent event statistics. Only a key with the `system` permission may read it.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::SystemInfo),
    ),
    security(("api_key" = [])),
)]
async fn system<S: Store>(state: State<S>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req)
        .await
        .map_err(|ApiError(e)| ApiError(system_auth_error(e)))?;
    let info = state.ledger.system_info(&principal).await?;
    Ok(HttpResponse::Ok().json(views::SystemInfoView::of(&info)))
}
