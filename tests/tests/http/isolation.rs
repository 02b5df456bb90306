//! Issue 21, item 3: tenant-isolation probes generated from the interfaces themselves.
//!
//! Organization B gets one real resource of every kind (the fixtures of the required-
//! argument probe). A key of organization A then asks for or changes each of them through
//! every operation the service lists:
//! - every MCP tool (`TOOLS`, the list `tools/list` serves), called over MCP;
//! - the REST operation behind each tool (the tool's own route row), called over HTTP;
//! - every method of every organization-scoped path of the REST route table
//!   (`ledger_rest::route_table`, the registrar the OpenAPI document is checked against);
//! - every GraphQL query and mutation field that takes an id, read from the live schema by
//!   introspection.
//!
//! Each operation is probed by path (B's organization id where the operation names one),
//! by id (A's own organization, B's resource ids) and by filter (list operations given B's
//! ids as filters), with A's test key and, by path, with A's live key. Every answer must be
//! a refusal of the documented shape (REST: a 4xx error envelope; MCP: a tool result with
//! `isError` and the envelope; GraphQL: `null` or an error with `extensions.code`), must
//! not carry B's data, and B's books must read the same afterwards.

use std::collections::BTreeMap;

use ledger_mcp::tools::{Arg, Loc, TOOLS, Tool};
use ledger_tests::{Answer, Org, TestApp, both};
use reqwest::Method;
use serde_json::{Map, Value, json};

use super::mcp_required::{Fixtures, fixtures, value};
use ledger_tests::mcp;

/// Names only organization B's fixtures carry: an answer to A holding one of them leaks.
const B_CANARIES: &[&str] = &["Probe Customer", "Probe Vendor", "Mcp Required"];

/// One probe's verdict, kept for the report.
struct Verdict {
    interface: &'static str,
    operation: String,
    variant: &'static str,
    problem: Option<String>,
}

#[derive(Default)]
struct Report {
    verdicts: Vec<Verdict>,
}

impl Report {
    fn add(
        &mut self,
        interface: &'static str,
        operation: &str,
        variant: &'static str,
        problem: Option<String>,
    ) {
        self.verdicts.push(Verdict {
            interface,
            operation: operation.to_owned(),
            variant,
            problem,
        });
    }

    fn count(&self, interface: &str) -> usize {
        self.verdicts
            .iter()
            .filter(|v| v.interface == interface)
            .count()
    }

    fn problems(&self) -> Vec<String> {
        self.verdicts
            .iter()
            .filter_map(|v| {
                v.problem
                    .as_ref()
                    .map(|p| format!("{} {} ({}): {p}", v.interface, v.operation, v.variant))
            })
            .collect()
    }
}

/// A leak check: the answer names none of B's canaries.
fn leaks(text: &str) -> Option<String> {
    B_CANARIES
        .iter()
        .find(|c| text.contains(*c))
        .map(|c| format!("the answer carries B's {c:?}: {text}"))
}

/// Whether `code` is one of the refusals a foreign id or organization gets.
fn refusal_code(code: &str) -> bool {
    code == "organization_not_found"
        || code == "forbidden"
        || code == "insufficient_permissions"
        || code.ends_with("_not_found")
}

/// Whether an error names a foreign id as what it refuses: a refusal code, such as
/// `reference_not_found` on the member that names it ("no account 'act_...' in this
/// organization"), the answer an id of no record anywhere gets too.
fn refuses_id(code: &str, field: &Value) -> bool {
    refusal_code(code) && (code != "reference_not_found" || field.is_string())
}

/// The events endpoint reads "the events of this entity this key can see": a foreign
/// entity has none, the same answer as an unknown one (`docs/decisions.md`, "Tenant
/// isolation probes").
fn no_events(operation: &str, body: &Value) -> bool {
    operation.contains("events")
        && (body.as_array().is_some_and(Vec::is_empty)
            || body["items"].as_array().is_some_and(Vec::is_empty))
}

/// A REST answer must be a 4xx error envelope refusing the foreign id.
fn rest_problem(operation: &str, res: &Answer) -> Option<String> {
    let text = res.body.to_string();
    if let Some(leak) = leaks(&text) {
        return Some(leak);
    }
    if res.status.is_success() && no_events(operation, &res.body) {
        return None;
    }
    let error = &res.body["error"];
    let envelope = error["message"].is_string() && error["status"] == res.status.as_u16();
    if !(res.status.is_client_error()
        && envelope
        && refuses_id(res.code(), &error["details"]["field"]))
    {
        return Some(format!("{} {text}", res.status));
    }
    None
}

/// An MCP tool result must be `isError` with the envelope refusing the foreign id.
fn mcp_problem(operation: &str, result: &Value) -> Option<String> {
    let text = result.to_string();
    if let Some(leak) = leaks(&text) {
        return Some(leak);
    }
    let content = &result["structuredContent"];
    if result["isError"] == false && no_events(operation, content) {
        return None;
    }
    let error = &content["error"];
    let code = error["code"].as_str().unwrap_or("");
    if result["isError"] != true
        || !error["message"].is_string()
        || !refuses_id(code, &error["details"]["field"])
    {
        return Some(text);
    }
    None
}

/// The id arguments of a tool that name one of B's resources (not the organization).
fn id_args(tool: &Tool) -> Vec<&Arg> {
    tool.all_args()
        .filter(|a| {
            a.name.ends_with("Id")
                && !a.name.ends_with("OrganizationId")
                && a.name != "organizationId"
                && !a.name.contains("urrency")
        })
        .collect()
}

/// A complete argument set for `tool` made of B's fixtures, with `organization` as the
/// organization (`None`: left to the key's own).
fn arguments(
    tool: &Tool,
    fx: &Fixtures,
    key_id: &str,
    n: usize,
    organization: Option<&str>,
) -> Value {
    let mut args = Map::new();
    for arg in tool.all_args() {
        if matches!(
            arg.name,
            "organizationId" | "parentOrganizationId" | "masterOrganizationId"
        ) {
            if let Some(org) = organization {
                args.insert(arg.name.to_owned(), json!(org));
            }
            continue;
        }
        // The events of one of B's transactions.
        let v = match arg.name {
            "entityType" => Some(json!("transaction")),
            "entityId" => Some(json!(fx.posted_txn)),
            "keyId" => Some(json!(key_id)),
            _ => value(tool, arg, fx, n),
        };
        if let Some(v) = v {
            args.insert(arg.name.to_owned(), v);
        }
    }
    Value::Object(args)
}

/// The variants a tool is probed with: (variant, organization to name).
fn variants<'a>(
    tool: &Tool,
    fx: &Fixtures,
    a: &'a Org,
    b: &'a Org,
) -> Vec<(&'static str, Option<&'a str>)> {
    let names_org = tool.all_args().any(|x| {
        matches!(
            x.name,
            "organizationId" | "parentOrganizationId" | "masterOrganizationId"
        )
    });
    // Only ids the probe fills in (optional links it makes no resource for stay out).
    let has_ids = id_args(tool).iter().any(|arg| {
        arg.name == "keyId" || arg.name == "entityId" || value(tool, arg, fx, 0).is_some()
    });
    let filters = tool.read_only
        && tool
            .args
            .iter()
            .any(|x| x.loc == Loc::Query && x.name.ends_with("Id"));
    let mut out = Vec::new();
    if names_org {
        out.push(("by path", Some(b.id.as_str())));
    }
    if has_ids {
        out.push((
            if filters { "by filter" } else { "by id" },
            Some(a.id.as_str()),
        ));
    }
    out
}

/// Every read-only tool's REST answer with B's own key: B's books as B sees them.
async fn books_of_b(app: &TestApp, fx: &Fixtures, key_id: &str) -> BTreeMap<String, Value> {
    let mut books = BTreeMap::new();
    for (n, tool) in TOOLS.iter().filter(|t| t.read_only).enumerate() {
        let args = arguments(tool, fx, key_id, n, Some(&fx.org.id));
        let Ok((path, _)) = tool.request(Some(&args), &fx.org.id) else {
            continue;
        };
        if !path.starts_with("/organizations/") {
            // Not B's books: reference data, the system, other tenants' events.
            continue;
        }
        let res = app.get(&fx.org.test_key, &path).await;
        // The control: B's own key reads what A's probes are refused, so a refusal is
        // the tenancy's doing, not a malformed probe's.
        assert!(res.status.is_success(), "B reads {path}: {}", res.body);
        let mut body = res.body;
        strip_volatile(&mut body);
        books.insert(
            format!("{} {path}", tool.name),
            json!([res.status.as_u16(), body]),
        );
    }
    books
}

/// Removes what changes by reading alone (a key's last use, request ids).
fn strip_volatile(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for k in ["last_used_at", "request_id", "requestId", "generated_at"] {
                map.remove(k);
            }
            for child in map.values_mut() {
                strip_volatile(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_volatile),
        _ => {}
    }
}

async fn probe_tools(app: &TestApp, fx: &Fixtures, key_id: &str, a: &Org, report: &mut Report) {
    for (n, tool) in TOOLS.iter().enumerate() {
        for (variant, org) in variants(tool, fx, a, &fx.org) {
            let args = arguments(tool, fx, key_id, 1000 + n, org);
            for key in [&a.test_key, &a.live_key] {
                // MCP.
                let result = mcp::tool(app, key, tool.name, args.clone()).await;
                report.add("mcp", tool.name, variant, mcp_problem(tool.name, &result));
                // The tool's REST operation.
                let (path, body) = match tool.request(Some(&args), &a.id) {
                    Ok(request) => request,
                    Err(e) => {
                        report.add("rest", tool.name, variant, Some(format!("{e:?}")));
                        continue;
                    }
                };
                let method =
                    Method::from_bytes(tool.verb.method().as_str().as_bytes()).expect("method");
                let res = app
                    .call(method, &path, Some(key), body, &[("Prefer", "wait=30")])
                    .await;
                let operation = format!("{} {path}", tool.verb.method());
                report.add("rest", &operation, variant, rest_problem(&operation, &res));
            }
        }
    }
}

/// B's resource a path parameter names, by the path segment before it; `None` when the
/// fixtures have no such resource.
fn b_path_id<'a>(collection: &str, fx: &'a Fixtures, key_id: &'a str) -> Option<&'a str> {
    Some(match collection {
        "accounts" => &fx.cash,
        "transactions" => &fx.posted_txn,
        "contacts" => &fx.customer,
        "invoices" => &fx.draft_invoice,
        "bills" => &fx.draft_bill,
        "exchange-rates" => &fx.rate,
        "transfers" => &fx.posted_transfer,
        "organization-transfers" => &fx.org_transfer,
        "recurring" | "recurring-schedules" => &fx.schedule,
        "reconciliations" => &fx.reconciliation,
        "api-keys" => key_id,
        _ => return None,
    })
}

/// `template` with `{org}` as `org` and every other parameter as B's resource (`None`
/// when one names a resource the fixtures lack), or with `placeholder` for those when
/// given (a probe by path is refused at the organization whatever the id).
fn fill(
    template: &str,
    org: &str,
    fx: &Fixtures,
    key_id: &str,
    placeholder: Option<&str>,
) -> Option<(String, bool)> {
    let mut out = Vec::new();
    let mut names_b = false;
    let segments: Vec<&str> = template.split('/').collect();
    for (i, segment) in segments.iter().enumerate() {
        if *segment == "{org}" {
            out.push(org.to_owned());
        } else if segment.starts_with('{') {
            let collection = if i > 0 { segments[i - 1] } else { "" };
            match (b_path_id(collection, fx, key_id), placeholder) {
                (Some(id), _) => {
                    names_b = true;
                    out.push(id.to_owned());
                }
                (None, Some(p)) => out.push(p.to_owned()),
                (None, None) => return None,
            }
        } else {
            out.push((*segment).to_owned());
        }
    }
    Some((out.join("/"), names_b))
}

async fn probe_routes(app: &TestApp, fx: &Fixtures, key_id: &str, a: &Org, report: &mut Report) {
    for entry in ledger_rest::route_table::<ledger_store::Db>() {
        if !entry.path.starts_with("/organizations/{org}") {
            // Not one organization's: sign-up, reference data, the system, health.
            continue;
        }
        let mut variants = Vec::new();
        if let Some((path, _)) = fill(&entry.path, &fx.org.id, fx, key_id, Some("unknown_1")) {
            variants.push(("by path", path));
        }
        if let Some((path, true)) = fill(&entry.path, &a.id, fx, key_id, None) {
            variants.push(("by id", path));
        }
        for method in &entry.methods {
            let method = Method::from_bytes(method.as_str().as_bytes()).expect("method");
            if method == Method::HEAD {
                continue;
            }
            let body =
                matches!(method, Method::POST | Method::PUT | Method::PATCH).then(|| json!({}));
            for (variant, path) in &variants {
                for key in [&a.test_key, &a.live_key] {
                    let res = app
                        .call(
                            method.clone(),
                            path,
                            Some(key),
                            body.clone(),
                            &[("Prefer", "wait=30")],
                        )
                        .await;
                    let operation = format!("{method} {}", entry.path);
                    // The route table's probes send an empty body: an operation may refuse
                    // it as input (a missing field, not multipart) before it looks the
                    // resource up, which discloses nothing of B either.
                    let input_refusal = res.status.is_client_error()
                        && matches!(res.code(), "missing_field" | "unsupported_media_type")
                        && leaks(&res.body.to_string()).is_none();
                    let problem = if input_refusal {
                        None
                    } else {
                        rest_problem(&operation, &res)
                    };
                    report.add("routes", &operation, variant, problem);
                }
            }
        }
    }
}

/// The introspected fields of `Query` or `Mutation`.
async fn schema_fields(app: &TestApp, key: &str) -> (Vec<Value>, Vec<Value>) {
    let query = "{ __schema { queryType { fields { name type { ...T } args { name type { ...T } } } }
        mutationType { fields { name type { ...T } args { name type { ...T } } } } } }
        fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }";
    let res = app.post(key, "/graphql", json!({ "query": query })).await;
    let schema = &res.body["data"]["__schema"];
    let fields = |t: &str| schema[t]["fields"].as_array().cloned().unwrap_or_default();
    (fields("queryType"), fields("mutationType"))
}

/// The GraphQL type of an introspected type reference, as written in a document.
fn type_ref(t: &Value) -> String {
    match t["kind"].as_str() {
        Some("NON_NULL") => format!("{}!", type_ref(&t["ofType"])),
        Some("LIST") => format!("[{}]", type_ref(&t["ofType"])),
        _ => t["name"].as_str().unwrap_or("String").to_owned(),
    }
}

/// The named type under NON_NULL and LIST wrappers.
fn named(t: &Value) -> &Value {
    if t["ofType"].is_object() {
        named(&t["ofType"])
    } else {
        t
    }
}

/// B's resource an id argument of `field` names, by the field's noun.
fn b_id<'a>(field: &str, arg: &str, fx: &'a Fixtures) -> &'a str {
    let noun = if arg == "id" {
        field.to_ascii_lowercase()
    } else {
        arg.to_ascii_lowercase()
    };
    let table: &[(&str, &str)] = &[
        ("organizationtransfer", &fx.org_transfer),
        ("recurring", &fx.schedule),
        ("schedule", &fx.schedule),
        ("reconciliation", &fx.reconciliation),
        ("exchangerate", &fx.rate),
        ("rate", &fx.rate),
        ("transfer", &fx.posted_transfer),
        ("invoice", &fx.draft_invoice),
        ("bill", &fx.draft_bill),
        ("contact", &fx.customer),
        ("transaction", &fx.pending_txn),
        ("account", &fx.cash),
        ("organization", &fx.org.id),
    ];
    table
        .iter()
        .find(|(k, _)| noun.contains(k))
        .map_or(fx.cash.as_str(), |(_, v)| *v)
}

/// The enums (first value) and input objects (fields) of the live schema.
#[derive(Default)]
struct Types {
    enums: BTreeMap<String, String>,
    inputs: BTreeMap<String, Vec<Value>>,
}

async fn types(app: &TestApp, key: &str) -> Types {
    let query = "{ __schema { types { kind name enumValues { name }
        inputFields { name type { ...T } } } } }
        fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }";
    let res = app.post(key, "/graphql", json!({ "query": query })).await;
    let mut out = Types::default();
    for t in res.body["data"]["__schema"]["types"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let Some(name) = t["name"].as_str() else {
            continue;
        };
        match t["kind"].as_str() {
            Some("ENUM") => {
                if let Some(first) = t["enumValues"][0]["name"].as_str() {
                    out.enums.insert(name.to_owned(), first.to_owned());
                }
            }
            Some("INPUT_OBJECT") => {
                let fields = t["inputFields"].as_array().cloned().unwrap_or_default();
                out.inputs.insert(name.to_owned(), fields);
            }
            _ => {}
        }
    }
    out
}

/// Whether an argument or input field names a resource by id (not the organization).
fn is_id(arg: &Value) -> bool {
    let n = arg["name"].as_str().unwrap_or("");
    named(&arg["type"])["name"] == "ID"
        && (n == "id" || n.ends_with("Id") || n.ends_with("Ids"))
        && n != "organizationId"
        && !n.ends_with("OrganizationId")
        && !n.contains("urrency")
}

/// A working value of type `t` for the argument or input field `arg` of `field`: B's
/// ids where it names a resource, plausible values elsewhere.
fn sample(field: &str, arg: &str, t: &Value, types: &Types, fx: &Fixtures, depth: usize) -> Value {
    match t["kind"].as_str() {
        Some("NON_NULL") => sample(field, arg, &t["ofType"], types, fx, depth),
        Some("LIST") => json!([sample(field, arg, &t["ofType"], types, fx, depth)]),
        Some("INPUT_OBJECT") => {
            let mut object = Map::new();
            let name = t["name"].as_str().unwrap_or("");
            for f in types.inputs.get(name).into_iter().flatten() {
                let required = f["type"]["kind"] == "NON_NULL";
                if depth < 4 && (required || is_id(f)) {
                    let fname = f["name"].as_str().unwrap_or("");
                    object.insert(
                        fname.to_owned(),
                        sample(field, fname, &f["type"], types, fx, depth + 1),
                    );
                }
            }
            Value::Object(object)
        }
        _ => {
            let name = t["name"].as_str().unwrap_or("");
            let lower = arg.to_ascii_lowercase();
            match name {
                "ID" if lower.contains("urrency") => json!("USD"),
                "ID" => json!(b_id(field, arg, fx)),
                "Int" => json!(1),
                "Boolean" => json!(false),
                "Decimal" => json!("1.00"),
                "DateTime" => json!("2026-02-01"),
                "Json" => json!({}),
                _ if types.enums.contains_key(name) => json!(types.enums[name]),
                _ if lower == "code" => json!("9100"),
                _ if lower.contains("date") => json!("2026-02-01"),
                _ if lower.contains("email") => json!("probe@example.com"),
                _ if lower.contains("url") => json!("https://example.com/hook"),
                _ if lower.contains("currency") => json!("USD"),
                _ => json!("probe"),
            }
        }
    }
}

async fn probe_graphql(app: &TestApp, fx: &Fixtures, a: &Org, report: &mut Report) {
    let (queries, mutations) = schema_fields(app, &a.test_key).await;
    let types = types(app, &a.test_key).await;
    assert!(
        !queries.is_empty() && !mutations.is_empty(),
        "introspection failed"
    );
    for (kind, fields) in [("query", &queries), ("mutation", &mutations)] {
        for field in fields {
            let name = field["name"].as_str().expect("field name");
            let args = field["args"].as_array().cloned().unwrap_or_default();
            let names_org = args.iter().any(|x| x["name"] == "organizationId");
            let mut variants = Vec::new();
            if args.iter().any(is_id) {
                variants.push(("by id", None));
            }
            if names_org {
                variants.push(("by path", Some(fx.org.id.as_str())));
            }
            for ((variant, org), key) in variants
                .into_iter()
                .flat_map(|v| [(v, &a.test_key), (v, &a.live_key)])
            {
                let mut defs = Vec::new();
                let mut uses = Vec::new();
                let mut vars = Map::new();
                for (i, arg) in args.iter().enumerate() {
                    let arg_name = arg["name"].as_str().expect("arg name");
                    let required = arg["type"]["kind"] == "NON_NULL";
                    let v = if arg_name == "organizationId" {
                        match org {
                            Some(o) => json!(o),
                            None => continue,
                        }
                    } else if required || is_id(arg) {
                        sample(name, arg_name, &arg["type"], &types, fx, 0)
                    } else {
                        continue;
                    };
                    defs.push(format!("$v{i}: {}", type_ref(&arg["type"])));
                    uses.push(format!("{arg_name}: $v{i}"));
                    vars.insert(format!("v{i}"), v);
                }
                let selection = if named_is_object(field) {
                    " { __typename }"
                } else {
                    ""
                };
                let (defs, uses) = if defs.is_empty() {
                    (String::new(), String::new())
                } else {
                    (
                        format!("({})", defs.join(", ")),
                        format!("({})", uses.join(", ")),
                    )
                };
                let document = format!("{kind} Probe{defs} {{ {name}{uses}{selection} }}");
                let res = app.gql(Some(key), &document, vars.into()).await;
                report.add("graphql", name, variant, graphql_problem(kind, name, &res));
            }
        }
    }
}

/// Whether the field answers an object (needs a selection); the probe only asks for
/// `__typename`, enough to tell null from a resource.
fn named_is_object(field: &Value) -> bool {
    matches!(
        named(&field["type"])["kind"].as_str(),
        Some("OBJECT" | "INTERFACE" | "UNION")
    )
}

/// A GraphQL answer must be `null`/empty for the field, or an error with a refusal code.
fn graphql_problem(kind: &str, name: &str, res: &Answer) -> Option<String> {
    let text = res.body.to_string();
    if let Some(leak) = leaks(&text) {
        return Some(leak);
    }
    let data = &res.body["data"][name];
    let errors = res.body["errors"].as_array().cloned().unwrap_or_default();
    let refused = errors.iter().any(|e| {
        let code = e["extensions"]["code"].as_str().unwrap_or("");
        let reason = e["extensions"]["reason"].as_str().unwrap_or("");
        code == "FORBIDDEN"
            || ((code == "VALIDATION_ERROR" || code == "BUSINESS_RULE_VIOLATION")
                && refuses_id(reason, &e["extensions"]["field"]))
    });
    let empty = data.is_null() || data.as_array().is_some_and(Vec::is_empty);
    match kind {
        "mutation" if refused && empty => None,
        "query" if empty && (refused || errors.is_empty()) => None,
        _ => Some(format!("{} {text}", res.status)),
    }
}

async fn a_key_reaches_nothing_of_b(app: &TestApp) {
    let fx = fixtures(app).await;
    let a = app.signup("Isolation A").await;
    let keys = app
        .get(
            &fx.org.test_key,
            &format!("/organizations/{}/api-keys", fx.org.id),
        )
        .await;
    let key_id = keys.body["data"][0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("B's keys: {}", keys.body))
        .to_owned();
    let before = books_of_b(app, &fx, &key_id).await;
    assert!(
        before.len() > 20,
        "only {} reads of B's books",
        before.len()
    );
    let mut report = Report::default();
    probe_tools(app, &fx, &key_id, &a, &mut report).await;
    probe_routes(app, &fx, &key_id, &a, &mut report).await;
    probe_graphql(app, &fx, &a, &mut report).await;
    let after = books_of_b(app, &fx, &key_id).await;
    for (read, was) in &before {
        assert_eq!(Some(was), after.get(read), "B's books changed: {read}");
    }
    eprintln!(
        "isolation probes: {} (mcp {}, rest {}, route table {}, graphql {})",
        report.verdicts.len(),
        report.count("mcp"),
        report.count("rest"),
        report.count("routes"),
        report.count("graphql")
    );
    let problems = report.problems();
    assert!(
        problems.is_empty(),
        "{} of {} probes were not refused:\n{}",
        problems.len(),
        report.verdicts.len(),
        problems.join("\n")
    );
    for interface in ["mcp", "rest", "routes", "graphql"] {
        assert!(
            report.count(interface) > 50,
            "{interface}: {} probes",
            report.count(interface)
        );
    }
    assert!(
        report.verdicts.len() >= 500,
        "{} probes",
        report.verdicts.len()
    );
}
both!(isolation, a_key_reaches_nothing_of_b);
