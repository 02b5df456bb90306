//! Each tool's `outputSchema`, derived once from the REST OpenAPI document
//! ([`ledger_rest::openapi_document`]) rather than written here: the JSON schema of the
//! success response of the operation the tool performs, made self-contained.
//!
//! A successful tool result's `structuredContent` is the REST body (`rpc::tool_result`),
//! and REST serializes the typed views the document's schemas are derived from, so the
//! two cannot drift apart. The invariant kept: every tool has an object schema whose
//! `$ref`s all resolve inside its own `$defs`, except the tools of
//! [`WITHOUT_OUTPUT_SCHEMA`], whose answer is not JSON. The one change of spelling: a
//! `type` array becomes `anyOf` branches ([`portable`]), the same constraint.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::LazyLock;

use serde_json::{Map, Value, json};

use super::{TOOLS, Tool, Verb};

/// The tools whose successful result has no `structuredContent`, hence no
/// `outputSchema`, each with the reason. Every other tool has one; a test checks the
/// list against the document both ways.
pub const WITHOUT_OUTPUT_SCHEMA: [(&str, &str); 2] = [
    (
        "generate_invoice_pdf",
        "REST answers application/pdf; the result is the PDF as an embedded resource",
    ),
    (
        "health_check",
        "REST answers the text/plain `OK`; the result is that text block alone",
    ),
];

/// Where OpenAPI keeps the shared schemas, and where a self-contained schema keeps them.
const COMPONENTS: &str = "#/components/schemas/";
const DEFS: &str = "#/$defs/";

/// What the tools take from the REST OpenAPI document, read off it once, on first use.
struct FromDocument {
    /// The output schemas by tool name.
    output_schemas: HashMap<&'static str, Value>,
    /// The tools whose REST operation takes an `Idempotency-Key` header (the writes).
    keyed_tools: HashSet<&'static str>,
}

static FROM_DOCUMENT: LazyLock<FromDocument> = LazyLock::new(|| {
    let document = ledger_rest::openapi_document();
    let mut output_schemas = HashMap::new();
    for tool in TOOLS {
        if WITHOUT_OUTPUT_SCHEMA
            .iter()
            .any(|(name, _)| *name == tool.name)
        {
            continue;
        }
        match derive(&document, tool.verb, tool.path) {
            Ok(derived) => {
                output_schemas.insert(tool.name, derived.schema);
            }
            // The unit tests derive every schema, so this is a build that skipped them.
            Err(why) => tracing::error!(tool = tool.name, %why, "the tool has no outputSchema"),
        }
    }
    let keyed_tools = TOOLS
        .iter()
        .filter(|tool| !tool.read_only)
        .filter(|tool| {
            operation(&document, tool.verb, tool.path).is_ok_and(|operation| {
                operation["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|p| p["in"] == "header" && p["name"] == "Idempotency-Key")
            })
        })
        .map(|tool| tool.name)
        .collect();
    FromDocument {
        output_schemas,
        keyed_tools,
    }
});

impl Tool {
    /// Whether the tool takes an `idempotencyKey`: a write whose REST operation takes the
    /// `Idempotency-Key` header.
    pub fn takes_idempotency_key(&self) -> bool {
        FROM_DOCUMENT.keyed_tools.contains(self.name)
    }

    /// The tool's `outputSchema`: the schema of its REST success response, or `None` for
    /// the tools of [`WITHOUT_OUTPUT_SCHEMA`].
    pub fn output_schema(&self) -> Option<&'static Value> {
        FROM_DOCUMENT.output_schemas.get(self.name)
    }
}

/// An output schema and where in the document it came from.
#[derive(Debug)]
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "where a schema came from is for the tool list snapshot"
    )
)]
pub(crate) struct Derived {
    /// The status of the success response taken (`201` or `200`).
    pub(crate) status: String,
    /// The response's `application/json` schema as the document states it.
    pub(crate) response: Value,
    /// The self-contained schema: an object root, the components it reaches in `$defs`.
    pub(crate) schema: Value,
}

/// Derives the output schema of the operation `verb path` (a tool's path template).
///
/// # Errors
/// Why there is none: no such operation, no 201/200 response, a response that is not
/// JSON, a root that is not an object, or a `$ref` to a schema the document lacks.
pub(crate) fn derive(document: &Value, verb: Verb, path: &str) -> Result<Derived, String> {
    let what = format!("{} {path}", verb.method());
    let operation = operation(document, verb, path)?;
    // A queued write's tool waits for the job (`Prefer: wait`), so it gets the final
    // resource (201 or 200), not the 202 envelope of a write still queued.
    let (status, response) = ["201", "200"]
        .into_iter()
        .find_map(|status| Some((status, operation["responses"].get(status)?)))
        .ok_or_else(|| format!("{what} documents no 201 or 200 response"))?;
    let response = response
        .pointer("/content/application~1json/schema")
        .ok_or_else(|| format!("the {status} response of {what} is not JSON"))?;
    let components = document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .ok_or("the document has no components.schemas")?;
    let root = if response["type"] == "array" {
        // `tool_result` wraps a bare JSON array as `{"items": [...]}`.
        json!({"type": "object", "properties": {"items": response}, "required": ["items"]})
    } else if let Some(name) = component_name(response) {
        // The referenced object itself at the root (MCP wants `type: object` there); a
        // member beside the `$ref` (a description) overrides the component's.
        let mut inlined = component(components, name)?.clone();
        if let (Some(target), Some(extra)) = (inlined.as_object_mut(), response.as_object()) {
            for (key, value) in extra.iter().filter(|(key, _)| *key != "$ref") {
                target.insert(key.clone(), value.clone());
            }
        }
        inlined
    } else {
        response.clone()
    };
    if root["type"] != "object" {
        return Err(format!("{what} answers no JSON object: {response}"));
    }
    let mut schema = portable(relocate(&root));
    let mut defs = Map::new();
    let mut pending: Vec<String> = references(&root).into_iter().collect();
    while let Some(name) = pending.pop() {
        if defs.contains_key(&name) {
            continue;
        }
        let found = component(components, &name)?;
        pending.extend(references(found));
        defs.insert(name, portable(relocate(found)));
    }
    if !defs.is_empty() {
        schema["$defs"] = Value::Object(defs);
    }
    Ok(Derived {
        status: status.to_owned(),
        response: response.clone(),
        schema,
    })
}

/// The document's operation for `verb` on the path of `path`, compared with every
/// `{parameter}` made the same (MCP and REST name them differently) and without a query.
fn operation<'d>(document: &'d Value, verb: Verb, path: &str) -> Result<&'d Value, String> {
    let wanted = shape(path);
    let method = verb.method().as_str().to_ascii_lowercase();
    let what = format!("{} {path}", verb.method());
    let mut found = document["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(documented, _)| shape(documented) == wanted)
        .filter_map(|(_, item)| item.get(&method));
    match (found.next(), found.next()) {
        (Some(operation), None) => Ok(operation),
        (None, _) => Err(format!("the document has no operation {what}")),
        (Some(_), Some(_)) => Err(format!("{what} matches several operations")),
    }
}

/// `/a/{x}/b?q=1` -> `/a/{}/b`.
fn shape(path: &str) -> String {
    let path = path.split('?').next().unwrap_or_default();
    let mut out = String::with_capacity(path.len());
    let mut in_parameter = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_parameter = true;
                out.push_str("{}");
            }
            '}' => in_parameter = false,
            _ if in_parameter => {}
            _ => out.push(c),
        }
    }
    out
}

/// The component a schema is a `$ref` to, if it is one.
fn component_name(schema: &Value) -> Option<&str> {
    schema["$ref"].as_str()?.strip_prefix(COMPONENTS)
}

fn component<'d>(components: &'d Map<String, Value>, name: &str) -> Result<&'d Value, String> {
    components
        .get(name)
        .ok_or_else(|| format!("a $ref names {COMPONENTS}{name}, which the document lacks"))
}

/// The components a schema refers to (not transitively).
fn references(schema: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(name) = component_name(value) {
                    names.insert(name.to_owned());
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    names
}

/// A copy of `schema` with every `#/components/schemas/X` made `#/$defs/X`.
fn relocate(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| {
                    let value = match value.as_str().and_then(|r| r.strip_prefix(COMPONENTS)) {
                        Some(name) if key == "$ref" => Value::from(format!("{DEFS}{name}")),
                        _ => relocate(value),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(relocate).collect()),
        other => other.clone(),
    }
}

/// The keywords that only constrain values of some types: they follow a type into its
/// `anyOf` branch when [`portable`] splits a `type` array.
const TYPE_KEYWORDS: [&str; 30] = [
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "contentEncoding",
    "contentMediaType",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "items",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "required",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
];

/// Members whose values are data, not schemas: left as they are.
const DATA_KEYWORDS: [&str; 5] = ["example", "examples", "default", "const", "enum"];

/// Annotations left out of a tool's schema (see [`portable`]).
const EXAMPLE_KEYWORDS: [&str; 2] = ["example", "examples"];

/// Members whose values map names (of properties, of definitions) to schemas.
const NAMED_SCHEMAS: [&str; 4] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
];

/// `schema` with every `type` array (OpenAPI 3.1's `["string", "null"]`) split into
/// `anyOf` branches of one type each, the same constraint in the spelling tool clients
/// map best (a single-`type` dialect such as Gemini's function declarations rejects a
/// `type` array; the MCP Inspector's `--strict` flags it). The type-specific keywords go
/// into the branch of their non-null type; annotations stay beside the `anyOf`.
fn portable(schema: Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut map: Map<String, Value> = map
                .into_iter()
                // Examples document the REST answers in docs/openapi.json; a tool's
                // schema is for checking and planning, and they would weigh on every
                // `tools/list`.
                .filter(|(key, _)| !EXAMPLE_KEYWORDS.contains(&key.as_str()))
                .map(|(key, value)| {
                    let value = match value {
                        Value::Object(named) if NAMED_SCHEMAS.contains(&key.as_str()) => {
                            Value::Object(
                                named
                                    .into_iter()
                                    .map(|(name, schema)| (name, portable(schema)))
                                    .collect(),
                            )
                        }
                        data if DATA_KEYWORDS.contains(&key.as_str()) => data,
                        other => portable(other),
                    };
                    (key, value)
                })
                .collect();
            let Some(Value::Array(types)) = map.get("type").cloned() else {
                return Value::Object(map);
            };
            map.remove("type");
            if let [single] = types.as_slice() {
                map.insert("type".to_owned(), single.clone());
                return Value::Object(map);
            }
            let moved: Vec<(String, Value)> = TYPE_KEYWORDS
                .iter()
                .filter_map(|key| Some(((*key).to_owned(), map.remove(*key)?)))
                .collect();
            let branches: Vec<Value> = types
                .into_iter()
                .map(|ty| {
                    let mut branch = Map::new();
                    if ty != "null" {
                        branch.extend(moved.iter().cloned());
                    }
                    branch.insert("type".to_owned(), ty);
                    Value::Object(branch)
                })
                .collect();
            match map.remove("anyOf") {
                // Two alternatives at once: both must hold.
                Some(existing) => {
                    let mut all = match map.remove("allOf") {
                        Some(Value::Array(all)) => all,
                        _ => Vec::new(),
                    };
                    all.push(json!({ "anyOf": existing }));
                    all.push(json!({ "anyOf": branches }));
                    map.insert("allOf".to_owned(), Value::Array(all));
                }
                None => {
                    map.insert("anyOf".to_owned(), Value::Array(branches));
                }
            }
            Value::Object(map)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(portable).collect()),
        other => other,
    }
}

/// A response schema in a few words, for the tool list snapshot: `Account`, `[Event]`.
#[cfg(test)]
pub(crate) fn summary(response: &Value) -> String {
    match (component_name(response), component_name(&response["items"])) {
        (Some(name), _) => name.to_owned(),
        (None, Some(item)) if response["type"] == "array" => format!("[{item}]"),
        _ => response.to_string(),
    }
}

#[cfg(test)]
mod tests;
