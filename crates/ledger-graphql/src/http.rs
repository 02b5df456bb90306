//! `POST /graphql` (its explorer, `GET /graphql/playground`, is `ledger-playground`'s).
//!
//! The request passes the same authentication and rate limiter as REST
//! ([`ledger_http::auth::authenticate`]), then the document is parsed and validated
//! against the schema (with its depth and field limits) and executed with a context
//! holding the key. Answers:
//!
//! - 200 with `{data, errors?}` for every well-formed request, including documents that
//!   fail validation (`GRAPHQL_VALIDATION_FAILED`) and fields refused by the services;
//! - 400 when the body is not a JSON object with a string `query`;
//! - 401 `UNAUTHENTICATED` and 429 `RATE_LIMIT_EXCEEDED` (with `Retry-After`) before any
//!   document is looked at.

use std::sync::atomic::AtomicU32;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use juniper::http::GraphQLResponse;
use juniper::{DefaultScalarValue, InputValue, ValidatedOperation, Variables};
use ledger_domain::DomainError;
use ledger_domain::ports::Store;
use ledger_http::AppState;
use serde_json::{Value, json};

use crate::Schema;
use crate::context::{Ctx, RequestKey};
use crate::errors::{GRAPHQL_VALIDATION_FAILED, code_of, extensions_json};

/// A JSON value as a GraphQL input value. Integers that fit a GraphQL `Int` stay
/// integers; any other number keeps its kind as a float (a `Decimal` refuses those:
/// send amounts as strings).
fn json_to_input(v: &Value) -> InputValue<DefaultScalarValue> {
    match v {
        Value::Null => InputValue::null(),
        Value::Bool(b) => InputValue::scalar(*b),
        Value::Number(n) => match n.as_i64().and_then(|i| i32::try_from(i).ok()) {
            Some(i) => InputValue::scalar(i),
            None => match n.as_f64() {
                Some(f) => InputValue::scalar(f),
                None => InputValue::scalar(n.to_string()),
            },
        },
        Value::String(s) => InputValue::scalar(s.clone()),
        Value::Array(items) => InputValue::list(items.iter().map(json_to_input).collect()),
        Value::Object(map) => InputValue::object(
            map.iter()
                .map(|(k, v)| (k.clone(), json_to_input(v)))
                .collect(),
        ),
    }
}

/// An answer that is only errors, each with `extensions.code`.
fn errors_only(status: StatusCode, errors: Vec<Value>) -> HttpResponse {
    HttpResponse::build(status).json(json!({ "errors": errors }))
}

/// A request refused before execution (authentication, rate limit, our failure).
fn refused(error: &DomainError) -> HttpResponse {
    if let DomainError::Internal(cause) = error {
        tracing::error!(cause = %cause, "GraphQL request failed");
    }
    let status = match code_of(error) {
        crate::errors::UNAUTHENTICATED => StatusCode::UNAUTHORIZED,
        crate::errors::RATE_LIMIT_EXCEEDED => StatusCode::TOO_MANY_REQUESTS,
        crate::errors::FORBIDDEN => StatusCode::FORBIDDEN,
        crate::errors::SERVICE_UNAVAILABLE => StatusCode::SERVICE_UNAVAILABLE,
        crate::errors::INTERNAL_SERVER_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    };
    let mut res = errors_only(
        status,
        vec![json!({ "message": error.public_message(), "extensions": extensions_json(error) })],
    );
    if let Some(retry_after) = error.retry_after()
        && let Ok(value) = actix_web::http::header::HeaderValue::from_str(&retry_after.to_string())
    {
        res.headers_mut()
            .insert(actix_web::http::header::RETRY_AFTER, value);
    }
    res
}

/// A document that cannot run: juniper's errors (message, locations) with the code.
fn invalid_document(error: &juniper::GraphQLError) -> HttpResponse {
    let errors = match serde_json::to_value(error) {
        Ok(Value::Array(items)) => items,
        _ => vec![json!({ "message": error.to_string() })],
    };
    let errors = errors
        .into_iter()
        .map(|mut e| {
            e["extensions"] = json!({ "code": GRAPHQL_VALIDATION_FAILED });
            e
        })
        .collect();
    errors_only(StatusCode::OK, errors)
}

fn bad_request(message: &str) -> HttpResponse {
    errors_only(
        StatusCode::BAD_REQUEST,
        vec![json!({ "message": message, "extensions": { "code": GRAPHQL_VALIDATION_FAILED } })],
    )
}

/// Largest accepted request body (as REST).
const MAX_BODY: usize = 1 << 20;

/// Reads the body up to [`MAX_BODY`]; `None` when it is larger (or the stream fails).
async fn read_body(mut payload: web::Payload) -> Option<Vec<u8>> {
    use futures::StreamExt;
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.ok()?;
        if body.len() + chunk.len() > MAX_BODY {
            return None;
        }
        body.extend_from_slice(&chunk);
    }
    Some(body)
}

/// The fingerprint of a GraphQL request for its `Idempotency-Key`: its `query`,
/// `operationName` and `variables` as parsed JSON (member order and whitespace outside
/// the query text do not matter).
fn request_hash(request: &serde_json::Map<String, Value>) -> String {
    let meaning = json!({
        "query": request.get("query"),
        "operationName": request.get("operationName"),
        "variables": request.get("variables"),
    });
    let text = format!(
        "POST /graphql\n{}",
        ledger_http::input::canonical_json(&meaning)
    );
    ledger_http::auth::sha256_hex(text.as_bytes())
}

/// `POST /graphql`.
pub async fn graphql<St: Store>(
    state: web::Data<AppState<St>>,
    schema: web::Data<Schema<St>>,
    req: HttpRequest,
    payload: web::Payload,
) -> HttpResponse {
    let principal = match ledger_http::auth::authenticate(&state, &req).await {
        Ok(p) => p,
        Err(e) => return refused(&e.0),
    };
    let Some(body) = read_body(payload).await else {
        return errors_only(
            StatusCode::PAYLOAD_TOO_LARGE,
            vec![json!({
                "message": "the request body exceeds 1 MiB",
                "extensions": { "code": GRAPHQL_VALIDATION_FAILED },
            })],
        );
    };
    let Ok(Value::Object(request)) = serde_json::from_slice::<Value>(&body) else {
        return bad_request(
            "the body must be a JSON object with 'query', and optionally 'variables' and 'operationName'",
        );
    };
    let Some(query) = request.get("query").and_then(Value::as_str) else {
        return bad_request("'query' must be a string holding the GraphQL document");
    };
    let operation_name = match request.get("operationName") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(name.as_str()),
        Some(_) => return bad_request("'operationName' must be a string"),
    };
    let variables: Variables<DefaultScalarValue> = match request.get("variables") {
        None | Some(Value::Null) => Variables::default(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| (k.clone(), json_to_input(v)))
            .collect(),
        Some(_) => return bad_request("'variables' must be a JSON object"),
    };
    let operation = match ValidatedOperation::new(query, operation_name, schema.get_ref()) {
        Ok(op) => op,
        Err(e) => return invalid_document(&e),
    };
    let origin = {
        let info = req.connection_info();
        format!("{}://{}", info.scheme(), info.host())
    };
    let idempotency = match ledger_http::input::idempotency_key(&req) {
        Ok(key) => key.map(|key| RequestKey {
            key,
            request_hash: request_hash(&request),
            writes: AtomicU32::new(0),
        }),
        Err(e) => return refused(&e.0),
    };
    let ctx = Ctx {
        ledger: state.ledger.clone(),
        principal,
        origin,
        idempotency,
    };
    match operation.execute(&variables, &ctx).await {
        Ok(result) => executed(GraphQLResponse::from_result(Ok(result))),
        Err(e) => invalid_document(&e),
    }
}

/// The answer of an executed operation: 200, or 503 with `Retry-After` when a field
/// failed because the database could not be reached (the rest of the data cannot be
/// trusted to be whole then, and clients and load balancers retry a 503).
fn executed(response: GraphQLResponse) -> HttpResponse {
    let body = serde_json::to_value(&response).unwrap_or(Value::Null);
    let unavailable = body["errors"].as_array().is_some_and(|errors| {
        errors
            .iter()
            .any(|e| e["extensions"]["code"] == crate::errors::SERVICE_UNAVAILABLE)
    });
    if !unavailable {
        return HttpResponse::Ok().json(body);
    }
    let mut res = HttpResponse::ServiceUnavailable().json(body);
    res.headers_mut().insert(
        actix_web::http::header::RETRY_AFTER,
        actix_web::http::header::HeaderValue::from(ledger_domain::error::UNAVAILABLE_RETRY_AFTER),
    );
    res
}
