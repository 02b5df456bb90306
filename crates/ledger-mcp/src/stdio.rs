//! MCP over stdio for local agents, as the `ledger-mcp` binary and `ledger-server mcp` run
//! it. Each newline-delimited JSON-RPC message read from stdin is forwarded to a running
//! server's `POST {API_BASE_URL}/mcp` with the headers the protocol wants (derived from the
//! body), and the answer is written to stdout.
//!
//! Configuration: `API_BASE_URL` (default `http://127.0.0.1:8080`), `API_KEY`,
//! `ORGANIZATION_ID`; the key and organization may instead come in `initialize` params
//! (`apiKey`, `organizationId`). `ORGANIZATION_ID` becomes the default `organizationId`
//! of tool calls. Messages about the process go to stderr; stdout carries only protocol
//! messages.

use std::io::Write;

use base64::Engine;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

struct Forwarder {
    client: reqwest::Client,
    url: String,
    api_key: Option<String>,
    organization_id: Option<String>,
    /// The version agreed by `initialize` (legacy era), sent on later requests.
    negotiated: Option<String>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn error(id: &Value, code: i64, message: impl Into<String>, data: Option<Value>) -> Value {
    let mut e = json!({"code": code, "message": message.into()});
    if let Some(data) = data {
        e["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

/// Header-safe `Mcp-Name`: as is when printable ASCII, else `=?base64?...?=`.
fn name_header(name: &str) -> String {
    if name.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        name.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(name)
        )
    }
}

impl Forwarder {
    /// Forwards one message; returns the line to print, if any.
    async fn forward(&mut self, mut message: Value) -> Option<Value> {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        if method == "initialize"
            && let Some(params) = message.get_mut("params").and_then(Value::as_object_mut)
        {
            if let Some(key) = params
                .remove("apiKey")
                .and_then(|v| v.as_str().map(str::to_owned))
            {
                self.api_key = Some(key);
            }
            if let Some(org) = params
                .remove("organizationId")
                .and_then(|v| v.as_str().map(str::to_owned))
            {
                self.organization_id = Some(org);
            }
        }
        if method == "tools/call"
            && let Some(org) = &self.organization_id
        {
            let args = &mut message["params"]["arguments"];
            if args.is_null() {
                *args = json!({});
            }
            if let Some(args) = args.as_object_mut()
                && !args.contains_key("organizationId")
                && !args.contains_key("organization_id")
            {
                args.insert("organizationId".into(), json!(org));
            }
        }
        let is_request = message.get("id").is_some() && message.get("method").is_some();
        let Some(key) = self.api_key.clone() else {
            return is_request.then(|| {
                error(
                    &id,
                    -32001,
                    "no API key: set API_KEY or pass apiKey in initialize params",
                    None,
                )
            });
        };
        let mut req = self
            .client
            .post(&self.url)
            .bearer_auth(key)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json");
        if !method.is_empty() {
            req = req.header("mcp-method", &method);
        }
        let body_version = message["params"]["_meta"][META_VERSION].as_str();
        if let Some(v) = body_version.or(self.negotiated.as_deref())
            && method != "initialize"
        {
            req = req.header("mcp-protocol-version", v);
        }
        let name = match method.as_str() {
            "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
            "resources/read" => message["params"]["uri"].as_str(),
            _ => None,
        };
        if let Some(name) = name {
            req = req.header("mcp-name", name_header(name));
        }
        let res = match req.body(message.to_string()).send().await {
            Ok(res) => res,
            Err(e) => {
                return is_request
                    .then(|| error(&id, -32603, format!("cannot reach {}: {e}", self.url), None));
            }
        };
        let status = res.status();
        let text = res.text().await.unwrap_or_default();
        if !is_request {
            return None;
        }
        let parsed: Option<Value> = serde_json::from_str(&text).ok();
        match parsed {
            Some(answer) if answer.get("jsonrpc").is_some() => {
                if method == "initialize"
                    && let Some(v) = answer["result"]["protocolVersion"].as_str()
                {
                    self.negotiated = Some(v.to_owned());
                }
                Some(answer)
            }
            other => {
                let message = other
                    .as_ref()
                    .and_then(|v| v["error"]["message"].as_str())
                    .map_or_else(
                        || format!("HTTP {status}"),
                        |m| format!("HTTP {status}: {m}"),
                    );
                let code = if status.as_u16() == 401 {
                    -32001
                } else {
                    -32603
                };
                Some(error(&id, code, message, other))
            }
        }
    }
}

/// Serves MCP over this process's stdin and stdout until stdin ends, configured from the
/// environment (see the module's documentation).
pub async fn serve_from_env() {
    let base = env("API_BASE_URL").unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let mut forwarder = Forwarder {
        client: reqwest::Client::new(),
        url: format!("{}/mcp", base.trim_end_matches('/')),
        api_key: env("API_KEY"),
        organization_id: env("ORGANIZATION_ID"),
        negotiated: None,
    };
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                eprintln!("ledger-mcp: reading stdin failed: {e}");
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(message) => forwarder.forward(message).await,
            Err(e) => Some(error(
                &Value::Null,
                -32700,
                format!("parse error: {e}"),
                None,
            )),
        };
        if let Some(answer) = answer {
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{answer}")
                .and_then(|()| out.flush())
                .is_err()
            {
                break;
            }
        }
    }
}
