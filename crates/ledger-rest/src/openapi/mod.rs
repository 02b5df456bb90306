//! The OpenAPI 3.1 document of the REST API (`GET /openapi.json`), generated from the
//! code: each handler carries its `#[utoipa::path]` operation, the request bodies are the
//! handlers' own input types, and [`schemas`] mirrors the rendered answers. Three
//! conventions are applied to every operation here instead of being repeated on each:
//! the error responses (DECISIONS 6 envelope), the security schemes, and the `links`
//! from a create to the get of what it made and from a queued write to its status.
//!
//! The route table ([`crate::route_table`]) and this document list the same operations;
//! a test compares them, so a route cannot be added without its documentation.

pub(crate) mod schemas;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use ledger_domain::error::ErrorCode;
use ledger_http::OAuthUrls;
use serde_json::json;
use utoipa::openapi::link::LinkBuilder;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::schema::{
    KnownFormat, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::security::{
    AuthorizationCode, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityScheme,
};
use utoipa::openapi::server::Server;
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

/// The document as the code declares it (relative OAuth URLs, no server).
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Ledger REST API",
        description = "Headless double-entry accounting: organizations, a chart of accounts,             balanced transactions, contacts, invoices and bills, reports, reconciliation,             recurring schedules and webhooks. Writes go through one queue: a write answers             its resource (201 or 200), or 202 with a request envelope while it runs             (`Prefer: wait=N` waits for it). Every refusal is the same error envelope.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    paths(
        crate::routes::accounts::list,
        crate::routes::accounts::create,
        crate::routes::accounts::get,
        crate::routes::accounts::update,
        crate::routes::accounts::delete,
        crate::routes::accounts::balance,
        crate::routes::accounts::history,
        crate::routes::attachments::list_transactions,
        crate::routes::attachments::list_invoices,
        crate::routes::attachments::list_bills,
        crate::routes::attachments::upload_transactions,
        crate::routes::attachments::upload_invoices,
        crate::routes::attachments::upload_bills,
        crate::routes::attachments::get,
        crate::routes::attachments::delete,
        crate::routes::attachments::content,
        crate::routes::categories::list,
        crate::routes::categories::create,
        crate::routes::categories::get,
        crate::routes::categories::update,
        crate::routes::categories::delete,
        crate::routes::credits::balance,
        crate::routes::credits::packages,
        crate::routes::credits::ledger,
        crate::routes::credits::list_purchases,
        crate::routes::credits::purchase,
        crate::routes::credits::get_purchase,
        crate::routes::x402::purchase,
        crate::routes::contacts::list,
        crate::routes::contacts::create,
        crate::routes::contacts::get,
        crate::routes::contacts::update,
        crate::routes::contacts::delete,
        crate::routes::taxes::list,
        crate::routes::taxes::create,
        crate::routes::taxes::get,
        crate::routes::taxes::update,
        crate::routes::taxes::delete,
        crate::routes::exchange_rates::list,
        crate::routes::exchange_rates::create,
        crate::routes::exchange_rates::get,
        crate::routes::exchange_rates::update,
        crate::routes::exchange_rates::delete,
        crate::routes::currencies::list,
        crate::routes::currencies::convert,
        crate::routes::currencies::get,
        crate::routes::deletions::of_organization,
        crate::routes::deletions::of_caller,
        crate::routes::documents::invoices_list,
        crate::routes::documents::bills_list,
        crate::routes::documents::invoices_create,
        crate::routes::documents::bills_create,
        crate::routes::documents::invoices_get,
        crate::routes::documents::bills_get,
        crate::routes::documents::invoices_update,
        crate::routes::documents::bills_update,
        crate::routes::documents::invoices_delete,
        crate::routes::documents::bills_delete,
        crate::routes::documents::invoices_send,
        crate::routes::documents::bills_approve,
        crate::routes::documents::invoices_void,
        crate::routes::documents::bills_void,
        crate::routes::documents::invoices_payments,
        crate::routes::documents::bills_payments,
        crate::routes::documents::invoices_pay,
        crate::routes::documents::bills_pay,
        crate::routes::documents::invoices_history,
        crate::routes::documents::bills_history,
        crate::routes::pdf::invoices_pdf,
        crate::routes::pdf::bills_pdf,
        crate::routes::keys::list_root,
        crate::routes::keys::list_v1,
        crate::routes::keys::create_root,
        crate::routes::keys::create_v1,
        crate::routes::keys::get_root,
        crate::routes::keys::get_v1,
        crate::routes::keys::update_root,
        crate::routes::keys::update_v1,
        crate::routes::keys::delete_root,
        crate::routes::keys::delete_v1,
        crate::routes::keys::rotate_root,
        crate::routes::keys::rotate_v1,
        crate::routes::organization_transfers::list_outgoing,
        crate::routes::organization_transfers::initiate,
        crate::routes::organization_transfers::list_incoming,
        crate::routes::organization_transfers::get,
        crate::routes::organization_transfers::stats,
        crate::routes::organization_transfers::accept,
        crate::routes::organization_transfers::reject,
        crate::routes::organization_transfers::cancel,
        crate::routes::organizations::master,
        crate::routes::organizations::sub,
        crate::routes::organizations::get_organization,
        crate::routes::organizations::sub_organizations,
        crate::routes::reconciliations::list,
        crate::routes::reconciliations::create,
        crate::routes::reconciliations::get,
        crate::routes::reconciliations::update,
        crate::routes::reconciliations::delete,
        crate::routes::reconciliations::add_matches,
        crate::routes::reconciliations::remove_match,
        crate::routes::reconciliations::complete,
        crate::routes::reconciliations::import,
        crate::routes::reconciliations::lines,
        crate::routes::reconciliations::accept,
        crate::routes::reconciliations::create_transaction,
        // Also served, deprecated, under `/recurring-schedules` (`DEPRECATED_ALIASES`).
        crate::routes::recurring::list,
        crate::routes::recurring::create,
        crate::routes::recurring::get,
        crate::routes::recurring::update_put,
        crate::routes::recurring::update_patch,
        crate::routes::recurring::delete,
        crate::routes::recurring::pause,
        crate::routes::recurring::resume,
        crate::routes::recurring::run,
        crate::routes::recurring::runs,
        crate::routes::reports::trial_balance,
        crate::routes::reports::balance_sheet,
        crate::routes::reports::income_statement,
        crate::routes::revaluations::create,
        crate::routes::settings::get,
        crate::routes::settings::put,
        crate::routes::settings::billing,
        crate::routes::system::health,
        crate::routes::system::ready,
        crate::routes::system::metrics,
        crate::routes::system::openapi,
        crate::routes::system::get_request,
        crate::routes::system::list_events,
        crate::routes::system_info::system,
        crate::routes::transactions::list,
        crate::routes::transactions::create,
        crate::routes::transactions::create_batch,
        crate::routes::transactions::get,
        crate::routes::transactions::update,
        crate::routes::transactions::delete,
        crate::routes::transactions::post,
        crate::routes::transactions::reverse,
        crate::routes::transfers::list,
        crate::routes::transfers::create,
        crate::routes::transfers::get,
        crate::routes::transfers::post,
        crate::routes::transfers::reverse,
        crate::routes::webhooks::list,
        crate::routes::webhooks::create,
        crate::routes::webhooks::get,
        crate::routes::webhooks::update_put,
        crate::routes::webhooks::update_patch,
        crate::routes::webhooks::delete,
        crate::routes::webhooks::rotate,
        crate::routes::webhooks::deliveries,
        crate::routes::webhooks::delivery,
        crate::routes::webhooks::replay
    ),
    components(
        schemas(schemas::ErrorEnvelope),
        responses(
            crate::routes::credits::docs::ServiceUnavailable,
            crate::routes::x402::docs::X402PaymentRequired,
        ),
    ),
    modifiers(&Conventions),
    tags(
        (name = "system", description = "Health, readiness, metrics, system information and this document."),
        (name = "organizations", description = "Sign-up, organizations and sub-organizations."),
        (name = "organization-transfers", description = "Handing an organization to another user."),
        (name = "api-keys", description = "API keys of an organization (also under `/api/v1`)."),
        (name = "accounts", description = "The chart of accounts and account balances."),
        (name = "transactions", description = "Balanced journal transactions."),
        (name = "transfers", description = "Transfers between two accounts."),
        (name = "contacts", description = "Customers and vendors."),
        (name = "invoices", description = "Invoices to customers."),
        (name = "bills", description = "Bills from vendors."),
        (name = "attachments", description = "Files attached to transactions, invoices and bills."),
        (name = "taxes", description = "Tax rates."),
        (name = "categories", description = "Income and expense categories."),
        (name = "currencies", description = "ISO 4217 currencies and conversion."),
        (name = "exchange-rates", description = "Exchange rates of an organization."),
        (name = "revaluations", description = "Revaluation of foreign-currency balances."),
        (name = "reports", description = "Trial balance, balance sheet and income statement."),
        (name = "reconciliations", description = "Bank reconciliation and statement import."),
        (name = "recurring", description = "Recurring schedules of invoices and bills."),
        (name = "webhooks", description = "Webhook endpoints and deliveries."),
        (name = "settings", description = "Settings and billing of an organization."),
        (name = "credits", description = "The credit balance, its ledger, the packages, and purchases through a hosted checkout or with x402."),
        (name = "deletions", description = "Soft-deleted resources that can be restored."),
    ),
)]
struct ApiDoc;

/// The document as data.
pub(crate) fn document() -> &'static utoipa::openapi::OpenApi {
    static DOC: OnceLock<utoipa::openapi::OpenApi> = OnceLock::new();
    DOC.get_or_init(ApiDoc::openapi)
}

/// The document as this server serves it: its base URL as the server, and the OAuth
/// endpoints of its authorization server.
pub(crate) fn served(urls: &OAuthUrls) -> String {
    let mut doc = document().clone();
    doc.servers = Some(vec![Server::new(urls.base_url.clone())]);
    if let Some(components) = doc.components.as_mut() {
        components.add_security_scheme("oauth2", oauth2(&urls.issuer));
    }
    to_text(to_json(&doc))
}

/// The document as JSON text, its paths in the order of their segments
/// ([`path_order`]) instead of serde_json's order of the whole text, which would put
/// `/recurring-schedules` between the spec's `/recurring` and `/recurring/{id}`. Readers
/// of the document (the playground, Redoc) list operations in the order of the text.
fn to_text(mut doc: serde_json::Value) -> String {
    let Some(serde_json::Value::Object(paths)) = doc
        .as_object_mut()
        .and_then(|members| members.remove("paths"))
    else {
        return doc.to_string();
    };
    let mut paths: Vec<(String, serde_json::Value)> = paths.into_iter().collect();
    paths.sort_by(|(a, _), (b, _)| path_order(a, b));
    let paths: Vec<String> = paths
        .iter()
        .map(|(path, item)| format!("{}:{item}", serde_json::Value::from(path.as_str())))
        .collect();
    let rest = doc.to_string();
    match rest.strip_suffix('}') {
        Some("{") | None => format!("{{\"paths\":{{{}}}}}", paths.join(",")),
        Some(head) => format!("{head},\"paths\":{{{}}}}}", paths.join(",")),
    }
}

/// Paths compared segment by segment: a path's sub-paths follow it before a sibling whose
/// name merely starts with the same letters (`/recurring`, `/recurring/{id}`, ...,
/// then `/recurring-schedules`).
fn path_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/').cmp(b.split('/'))
}

/// The document as JSON. utoipa 5.5 writes a link's `operationId` as `operation_id`
/// (its `Link` lacks the camelCase rename the other objects have), which OpenAPI does not
/// know: the links are renamed here.
pub(crate) fn to_json(doc: &utoipa::openapi::OpenApi) -> serde_json::Value {
    let mut value = serde_json::to_value(doc).unwrap_or_default();
    let operations = value
        .get_mut("paths")
        .and_then(serde_json::Value::as_object_mut)
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(serde_json::Value::as_object_mut)
        .flat_map(|item| item.values_mut());
    for operation in operations {
        let links = operation
            .get_mut("responses")
            .and_then(serde_json::Value::as_object_mut)
            .into_iter()
            .flat_map(|r| r.values_mut())
            .filter_map(|r| r.get_mut("links")?.as_object_mut())
            .flat_map(|links| links.values_mut())
            .filter_map(serde_json::Value::as_object_mut);
        for link in links {
            if let Some(id) = link.remove("operation_id") {
                link.insert("operationId".into(), id);
            }
        }
    }
    refuse_nul(&mut value);
    one_of_members_required(&mut value);
    if let Some(upload) = value
        .pointer_mut("/components/schemas/FileUpload")
        .and_then(serde_json::Value::as_object_mut)
    {
        // The handler refuses any part but `file` (a `#[derive(ToSchema)]` with no serde
        // derive has no `deny_unknown_fields` to say it).
        upload.insert("additionalProperties".into(), false.into());
    }
    value
}

/// A credit purchase names its package by id or by size: at least one of the two, not
/// `null` (the domain's `missing_field` otherwise). utoipa's object schema has no `anyOf`
/// of its own, so it is added to the JSON.
fn one_of_members_required(doc: &mut serde_json::Value) {
    for name in ["CreditPurchaseRequest", "X402CreditPurchaseRequest"] {
        let Some(schema) = doc
            .pointer_mut(&format!("/components/schemas/{name}"))
            .and_then(serde_json::Value::as_object_mut)
        else {
            continue;
        };
        schema.insert(
            "anyOf".into(),
            json!([
                {"required": ["package_id"], "properties": {"package_id": {"type": "string"}}},
                {"required": ["credit_amount"], "properties": {"credit_amount": {"type": "integer"}}},
            ]),
        );
    }
}

/// A request body with U+0000 in any string is refused (`ledger_http::input::parse_json`:
/// PostgreSQL text cannot hold it), and the schemas say so: every string of a request
/// body, and of each component a request body reaches, keeps NUL out through its pattern
/// (answers are left alone: an error message may quote what was sent). A string with a
/// `format`, an `enum` or a `const` cannot hold it anyway.
fn refuse_nul(doc: &mut serde_json::Value) {
    let mut bodies: Vec<&mut serde_json::Value> = doc
        .get_mut("paths")
        .and_then(serde_json::Value::as_object_mut)
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(serde_json::Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(|operation| operation.get_mut("requestBody"))
        .collect();
    let mut pending: Vec<String> = Vec::new();
    for body in &mut bodies {
        collect_refs(body, &mut pending);
        nul_free_strings(body);
    }
    let mut reached = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !reached.insert(name.clone()) {
            continue;
        }
        if let Some(schema) = doc.pointer(&format!("/components/schemas/{name}")) {
            collect_refs(schema, &mut pending);
        }
    }
    for name in reached {
        if let Some(schema) = doc.pointer_mut(&format!("/components/schemas/{name}")) {
            nul_free_strings(schema);
        }
    }
}

/// The component names `value` refers to (`#/components/schemas/<name>`).
fn collect_refs(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        serde_json::Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(serde_json::Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                out.push(name.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        _ => {}
    }
}

fn nul_free_strings(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Array(items) => items.iter_mut().for_each(nul_free_strings),
        serde_json::Value::Object(map) => {
            let string = match map.get("type") {
                Some(serde_json::Value::String(t)) => t == "string",
                Some(serde_json::Value::Array(ts)) => ts.iter().any(|t| t == "string"),
                _ => false,
            };
            let closed = ["format", "enum", "const"]
                .iter()
                .any(|k| map.contains_key(*k));
            if string && !closed {
                let pattern = match map.get("pattern").and_then(serde_json::Value::as_str) {
                    None => r"^[^\x00]*$".to_owned(),
                    Some(r"\S") => r"^[^\x00]*[^\s\x00][^\x00]*$".to_owned(),
                    Some(p) => p.replace(r"[^\s", r"[^\s\x00").replace(r"\S", r"[^\s\x00]"),
                };
                map.insert("pattern".into(), pattern.into());
            }
            map.values_mut().for_each(nul_free_strings);
        }
        _ => {}
    }
}

/// What a decimal member accepts: its sign, its whole digits and its decimal places,
/// exactly as the domain parses it (`ledger_domain::money::parse_units`, `tax::parse_rate`,
/// `exchange::parse_rate`).
struct DecimalRule {
    /// `Some(true)`: greater than zero; `Some(false)`: zero or more; `None`: any sign.
    positive: Option<bool>,
    /// Significant digits before the point.
    whole: usize,
    /// Significant decimal places (trailing zeros are free).
    places: usize,
    /// The JSON number's bounds, both inclusive (`-number_max` for a signed amount).
    number_min: f64,
    number_max: f64,
    /// A pattern of its own, when the digits alone do not say the range (a percentage).
    pattern: Option<&'static str>,
    /// The number grid: a JSON number is read through its shortest spelling, which has an
    /// exponent below 0.0001 (refused: amounts are plain decimals), so numbers keep to it.
    step: f64,
    max_length: usize,
    description: &'static str,
}

impl DecimalRule {
    /// The string form as a pattern: leading zeros and trailing decimal zeros are free, as
    /// the parser normalises them.
    fn pattern(&self) -> String {
        if let Some(pattern) = self.pattern {
            return pattern.to_owned();
        }
        let (w, p) = (self.whole, self.places);
        let fraction = format!(r"(\.[0-9]{{1,{p}}}0*)?");
        match self.positive {
            Some(true) => {
                // A non-zero digit before the point, or one within the places after it.
                let small: Vec<String> = (0..p)
                    .map(|k| format!("0{{{k}}}[1-9][0-9]{{0,{}}}", p - 1 - k))
                    .collect();
                format!(
                    r"^0*([1-9][0-9]{{0,{}}}{fraction}|0\.({})0*)$",
                    w - 1,
                    small.join("|")
                )
            }
            Some(false) => format!(r"^0*(0|[1-9][0-9]{{0,{}}}){fraction}$", w - 1),
            None => format!(r"^-?0*(0|[1-9][0-9]{{0,{}}}){fraction}$", w - 1),
        }
    }

    fn schema(&self) -> RefOr<Schema> {
        let mut number = ObjectBuilder::new()
            .schema_type(Type::Number)
            .maximum(Some(self.number_max))
            .multiple_of(Some(self.step));
        number = match self.positive {
            Some(_) => number.minimum(Some(self.number_min)),
            None => number.minimum(Some(-self.number_max)),
        };
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .max_length(Some(self.max_length))
                    .pattern(Some(self.pattern())),
            )
            .item(number)
            .description(Some(self.description))
            .into()
    }
}

/// An amount as stored (`ledger_domain::money`): at most 14 digits before the point and
/// 4 after (the most any currency has; a currency with fewer refuses the rest with 422
/// `inconsistent_fields`, since the currency comes from another member or a record).
const AMOUNT_WHOLE: usize = 14;
/// The largest whole amount a JSON number may carry: the stored `i64` of ten-thousandths
/// holds up to 922 337 203 685 477.5807 (a number above it is refused, so the document
/// says where the server stops; the string form keeps to 14 digits).
const AMOUNT_MAX: f64 = 922_337_203_685_477.0;

macro_rules! decimal_schema {
    ($(#[$doc:meta])* $name:ident, $rule:expr) => {
        $(#[$doc])*
        pub(crate) struct $name;

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                $rule.schema()
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    };
}

decimal_schema!(
    /// A signed amount (a closing balance): a JSON number or a string, kept exact.
    Decimal,
    DecimalRule {
        positive: None,
        whole: AMOUNT_WHOLE,
        places: 4,
        number_min: -AMOUNT_MAX,
        number_max: AMOUNT_MAX,
        pattern: None,
        step: 0.0001,
        max_length: 40,
        description: "A decimal amount, as a string (exact: `\"-12.50\"`) or a JSON number: at most 14 digits before the point and 4 after (the currency may allow fewer).",
    }
);

decimal_schema!(
    /// An amount greater than zero (a journal line, a transfer, a payment).
    PositiveAmount,
    DecimalRule {
        positive: Some(true),
        whole: AMOUNT_WHOLE,
        places: 4,
        number_min: 0.0001,
        number_max: AMOUNT_MAX,
        pattern: None,
        step: 0.0001,
        max_length: 40,
        description: "An amount greater than zero, as a string (exact: `\"12.50\"`) or a JSON number: at most 14 digits before the point and 4 after (the currency may allow fewer).",
    }
);

decimal_schema!(
    /// An amount of zero or more (a unit price, an amount to convert).
    NonNegativeAmount,
    DecimalRule {
        positive: Some(false),
        whole: AMOUNT_WHOLE,
        places: 4,
        number_min: 0.0,
        number_max: AMOUNT_MAX,
        pattern: None,
        step: 0.0001,
        max_length: 40,
        description: "An amount of zero or more, as a string (exact: `\"12.50\"`) or a JSON number: at most 14 digits before the point and 4 after (the currency may allow fewer).",
    }
);

decimal_schema!(
    /// A quantity greater than zero, at most 4 decimals.
    Quantity,
    DecimalRule {
        positive: Some(true),
        whole: AMOUNT_WHOLE,
        places: 4,
        number_min: 0.0001,
        number_max: AMOUNT_MAX,
        pattern: None,
        step: 0.0001,
        max_length: 40,
        description: "A quantity greater than zero, as a string (`\"1.5\"`) or a JSON number, at most 4 decimal places.",
    }
);

decimal_schema!(
    /// A tax rate in percent, 0 to 100 with at most 4 decimals (`ledger_domain::tax`).
    TaxRate,
    DecimalRule {
        positive: Some(false),
        whole: 3,
        places: 4,
        number_min: 0.0,
        number_max: 100.0,
        // 0 to 100: two digits, or 100 itself.
        pattern: Some(r"^0*([0-9]{1,2}(\.[0-9]{1,4}0*)?|100(\.0+)?)$"),
        step: 0.0001,
        max_length: 40,
        description: "A percentage from 0 to 100 with at most 4 decimal places, as a string (`\"8.25\"`) or a JSON number.",
    }
);

decimal_schema!(
    /// An exchange rate: greater than zero, below 10^12, at most 12 decimals
    /// (`ledger_domain::exchange::parse_rate`).
    RateValue,
    DecimalRule {
        positive: Some(true),
        whole: 12,
        places: 12,
        number_min: 0.0001,
        number_max: 999_999_999_999.0,
        pattern: None,
        step: 0.000000000001,
        max_length: 64,
        description: "Units of the target currency per unit of the source currency: greater than zero, below 10^12, at most 12 decimal places, as a string (exact: `\"1.0825\"`) or a JSON number.",
    }
);

/// The years a date may carry, 1000 to 9998 (`ledger_domain::dates::MIN_YEAR`,
/// `MAX_YEAR`), as the start of a pattern.
const YEARS: &str = "^([1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-";

/// A date, `YYYY-MM-DD` or an RFC 3339 date-time.
pub(crate) struct FlexibleDate;

impl PartialSchema for FlexibleDate {
    fn schema() -> RefOr<Schema> {
        let year = YEARS;
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)))
                    .pattern(Some(year)),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                    .pattern(Some(year)),
            )
            .description(Some(
                "A date (`YYYY-MM-DD`) or an RFC 3339 date-time, years 1000 to 9998.",
            ))
            .examples([json!("2026-11-25")])
            .into()
    }
}

impl ToSchema for FlexibleDate {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("FlexibleDate")
    }
}

/// A CSV statement's column: a header name, or a column number (1-based; whole numbers
/// as JSON Schema reads them, at most `routes::reconciliations::MAX_COLUMN`).
pub(crate) struct StatementColumn;

impl PartialSchema for StatementColumn {
    fn schema() -> RefOr<Schema> {
        let widest = crate::routes::reconciliations::MAX_COLUMN;
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .maximum(Some(i64::from(widest))),
            )
            .item(ObjectBuilder::new().schema_type(Type::String))
            .description(Some(format!(
                "A CSV column: a header name, or a 1-based column number (at most {widest})."
            )))
            .into()
    }
}

impl ToSchema for StatementColumn {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ReconciliationColumnRequest")
    }
}

/// Every stable error code (DECISIONS 6), from the domain's one table.
pub(crate) struct ErrorCodeSchema;

impl PartialSchema for ErrorCodeSchema {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some("The stable machine-readable code of the error."))
            .enum_values(Some(ErrorCode::ALL.iter().map(|c| c.as_str())))
            .into()
    }
}

impl ToSchema for ErrorCodeSchema {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ErrorCode")
    }
}

/// The OAuth 2.0 authorization-code scheme (PKCE S256) of the authorization server at
/// `issuer` (relative to the API when empty).
fn oauth2(issuer: &str) -> SecurityScheme {
    SecurityScheme::OAuth2(OAuth2::with_description(
        [Flow::AuthorizationCode(AuthorizationCode::new(
            format!("{issuer}/authorize"),
            format!("{issuer}/token"),
            Scopes::from_iter([
                ("ledger:read", "Read the organization's data."),
                ("ledger:write", "Create and change records."),
                (
                    "ledger:admin",
                    "Delete records, manage keys, webhooks and settings.",
                ),
            ]),
        ))],
        "OAuth 2.1 authorization code with PKCE (S256); the access token is a bearer token.",
    ))
}

/// The error responses every operation shares, by what the operation takes.
const ERRORS: &[(&str, &str, &str, &str)] = &[
    (
        "400",
        "BadRequest",
        "The request is malformed or a field is invalid.",
        "validation_error",
    ),
    (
        "401",
        "Unauthorized",
        "No valid API key or token.",
        "authentication_error",
    ),
    (
        "402",
        "CreditLimit",
        "The organization has no credits left for this write.",
        "credit_limit_error",
    ),
    (
        "403",
        "Forbidden",
        "The key or token lacks the permission.",
        "authorization_error",
    ),
    (
        "404",
        "NotFound",
        "No such resource in this organization.",
        "not_found_error",
    ),
    (
        "409",
        "Conflict",
        "The idempotency key was used with another request, or is in flight.",
        "idempotency_error",
    ),
    (
        "413",
        "PayloadTooLarge",
        "The body is too large.",
        "validation_error",
    ),
    (
        "415",
        "UnsupportedMediaType",
        "The body is not of the documented media type.",
        "invalid_request_error",
    ),
    (
        "422",
        "BusinessRule",
        "The request is valid but breaks a business rule.",
        "business_rule_error",
    ),
    (
        "429",
        "RateLimited",
        "Too many requests; retry after `Retry-After` seconds.",
        "rate_limit_error",
    ),
    (
        "500",
        "InternalError",
        "An unexpected failure, logged with the request id.",
        "api_error",
    ),
];

/// Applies the shared conventions to the generated document.
struct Conventions;

impl Modify for Conventions {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("API key")
                    .description(Some(
                        "An API key of the organization (`sk_test_...` or `sk_live_...`)                          as a bearer token.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "admin_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The operator's admin token, which allows sign-up when it is not open.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme("oauth2", oauth2(""));
        // A batch item is the create body without `dry_run` (a batch is written all or
        // none); a transaction schedule's template is that too, with its `date` optional
        // (each run dates the transaction it makes).
        if let Some(RefOr::T(Schema::Object(create))) =
            components.schemas.get("TransactionCreateRequest")
        {
            let mut input = create.clone();
            input.properties.remove("dry_run");
            input.title = Some("TransactionInput".to_owned());
            input.description = Some(
                "A transaction as a batch item: the create body without `dry_run`.".to_owned(),
            );
            let mut template = input.clone();
            template.required.retain(|member| member != "date");
            template.title = Some("TransactionTemplate".to_owned());
            template.description = Some(
                "A transaction schedule's template: the create body without `dry_run`; its \
                 `date` is ignored (each run dates the transaction it makes)."
                    .to_owned(),
            );
            components.schemas.insert(
                "TransactionInput".to_owned(),
                RefOr::T(Schema::Object(input)),
            );
            components.schemas.insert(
                "TransactionTemplate".to_owned(),
                RefOr::T(Schema::Object(template)),
            );
        }
        for (status, name, description, kind) in ERRORS {
            let example = json!({"error": {
                "type": kind,
                "code": example_code(status),
                "message": description,
                "status": status.parse::<u16>().unwrap_or(500),
                "request_id": "req_01JD0000000000000000000000",
            }});
            components.responses.insert(
                (*name).to_owned(),
                RefOr::T(
                    ResponseBuilder::new()
                        .description(*description)
                        .content(
                            "application/json",
                            ContentBuilder::new()
                                .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                                .example(Some(example))
                                .build(),
                        )
                        .build(),
                ),
            );
        }
        add_deprecated_aliases(openapi);
        let get_operations = get_operation_ids(openapi);
        for (path, item) in openapi.paths.paths.iter_mut() {
            for (method, operation) in [
                ("get", item.get.as_mut()),
                ("put", item.put.as_mut()),
                ("post", item.post.as_mut()),
                ("delete", item.delete.as_mut()),
                ("patch", item.patch.as_mut()),
            ] {
                if let Some(operation) = operation {
                    constrain_parameters(path, operation);
                    add_errors(method, operation);
                    add_links(path, operation, &get_operations);
                }
            }
        }
    }
}

/// A path served twice: every route under `spec` is served by the same handler under
/// `path` too, which the document lists as a deprecated copy of the spec's operation, its
/// id taking `operation_prefix` for `spec_operation_prefix`.
struct Alias {
    path: &'static str,
    operation_prefix: &'static str,
    spec: &'static str,
    spec_operation_prefix: &'static str,
}

const DEPRECATED_ALIASES: &[Alias] = &[Alias {
    path: crate::routes::recurring::LEGACY_BASE,
    operation_prefix: "recurring_schedules_",
    spec: crate::routes::recurring::BASE,
    spec_operation_prefix: "recurring_",
}];

/// Adds the operations of every [`DEPRECATED_ALIASES`] path: each a copy of the spec's
/// one, deprecated, with a summary and a description that name the one to use.
fn add_deprecated_aliases(openapi: &mut utoipa::openapi::OpenApi) {
    for alias in DEPRECATED_ALIASES {
        let copies: Vec<(String, String, utoipa::openapi::PathItem)> = openapi
            .paths
            .paths
            .iter()
            .filter_map(|(path, item)| {
                let rest = path.strip_prefix(alias.spec)?;
                (rest.is_empty() || rest.starts_with('/'))
                    .then(|| (format!("{}{rest}", alias.path), path.clone(), item.clone()))
            })
            .collect();
        for (path, spec_path, mut item) in copies {
            for (method, operation) in [
                ("GET", item.get.as_mut()),
                ("PUT", item.put.as_mut()),
                ("POST", item.post.as_mut()),
                ("DELETE", item.delete.as_mut()),
                ("PATCH", item.patch.as_mut()),
            ] {
                let Some(operation) = operation else { continue };
                operation.operation_id = operation.operation_id.as_deref().map(|id| {
                    let name = id.strip_prefix(alias.spec_operation_prefix).unwrap_or(id);
                    format!("{}{name}", alias.operation_prefix)
                });
                operation.summary = operation
                    .summary
                    .as_deref()
                    .map(|s| format!("{s} (deprecated path)"));
                let note = format!(
                    "Deprecated: the same operation as `{method} {spec_path}` (the \
                     specification's path), which new clients should use; this path keeps \
                     answering."
                );
                operation.description = Some(match operation.description.take() {
                    Some(text) if !text.is_empty() => format!("{note}\n\n{text}"),
                    _ => note,
                });
                operation.deprecated = Some(utoipa::openapi::Deprecated::True);
            }
            openapi.paths.paths.insert(path, item);
        }
    }
}

/// A code of each status for the examples.
fn example_code(status: &str) -> &'static str {
    match status {
        "400" => ErrorCode::MissingField,
        "401" => ErrorCode::InvalidApiKey,
        "402" => ErrorCode::InsufficientCredits,
        "403" => ErrorCode::InsufficientPermissions,
        "404" => ErrorCode::ResourceNotFound,
        "409" => ErrorCode::IdempotencyKeyReused,
        "413" => ErrorCode::PayloadTooLarge,
        "415" => ErrorCode::UnsupportedMediaType,
        "422" => ErrorCode::UnbalancedTransaction,
        "429" => ErrorCode::RateLimitExceeded,
        _ => ErrorCode::InternalError,
    }
    .as_str()
}

/// Adds the error responses an operation can answer, each a reference to the shared one.
fn add_errors(method: &str, operation: &mut Operation) {
    // `[{}]` marks a public operation; any named scheme, an authenticated one.
    let authenticated = operation.security.as_ref().is_some_and(|s| {
        serde_json::to_value(s)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .is_some_and(|all| {
                all.iter()
                    .any(|r| r.as_object().is_some_and(|o| !o.is_empty()))
            })
    });
    let params = operation.parameters.as_deref().unwrap_or_default();
    let path_params = params
        .iter()
        .any(|p| matches!(p.parameter_in, ParameterIn::Path));
    let checked_input = !params.is_empty() || operation.request_body.is_some();
    let write = method != "get";
    let idempotent = params.iter().any(|p| p.name == "Idempotency-Key");
    let mut wanted = vec!["500"];
    if checked_input {
        wanted.push("400");
    }
    if authenticated {
        wanted.extend(["401", "403", "429"]);
    }
    // A path names a resource; so can a body (`parent_organization_id`).
    if path_params || (authenticated && operation.request_body.is_some()) {
        wanted.push("404");
    }
    if operation.request_body.is_some() {
        wanted.extend(["413", "415"]);
    }
    if write && authenticated {
        wanted.push("402");
    }
    // A read can break a rule too (a balance in a currency without a rate).
    if authenticated {
        wanted.push("422");
    }
    if idempotent {
        wanted.push("409");
    }
    for (status, name, _, _) in ERRORS {
        if wanted.contains(status) && !operation.responses.responses.contains_key(*status) {
            operation.responses.responses.insert(
                (*status).to_owned(),
                RefOr::Ref(Ref::new(format!("#/components/responses/{name}"))),
            );
        }
    }
}

/// The operation id of each GET by path.
fn get_operation_ids(openapi: &utoipa::openapi::OpenApi) -> BTreeMap<String, String> {
    openapi
        .paths
        .paths
        .iter()
        .filter_map(|(path, item)| {
            let id = item.get.as_ref()?.operation_id.clone()?;
            Some((path.clone(), id))
        })
        .collect()
}

/// Links a 201 to the get of the created resource (`{path}/{id}`, or the path's own get
/// for a sub-resource), and a 202 to the status of the queued write.
fn add_links(path: &str, operation: &mut Operation, gets: &BTreeMap<String, String>) {
    let target = gets
        .iter()
        .find(|(p, _)| {
            p.strip_prefix(path).is_some_and(|rest| {
                rest.starts_with("/{") && rest.ends_with('}') && !rest[1..].contains('/')
            })
        })
        .map(|(p, id)| (p.clone(), id.clone()));
    let org = path.starts_with("/organizations/{org}") || path.contains("/organizations/{org}/");
    for (status, response) in operation.responses.responses.iter_mut() {
        let RefOr::T(response) = response else {
            continue;
        };
        if status == "201"
            && let Some((target_path, operation_id)) = &target
        {
            let mut link = LinkBuilder::new()
                .operation_id(operation_id.clone())
                .description("Get the resource this request created.");
            let last = target_path.rsplit('/').next().unwrap_or_default();
            for name in path_parameters(target_path) {
                let value = if format!("{{{name}}}") == last {
                    "$response.body#/id".to_owned()
                } else {
                    format!("$request.path.{name}")
                };
                link = link.parameter(name, value);
            }
            response.links.insert(
                format!("Get{}", pascal(operation_id)),
                RefOr::T(link.build()),
            );
        }
        if status == "202" && org {
            let link = LinkBuilder::new()
                .operation_id("requests_get")
                .description("Follow the queued write to its outcome.")
                .parameter("org", "$request.path.org")
                .parameter("request_id", "$response.body#/request_id")
                .build();
            response
                .links
                .insert("GetRequestStatus".to_owned(), RefOr::T(link));
        }
    }
}

/// The `{name}` parameters of a path template, in order.
fn path_parameters(path: &str) -> Vec<String> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .map(str::to_owned)
        .collect()
}

/// `accounts_get` as `AccountsGet`.
fn pascal(id: &str) -> String {
    id.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A string that is one of `values` (the server also takes them in any case).
fn names<'a>(values: impl IntoIterator<Item = &'a str>, description: &str) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .description(Some(description))
        .into()
}

/// A nullable enum of names (`null` means the default).
fn optional_names<'a>(values: impl IntoIterator<Item = &'a str>, description: &str) -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(names(values, description))
        .into()
}

/// A statement's format (sniffed when absent).
pub(crate) fn statement_format() -> Schema {
    optional_names(
        ["csv", "ofx", "qfx", "CSV", "OFX", "QFX"],
        "`csv`, or `ofx` (`qfx` is the same); read from the content when absent.",
    )
}

/// How a CSV statement writes its dates (default `YYYY-MM-DD`).
pub(crate) fn statement_date_format() -> Schema {
    optional_names(
        [
            "YYYY-MM-DD",
            "MM/DD/YYYY",
            "DD/MM/YYYY",
            "DD.MM.YYYY",
            "YYYYMMDD",
        ],
        "How the dates are written (default `YYYY-MM-DD`).",
    )
}

/// The decimal separator of a CSV statement's amounts (default `.`).
pub(crate) fn decimal_separator() -> Schema {
    optional_names(
        [".", ","],
        "The decimal separator of the amounts (default `.`).",
    )
}

/// The type of an account (`asset`, `liability`, ...), a request field.
pub(crate) fn account_type() -> Schema {
    use ledger_domain::accounts::AccountType;
    names(
        AccountType::ALL.iter().map(|t| t.as_str()),
        "The type of the account.",
    )
}

/// The type of a category, a request field.
pub(crate) fn category_type() -> Schema {
    use ledger_domain::categories::CategoryType;
    names(
        CategoryType::ALL.iter().map(|t| t.as_str()),
        "The type of the category.",
    )
}

/// The type of a contact, a request field.
pub(crate) fn contact_type() -> Schema {
    use ledger_domain::contacts::ContactType;
    names(
        [
            ContactType::Customer,
            ContactType::Vendor,
            ContactType::Employee,
            ContactType::Other,
        ]
        .iter()
        .map(|t| t.as_str()),
        "The type of the contact.",
    )
}

/// The type of a tax, a request field.
pub(crate) fn tax_type() -> Schema {
    use ledger_domain::tax::TaxType;
    names(
        TaxType::ALL.iter().map(|t| t.as_str()),
        "The type of the tax.",
    )
}

/// The side of a journal line, a request field.
pub(crate) fn entry_type() -> Schema {
    names(["debit", "credit"], "The side of the line.")
}

/// Gives the shared parameters the constraints the server checks, one place for each
/// name (the handlers read them all through the same helpers of `crate::input`): the
/// `Idempotency-Key` header, paging, dates, currencies, the closed sets of the list
/// filters and the typed ids. Without them a client (or schemathesis) would take a value
/// the document allows for one the server accepts.
fn constrain_parameters(path: &str, operation: &mut Operation) {
    for parameter in operation.parameters.iter_mut().flatten() {
        let Some(schema) = parameter_schema(path, &parameter.name) else {
            continue;
        };
        parameter.schema = Some(if matches!(parameter.parameter_in, ParameterIn::Query) {
            // `crate::input::query_param` reads an empty value as an absent one, for
            // every query parameter (`limit=` is the default page size).
            OneOfBuilder::new()
                .item(schema)
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .max_length(Some(0)),
                )
                .into()
        } else {
            schema
        });
    }
}

/// The schema of the parameter `name` of `path`, when it is constrained.
fn parameter_schema(path: &str, name: &str) -> Option<RefOr<Schema>> {
    let string = || ObjectBuilder::new().schema_type(Type::String);
    let schema: Schema = match name {
        // `ledger_http::input::idempotency_key`: 1 to 255 visible ASCII characters
        // (spaces inside). Spaces and tabs around them are not part of the value (HTTP's
        // optional whitespace, RFC 9110 5.5), so the length is the pattern's, not a
        // `maxLength` of the text as sent.
        "Idempotency-Key" => string()
            .pattern(Some("^[ \t]*[!-~]([ -~]{0,253}[!-~])?[ \t]*$"))
            .into(),
        "limit" => ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(1))
            .maximum(Some(ledger_domain::ports::MAX_PAGE_SIZE))
            .into(),
        "offset" => ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .maximum(Some(i64::MAX))
            .into(),
        "setting_key" => string().pattern(Some("^[a-z0-9_]{1,64}$")).into(),
        "as_of" | "start_date" | "end_date" | "from_date" | "to_date" => {
            return Some(FlexibleDate::schema());
        }
        "currency" | "from_currency" | "to_currency" => currency_code(),
        "account_type" => account_type(),
        "category_type" => category_type(),
        "contact_type" => contact_type(),
        // The spec's examples also filter contacts by `type`.
        "type" if path.ends_with("/contacts") => contact_type(),
        "tax_type" => tax_type(),
        "entity_type" => names(
            ledger_domain::services::EVENT_ENTITY_TYPES,
            "The type of the entity.",
        ),
        "parent_id" if path.ends_with("/categories") => typed_id("cat"),
        // `query_bool`, and `all` for both (spec 4.7: the default is `true`).
        "enabled" if path.ends_with("/contacts") => names(
            ["true", "false", "1", "0", "all"],
            "Enabled contacts (`true`, the default), disabled ones (`false`) or `all`.",
        ),
        "status" => {
            let values: &[&str] = if path.ends_with("/invoices") {
                ledger_domain::documents::DocumentStatus::of_kind(
                    ledger_domain::documents::DocumentKind::Invoice,
                )
            } else if path.ends_with("/bills") {
                ledger_domain::documents::DocumentStatus::of_kind(
                    ledger_domain::documents::DocumentKind::Bill,
                )
            } else if path.ends_with("/transactions") || path.ends_with("/transfers") {
                &["pending", "posted", "reversed"]
            } else if path.ends_with("/reconciliations") {
                &["open", "completed"]
            } else if path.ends_with("/accounts") {
                &["active", "inactive", "suspended"]
            } else {
                return None;
            };
            names(values.iter().copied(), "Filter by status.")
        }
        _ => return None,
    };
    Some(RefOr::T(schema))
}

/// An ISO 4217 code the server knows (it also takes `cur_USD` and any case).
pub(crate) fn currency_code() -> Schema {
    let codes: Vec<String> = ledger_domain::money::Currency::all()
        .iter()
        .map(|c| c.code())
        .collect();
    names(
        codes.iter().map(String::as_str),
        "An ISO 4217 currency code.",
    )
}

/// An id of the kind `prefix` (`cat_` and a ULID).
fn typed_id(prefix: &str) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!(
            "^{}_[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{{25}}$",
            any_case(prefix)
        )))
        .into()
}

/// Whether a text member takes `null` (leave it as it is, or not given).
#[derive(Clone, Copy)]
enum Null {
    Refused,
    Taken,
}

/// Whether a text member must say something (a character that is not a blank).
#[derive(Clone, Copy)]
enum Blank {
    Taken,
    Refused,
}

/// A text member: its lengths, whether `null` is taken and whether it may be blank.
fn text_schema(null: Null, min: Option<usize>, max: Option<usize>, blank: Blank) -> Schema {
    let object = match null {
        Null::Refused => ObjectBuilder::new().schema_type(Type::String),
        Null::Taken => {
            ObjectBuilder::new().schema_type(utoipa::openapi::schema::SchemaType::from_iter([
                Type::String,
                Type::Null,
            ]))
        }
    };
    let object = object.min_length(min).max_length(max);
    match blank {
        Blank::Taken => object.into(),
        Blank::Refused => object.pattern(Some(r"\S")).into(),
    }
}

/// A name as the domain checks it (`check_name`): 1 to 255 characters, not blank.
pub(crate) fn name() -> Schema {
    text_schema(Null::Refused, Some(1), Some(255), Blank::Refused)
}

/// [`name`] in a change, where `null` leaves it as it is.
pub(crate) fn optional_name() -> Schema {
    text_schema(Null::Taken, Some(1), Some(255), Blank::Refused)
}

/// `cat` as `[cC][aA][tT]`: an id's prefix is read in any case.
fn any_case(prefix: &str) -> String {
    prefix
        .chars()
        .map(|c| format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase()))
        .collect()
}

/// Free text that must say something: not empty, not only blanks.
pub(crate) fn text() -> Schema {
    text_schema(Null::Refused, Some(1), None, Blank::Refused)
}

/// The permissions of a new key: at least one (`<resource>:<level>` also works).
pub(crate) fn permissions() -> Schema {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(RefOr::T(names(
            ["read", "write", "admin"],
            "A permission on every resource.",
        )))
        .min_items(Some(1))
        .description(Some(
            "`read`, `write`, `admin` (and `system`, or `<resource>:<read|write|admin>`).",
        ))
        .into()
}

/// [`currency_code`] or `null` (not given).
pub(crate) fn optional_currency_code() -> Schema {
    let codes: Vec<String> = ledger_domain::money::Currency::all()
        .iter()
        .map(|c| c.code())
        .collect();
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(codes)),
        )
        .description(Some("An ISO 4217 currency code."))
        .into()
}

/// A `YYYY-MM-DD` date, years 1000 to 9998 (a member that takes no date-time).
pub(crate) fn date_only() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)))
        .pattern(Some(YEARS))
        .into()
}

/// [`date_only`] or `null` (not given).
pub(crate) fn optional_date_only() -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(date_only())
        .into()
}

/// A string that is empty or only blanks: an optional text member reads it as absent
/// (`ledger_domain::contacts::check_text`).
fn blank() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(r"^\s*$"))
}

/// `schema`, `null` or a blank string: an optional member where both mean "not given".
fn optional_or_blank(schema: impl Into<RefOr<Schema>>, description: &str) -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(schema)
        .item(blank())
        .description(Some(description))
        .into()
}

/// An optional free text of at most 255 characters (blank: not given).
pub(crate) fn optional_text_255() -> Schema {
    text_schema(Null::Taken, None, Some(255), Blank::Taken)
}

/// An optional e-mail address (`ledger_domain::contacts::check_email`).
pub(crate) fn optional_email() -> Schema {
    optional_or_blank(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Email)))
            .pattern(Some(r"^[^\s@]+@[^\s@]+\.[^\s@]+$"))
            .max_length(Some(255)),
        "An e-mail address whose domain has a dot.",
    )
}

/// A host name of dotted labels whose last one starts with a letter (so that it is no
/// IPv4 address either: a URL's host that ends in a number is read as one).
const HOST: &str =
    r"([A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?\.)+[A-Za-z]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?";

/// An absolute http or https URL with a host name and an optional port; `fragment`: may
/// it end with `#...`. With a fragment (a contact's website, a purchase's return URLs,
/// kept as sent): no blank, backslash or control character after the host, and no `uri`
/// format, since international characters are taken as they are (an IRI, which RFC 3986
/// would have percent-encoded). Without (a webhook URL, stored as parsed): a `uri`.
pub(crate) fn http_url(max_length: usize, fragment: bool) -> ObjectBuilder {
    let (rest, format) = if fragment {
        (r"[/?#][^\s\\\x00-\x1f\x7f-\x9f]*", None)
    } else {
        (r"[/?][^\s#]*", Some(SchemaFormat::Custom("uri".to_owned())))
    };
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(format)
        .pattern(Some(format!(
            "^https?://{HOST}(:[1-9][0-9]{{0,3}})?({rest})?$"
        )))
        .max_length(Some(max_length))
}

/// An optional website: an absolute http or https URL (`check_website`).
pub(crate) fn optional_website() -> Schema {
    optional_or_blank(http_url(255, true), "An absolute http or https URL.")
}

/// An optional ISO 3166-1 alpha-2 country code (`check_country`; any case is read).
pub(crate) fn optional_country() -> Schema {
    optional_or_blank(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(ledger_domain::contacts::country_codes())),
        "An ISO 3166-1 alpha-2 country code.",
    )
}

/// A JSON object of the client's own, or `null` (not given).
pub(crate) fn optional_object() -> Schema {
    ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            Type::Object,
            Type::Null,
        ]))
        .description(Some(
            "Free-form key-value data of the client (a JSON object).",
        ))
        .into()
}

/// A webhook endpoint's URL (`ledger_domain::webhooks::check_url`): absolute http or
/// https with a host name, without a fragment, at most 2048 characters. (A host written as
/// an IP address must be public unless the operator allows private ones; a name is
/// resolved and checked at every delivery.)
pub(crate) fn webhook_url() -> Schema {
    http_url(ledger_domain::webhooks::MAX_URL_CHARS, false)
        .description(Some(
            "An absolute http or https URL of at most 2048 characters, without a fragment.",
        ))
        .into()
}

/// [`webhook_url`] or `null` (unchanged).
pub(crate) fn optional_webhook_url() -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(webhook_url())
        .into()
}

/// The event kinds a webhook endpoint receives (`check_event_types`): kinds such as
/// `invoice.created` (lowercase letters, digits and `_`, one or more dots; new kinds are
/// added without a change of the API, so the set is a pattern rather than a list), or
/// `["*"]` alone for every kind, as an empty list or `null` also means.
pub(crate) fn event_types() -> Schema {
    use utoipa::openapi::schema::ArrayBuilder;
    let kind = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$"))
        .max_length(Some(100));
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(
            ArrayBuilder::new()
                .items(RefOr::T(Schema::Object(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some(["*"]))
                        .build(),
                )))
                .min_items(Some(1))
                .max_items(Some(1)),
        )
        .item(
            ArrayBuilder::new()
                .items(RefOr::T(Schema::Object(kind.build())))
                .max_items(Some(ledger_domain::webhooks::MAX_EVENT_TYPES)),
        )
        .description(Some(
            "Event kinds such as `invoice.created`, or `[\"*\"]` (also an empty list) for every kind.",
        ))
        .into()
}

/// A text of 1 to 1000 characters that says something (an item's description).
pub(crate) fn text_1000() -> Schema {
    text_schema(Null::Refused, Some(1), Some(1000), Blank::Refused)
}

/// An optional text of at most 5000 characters (notes).
pub(crate) fn optional_text_5000() -> Schema {
    text_schema(Null::Taken, None, Some(5000), Blank::Taken)
}

/// The taxes of an item: at most five, each once (`tax_...` ids of the organization).
pub(crate) fn tax_ids() -> Schema {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(RefOr::T(Schema::Object(
            ObjectBuilder::new().schema_type(Type::String).build(),
        )))
        .max_items(Some(ledger_domain::services::MAX_ITEM_TAXES))
        .unique_items(true)
        .description(Some(
            "Taxes applied to the item, in order: at most 5, each once.",
        ))
        .into()
}

/// The members a recurring schedule's create and update share (`ledger_domain::services::
/// recurring`'s `apply_fields`), each optional; `null` means "not given" (or, for
/// `end_date` and `count`, "none").
fn schedule_members(object: ObjectBuilder, invoice: bool) -> ObjectBuilder {
    use ledger_domain::recurring::{MAX_INTERVAL, MAX_OCCURRENCES};
    let nullable = |t: Type| {
        ObjectBuilder::new().schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            t,
            Type::Null,
        ]))
    };
    let object = object
        .property(
            "name",
            nullable(Type::String)
                .max_length(Some(255))
                .description(Some("A name for people (at most 255 characters).")),
        )
        .property(
            "interval",
            nullable(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(MAX_INTERVAL))
                .description(Some("Every how many periods (1 to 1000; default 1).")),
        )
        .property(
            "start_date",
            OneOfBuilder::new()
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .item(date_only())
                .description(Some(
                    "The first occurrence (default today; at most 366 days in the past).",
                )),
        )
        .property(
            "end_date",
            OneOfBuilder::new()
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .item(date_only())
                .description(Some("No occurrence after it (not before `start_date`).")),
        )
        .property(
            "count",
            nullable(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(MAX_OCCURRENCES))
                .description(Some("At most this many occurrences (1 to 10 000).")),
        );
    if invoice {
        object.property(
            "auto_send",
            nullable(Type::Boolean).description(Some("Send each invoice it generates.")),
        )
    } else {
        object
    }
}

/// A schedule's `frequency`.
fn frequency() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some([
            "daily",
            "weekly",
            "monthly",
            "quarterly",
            "yearly",
            "annually",
        ]))
        .description(Some("The period (`annually` is `yearly`)."))
}

/// The template component of each kind of schedule: the create body of what it makes.
const TEMPLATES: [(&str, &str); 3] = [
    ("invoice", "InvoiceCreateRequest"),
    ("bill", "BillCreateRequest"),
    ("transaction", "TransactionTemplate"),
];

/// The create body of a recurring schedule: which members are required depends on
/// `recurable_type` (the discriminator), and a schedule takes either a `template` (the
/// create body of what it makes) or, for an invoice or a bill, the `recurable_id` of a
/// document to copy, never both.
pub(crate) struct RecurringScheduleCreateRequest;

impl PartialSchema for RecurringScheduleCreateRequest {
    fn schema() -> RefOr<Schema> {
        let mut one_of = OneOfBuilder::new();
        for (kind, template) in TEMPLATES {
            let document = kind != "transaction";
            let base = || {
                schedule_members(
                    ObjectBuilder::new()
                        .schema_type(Type::Object)
                        .property(
                            "recurable_type",
                            ObjectBuilder::new()
                                .schema_type(Type::String)
                                .enum_values(Some([kind])),
                        )
                        .required("recurable_type")
                        .property("frequency", frequency())
                        .required("frequency"),
                    kind == "invoice",
                )
                .additional_properties(Some(
                    utoipa::openapi::schema::AdditionalProperties::FreeForm(false),
                ))
            };
            one_of = one_of.item(
                base()
                    .title(Some(format!("A {kind} schedule from a template")))
                    .property("template", Ref::from_schema_name(template))
                    .required("template"),
            );
            if document {
                one_of = one_of.item(
                    base()
                        .title(Some(format!("A {kind} schedule copying a {kind}")))
                        .property(
                            "recurable_id",
                            ObjectBuilder::new()
                                .schema_type(Type::String)
                                .min_length(Some(1))
                                .pattern(Some(r"\S"))
                                .description(Some(format!(
                                    "The {kind} to copy (its contact, items and terms)."
                                ))),
                        )
                        .required("recurable_id"),
                );
            }
        }
        one_of
            .description(Some(
                "A schedule of invoices, bills or transactions: `recurable_type` says which, and \
                 the `template` is the create body of what it makes (or `recurable_id` names an \
                 invoice or a bill to copy).",
            ))
            .into()
    }
}

impl ToSchema for RecurringScheduleCreateRequest {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("RecurringScheduleCreateRequest")
    }
}

/// The changes to a recurring schedule: every member optional; its kind and source never
/// change, so `recurable_type` and `recurable_id` are not among them, and a `template`
/// must be one of the schedule's own kind (another kind's is 422 `inconsistent_fields`).
pub(crate) struct RecurringScheduleUpdateRequest;

impl PartialSchema for RecurringScheduleUpdateRequest {
    fn schema() -> RefOr<Schema> {
        let mut templates = utoipa::openapi::schema::AnyOfBuilder::new().description(Some(
            "The create body of what the schedule makes (of its own kind).",
        ));
        for (_, template) in TEMPLATES {
            templates = templates.item(Ref::from_schema_name(template));
        }
        schedule_members(ObjectBuilder::new().schema_type(Type::Object), true)
            .property(
                "frequency",
                OneOfBuilder::new()
                    .item(ObjectBuilder::new().schema_type(Type::Null))
                    .item(frequency()),
            )
            .property(
                "status",
                OneOfBuilder::new()
                    .item(ObjectBuilder::new().schema_type(Type::Null))
                    .item(names(["active", "paused"], "Resume (`active`) or pause.")),
            )
            .property("template", templates)
            .additional_properties(Some(
                utoipa::openapi::schema::AdditionalProperties::FreeForm(false),
            ))
            .description(Some(
                "`auto_send` applies to invoice schedules only (another kind's is 422 \
                 `inconsistent_fields`).",
            ))
            .into()
    }
}

impl ToSchema for RecurringScheduleUpdateRequest {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("RecurringScheduleUpdateRequest")
    }
}

/// A client's return URL (`ledger_domain::credits::check_return_url`): an absolute http
/// or https URL with a host name, at most 2048 characters (the server also takes IP
/// addresses and single-label hosts such as `localhost`); blank or `null` is "not given".
pub(crate) fn optional_return_url() -> Schema {
    optional_or_blank(
        http_url(2048, true),
        "An absolute http(s) URL of at most 2048 characters.",
    )
}

/// An account's status in a change, or `null` (unchanged).
pub(crate) fn optional_account_status() -> Schema {
    optional_names(
        ["active", "inactive", "suspended"],
        "The status of the account.",
    )
}

/// A new key's mode, or `null` (the calling key's).
pub(crate) fn optional_key_mode() -> Schema {
    optional_names(["live", "test"], "The mode of the new key.")
}

/// The transactions of a batch: 1 to 1000, each a create body without `dry_run`.
pub(crate) fn batch_transactions() -> Schema {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(RefOr::<Schema>::Ref(Ref::from_schema_name(
            "TransactionInput",
        )))
        .min_items(Some(1))
        .max_items(Some(ledger_domain::services::MAX_BATCH))
        .description(Some(
            "1 to 1000 transactions (at most 10 000 entries together), written all or none.",
        ))
        .into()
}

#[cfg(test)]
mod tests {
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
