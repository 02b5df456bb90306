//! Credit purchases paid with x402 v2 (issue 19 item 3):
//! `POST /organizations/{org}/credits/x402` `{package_id | credit_amount}`.
//!
//! Without `PAYMENT-SIGNATURE` it answers 402 `payment_required` with the requirements in
//! `PAYMENT-REQUIRED` (base64 JSON) and in the envelope's `details.payment_required`.
//! With one it verifies and settles the payment: 200 with the completed purchase and
//! `PAYMENT-RESPONSE`, or 402 with the refusal's code and `PAYMENT-REQUIRED` (whose
//! `error` says why). Nothing is written on a refusal.

use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{X402Outcome, X402PurchaseInput, payment_refusal};
use ledger_domain::views;
use ledger_domain::x402::{
    PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER, encode_header,
};
use serde::Deserialize;

use super::resource::organization_access;
use super::{Routes, State, at};
use crate::error::ApiError;
use crate::input::{WholeNumber, parse_json, read_body, whole};

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/organizations/{org}/credits/x402").post(purchase::<S>));
}

/// An x402 purchase: the package by id or by its size.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = X402CreditPurchaseRequest)]
#[serde(deny_unknown_fields)]
struct Body {
    /// A package id from `/credits/packages` (`credits_1000`); or give `credit_amount`.
    #[schema(example = "credits_1000")]
    package_id: Option<String>,
    /// The size of a package (`1000`); or give `package_id`.
    #[schema(example = 1000, value_type = Option<i64>)]
    credit_amount: Option<WholeNumber>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/credits/x402",
    operation_id = "credits_x402_purchase",
    tag = "credits",
    summary = "Buy a credit package with an x402 payment",
    description = "x402 protocol version 2, scheme `exact` on EVM (an EIP-3009 `TransferWithAuthorization` signed as EIP-712 typed data). Ask without `PAYMENT-SIGNATURE`: the answer is 402 with the payment requirements in `PAYMENT-REQUIRED`. Send the same request again with the signed payment in `PAYMENT-SIGNATURE`: it is verified (signature, amount, recipient, validity window, single use of the authorization) and settled, and the answer is 200 with the completed purchase and the settlement in `PAYMENT-RESPONSE`; a refused payment is 402 again, with the refusal's code. A payment is credited once: a replay, here or against any organization, is refused (`payment_replayed`). Credits go to the root organization's pool; test keys run the whole flow without touching it. Free; needs `admin`; not in the write pipeline, so `Idempotency-Key` does not apply.",
    params(
        ("PAYMENT-SIGNATURE" = Option<String>, Header, description = "The payment: standard base64 of the x402 `PaymentPayload` JSON, `{x402Version: 2, accepted: <the requirements offered, unchanged>, payload: {signature: <0x + 65 bytes hex>, authorization: {from, to, value, validAfter, validBefore, nonce}}}`. Without it the answer is 402 with the requirements.", example = "eyJ4NDAyVmVyc2lvbiI6MiwiYWNjZXB0ZWQiOnsuLi59LCJwYXlsb2FkIjp7Li4ufX0="),
    ),
    request_body(content = Body, content_type = "application/json", example = json!({"credit_amount": 1000})),
    responses(
        (status = 200, description = "Paid and credited: the completed purchase (`provider` `x402`, `provider_session_id` the settlement's transaction).", body = super::credits::docs::CreditPurchase, headers(
            ("PAYMENT-RESPONSE" = String, description = "Standard base64 of the x402 `SettlementResponse` JSON: `{success: true, transaction: <0x + 32 bytes hex>, network: \"eip155:84532\", payer: <the paying address>, amount: <atomic units>}`."),
            ("Access-Control-Expose-Headers" = String, description = "`PAYMENT-RESPONSE`, so browser clients can read it."),
        )),
        (status = 402, response = docs::X402PaymentRequired),
        (status = 503, response = super::credits::docs::ServiceUnavailable),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn purchase<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Admin, "credits").await?;
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
                credit_amount: whole(input.credit_amount),
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
            .insert_header((
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                PAYMENT_RESPONSE_HEADER,
            ))
            .json(views::CreditPurchaseView::of(&purchase, state.ledger.now())),
        X402Outcome::Required {
            payment_required,
            error,
        } => {
            // The envelope of the refusal, with the requirements in its details too.
            let error = payment_refusal(&payment_required, &error);
            let mut response = actix_web::ResponseError::error_response(&ApiError(error));
            if let Ok(value) = HeaderValue::from_str(&encode_header(&payment_required)) {
                response
                    .headers_mut()
                    .insert(HeaderName::from_static("payment-required"), value);
            }
            response.headers_mut().insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static(PAYMENT_REQUIRED_HEADER),
            );
            response
        }
    })
}

/// Documentation of the 402 answer (see `openapi::schemas`). Never built.
pub(crate) mod docs {
    use serde_json::json;
    use utoipa::ToResponse;
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder, response::Response};

    /// 402 of the x402 purchase: the payment it takes, or why a payment was refused.
    pub(crate) struct X402PaymentRequired;

    impl<'r> ToResponse<'r> for X402PaymentRequired {
        fn response() -> (&'r str, RefOr<Response>) {
            let required = json!({
                "x402Version": 2,
                "resource": {
                    "url": "https://ledger.example.com/organizations/org_01JD0000000000000000000000/credits/x402",
                    "description": "1000 Ledger credits (credits_1000)",
                    "mimeType": "application/json"
                },
                "accepts": [{
                    "scheme": "exact",
                    "network": "eip155:84532",
                    "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
                    "amount": "10000000",
                    "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
                    "maxTimeoutSeconds": 300,
                    "extra": {"name": "USDC", "version": "2"}
                }]
            });
            let example = json!({"error": {
                "type": "payment_error",
                "code": "payment_required",
                "message": "1000 credits cost 10.00 USD: pay with x402 (the PAYMENT-REQUIRED header) and send the same request again with PAYMENT-SIGNATURE",
                "status": 402,
                "request_id": "req_01JD0000000000000000000000",
                "details": {"payment_required": required},
            }});
            let header = HeaderBuilder::new()
                .schema(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .content_encoding("base64")
                        .content_media_type("application/json"),
                )
                .description(Some(
                    "Standard base64 of the x402 `PaymentRequired` JSON: `{x402Version: 2, \
                     error?: <why a payment was refused>, resource: {url, description, \
                     mimeType}, accepts: [{scheme: \"exact\", network: \"eip155:<chain \
                     id>\", asset: <token contract>, amount: <price in the token's atomic \
                     units>, payTo, maxTimeoutSeconds, extra: {name, version} (the token's \
                     EIP-712 domain)}]}`. The same object is the body's \
                     `error.details.payment_required`.",
                ))
                .build();
            let expose = HeaderBuilder::new()
                .schema(ObjectBuilder::new().schema_type(Type::String))
                .description(Some("`PAYMENT-REQUIRED`, so browser clients can read it."))
                .build();
            (
                "X402PaymentRequired",
                RefOr::T(
                    ResponseBuilder::new()
                        .description(
                            "Payment required (`payment_required`: no `PAYMENT-SIGNATURE` \
                             was sent), or the payment was refused and nothing was written: \
                             `payment_invalid`, `payment_signature_invalid`, \
                             `payment_amount_mismatch`, `payment_recipient_mismatch`, \
                             `payment_expired`, `payment_replayed` (type `payment_error`).",
                        )
                        .header("PAYMENT-REQUIRED", header)
                        .header("Access-Control-Expose-Headers", expose)
                        .content(
                            "application/json",
                            ContentBuilder::new()
                                .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                                .example(Some(example))
                                .build(),
                        )
                        .build(),
                ),
            )
        }
    }
}
