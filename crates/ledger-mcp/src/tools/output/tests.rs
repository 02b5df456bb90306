//! The output schemas: one per tool but the listed exceptions, each an object schema that
//! stands alone, and the derivation's rules on a small document of its own.

use std::sync::LazyLock;

use serde_json::{Value, json};

use super::*;

static DOCUMENT: LazyLock<Value> = LazyLock::new(ledger_rest::openapi_document);

fn exception(name: &str) -> Option<&'static str> {
    WITHOUT_OUTPUT_SCHEMA
        .iter()
        .find(|(tool, _)| *tool == name)
        .map(|(_, reason)| *reason)
}

#[test]
fn every_tool_has_an_output_schema_but_the_listed_exceptions() {
    for tool in TOOLS {
        match (tool.output_schema(), exception(tool.name)) {
            (Some(schema), None) => assert_eq!(schema["type"], "object", "{}", tool.name),
            (None, Some(_)) => {}
            (Some(_), Some(reason)) => panic!("{} is listed ({reason}) yet has one", tool.name),
            (None, None) => panic!(
                "{} has no outputSchema: {:?}",
                tool.name,
                derive(&DOCUMENT, tool.verb, tool.path).map(|d| d.schema)
            ),
        }
    }
    for (name, _) in WITHOUT_OUTPUT_SCHEMA {
        assert!(TOOLS.iter().any(|t| t.name == name), "{name} is no tool");
    }
}

/// The exceptions are exactly the tools whose documented success answer is not JSON.
#[test]
fn the_exceptions_answer_no_json() {
    for tool in TOOLS {
        let derived = derive(&DOCUMENT, tool.verb, tool.path);
        match exception(tool.name) {
            Some(_) => {
                let why = derived.expect_err(tool.name);
                assert!(why.ends_with("is not JSON"), "{}: {why}", tool.name);
            }
            None => assert!(derived.is_ok(), "{}: {derived:?}", tool.name),
        }
    }
}

/// Every `$ref` points into the schema's own `$defs` and resolves there; nothing refers
/// to the OpenAPI document any more, no definition is copied without a use, and no
/// `type` is an array (outside example data).
#[test]
fn every_ref_resolves_inside_its_own_defs() {
    for tool in TOOLS {
        let Some(schema) = tool.output_schema() else {
            continue;
        };
        let text = schema.to_string();
        assert!(!text.contains("#/components/"), "{}", tool.name);
        let mut used = BTreeSet::new();
        let mut stack = vec![schema];
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(map) => {
                    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                        let pointer = reference
                            .strip_prefix('#')
                            .unwrap_or_else(|| panic!("{}: {reference} is not local", tool.name));
                        let name = pointer.strip_prefix("/$defs/").unwrap_or_else(|| {
                            panic!("{}: {reference} is not in $defs", tool.name)
                        });
                        assert!(
                            schema.pointer(pointer).is_some_and(Value::is_object),
                            "{}: {reference} does not resolve",
                            tool.name
                        );
                        used.insert(name.to_owned());
                    }
                    assert!(
                        !map.get("type").is_some_and(Value::is_array),
                        "{}: {value}",
                        tool.name
                    );
                    stack.extend(
                        map.iter()
                            .filter(|(key, _)| !["example", "examples"].contains(&key.as_str()))
                            .map(|(_, v)| v),
                    );
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        let defined: BTreeSet<String> = schema["$defs"]
            .as_object()
            .map(|defs| defs.keys().cloned().collect())
            .unwrap_or_default();
        assert_eq!(defined, used, "{}", tool.name);
    }
}

#[test]
fn a_list_answer_is_wrapped_as_items() {
    let tool = crate::tools::find("list_contacts", false).expect("tool");
    let schema = tool.output_schema().expect("schema");
    assert_eq!(schema["required"], json!(["items"]));
    assert_eq!(schema["properties"]["items"]["type"], "array");
    assert_eq!(
        schema["properties"]["items"]["items"]["$ref"],
        "#/$defs/ContactSummary"
    );
}

#[test]
fn paths_compare_without_parameter_names_or_query() {
    assert_eq!(shape("/a/{accountId}/b?x=1&y={z}"), "/a/{}/b");
    assert_eq!(shape("/a/{id}/b"), shape("/a/{accountId}/b"));
    assert_ne!(shape("/a/{id}/incoming"), shape("/a/{id}/{other}"));
}

/// A document of its own: a `$ref` root inlined, components copied transitively (a
/// recursive one once), `type` arrays split, arrays wrapped, 202-only and non-JSON
/// answers refused.
#[test]
fn derivation_rules() {
    let document = json!({
        "paths": {
            "/things/{id}": {
                "get": {"responses": {"200": {"content": {"application/json": {"schema":
                    {"$ref": "#/components/schemas/Thing"}}}}}},
                "post": {"responses": {
                    "202": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Queued"}}}},
                    "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                }},
                "put": {"responses": {"202": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Queued"}}}}}},
                "delete": {"responses": {"200": {"content": {"text/plain": {"schema": {"type": "string"}}}}}},
            },
            "/things": {
                "get": {"responses": {"200": {"content": {"application/json": {"schema":
                    {"type": "array", "items": {"$ref": "#/components/schemas/Part"}}}}}}},
            },
        },
        "components": {"schemas": {
            "Thing": {"type": "object", "properties": {
                "part": {"$ref": "#/components/schemas/Part"},
                "tag": {"type": ["string", "null"], "format": "date", "description": "d"},
                "example": {"type": ["integer", "null"]},
            }, "required": ["part"], "example": {"type": ["kept", "as data"]}},
            "Part": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Part"}},
            }},
            "Queued": {"type": "object"},
        }},
    });
    let part = json!({"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/Part"}},
    }});
    let thing = derive(&document, Verb::Get, "/things/{thingId}").expect("get");
    assert_eq!(thing.status, "200");
    assert_eq!(
        thing.schema,
        json!({"type": "object", "properties": {
            "part": {"$ref": "#/$defs/Part"},
            // A type array split into one-type branches, the format in the string one.
            "tag": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}], "description": "d"},
            // A property named `example` stays; the `example` annotation is left out.
            "example": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        }, "required": ["part"], "$defs": {"Part": part}})
    );
    // A waited write: the final resource, not the 202 envelope.
    let posted = derive(&document, Verb::Post, "/things/{thingId}").expect("post");
    assert_eq!(
        (posted.status.as_str(), &posted.schema),
        ("200", &thing.schema)
    );
    let list = derive(&document, Verb::Get, "/things?limit=5").expect("list");
    assert_eq!(
        list.schema,
        json!({"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Part"}}},
            "required": ["items"], "$defs": {"Part": part}})
    );
    assert!(derive(&document, Verb::Put, "/things/{id}").is_err());
    assert!(derive(&document, Verb::Delete, "/things/{id}").is_err());
    assert!(derive(&document, Verb::Post, "/things").is_err());
}
