//! Credit purchases paid with x402 v2 (issue 19 item 3):
//! `POST /organizations/{org}/credits/x402` `{package_id | credit_amount}`.
//!
//! Without `PAYMENT-SIGNATURE` it answers 402 `payment_required` with the requirements in
//! `PAYMENT-REQUIRED` (base64 JSON) and in the envelope's `details.payment_required`.
//! With one it verifies and settles the payment: 200 with the completed purchase and
//! `PAYMENT-RESPONSE`, or 402 with the refusal's code and `PAYMENT-REQUIRED` (whose
//! `error` says why). Nothing is written on a refusal.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::DomainError;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{X402Outcome, X402PurchaseInput, purchase_view};
use ledger_domain::x402::{
    PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER, encode_header,
};
use serde::Deserialize;
use serde_json::json;

use super::{State, access};
use crate::error::ApiError;
use crate::input::{parse_json, read_body};

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/organizations/{org}/credits/x402",
        web::post().to(purchase::<S>),
    );
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    package_id: Option<String>,
    credit_amount: Option<i64>,
}

async fn purchase<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Admin, "credits").await?;
    let body = read_body(payload).await?;
    let input: Body = parse_json(&req, &body)?;
    let payment = req
        .headers()
        .get(PAYMENT_SIGNATURE_HEADER)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let resource_url = {
        let info = req.connection_info();
        format!("{}://{}{}", info.scheme(), info.host(), req.path())
    };
    let outcome = state
        .ledger
        .x402_purchase(
            &access,
            X402PurchaseInput {
                package_id: input.package_id,
                credit_amount: input.credit_amount,
                resource_url,
                payment,
            },
        )
        .await?;
    Ok(match outcome {
        X402Outcome::Paid {
            purchase,
            settlement,
        } => HttpResponse::Ok()
            .insert_header((PAYMENT_RESPONSE_HEADER, encode_header(&settlement)))
            .insert_header(("Access-Control-Expose-Headers", PAYMENT_RESPONSE_HEADER))
            .json(purchase_view(&purchase, state.ledger.now())),
        X402Outcome::Required {
            payment_required,
            error,
        } => {
            let header = encode_header(&payment_required);
            // The envelope of the refusal, with the requirements in its details too.
            let error = DomainError::Reported {
                code: error.code(),
                message: error.public_message(),
                details: Some(json!({ "payment_required": payment_required })),
            };
            let mut response = actix_web::ResponseError::error_response(&ApiError(error));
            if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&header) {
                response.headers_mut().insert(
                    actix_web::http::header::HeaderName::from_static("payment-required"),
                    value,
                );
            }
            response.headers_mut().insert(
                actix_web::http::header::ACCESS_CONTROL_EXPOSE_HEADERS,
                actix_web::http::header::HeaderValue::from_static(PAYMENT_REQUIRED_HEADER),
            );
            response
        }
    })
}
