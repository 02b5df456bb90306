//! The JSON-RPC methods, registered with jsonrpsee once at start. Each request's caller
//! (credentials, organization, era, endpoint) travels in the request's extensions.

use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use std::sync::Arc;

use jsonrpsee::types::{ErrorObjectOwned, Params};
use jsonrpsee::{Extensions, Methods, RpcModule};
use serde_json::{Value, json};

use crate::protocol::{self, HANDSHAKE_VERSIONS, INVALID_PARAMS, RpcError};
use crate::{content, tools};
use ledger_rest::client::{RestClient, RestRequest, RestResponse};

/// Who is calling, as the HTTP edge established it.
#[derive(Debug, Clone)]
pub struct Caller {
    /// `Bearer <token>`, forwarded to REST unchanged.
    pub authorization: String,
    /// The organization of the key: the default `organizationId`.
    pub organization_id: String,
    /// 2026-07-28 results carry `resultType` (and cache hints on lists).
    pub modern: bool,
    /// `/mcp/directory`: no credit-purchase tools.
    pub directory: bool,
}

/// What every method shares: the in-process REST client.
pub struct Shared {
    pub rest: RestClient,
}

type RpcResult = Result<Value, ErrorObjectOwned>;

fn to_error(e: RpcError) -> ErrorObjectOwned {
    let code = i32::try_from(e.code).unwrap_or(-32603);
    ErrorObjectOwned::owned(code, e.message, e.data)
}

pub(crate) fn invalid_params(message: impl Into<String>) -> ErrorObjectOwned {
    to_error(RpcError::new(INVALID_PARAMS, message))
}

fn caller(ext: &Extensions) -> Result<Caller, ErrorObjectOwned> {
    ext.get::<Caller>().cloned().ok_or_else(|| {
        to_error(RpcError::new(
            -32603,
            "internal error: the request has no caller",
        ))
    })
}

fn params_object(params: &Params<'_>) -> Value {
    params
        .as_str()
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}))
}

/// Adds the modern era's `resultType` and, for cacheable lists, `ttlMs`/`cacheScope`.
fn finish(caller: &Caller, mut result: Value, cache: Option<(u64, &str)>) -> Value {
    if caller.modern {
        result["resultType"] = json!("complete");
        if let Some((ttl, scope)) = cache {
            result["ttlMs"] = json!(ttl);
            result["cacheScope"] = json!(scope);
        }
    }
    result
}

const INSTRUCTIONS: &str = "Double-entry bookkeeping for one organization (the API key's). \
Find account ids with list_accounts before create_transaction; entries must balance \
(debits = credits) and amounts are decimal strings like \"100.00\". Transactions stay \
pending until post_transaction (or autoPost: true); only posted ones count in balances \
and reports. Fix posted mistakes with reverse_transaction, never by deleting. Writes \
cost credits; get_credit_balance shows what is left.";

fn server_info() -> Value {
    json!({"name": "ledger", "title": "Ledger accounting", "version": env!("CARGO_PKG_VERSION")})
}

fn capabilities() -> Value {
    json!({
        "tools": {"listChanged": false},
        "prompts": {"listChanged": false},
        "resources": {"subscribe": false, "listChanged": false},
    })
}

/// One REST request for `caller`.
pub(crate) async fn rest_call(
    rest: &RestClient,
    caller: &Caller,
    verb: tools::Verb,
    path: String,
    body: Option<Value>,
    prefer_wait: bool,
) -> RestResponse {
    let request = RestRequest {
        method: verb.method(),
        path_and_query: path,
        authorization: Some(caller.authorization.clone()),
        prefer_wait,
        body: body.map(|b| b.to_string().into_bytes()),
    };
    match rest.call(request).await {
        Ok(res) => res,
        Err(_) => {
            let (status, body) = ledger_http::error::envelope(&DomainError::request(
                ErrorCode::ServiceUnavailable,
                "the server is shutting down; retry shortly",
            ));
            RestResponse {
                status: status.as_u16(),
                content_type: Some("application/json".into()),
                body: body.to_string().into_bytes(),
            }
        }
    }
}

/// A REST answer as a tool result: the body as text, the JSON as `structuredContent`
/// (lists wrapped as `{items}`), and `isError` for any 4xx/5xx.
fn tool_result(res: &RestResponse, path: &str) -> Value {
    // A PDF (generate_invoice_pdf) travels as an embedded resource, base64 in `blob`.
    if res.status < 400
        && res
            .content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("application/pdf"))
    {
        use base64::Engine;
        let blob = base64::engine::general_purpose::STANDARD.encode(&res.body);
        let uri = format!("ledger://{}", path.trim_start_matches('/'));
        return json!({
            "content": [
                {"type": "text", "text": format!("PDF document, {} bytes: {uri}", res.body.len())},
                {"type": "resource", "resource": {"uri": uri, "mimeType": "application/pdf", "blob": blob}},
            ],
            "isError": false,
        });
    }
    let text = String::from_utf8_lossy(&res.body).into_owned();
    let parsed = serde_json::from_slice::<Value>(&res.body).ok();
    let mut result = json!({
        "content": [{"type": "text", "text": text}],
        "isError": res.status >= 400,
    });
    match parsed {
        Some(Value::Object(o)) => result["structuredContent"] = Value::Object(o),
        Some(Value::Array(items)) => result["structuredContent"] = json!({"items": items}),
        _ => {}
    }
    result
}

async fn call_tool(shared: &Shared, caller: &Caller, params: &Value) -> RpcResult {
    let Some(name) = params["name"].as_str() else {
        return Err(invalid_params("params.name (the tool name) is required"));
    };
    let Some(tool) = tools::find(name, caller.directory) else {
        return Err(invalid_params(format!(
            "unknown tool '{name}'; call tools/list for the available tools"
        )));
    };
    let (path, body) = tool
        .request(params.get("arguments"), &caller.organization_id)
        .map_err(invalid_params)?;
    let uri_path = path.split('?').next().unwrap_or_default().to_owned();
    let res = rest_call(&shared.rest, caller, tool.verb, path, body, tool.queued).await;
    Ok(finish(caller, tool_result(&res, &uri_path), None))
}

/// Registers every method.
pub fn methods(rest: RestClient) -> Methods {
    let mut module = RpcModule::from_arc(Arc::new(Shared { rest }));
    let registered = register(&mut module);
    if let Err(e) = registered {
        // Names are static and distinct; a clash is a programming error caught by tests.
        tracing::error!(error = %e, "registering MCP methods failed");
    }
    module.into()
}

fn register(module: &mut RpcModule<Shared>) -> Result<(), jsonrpsee::core::RegisterMethodError> {
    module.register_method("ping", |_, _, ext| -> RpcResult {
        Ok(finish(&caller(ext)?, json!({}), None))
    })?;
    module.register_method("server/discover", |_, _, _| -> RpcResult {
        // A modern-era method: its result always carries resultType and cache hints.
        Ok(json!({
            "supportedVersions": protocol::all_versions(),
            "capabilities": capabilities(),
            "instructions": INSTRUCTIONS,
            "resultType": "complete",
            "ttlMs": 3_600_000,
            "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
        }))
    })?;
    module.register_method("initialize", |params, _, ext| -> RpcResult {
        let caller = caller(ext)?;
        let params = params_object(&params);
        let offered = params["protocolVersion"].as_str().unwrap_or_default();
        // Lifecycle rule: answer the offered version when we serve it, else our newest
        // handshake version (the client then decides whether to continue).
        let version = HANDSHAKE_VERSIONS
            .iter()
            .find(|v| **v == offered)
            .copied()
            .unwrap_or(HANDSHAKE_VERSIONS[0]);
        Ok(finish(
            &caller,
            json!({
                "protocolVersion": version,
                "capabilities": capabilities(),
                "serverInfo": server_info(),
                "instructions": INSTRUCTIONS,
            }),
            None,
        ))
    })?;
    module.register_method("tools/list", |_, _, ext| -> RpcResult {
        let caller = caller(ext)?;
        let tools: Vec<Value> = tools::listed(caller.directory)
            .map(tools::Tool::describe)
            .collect();
        Ok(finish(
            &caller,
            json!({ "tools": tools }),
            Some((3_600_000, "public")),
        ))
    })?;
    module.register_async_method("tools/call", |params, shared, ext| async move {
        let caller = caller(&ext)?;
        let params = params_object(&params);
        call_tool(&shared, &caller, &params).await
    })?;
    module.register_method("prompts/list", |_, _, ext| -> RpcResult {
        let caller = caller(ext)?;
        Ok(finish(
            &caller,
            json!({ "prompts": content::prompt_list() }),
            Some((3_600_000, "public")),
        ))
    })?;
    module.register_async_method("prompts/get", |params, shared, ext| async move {
        let caller = caller(&ext)?;
        let params = params_object(&params);
        let result = content::get_prompt(&shared.rest, &caller, &params).await?;
        Ok::<Value, ErrorObjectOwned>(finish(&caller, result, None))
    })?;
    module.register_method("resources/list", |_, _, ext| -> RpcResult {
        let caller = caller(ext)?;
        Ok(finish(
            &caller,
            json!({ "resources": content::resource_list() }),
            Some((3_600_000, "public")),
        ))
    })?;
    module.register_async_method("resources/read", |params, shared, ext| async move {
        let caller = caller(&ext)?;
        let params = params_object(&params);
        let result = content::read_resource(&shared.rest, &caller, &params).await?;
        // Contents are the caller's books: cache privately and briefly.
        Ok::<Value, ErrorObjectOwned>(finish(&caller, result, Some((0, "private"))))
    })?;
    Ok(())
}
