//! `GET /system` (spec 2.12, 4.3): the system information record for keys with the
//! `system` permission.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::ports::Store;
use ledger_domain::services::system_auth_error;
use ledger_domain::views;

use super::State;
use crate::auth::authenticate;
use crate::error::ApiError;

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.route("/system", web::get().to(system::<S>));
}

async fn system<S: Store>(state: State<S>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req)
        .await
        .map_err(|ApiError(e)| ApiError(system_auth_error(e)))?;
    let info = state.ledger.system_info(&principal).await?;
    Ok(HttpResponse::Ok().json(views::system_info(&info)))
}
