//! Protocol rules of the MCP transport: versions, eras, JSON-RPC framing and the headers
//! that must agree with the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).

use actix_web::http::header::HeaderMap;
use base64::Engine;
use serde_json::{Value, json};

/// The modern (stateless) protocol versions we serve, preferred first.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];
/// The legacy handshake versions we serve, newest first.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18"];

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
/// A required header is missing or disagrees with the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// The requested protocol version is not served.
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// `_meta` keys of the modern era.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// A JSON-RPC error object.
#[derive(Debug, Clone)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            v["data"] = data.clone();
        }
        v
    }
}

/// Every version we serve.
pub fn all_versions() -> Vec<&'static str> {
    MODERN_VERSIONS
        .iter()
        .chain(HANDSHAKE_VERSIONS)
        .copied()
        .collect()
}

/// The error for a version we do not serve, listing those we do.
pub fn unsupported_version(requested: &str) -> RpcError {
    RpcError {
        code: UNSUPPORTED_VERSION,
        message: format!(
            "protocol version {requested} is not supported; supported: {}",
            all_versions().join(", ")
        ),
        data: Some(json!({"supported": all_versions(), "requested": requested})),
    }
}

/// What a POSTed message is.
pub enum Frame {
    Notification,
    Request { id: Value, method: String },
}

/// Classifies a parsed message: a notification, a single request, or an invalid request
/// (a batch, a response, a bad `id`), the last with the id to answer.
pub fn frame(message: &Value) -> Result<Frame, (Value, RpcError)> {
    let Some(object) = message.as_object() else {
        return Err((
            Value::Null,
            RpcError::new(
                INVALID_REQUEST,
                "send one JSON-RPC request object per POST (batches are not supported)",
            ),
        ));
    };
    let id = object.get("id").cloned();
    let valid_id = match &id {
        Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    let reply_id = if valid_id {
        id.clone().unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((
            reply_id,
            RpcError::new(INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\""),
        ));
    }
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        return Err((
            reply_id,
            RpcError::new(
                INVALID_REQUEST,
                "not a request: \"method\" is missing (responses are not accepted here)",
            ),
        ));
    };
    if id.is_none() {
        return Ok(Frame::Notification);
    }
    if !valid_id {
        return Err((
            Value::Null,
            RpcError::new(INVALID_REQUEST, "\"id\" must be a string or an integer"),
        ));
    }
    if let Some(params) = object.get("params")
        && !params.is_object()
    {
        return Err((
            reply_id,
            RpcError::new(INVALID_PARAMS, "\"params\" must be an object"),
        ));
    }
    Ok(Frame::Request {
        id: reply_id,
        method: method.to_owned(),
    })
}

/// The era of a request and its protocol version.
#[derive(Debug, Clone, Copy)]
pub enum Era {
    /// 2026-07-28: no handshake; every request carries its version.
    Modern(&'static str),
    /// The handshake era (`initialize`, then the version header).
    Legacy,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// Decodes an `Mcp-Name` value of the form `=?base64?...?=`.
fn decode_name(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(value.to_owned()),
    }
}

/// The body's value for `Mcp-Name`: the tool or prompt name, or the resource URI.
fn body_name<'a>(message: &'a Value, method: &str) -> Option<&'a str> {
    match method {
        "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
        "resources/read" => message["params"]["uri"].as_str(),
        _ => None,
    }
}

fn mismatch(name: &str, header_value: Option<&str>, body_value: &str) -> RpcError {
    let message = match header_value {
        None => format!("header {name} is required and must be {body_value:?}"),
        Some(h) => {
            format!("header {name} is {h:?} but the body says {body_value:?}; they must agree")
        }
    };
    RpcError {
        code: HEADER_MISMATCH,
        message,
        data: Some(json!({"header": name, "headerValue": header_value, "bodyValue": body_value})),
    }
}

/// Decides the era and checks the version, `_meta` and the headers against the body.
///
/// # Errors
/// `-32602` for a modern request without its `_meta` fields, `-32020` when a header is
/// missing or disagrees with the body, `-32022` for a version we do not serve.
pub fn check(message: &Value, method: &str, headers: &HeaderMap) -> Result<Era, RpcError> {
    let version_header = header(headers, "mcp-protocol-version");
    let meta = &message["params"]["_meta"];
    let body_version = meta[META_VERSION].as_str();

    // Headers that are sent must agree with the body in either era.
    if let Some(h) = header(headers, "mcp-method")
        && h != method
    {
        return Err(mismatch("Mcp-Method", Some(h), method));
    }
    let name = body_name(message, method);
    if let (Some(h), Some(name)) = (header(headers, "mcp-name"), name)
        && decode_name(h).as_deref() != Some(name)
    {
        return Err(mismatch("Mcp-Name", Some(h), name));
    }

    let legacy = match version_header {
        None => method == "initialize",
        Some(v) => HANDSHAKE_VERSIONS.contains(&v),
    };
    if legacy {
        return Ok(Era::Legacy);
    }
    if let Some(v) = version_header
        && body_version.is_none()
        && !MODERN_VERSIONS.contains(&v)
    {
        return Err(unsupported_version(v));
    }

    // Modern era: the body carries version and capabilities, the headers repeat them.
    let Some(body_version) = body_version else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!(
                "params._meta[\"{META_VERSION}\"] is required (protocol {}); legacy clients start with initialize",
                MODERN_VERSIONS[0]
            ),
        ));
    };
    if !meta[META_CAPABILITIES].is_object() {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!("params._meta[\"{META_CAPABILITIES}\"] is required and must be an object"),
        ));
    }
    if version_header != Some(body_version) {
        return Err(mismatch(
            "MCP-Protocol-Version",
            version_header,
            body_version,
        ));
    }
    if header(headers, "mcp-method").is_none() {
        return Err(mismatch("Mcp-Method", None, method));
    }
    if let Some(name) = name
        && header(headers, "mcp-name").is_none()
    {
        return Err(mismatch("Mcp-Name", None, name));
    }
    match MODERN_VERSIONS.iter().find(|v| **v == body_version) {
        Some(v) => Ok(Era::Modern(v)),
        None => Err(unsupported_version(body_version)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_decode_from_base64_words() {
        assert_eq!(
            decode_name("=?base64?Z2V0X2FjY291bnQ=?=").as_deref(),
            Some("get_account")
        );
        assert_eq!(decode_name("get_account").as_deref(), Some("get_account"));
        assert_eq!(decode_name("=?base64?***?="), None);
    }
}
