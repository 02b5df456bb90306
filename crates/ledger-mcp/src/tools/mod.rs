//! The tool registry, as data: one row per MCP tool (DECISIONS 7) naming the REST
//! operation it performs, how its camelCase arguments map onto the path, the query and the
//! snake_case body, its credits and its annotations. Adding a tool is adding a row; a
//! tool is listed only when its REST route exists (a test checks every row reaches one).
//!
//! The rows live in one submodule per area (`accounting`, `documents`, `organization`),
//! written with the constructors of `rows`; `requests` turns a row into its `tools/list`
//! entry and a call into its REST request; `output` derives each tool's `outputSchema`
//! from the REST OpenAPI document.

mod accounting;
mod currencies;
mod documents;
mod organization;
mod output;
mod reconciliation;
mod recurring;
mod requests;
mod rows;
mod transfers;

use actix_web::http::Method;
use ledger_domain::error::ErrorCode;

pub use output::WITHOUT_OUTPUT_SCHEMA;

/// HTTP method of a tool's REST operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    Post,
    Put,
    Delete,
}

impl Verb {
    pub fn method(self) -> Method {
        match self {
            Verb::Get => Method::GET,
            Verb::Post => Method::POST,
            Verb::Put => Method::PUT,
            Verb::Delete => Method::DELETE,
        }
    }

    /// Whether the REST operation takes a JSON body.
    pub fn has_body(self) -> bool {
        matches!(self, Verb::Post | Verb::Put)
    }
}

/// Where an argument goes in the REST request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    /// A `{placeholder}` of the path template (same camelCase name).
    Path,
    /// A query parameter (snake_case).
    Query,
    /// A member of the JSON body (snake_case).
    Body,
    /// A request header of this name (x402's `PAYMENT-SIGNATURE`).
    Header(&'static str),
}

/// JSON type of an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Str,
    Int,
    Bool,
    /// A decimal amount: a string such as `"100.00"` (preferred) or a JSON number.
    Amount,
    /// `YYYY-MM-DD`.
    Date,
    /// A date or an RFC 3339 date-time.
    DateOrTime,
    Enum(&'static [&'static str]),
    StrList,
    /// Journal lines of a transaction.
    Entries,
    /// Priced lines of an invoice or a bill.
    Items,
    /// A JSON object passed on as it is (keys in snake_case), such as a template.
    Object,
}

/// One argument of a tool.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    /// camelCase name in `inputSchema`; the snake_case spelling is accepted too.
    pub name: &'static str,
    pub ty: Ty,
    pub loc: Loc,
    pub required: bool,
    pub doc: &'static str,
    /// Default filled in when the argument is absent (integers only).
    pub default: Option<i64>,
    /// When absent, the organization of the caller's key is filled in.
    pub caller_organization: bool,
    /// Required of the agent although REST would fill a default when it is absent (an
    /// invoice's dates): the agent must choose it rather than get today by accident.
    /// Every other required argument is one the REST operation requires too (a test
    /// compares the two).
    pub required_of_agents_only: bool,
}

/// Why a call's arguments make no REST request: a validation error with the code REST
/// would give (`missing_field`, `invalid_field`, `unknown_field`), the argument at fault
/// (camelCase, as in `inputSchema`) and a message for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    pub code: ErrorCode,
    pub argument: Option<String>,
    pub message: String,
}

impl ArgError {
    pub(crate) fn new(code: ErrorCode, argument: &str, message: String) -> Self {
        Self {
            code,
            argument: Some(argument.to_owned()),
            message,
        }
    }
}

/// One MCP tool.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    /// 80-250 characters, written for an agent.
    pub description: &'static str,
    pub verb: Verb,
    /// REST path with `{camelCase}` placeholders; `{organizationId}` defaults to the
    /// organization of the caller's key.
    pub path: &'static str,
    pub args: &'static [Arg],
    /// Credits the REST operation takes (live mode).
    pub credits: u32,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// Queued write: the call sends `Prefer: wait=30` so the result is the final resource.
    pub queued: bool,
    /// A credit-purchase tool (left out of the directory variant).
    pub purchase: bool,
    /// An x402 tool: a 402 answer becomes the x402 `PaymentRequired` tool error, an MCP
    /// payment in `_meta["x402/payment"]` is sent as `PAYMENT-SIGNATURE`, and the
    /// settlement comes back in `_meta["x402/payment-response"]`.
    pub x402: bool,
}

/// The tool groups in listing order.
const GROUPS: [&[Tool]; 7] = [
    accounting::TOOLS,
    documents::TOOLS,
    organization::TOOLS,
    currencies::TOOLS,
    transfers::TOOLS,
    recurring::TOOLS,
    reconciliation::TOOLS,
];

/// How many tools the groups hold together.
const TOOL_COUNT: usize = {
    let mut n = 0;
    let mut g = 0;
    while g < GROUPS.len() {
        n += GROUPS[g].len();
        g += 1;
    }
    n
};

/// The groups laid end to end, at compile time.
const ALL_TOOLS: [Tool; TOOL_COUNT] = {
    let mut all = [GROUPS[0][0]; TOOL_COUNT];
    let mut i = 0;
    let mut g = 0;
    while g < GROUPS.len() {
        let mut t = 0;
        while t < GROUPS[g].len() {
            all[i] = GROUPS[g][t];
            i += 1;
            t += 1;
        }
        g += 1;
    }
    all
};

/// Every tool whose REST operation exists today, in a fixed order.
pub static TOOLS: &[Tool] = &ALL_TOOLS;

/// The tools of an endpoint: all of them, or without purchase tools for the directory.
pub fn listed(directory: bool) -> impl Iterator<Item = &'static Tool> {
    TOOLS.iter().filter(move |t| !(directory && t.purchase))
}

/// Finds a listed tool by name.
pub fn find(name: &str, directory: bool) -> Option<&'static Tool> {
    listed(directory).find(|t| t.name == name)
}

/// `accountId` -> `account_id`.
pub fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn descriptions_names_and_annotations_follow_the_rules() {
        let mut names = std::collections::HashSet::new();
        for t in TOOLS {
            let n = t.description.chars().count();
            assert!((80..=250).contains(&n), "{}: {n} characters", t.name);
            assert!(names.insert(t.name), "duplicate {}", t.name);
            assert!(
                t.name.len() <= 64
                    && t.name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            );
            assert!(!(t.read_only && t.destructive), "{}", t.name);
            // Every read is read-only; a POST may be too when it only computes
            // (convert_currency), and then it is free.
            if t.verb == Verb::Get {
                assert!(t.read_only, "{}", t.name);
            } else if t.read_only {
                assert!(t.verb == Verb::Post && t.credits == 0, "{}", t.name);
            }
            if t.name.starts_with("delete_")
                || t.name.starts_with("reverse_")
                || t.name.starts_with("post_")
                || t.name.starts_with("rotate_")
            {
                assert!(t.destructive, "{} must be destructive", t.name);
            }
            for placeholder in t.path.split('{').skip(1) {
                let name = placeholder.split('}').next().unwrap_or_default();
                assert!(
                    t.all_args().any(|a| a.name == name && a.loc == Loc::Path),
                    "{}: {name}",
                    t.name
                );
            }
        }
    }

    /// The tool list as agents see it; review changes with `cargo insta review`. Each
    /// `outputSchema` is shown as where it comes from (the success status and schema of
    /// the REST operation): the schemas themselves are the OpenAPI document's, reviewed in
    /// docs/openapi.json, and in full they would make this snapshot several times longer.
    #[test]
    fn tool_list_snapshot() {
        let document = ledger_rest::openapi_document();
        // Pretty JSON text: amounts and credits print as plain numbers (the workspace's
        // arbitrary-precision numbers do not go through insta's own serializer cleanly).
        let tools: Vec<Value> = listed(false)
            .map(|t| {
                let mut entry = t.describe();
                if entry.get("outputSchema").is_some() {
                    let source = output::derive(&document, t.verb, t.path).expect("derived");
                    entry["outputSchema"] = Value::from(format!(
                        "[the {} response of the OpenAPI document: {}]",
                        source.status,
                        output::summary(&source.response)
                    ));
                }
                entry
            })
            .collect();
        let text = serde_json::to_string_pretty(&tools).unwrap_or_default();
        insta::assert_snapshot!("tools", text);
    }

    #[test]
    fn arguments_map_to_path_query_and_snake_case_body() {
        let t = find("create_transaction", false).expect("tool");
        let (path, body) = t
            .request(
                Some(
                    &json!({"description": "d", "date": "2026-01-01", "auto_post": true,
                    "entries": [{"accountId": "acc_1", "entry_type": "debit", "amount": "1.00"}]}),
                ),
                "org_x",
            )
            .expect("maps");
        assert_eq!(path, "/organizations/org_x/transactions");
        let body = body.expect("body");
        assert_eq!(body["auto_post"], true);
        assert_eq!(body["entries"][0]["account_id"], "acc_1");
        let t = find("list_transactions", false).expect("tool");
        let (path, body) = t
            .request(
                Some(&json!({"organizationId": "org_y", "startDate": "2026-01-01"})),
                "org_x",
            )
            .expect("maps");
        assert_eq!(
            path,
            "/organizations/org_y/transactions?start_date=2026-01-01&limit=50"
        );
        assert!(body.is_none());
        assert!(t.request(Some(&json!({"bogus": 1})), "o").is_err());
        assert!(t.request(Some(&json!({"limit": "x"})), "o").is_err());
        let g = find("get_account", false).expect("tool");
        assert!(g.request(None, "o").is_err());
        assert!(g.request(Some(&json!({"accountId": "../x"})), "o").is_err());
        assert!(
            g.request(Some(&json!({"accountId": "a", "account_id": "b"})), "o")
                .is_err()
        );
    }
}
