//! MCP calls of the suites: the modern-era request with the headers its body implies,
//! a tool call, and the reading of a tool result (its content, or its error code).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::{Answer, TestApp};

/// The protocol version of the modern era.
pub const MODERN: &str = "2026-07-28";

/// The `_meta` every modern-era request carries.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A modern-era request with the headers derived from the body.
pub async fn modern(app: &TestApp, key: &str, method: &str, params: Value) -> Answer {
    modern_at(app, "/mcp", key, method, params).await
}

/// A modern-era request to the MCP endpoint at `path` (`/mcp`, `/mcp/directory`) with
/// the headers derived from the body.
pub async fn modern_at(
    app: &TestApp,
    path: &str,
    key: &str,
    method: &str,
    mut params: Value,
) -> Answer {
    params["_meta"] = meta();
    let name = params["name"]
        .as_str()
        .or(params["uri"].as_str())
        .map(str::to_owned);
    let mut headers = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
    if let Some(name) = &name {
        headers.push(("Mcp-Name", name));
    }
    app.call(
        Method::POST,
        path,
        Some(key),
        Some(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})),
        &headers,
    )
    .await
}

/// Calls a tool (modern era) and returns its result.
///
/// # Panics
/// When the answer is not 200 or the result is not complete.
pub async fn tool(app: &TestApp, key: &str, name: &str, arguments: Value) -> Value {
    let res = modern(
        app,
        key,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
    .await;
    assert_eq!(res.status, StatusCode::OK, "{name}: {}", res.body);
    assert_eq!(res.body["result"]["resultType"], "complete", "{}", res.body);
    res.body["result"].clone()
}

/// Calls a tool (modern era) that must succeed; answers its structured content.
///
/// # Panics
/// When the answer is not 200, the result is not complete or it is an error.
pub async fn tool_ok(app: &TestApp, key: &str, name: &str, arguments: Value) -> Value {
    ok(&tool(app, key, name, arguments).await).clone()
}

/// Calls a tool (modern era) that must fail with the error code `code`; answers the
/// result for further checks.
///
/// # Panics
/// When the answer is not 200, the result is not complete or has another code.
pub async fn tool_refused(
    app: &TestApp,
    key: &str,
    name: &str,
    arguments: Value,
    error: &str,
) -> Value {
    let result = tool(app, key, name, arguments).await;
    assert_eq!(code(&result), error, "{name}: {result}");
    result
}

/// The structured content of a successful tool result.
///
/// # Panics
/// When the result is an error.
#[track_caller]
pub fn ok(result: &Value) -> &Value {
    assert_eq!(result["isError"], false, "{result}");
    &result["structuredContent"]
}

/// The error code of a failed tool call (`""` when it succeeded).
pub fn code(result: &Value) -> String {
    if result["isError"] != true {
        return String::new();
    }
    result["structuredContent"]["error"]["code"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}
