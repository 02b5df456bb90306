//! Credits (issue 19; DECISIONS 7): the balance, its ledger, the packages, purchases
//! through a hosted checkout, the development checkout page and the payment provider's
//! webhook.
//!
//! `/checkout/dev/...` and `/webhooks/stripe` take no API key: the first is opened in
//! the buyer's browser (the unguessable purchase id is the capability, and it only ever
//! completes development purchases), the second is authenticated by its signature.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::credits::{CreditPurchase, PurchaseStatus};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{Page, PageRequest, Store};
use ledger_domain::services::PurchaseInput;
use ledger_domain::views;
use serde::Deserialize;
use serde_json::json;

use super::resource::{list_access, organization_access};
use super::{Routes, State, access, at, list_response};
use crate::error::ApiError;
use crate::html::escape;
use crate::input::{WholeNumber, parse_json, read_body, whole};

/// The JSON operations, on the REST registrar (route table, OpenAPI document, 405).
pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/organizations/{org}/credits").get(balance::<S>))
        .add(at("/organizations/{org}/credits/packages").get(packages::<S>))
        .add(at("/organizations/{org}/credits/ledger").get(ledger::<S>))
        .add(
            at("/organizations/{org}/credits/purchases")
                .get(list_purchases::<S>)
                .post(purchase::<S>),
        )
        .add(at("/organizations/{org}/credits/purchases/{purchase_id}").get(get_purchase::<S>));
}

/// The pages and the provider's webhook, outside the registrar as the other non-API
/// pages are (the playgrounds, the OAuth sign-in pages): the development checkout a
/// browser opens, the return page, and Stripe's notification receiver (Stripe's protocol,
/// authenticated by its signature). Neither in the route table nor in `/openapi.json`.
pub(super) fn configure_pages<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/checkout/dev/{org}/{purchase_id}")
            .route(web::get().to(dev_page::<S>))
            .route(web::post().to(dev_pay::<S>)),
    )
    .route("/checkout/return", web::get().to(checkout_return))
    .route("/webhooks/stripe", web::post().to(webhook::<S>));
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/credits",
    operation_id = "credits_balance",
    tag = "credits",
    summary = "Get the credit balance",
    description = "The balance of the pool that pays for the organization's live writes (its root organization's): the monthly allowance left, the purchased credits left, and when the allowance is reset.",
    responses(
        (status = 200, description = "The balance.", body = docs::CreditBalance),
    ),
)]
async fn balance<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Read, "billing").await?;
    let balance = state.ledger.credit_balance(&access).await?;
    Ok(HttpResponse::Ok().json(views::CreditBalanceView::of(&balance)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/credits/packages",
    operation_id = "credits_packages",
    tag = "credits",
    summary = "List the credit packages on sale",
    description = "Lists the credit packages on sale: how many credits each adds, and its price.",
    responses(
        (status = 200, description = "Every package, in one page.", body = docs::CreditPackageList),
    ),
)]
async fn packages<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    organization_access(&state, &req, path, Scope::Read, "billing").await?;
    let packages = state.ledger.credit_packages();
    let all = Page {
        items: packages.to_vec(),
        total_count: packages.len() as i64,
    };
    let page = PageRequest {
        limit: all.total_count,
        offset: 0,
    };
    Ok(list_response(page, &all, views::CreditPackageView::of))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/credits/ledger",
    operation_id = "credits_ledger",
    tag = "credits",
    summary = "List the credit ledger",
    description = "Every grant, charge, refund, reset and purchase of the pool as a signed row, newest first; the rows sum to `credits_remaining`.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "One page of rows.", body = docs::CreditLedgerEntryList),
    ),
)]
async fn ledger<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, "billing", 20).await?;
    let rows = state.ledger.credit_ledger(&access, page).await?;
    Ok(list_response(page, &rows, views::CreditLedgerEntryView::of))
}

/// A hosted purchase: the package by id or by its size.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = CreditPurchaseRequest)]
#[serde(deny_unknown_fields)]
struct PurchaseBody {
    /// A package id from `/credits/packages` (`credits_1000`); or give `credit_amount`.
    #[schema(example = "credits_1000")]
    package_id: Option<String>,
    /// The size of a package (`1000`); or give `package_id`.
    #[schema(example = 1000, value_type = Option<i64>)]
    credit_amount: Option<WholeNumber>,
    /// Where the buyer returns after paying (absolute http(s) URL).
    #[schema(schema_with = crate::openapi::optional_return_url)]
    success_url: Option<String>,
    /// Where the buyer returns when cancelling (absolute http(s) URL).
    #[schema(schema_with = crate::openapi::optional_return_url)]
    cancel_url: Option<String>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/credits/purchases",
    operation_id = "credits_purchases_create",
    tag = "credits",
    summary = "Buy a credit package through a hosted checkout",
    description = "Opens a checkout at the payment provider (test keys: always the development provider, no money moves) and answers the pending purchase with its `checkout_url`, to be paid before `expires_at`. The credits are added once the payment is confirmed, exactly once. Free; not in the write pipeline, so `Idempotency-Key` does not apply.",
    request_body(content = PurchaseBody, content_type = "application/json", example = json!({"credit_amount": 1000, "success_url": "https://example.com/paid", "cancel_url": "https://example.com/cancelled"})),
    responses(
        (status = 201, description = "The pending purchase.", body = docs::CreditPurchase),
        (status = 503, response = docs::ServiceUnavailable),
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
    let input: PurchaseBody = parse_json(&req, &body)?;
    let purchase = state
        .ledger
        .purchase_credits(
            &access,
            PurchaseInput {
                package_id: input.package_id,
                credit_amount: whole(input.credit_amount),
                success_url: input.success_url,
                cancel_url: input.cancel_url,
            },
        )
        .await?;
    Ok(HttpResponse::Created().json(views::CreditPurchaseView::of(&purchase, state.ledger.now())))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/credits/purchases",
    operation_id = "credits_purchases_list",
    tag = "credits",
    summary = "List credit purchases",
    description = "Hosted and x402 purchases of the organization, newest first; a pending purchase past `expires_at` reads `expired`.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "One page of purchases.", body = docs::CreditPurchaseList),
    ),
)]
async fn list_purchases<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, "credits", 20).await?;
    let rows = state.ledger.list_purchases(&access, page).await?;
    let now = state.ledger.now();
    Ok(list_response(page, &rows, |p| {
        views::CreditPurchaseView::of(p, now)
    }))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/credits/purchases/{purchase_id}",
    operation_id = "credits_purchases_get",
    tag = "credits",
    summary = "Get a credit purchase",
    description = "Returns one credit purchase with its status, package, price and, once completed, when it was paid.",
    params(
        ("purchase_id" = String, Path, description = "The purchase id (`cpur_...`)."),
    ),
    responses(
        (status = 200, description = "The purchase.", body = docs::CreditPurchase),
    ),
)]
async fn get_purchase<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "credits").await?;
    let purchase = state.ledger.get_purchase(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::CreditPurchaseView::of(&purchase, state.ledger.now())))
}

fn html(status: actix_web::http::StatusCode, title: &str, body: &str) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("X-Frame-Options", "DENY"))
        .insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:",
        ))
        .body(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:32rem;\
             margin:4rem auto;padding:0 1rem}}.note{{color:#666}}button{{font-size:1.1rem;\
             padding:.5rem 1.5rem}}</style></head><body><h1>{title}</h1>{body}</body></html>",
            title = escape(title),
        ))
}

fn price(p: &CreditPurchase) -> String {
    format!(
        "{}.{:02} {}",
        p.price_cents / 100,
        p.price_cents % 100,
        p.currency.to_uppercase()
    )
}

fn dev_summary(p: &CreditPurchase) -> String {
    format!(
        "<p><strong>{credits}</strong> credits for <strong>{price}</strong> \
         ({mode} mode, purchase <code>{id}</code>).</p>",
        credits = p.credits,
        price = escape(&price(p)),
        mode = if p.livemode { "live" } else { "test" },
        id = escape(&p.id),
    )
}

fn completed_page(p: &CreditPurchase) -> HttpResponse {
    let next = p
        .success_url
        .as_deref()
        .map(|u| format!("<p><a href=\"{}\">Continue</a></p>", escape(u)))
        .unwrap_or_default();
    html(
        actix_web::http::StatusCode::OK,
        "Payment complete",
        &format!(
            "{}<p>The credits were added to the organization's pool.</p>{next}",
            dev_summary(p)
        ),
    )
}

async fn dev_page<S: Store>(
    state: State<S>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let purchase = state.ledger.dev_checkout(&org, &id).await?;
    Ok(match purchase.status_at(state.ledger.now()) {
        PurchaseStatus::Completed => completed_page(&purchase),
        PurchaseStatus::Expired => html(
            actix_web::http::StatusCode::GONE,
            "Checkout expired",
            &format!(
                "{}<p>This checkout expired; start a new purchase.</p>",
                dev_summary(&purchase)
            ),
        ),
        PurchaseStatus::Pending => {
            let cancel = purchase
                .cancel_url
                .as_deref()
                .map(|u| format!(" <a href=\"{}\">Cancel</a>", escape(u)))
                .unwrap_or_default();
            html(
                actix_web::http::StatusCode::OK,
                "Ledger development checkout",
                &format!(
                    "{}<p class=\"note\">Development payment provider: no card is charged \
                     and no money moves.</p><form method=\"post\"><button type=\"submit\">\
                     Pay {}</button>{cancel}</form>",
                    dev_summary(&purchase),
                    escape(&price(&purchase)),
                ),
            )
        }
    })
}

async fn dev_pay<S: Store>(
    state: State<S>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let purchase = state.ledger.complete_dev_checkout(&org, &id).await?;
    Ok(match &purchase.success_url {
        // Post/redirect/get: the buyer lands on the client's page.
        Some(url) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, url.as_str()))
            .finish(),
        None => completed_page(&purchase),
    })
}

async fn checkout_return(req: HttpRequest) -> HttpResponse {
    let cancelled = req.query_string().contains("status=cancel");
    if cancelled {
        html(
            actix_web::http::StatusCode::OK,
            "Checkout cancelled",
            "<p>Nothing was charged.</p>",
        )
    } else {
        html(
            actix_web::http::StatusCode::OK,
            "Thank you",
            "<p>The credits are added as soon as the payment provider confirms the payment.</p>",
        )
    }
}

async fn webhook<S: Store>(
    state: State<S>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let body = read_body(payload).await?;
    let signature = req
        .headers()
        .get("Stripe-Signature")
        .and_then(|v| v.to_str().ok());
    let confirmed = state.ledger.confirm_payment(signature, &body).await?;
    Ok(HttpResponse::Ok().json(json!({
        "received": true,
        "purchase_id": confirmed.as_ref().map(|p| p.id.clone()),
    })))
}

/// Documentation of the credit answers: the views the handlers serialize, and the 503
/// of a feature this server does not enable.
pub(crate) mod docs {
    use ledger_domain::views;
    use serde_json::json;
    use utoipa::ToResponse;
    use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder, response::Response};

    pub(crate) type CreditBalance = views::CreditBalanceView<'static>;
    pub(crate) type CreditPackage = views::CreditPackageView<'static>;
    pub(crate) type CreditPackageList = views::List<CreditPackage>;
    pub(crate) type CreditLedgerEntryList = views::List<views::CreditLedgerEntryView<'static>>;
    pub(crate) type CreditPurchase = views::CreditPurchaseView<'static>;
    pub(crate) type CreditPurchaseList = views::List<CreditPurchase>;

    /// 503: the feature is not enabled on this server (no payment provider configured,
    /// x402 off), in the error envelope.
    pub(crate) struct ServiceUnavailable;

    impl<'r> ToResponse<'r> for ServiceUnavailable {
        fn response() -> (&'r str, RefOr<Response>) {
            let example = json!({"error": {
                "type": "api_error",
                "code": "service_unavailable",
                "message": "credit purchases are not configured on this server",
                "status": 503,
                "request_id": "req_01JD0000000000000000000000",
            }});
            (
                "ServiceUnavailable",
                RefOr::T(
                    ResponseBuilder::new()
                        .description(
                            "Not enabled on this server (no payment provider, or x402 off).",
                        )
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
