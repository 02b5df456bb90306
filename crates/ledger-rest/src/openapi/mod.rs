//! The OpenAPI 3.1 document of the REST API (`GET /openapi.json`), generated from the
//! code: each handler carries its `#[utoipa::path]` operation, the request bodies are the
//! handlers' own input types, and [`schemas`] mirrors the rendered answers. Three
//! conventions are applied to every operation (`conventions`) instead of being repeated
//! on each:
//! the error responses (DECISIONS 6 envelope), the security schemes, and the `links`
//! from a create to the get of what it made and from a queued write to its status.
//!
//! The route table ([`crate::route_table`]) and this document list the same operations;
//! a test compares them, so a route cannot be added without its documentation.
//!
//! Its parts: `api_doc` declares the document (every operation, the tags),
//! `conventions` applies the shared conventions to it, `render` writes it as JSON and
//! text, `fields` holds the schemas of the request members the handlers' bodies name,
//! and `schemas` mirrors the answers.

mod api_doc;
mod conventions;
mod fields;
pub(crate) mod params;
mod render;
pub(crate) mod schemas;

use std::sync::OnceLock;

use ledger_http::OAuthUrls;
use utoipa::OpenApi;
use utoipa::openapi::server::Server;

pub(crate) use fields::{
    Decimal, FlexibleDate, NonNegativeAmount, PositiveAmount, Quantity, RateValue,
    RecurringScheduleCreateRequest, RecurringScheduleUpdateRequest, StatementColumn, TaxRate,
    account_type, batch_transactions, category_type, contact_type, currency_code, date_only,
    decimal_separator, entry_type, event_types, name, optional_account_status, optional_country,
    optional_currency_code, optional_date_only, optional_email, optional_key_mode, optional_name,
    optional_object, optional_return_url, optional_text_255, optional_text_5000,
    optional_webhook_url, optional_website, permissions, statement_date_format, statement_format,
    tax_ids, tax_type, text, text_1000, webhook_url,
};
pub(crate) use render::to_json;

/// The document as data.
pub(crate) fn document() -> &'static utoipa::openapi::OpenApi {
    static DOC: OnceLock<utoipa::openapi::OpenApi> = OnceLock::new();
    DOC.get_or_init(api_doc::ApiDoc::openapi)
}

/// The document as this server serves it: its base URL as the server, and the OAuth
/// endpoints of its authorization server.
pub(crate) fn served(urls: &OAuthUrls) -> String {
    let mut doc = document().clone();
    doc.servers = Some(vec![Server::new(urls.base_url.clone())]);
    if let Some(components) = doc.components.as_mut() {
        components.add_security_scheme("oauth2", conventions::oauth2(&urls.issuer));
    }
    render::to_text(to_json(&doc))
}

#[cfg(test)]
mod tests {
    use super::render::to_text;
    use super::*;

    #[test]
    fn the_spec_recurring_paths_come_first_and_the_alias_is_deprecated() {
        let doc = to_json(document());
        let text = to_text(doc.clone());
        let back: serde_json::Value = serde_json::from_str(&text).expect("JSON text");
        assert_eq!(back, doc, "the text is the same document");
        let at = |path: &str| {
            text.find(&format!("\"{path}\":"))
                .unwrap_or_else(|| panic!("{path} is listed"))
        };
        let spec_last = at("/organizations/{org}/recurring/{id}/runs");
        for spec in [
            "/organizations/{org}/recurring",
            "/organizations/{org}/recurring/{id}",
            "/organizations/{org}/recurring/{id}/run",
        ] {
            assert!(at(spec) <= spec_last, "{spec}");
        }
        assert!(spec_last < at("/organizations/{org}/recurring-schedules"));
        let paths = doc["paths"].as_object().expect("paths");
        for (path, item) in paths {
            let alias = path.starts_with("/organizations/{org}/recurring-schedules");
            let spec = path.starts_with("/organizations/{org}/recurring") && !alias;
            for (method, op) in item.as_object().expect("item") {
                let deprecated = op.get("deprecated") == Some(&serde_json::Value::Bool(true));
                if alias {
                    assert!(deprecated, "{method} {path}");
                    let canonical = path.replace("/recurring-schedules", "/recurring");
                    assert!(
                        paths[&canonical].get(method).is_some(),
                        "{method} {canonical} serves what {path} does"
                    );
                } else if spec {
                    assert!(!deprecated, "{method} {path}");
                }
            }
        }
    }
}
