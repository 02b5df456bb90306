//! The OpenAPI document (`GET /openapi.json`) against the route table, and 405 for the
//! methods a REST path does not take.
//!
//! Both lists come from the code: `ledger_rest::route_table` is what `configure`
//! registers, the document is what the `#[utoipa::path]` annotations declare. A route
//! added without its annotation (or an annotation left behind by a removed route) fails
//! `every_registered_route_is_documented`.

use std::collections::{BTreeMap, BTreeSet};

use ledger_tests::{TestApp, both, strs};
use reqwest::{Method, StatusCode};
use serde_json::Value;

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// (path, method) of every registered route.
fn registered() -> BTreeSet<(String, String)> {
    let table = ledger_rest::route_table::<ledger_store::Db>();
    let mut seen = BTreeSet::new();
    for entry in &table {
        assert!(
            seen.insert(entry.path.clone()),
            "{} is registered twice: one resource per path, with all its methods",
            entry.path
        );
    }
    table
        .iter()
        .flat_map(|e| {
            e.methods
                .iter()
                .map(|m| (e.path.clone(), m.as_str().to_ascii_lowercase()))
        })
        .collect()
}

/// (path, method) of every operation of a document.
fn documented(doc: &Value) -> BTreeSet<(String, String)> {
    let paths = doc["paths"].as_object().expect("paths");
    paths
        .iter()
        .flat_map(|(path, item)| {
            METHODS
                .iter()
                .filter(|m| item.get(**m).is_some())
                .map(|m| (path.clone(), (*m).to_owned()))
        })
        .collect()
}

/// `docs/openapi.json` is what `cargo xtask openapi` would write now, so a change to the
/// REST contract shows in review and client generators can read the committed file.
#[test]
fn openapi_file_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json");
    let stored = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        stored == ledger_rest::openapi_text(),
        "docs/openapi.json is not current: run `cargo xtask openapi` and commit it"
    );
}

#[test]
fn every_registered_route_is_documented() {
    let doc = ledger_rest::openapi_document();
    let registered = registered();
    let documented = documented(&doc);
    let undocumented: Vec<_> = registered.difference(&documented).collect();
    let unregistered: Vec<_> = documented.difference(&registered).collect();
    assert!(
        undocumented.is_empty() && unregistered.is_empty(),
        "routes without an OpenAPI operation: {undocumented:?}\n\
         OpenAPI operations without a route: {unregistered:?}"
    );
    assert!(registered.len() > 140, "the whole REST API is registered");
}

/// Every operation: a unique id, a tag the document defines, a success response, and
/// each error response in the error envelope.
#[test]
fn every_operation_is_complete() {
    let doc = ledger_rest::openapi_document();
    assert_eq!(doc["openapi"], "3.1.0");
    let tags: BTreeSet<&str> = strs(&doc["tags"], "name").into_iter().collect();
    let responses = &doc["components"]["responses"];
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in METHODS {
            let Some(op) = item.get(method) else { continue };
            let id = op["operationId"].as_str().expect("operationId");
            assert!(ids.insert(id.to_owned()), "{id} is not unique");
            let tag = op["tags"][0].as_str().expect("a tag");
            assert!(
                tags.contains(tag),
                "{method} {path}: tag {tag} is not defined"
            );
            assert!(op["summary"].is_string(), "{method} {path}: no summary");
            // A header is text or absent: a `null` type would have a generated client
            // offer `None` and send it as text.
            for parameter in op["parameters"].as_array().into_iter().flatten() {
                if parameter["in"] == "header" {
                    assert_eq!(
                        parameter["schema"]["type"], "string",
                        "{method} {path}: header {}",
                        parameter["name"]
                    );
                }
            }
            // A description says what the operation does beyond its summary (Spectral's
            // `operation-description`, and the docstring of a generated client).
            let description = op["description"].as_str().unwrap_or_default();
            assert!(
                !description.trim().is_empty() && Some(description) != op["summary"].as_str(),
                "{method} {path}: no description"
            );
            let statuses = op["responses"].as_object().expect("responses");
            assert!(
                statuses.keys().any(|s| s.starts_with('2')),
                "{method} {path}: no success response"
            );
            for (status, response) in statuses {
                if !(status.starts_with('4') || status.starts_with('5')) {
                    continue;
                }
                if path == "/health" || path == "/ready" {
                    continue;
                }
                let name = response["$ref"]
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/components/responses/"))
                    .unwrap_or_else(|| panic!("{method} {path} {status}: not a shared error"));
                assert_eq!(
                    responses[name]["content"]["application/json"]["schema"]["$ref"],
                    "#/components/schemas/ErrorEnvelope",
                    "{method} {path} {status}"
                );
            }
            // Each operation says who may call it: the API key, OAuth with a scope, or
            // nobody in particular (`[{}]`).
            let security = op["security"].as_array();
            assert!(security.is_some(), "{method} {path}: no security");
            if let Some(security) = security {
                let schemes: BTreeSet<&str> = security
                    .iter()
                    .filter_map(Value::as_object)
                    .flat_map(|o| o.keys().map(String::as_str))
                    .collect();
                if schemes.is_empty() {
                    // `[{}]`: public, which only these are.
                    assert!(
                        ["/health", "/ready", "/openapi.json"].contains(&path.as_str()),
                        "{method} {path} is public"
                    );
                } else {
                    assert!(
                        schemes.contains("api_key") || schemes.contains("admin_token"),
                        "{method} {path}: {schemes:?}"
                    );
                    assert!(statuses.contains_key("401"), "{method} {path}: no 401");
                }
                for requirement in security {
                    if let Some(scopes) = requirement.get("oauth2") {
                        let scope = scopes[0].as_str().unwrap_or_default();
                        assert!(
                            ["ledger:read", "ledger:write", "ledger:admin"].contains(&scope),
                            "{method} {path}: scope {scope}"
                        );
                    }
                }
            }
        }
    }
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["api_key"]["scheme"], "bearer");
    let flow = &schemes["oauth2"]["flows"]["authorizationCode"];
    for scope in ["ledger:read", "ledger:write", "ledger:admin"] {
        assert!(flow["scopes"][scope].is_string(), "{scope}");
    }
}

/// A create links to the get of what it made; a queued write to its status.
#[test]
fn creates_link_to_their_gets() {
    let doc = ledger_rest::openapi_document();
    let paths = &doc["paths"];
    let link = &paths["/organizations/{org}/accounts"]["post"]["responses"]["201"]["links"]["GetAccountsGet"];
    assert_eq!(link["operationId"], "accounts_get");
    assert_eq!(link["parameters"]["id"], "$response.body#/id");
    assert_eq!(link["parameters"]["org"], "$request.path.org");
    let queued = &paths["/organizations/{org}/accounts"]["post"]["responses"]["202"]["links"]["GetRequestStatus"];
    assert_eq!(queued["operationId"], "requests_get");
    // Every link names an operation of the document with the parameters it takes.
    let mut operations = BTreeMap::new();
    for (path, item) in paths.as_object().expect("paths") {
        for method in METHODS {
            if let Some(id) = item.get(method).and_then(|o| o["operationId"].as_str()) {
                operations.insert(id.to_owned(), path.clone());
            }
        }
    }
    let mut links = 0;
    for item in paths.as_object().expect("paths").values() {
        for method in METHODS {
            let Some(responses) = item.get(method).and_then(|o| o["responses"].as_object()) else {
                continue;
            };
            for response in responses.values() {
                for link in response["links"].as_object().into_iter().flatten() {
                    let target = link.1["operationId"].as_str().expect("operationId");
                    let path = operations
                        .get(target)
                        .unwrap_or_else(|| panic!("link to unknown operation {target}"));
                    for name in link.1["parameters"].as_object().expect("parameters").keys() {
                        assert!(path.contains(&format!("{{{name}}}")), "{target}: {name}");
                    }
                    links += 1;
                }
            }
        }
    }
    assert!(links > 60, "{links} links");
}

/// The request schemas state what the server checks: members it requires are required
/// and not nullable, strings refuse U+0000 (but answers may quote it), a credit purchase
/// names its package one way or the other, an upload has no other part.
#[test]
fn request_schemas_state_the_rules_the_server_checks() {
    let doc = ledger_rest::openapi_document();
    let schemas = &doc["components"]["schemas"];
    let required = |name: &str| -> Vec<String> {
        schemas[name]["required"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has required members"))
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    assert!(required("TransactionCreateRequest").contains(&"date".to_owned()));
    assert!(required("TransactionInput").contains(&"date".to_owned()));
    assert!(!required("TransactionTemplate").contains(&"date".to_owned()));
    for name in ["InvoiceCreateRequest", "BillCreateRequest"] {
        assert!(required(name).contains(&"items".to_owned()), "{name}");
        assert_eq!(
            schemas[name]["properties"]["items"]["type"], "array",
            "{name}"
        );
    }
    // A NUL in a request string is refused, and the schema says so; an error message is
    // an answer and may quote what was sent.
    let description = &schemas["TransactionCreateRequest"]["properties"]["description"];
    assert_eq!(description["pattern"], r"^[^\x00]*[^\s\x00][^\x00]*$");
    let reference = &schemas["TransactionCreateRequest"]["properties"]["reference"];
    assert_eq!(reference["pattern"], r"^[^\x00]*$");
    assert!(
        schemas["ErrorBody"]["properties"]["message"]
            .get("pattern")
            .is_none()
    );
    for name in ["CreditPurchaseRequest", "X402CreditPurchaseRequest"] {
        let any_of = schemas[name]["allOf"][0]["anyOf"]
            .as_array()
            .expect("anyOf");
        let members: Vec<&Value> = any_of.iter().map(|v| &v["required"][0]).collect();
        assert_eq!(members, ["package_id", "credit_amount"], "{name}");
    }
    assert_eq!(schemas["FileUpload"]["additionalProperties"], false);
    // Decimals are a string or a whole number, never a JSON number with a fraction that a
    // generated client would type as a binary float.
    for name in [
        "Decimal",
        "PositiveAmount",
        "NonNegativeAmount",
        "Quantity",
        "TaxRate",
        "RateValue",
    ] {
        let types: Vec<&Value> = schemas[name]["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} is a oneOf"))
            .iter()
            .map(|branch| &branch["type"])
            .collect();
        assert_eq!(types, ["string", "integer"], "{name}");
    }
    let permission = &schemas["ApiKeyCreateRequest"]["properties"]["permissions"]["items"];
    assert_eq!(
        permission["oneOf"][0]["enum"],
        serde_json::json!(["read", "write", "admin", "system"])
    );
    let count =
        &doc["components"]["schemas"]["RecurringScheduleUpdateRequest"]["properties"]["count"];
    assert_eq!(count["maximum"], ledger_domain::recurring::MAX_OCCURRENCES);
}

async fn served_without_a_key(app: &TestApp) {
    let res = app.fetch("/openapi.json").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .starts_with("application/json")
    );
    let text = res.text().await.expect("text");
    let served: Value = serde_json::from_str(&text).expect("JSON");
    // The spec's recurring paths are listed before the deprecated `/recurring-schedules`
    // ones, which stay documented.
    let at = |path: &str| text.find(&format!("\"{path}\":")).expect(path);
    assert!(
        at("/organizations/{org}/recurring/{id}/runs")
            < at("/organizations/{org}/recurring-schedules")
    );
    for path in [
        "/organizations/{org}/recurring-schedules",
        "/organizations/{org}/recurring-schedules/{id}",
    ] {
        for (method, op) in served["paths"][path].as_object().expect(path) {
            assert_eq!(op["deprecated"], true, "{method} {path}");
        }
    }
    assert!(
        served["paths"]["/organizations/{org}/recurring/{id}"]["get"]
            .get("deprecated")
            .is_none()
    );
    assert_eq!(served["openapi"], "3.1.0");
    assert_eq!(served["servers"][0]["url"], app.base.trim_end_matches('/'));
    assert!(
        served["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
            ["authorizationUrl"]
            .as_str()
            .is_some_and(|u| u.starts_with("http") && u.ends_with("/authorize"))
    );
    assert_eq!(served["paths"], ledger_rest::openapi_document()["paths"]);
}

both!(served_unauthenticated, served_without_a_key);

/// Fills a path template: the organization, and `x` for every other parameter.
fn concrete(template: &str, org: &str) -> String {
    template
        .split('/')
        .map(|s| match s {
            "{org}" => org,
            s if s.starts_with('{') => "x",
            s => s,
        })
        .collect::<Vec<_>>()
        .join("/")
}

async fn wrong_methods_answer_405(app: &TestApp) {
    let org = app.signup("Methods").await;
    for entry in ledger_rest::route_table::<ledger_store::Db>() {
        let allowed: BTreeSet<String> = entry.methods.iter().map(|m| m.to_string()).collect();
        let Some(wrong) = ["DELETE", "PATCH", "PUT", "POST", "GET"]
            .into_iter()
            .find(|m| !allowed.contains(*m))
        else {
            continue;
        };
        let path = concrete(&entry.path, &org.id);
        let method = Method::from_bytes(wrong.as_bytes()).expect("method");
        let res = app
            .call(method, &path, Some(&org.test_key), None, &[])
            .await;
        assert_eq!(res.status, StatusCode::METHOD_NOT_ALLOWED, "{wrong} {path}");
        assert_eq!(res.code(), "method_not_allowed", "{wrong} {path}");
        assert_eq!(res.body["error"]["type"], "invalid_request_error");
        assert_eq!(res.body["error"]["status"], 405);
        let mut expected = allowed.clone();
        if allowed.contains("GET") {
            expected.insert("HEAD".into());
        }
        let allow: BTreeSet<String> = res.headers["allow"]
            .to_str()
            .expect("Allow")
            .split(',')
            .map(|m| m.trim().to_owned())
            .collect();
        assert_eq!(allow, expected, "{wrong} {path}");
    }
    // An unknown path is still 404, and HEAD is served as GET. The per-organization
    // paths are registered as scopes (one per family): a path inside a scope that none
    // of its resources takes, or a family that does not exist, is the same 404.
    let res = app.get(&org.test_key, "/no/such/path").await;
    assert_eq!(res.status, StatusCode::NOT_FOUND);
    for path in [
        org.path("no-such-family"),
        org.path("accounts/x/no-such-thing"),
        org.path("accounts/"),
        org.path("accountsx"),
        org.path("recurring-schedulesx"),
    ] {
        let res = app.get(&org.test_key, &path).await;
        assert_eq!(res.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(res.code(), "route_not_found", "{path}");
    }
    let res = app.call(Method::HEAD, "/health", None, None, &[]).await;
    assert_eq!(res.status, StatusCode::OK);
}

both!(methods_not_allowed, wrong_methods_answer_405);
