//! The document as JSON and as the text served: what utoipa cannot say is added to the
//! JSON here (a link's `operationId`, NUL refused in request strings, the `anyOf` of a
//! credit purchase, a closed file upload), and the text lists the paths segment by
//! segment.

use serde_json::json;

/// The document as JSON text, its paths in the order of their segments
/// ([`path_order`]) instead of serde_json's order of the whole text, which would put
/// `/recurring-schedules` between the spec's `/recurring` and `/recurring/{id}`. Readers
/// of the document (the playground, Redoc) list operations in the order of the text.
pub(super) fn to_text(mut doc: serde_json::Value) -> String {
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
///
/// The alternatives only say which member is required, and sit inside an `allOf`: the
/// members' types are the object's own. A branch with `properties` of its own reads to
/// openapi-typescript's example check as an object that allows no other member, and an
/// `anyOf` beside `properties` becomes a union with the bare branches rather than the
/// object narrowed by them.
fn one_of_members_required(doc: &mut serde_json::Value) {
    for name in ["CreditPurchaseRequest", "X402CreditPurchaseRequest"] {
        let Some(schema) = doc
            .pointer_mut(&format!("/components/schemas/{name}"))
            .and_then(serde_json::Value::as_object_mut)
        else {
            continue;
        };
        schema.insert(
            "allOf".into(),
            json!([{"anyOf": [
                {"required": ["package_id"], "not": {"properties": {"package_id": {"type": "null"}}}},
                {"required": ["credit_amount"], "not": {"properties": {"credit_amount": {"type": "null"}}}},
            ]}]),
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
