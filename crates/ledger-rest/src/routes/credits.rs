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
use ledger_domain::services::{
    PurchaseInput, balance_view, ledger_entry_view, package_view, purchase_view,
};
use serde::Deserialize;
use serde_json::json;

use super::{State, access, list_response};
use crate::error::ApiError;
use crate::input::{page, parse_json, read_body};

pub(super) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    cfg.route("/organizations/{org}/credits", web::get().to(balance::<S>))
        .route(
            "/organizations/{org}/credits/packages",
            web::get().to(packages::<S>),
        )
        .route(
            "/organizations/{org}/credits/ledger",
            web::get().to(ledger::<S>),
        )
        .service(
            web::resource("/organizations/{org}/credits/purchases")
                .route(web::get().to(list_purchases::<S>))
                .route(web::post().to(purchase::<S>)),
        )
        .route(
            "/organizations/{org}/credits/purchases/{purchase_id}",
            web::get().to(get_purchase::<S>),
        )
        .service(
            web::resource("/checkout/dev/{org}/{purchase_id}")
                .route(web::get().to(dev_page::<S>))
                .route(web::post().to(dev_pay::<S>)),
        )
        .route("/checkout/return", web::get().to(checkout_return))
        .route("/webhooks/stripe", web::post().to(webhook::<S>));
}

async fn balance<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, "billing").await?;
    let balance = state.ledger.credit_balance(&access).await?;
    Ok(HttpResponse::Ok().json(balance_view(&balance)))
}

async fn packages<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    access(&state, &req, &path.into_inner(), Scope::Read, "billing").await?;
    let packages = state.ledger.credit_packages();
    let all = Page {
        items: packages.to_vec(),
        total_count: packages.len() as i64,
    };
    let page = PageRequest {
        limit: all.total_count,
        offset: 0,
    };
    Ok(list_response(page, &all, package_view))
}

async fn ledger<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, "billing").await?;
    let page = page(&req, 20)?;
    let rows = state.ledger.credit_ledger(&access, page).await?;
    Ok(list_response(page, &rows, ledger_entry_view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PurchaseBody {
    package_id: Option<String>,
    credit_amount: Option<i64>,
    success_url: Option<String>,
    cancel_url: Option<String>,
}

async fn purchase<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Admin, "credits").await?;
    let body = read_body(payload).await?;
    let input: PurchaseBody = parse_json(&req, &body)?;
    let purchase = state
        .ledger
        .purchase_credits(
            &access,
            PurchaseInput {
                package_id: input.package_id,
                credit_amount: input.credit_amount,
                success_url: input.success_url,
                cancel_url: input.cancel_url,
            },
        )
        .await?;
    Ok(HttpResponse::Created().json(purchase_view(&purchase, state.ledger.now())))
}

async fn list_purchases<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = access(&state, &req, &path.into_inner(), Scope::Read, "credits").await?;
    let page = page(&req, 20)?;
    let rows = state.ledger.list_purchases(&access, page).await?;
    let now = state.ledger.now();
    Ok(list_response(page, &rows, |p| purchase_view(p, now)))
}

async fn get_purchase<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "credits").await?;
    let purchase = state.ledger.get_purchase(&access, &id).await?;
    Ok(HttpResponse::Ok().json(purchase_view(&purchase, state.ledger.now())))
}

/// Text for HTML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
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
