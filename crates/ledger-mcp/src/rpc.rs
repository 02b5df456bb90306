//! The JSON-RPC methods, registered with jsonrpsee once at start. Each request's caller
//! (credentials, organization, era, endpoint) travels in the request's extensions.

use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use std::sync::Arc;

use jsonrpsee::types::{ErrorObjectOwned, Params};
use jsonrpsee::{Extensions, Methods, RpcModule};
use serde_json::{Value, json};

use crate::protocol::{self, HANDSHAKE_VERSIONS, INVALID_PARAMS, METHOD_NOT_FOUND, RpcError};
use crate::{content, tools};
use ledger_domain::x402;
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
    /// The id of the MCP HTTP request (its `X-Request-Id`). The REST requests made for it
    /// run under the same id, so a tool error names the request the logs know.
    pub request_id: String,
    /// Set when the bearer is an OAuth access token: the permission a REST request of
    /// this call was refused for lack of, so the edge answers 403 `insufficient_scope`.
    pub scope_refusal: Option<std::sync::Arc<std::sync::Mutex<Option<String>>>>,
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

/// How long a client may keep a listing (tools, prompts, resources): an hour, shared.
const LISTING_CACHE: (u64, &str) = (3_600_000, "public");

/// The items of a listing that is the same for every caller.
type ListingItems = fn() -> Vec<Value>;

/// The result of a listing: [`finish`]ed with [`LISTING_CACHE`].
fn listing(caller: &Caller, result: Value) -> Value {
    finish(caller, result, Some(LISTING_CACHE))
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

/// One REST request for `caller`, with further request `headers`.
pub(crate) async fn rest_call(
    rest: &RestClient,
    caller: &Caller,
    verb: tools::Verb,
    path: String,
    body: Option<Value>,
    prefer_wait: bool,
    headers: Vec<(&'static str, String)>,
) -> RestResponse {
    let request = RestRequest {
        method: verb.method(),
        path_and_query: path,
        authorization: Some(caller.authorization.clone()),
        prefer_wait,
        body: body.map(|b| b.to_string().into_bytes()),
        request_id: (!caller.request_id.is_empty()).then(|| caller.request_id.clone()),
        headers,
    };
    match rest.call(request).await {
        Ok(res) => {
            if res.status == 403
                && let Some(slot) = &caller.scope_refusal
                && let Ok(body) = serde_json::from_slice::<Value>(&res.body)
                && body["error"]["code"] == "insufficient_permissions"
                && let Some(required) = body["error"]["details"]["required"].as_str()
                && let Ok(mut slot) = slot.lock()
            {
                *slot = Some(required.to_owned());
            }
            res
        }
        Err(_) => {
            let (status, body) = ledger_http::error::envelope(&DomainError::request(
                ErrorCode::ServiceUnavailable,
                "the server is shutting down; retry shortly",
            ));
            RestResponse {
                status: status.as_u16(),
                content_type: Some("application/json".into()),
                body: body.to_string().into_bytes(),
                payment_required: None,
                payment_response: None,
            }
        }
    }
}

/// A REST answer as a tool result: the body as text, the JSON as `structuredContent`
/// (lists wrapped as `{items}`), and `isError` for any 4xx/5xx.
fn tool_result(res: &RestResponse, path: &str, tool: &tools::Tool, caller: &Caller) -> Value {
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
    let mut parsed = serde_json::from_slice::<Value>(&res.body).ok();
    if res.status >= 400
        && let Some(envelope) = parsed.as_mut()
        && envelope["error"].is_object()
    {
        complete_error(&mut envelope["error"], tool, caller);
        return error_result(envelope);
    }
    let text = String::from_utf8_lossy(&res.body).into_owned();
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

/// Adds what an agent needs to act on a REST error envelope's `error` object: the
/// request id (when the in-process call could not stamp one) and, when `details.field`
/// names one of the tool's arguments, its camelCase name as `details.argument`.
fn complete_error(error: &mut Value, tool: &tools::Tool, caller: &Caller) {
    if error["request_id"].as_str().is_none_or(str::is_empty) {
        error["request_id"] = json!(caller.request_id);
    }
    let field = error["details"]["field"].as_str().map(str::to_owned);
    if let Some(field) = field
        && let Some(arg) = tool
            .all_args()
            .find(|a| tools::snake(a.name) == field || a.name == field)
    {
        error["details"]["argument"] = json!(arg.name);
    }
}

/// A tool execution error: the REST error envelope (`type`, `code`, `message`, `status`,
/// `request_id`, `details`) as `structuredContent` and the same JSON as the text block.
fn error_result(envelope: &Value) -> Value {
    json!({
        "content": [{"type": "text", "text": envelope.to_string()}],
        "structuredContent": envelope,
        "isError": true,
    })
}

/// Arguments that cannot make a REST request, as a tool execution error (`isError`) in
/// the REST validation envelope: an agent corrects its arguments and retries, as it does
/// for a REST refusal (MCP 2025-11-25: input validation errors are tool results).
fn argument_error(error: &tools::ArgError, caller: &Caller) -> Value {
    let field = error.argument.as_deref().map(tools::snake);
    let (_, mut envelope) = ledger_http::error::envelope(&DomainError::validation(
        error.code,
        field,
        error.message.clone(),
    ));
    envelope["error"]["request_id"] = json!(caller.request_id);
    if let Some(argument) = &error.argument {
        envelope["error"]["details"]["argument"] = json!(argument);
    }
    error_result(&envelope)
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
    // A call that does not fit the CallToolRequest shape is a protocol error; what the
    // arguments say is the tool's business.
    let arguments = params.get("arguments");
    if arguments.is_some_and(|a| !a.is_object() && !a.is_null()) {
        return Err(invalid_params("params.arguments must be an object"));
    }
    let (path, body, mut headers) =
        match tool.request_with_headers(arguments, &caller.organization_id) {
            Ok(request) => request,
            Err(error) => return Ok(finish(caller, argument_error(&error, caller), None)),
        };
    if tool.x402
        && let Some(payment) = params["_meta"]
            .get(x402::MCP_PAYMENT_META)
            .filter(|p| !p.is_null())
    {
        // An x402 MCP client pays with the PaymentPayload object in `_meta`; REST takes
        // it as the base64 JSON of `PAYMENT-SIGNATURE`.
        use base64::Engine as _;
        let json = match payment {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        headers.retain(|(name, _)| *name != x402::PAYMENT_SIGNATURE_HEADER);
        headers.push((
            x402::PAYMENT_SIGNATURE_HEADER,
            base64::engine::general_purpose::STANDARD.encode(json),
        ));
    }
    let uri_path = path.split('?').next().unwrap_or_default().to_owned();
    let res = rest_call(
        &shared.rest,
        caller,
        tool.verb,
        path,
        body,
        tool.queued,
        headers,
    )
    .await;
    let result = if tool.x402 {
        x402_result(&res, &uri_path, tool, caller)
    } else {
        tool_result(&res, &uri_path, tool, caller)
    };
    Ok(finish(caller, result, None))
}

/// The result of an x402 tool (x402 MCP transport): a 402 is the tool error whose
/// `structuredContent` (and text) is the `PaymentRequired` object; a paid answer is the
/// purchase with the settlement in `_meta["x402/payment-response"]`.
fn x402_result(res: &RestResponse, path: &str, tool: &tools::Tool, caller: &Caller) -> Value {
    use base64::Engine as _;
    let decode = |header: &Option<String>| {
        header
            .as_deref()
            .and_then(|h| base64::engine::general_purpose::STANDARD.decode(h).ok())
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
    };
    if let Some(required) = decode(&res.payment_required) {
        // The REST envelope follows as a second block: its code says why a payment was
        // refused (`payment_required`, `payment_replayed`, ...).
        let mut content = vec![json!({"type": "text", "text": required.to_string()})];
        if let Ok(mut envelope) = serde_json::from_slice::<Value>(&res.body)
            && envelope["error"].is_object()
        {
            complete_error(&mut envelope["error"], tool, caller);
            if let Some(details) = envelope["error"]["details"].as_object_mut() {
                details.remove("payment_required");
            }
            content.push(json!({"type": "text", "text": envelope.to_string()}));
        }
        return json!({
            "content": content,
            "structuredContent": required,
            "isError": true,
        });
    }
    let mut result = tool_result(res, path, tool, caller);
    if let Some(settlement) = decode(&res.payment_response) {
        result["_meta"] = json!({ x402::MCP_PAYMENT_RESPONSE_META: settlement });
    }
    result
}

/// `ping` and `initialize` belong to the handshake era; 2026-07-28 removed both, so a
/// modern request for them is an unknown method (HTTP 404).
fn handshake_only(caller: &Caller, method: &str) -> Result<(), ErrorObjectOwned> {
    if caller.modern {
        return Err(to_error(RpcError::new(
            METHOD_NOT_FOUND,
            format!(
                "method '{method}' does not exist in protocol {}; use server/discover, or start with initialize (without MCP-Protocol-Version) for the handshake era",
                protocol::MODERN_VERSIONS[0]
            ),
        )));
    }
    Ok(())
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
        let caller = caller(ext)?;
        handshake_only(&caller, "ping")?;
        Ok(json!({}))
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
        handshake_only(&caller, "initialize")?;
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
        Ok(listing(&caller, json!({ "tools": tools })))
    })?;
    module.register_async_method("tools/call", |params, shared, ext| async move {
        let caller = caller(&ext)?;
        let params = params_object(&params);
        call_tool(&shared, &caller, &params).await
    })?;
    module.register_async_method("prompts/get", |params, shared, ext| async move {
        let caller = caller(&ext)?;
        let params = params_object(&params);
        let result = content::get_prompt(&shared.rest, &caller, &params).await?;
        Ok::<Value, ErrorObjectOwned>(finish(&caller, result, None))
    })?;
    // The listings that are the same for every caller: the method, the member and its
    // items. Every resource has a fixed URI; there are no templates (yet), and saying so
    // beats an unknown method for a server that declares `resources`.
    let listings: [(&'static str, &'static str, ListingItems); 3] = [
        ("prompts/list", "prompts", content::prompt_list),
        ("resources/list", "resources", content::resource_list),
        ("resources/templates/list", "resourceTemplates", Vec::new),
    ];
    for (method, member, items) in listings {
        module.register_method(method, move |_, _, ext| -> RpcResult {
            let caller = caller(ext)?;
            Ok(listing(&caller, json!({ member: items() })))
        })?;
    }
    module.register_async_method("resources/read", |params, shared, ext| async move {
        let caller = caller(&ext)?;
        let params = params_object(&params);
        let result = content::read_resource(&shared.rest, &caller, &params).await?;
        // Contents are the caller's books: cache privately and briefly.
        Ok::<Value, ErrorObjectOwned>(finish(&caller, result, Some((0, "private"))))
    })?;
    Ok(())
}
