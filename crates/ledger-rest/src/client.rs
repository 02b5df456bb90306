//! The in-process REST client: one request to the REST `App`, served without a TCP hop
//! (every MCP tool call is one such request, with the caller's credentials).
//!
//! actix services are `!Send` (they hold `Rc`s), while jsonrpsee's async methods must
//! return `Send` futures. So the REST `App` lives on one dedicated thread that runs a
//! current-thread tokio runtime with a `LocalSet`; callers send it [`RestRequest`]s over a
//! channel (which is `Send`) and get the [`RestResponse`] back on a oneshot. The thread
//! spawns each request as a local task, so calls run concurrently while they wait on the
//! database; the CPU work of a REST handler is small next to that wait.

use std::rc::Rc;

use actix_service::{IntoServiceFactory, Service, ServiceFactory};
use actix_web::dev::AppConfig;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::{Method, Uri};
use actix_web::{App, web};
use ledger_domain::ports::Store;
use ledger_http::AppState;
use tokio::sync::{mpsc, oneshot};

/// One REST request made on behalf of an MCP caller.
#[derive(Debug, Clone)]
pub struct RestRequest {
    pub method: Method,
    /// Path and query, e.g. `/organizations/org_1/accounts?limit=10`.
    pub path_and_query: String,
    /// The caller's `Authorization` header, forwarded unchanged.
    pub authorization: Option<String>,
    /// `Prefer: wait=30` for queued writes, so the agent reads its own write.
    pub prefer_wait: bool,
    /// JSON body, if any.
    pub body: Option<Vec<u8>>,
    /// `X-Request-Id` to serve the request under (the MCP request's own id, so a tool's
    /// error envelope and the MCP response name the same request); `None` for a new id.
    pub request_id: Option<String>,
    /// Further request headers (x402's `PAYMENT-SIGNATURE`).
    pub headers: Vec<(&'static str, String)>,
}

/// The REST answer: status and body bytes.
#[derive(Debug, Clone)]
pub struct RestResponse {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    /// x402's `PAYMENT-REQUIRED` and `PAYMENT-RESPONSE` headers, when the answer has them.
    pub payment_required: Option<String>,
    pub payment_response: Option<String>,
}

type Job = (RestRequest, oneshot::Sender<RestResponse>);

/// A handle to the REST dispatcher thread; cheap to clone, `Send + Sync`.
#[derive(Clone)]
pub struct RestClient {
    tx: mpsc::UnboundedSender<Job>,
}

/// Error when the dispatcher thread is gone (server shutting down).
#[derive(Debug)]
pub struct RestUnavailable;

impl RestClient {
    /// Starts the dispatcher thread serving the REST routes over `state`.
    ///
    /// # Errors
    /// When the thread or its runtime cannot be created.
    pub fn start<S: Store>(state: web::Data<AppState<S>>) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::unbounded_channel::<Job>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("ledger-mcp-rest".into())
            .spawn(move || {
                let local = tokio::task::LocalSet::new();
                local.block_on(&runtime, serve::<S>(state, rx));
            })?;
        Ok(Self { tx })
    }

    /// Performs one REST request.
    ///
    /// # Errors
    /// [`RestUnavailable`] when the dispatcher has stopped.
    pub async fn call(&self, request: RestRequest) -> Result<RestResponse, RestUnavailable> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send((request, reply))
            .map_err(|_| RestUnavailable)?;
        answer.await.map_err(|_| RestUnavailable)
    }
}

/// Builds the REST `App` exactly as the server does and serves jobs until every
/// [`RestClient`] is dropped.
async fn serve<S: Store>(state: web::Data<AppState<S>>, mut rx: mpsc::UnboundedReceiver<Job>) {
    let app = App::new()
        .app_data(state)
        .app_data(web::QueryConfig::default().error_handler(ledger_http::query_error_handler))
        .configure(crate::configure::<S>)
        .default_service(web::to(ledger_http::not_found))
        .wrap(actix_web::middleware::from_fn(ledger_http::with_request_id));
    let service = match app.into_factory().new_service(AppConfig::default()).await {
        Ok(service) => Rc::new(service),
        Err(()) => {
            tracing::error!("the in-process REST service could not be built");
            return;
        }
    };
    while let Some((request, reply)) = rx.recv().await {
        let service = Rc::clone(&service);
        tokio::task::spawn_local(async move {
            let response = match to_actix(&request) {
                Some(req) => match service.call(req).await {
                    Ok(res) => {
                        let status = res.status().as_u16();
                        let header = |name: &str| {
                            res.headers()
                                .get(name)
                                .and_then(|v| v.to_str().ok())
                                .map(str::to_owned)
                        };
                        let content_type = header("content-type");
                        let payment_required = header("payment-required");
                        let payment_response = header("payment-response");
                        match actix_web::body::to_bytes(res.into_body()).await {
                            Ok(bytes) => RestResponse {
                                status,
                                content_type,
                                body: bytes.to_vec(),
                                payment_required,
                                payment_response,
                            },
                            Err(_) => internal("the REST response body could not be read"),
                        }
                    }
                    Err(e) => {
                        let res = e.error_response();
                        let status = res.status().as_u16();
                        let body = actix_web::body::to_bytes(res.into_body())
                            .await
                            .map(|b| b.to_vec())
                            .unwrap_or_default();
                        RestResponse {
                            status,
                            content_type: Some("application/json".into()),
                            body,
                            payment_required: None,
                            payment_response: None,
                        }
                    }
                },
                None => internal("the tool produced a request that is not valid HTTP"),
            };
            // The caller may have gone away; nothing to do then.
            let _ = reply.send(response);
        });
    }
}

fn internal(message: &str) -> RestResponse {
    tracing::error!(message, "in-process REST call failed");
    let (status, body) =
        ledger_http::error::envelope(&ledger_domain::DomainError::Internal(message.to_owned()));
    RestResponse {
        status: status.as_u16(),
        content_type: Some("application/json".into()),
        body: body.to_string().into_bytes(),
        payment_required: None,
        payment_response: None,
    }
}

fn to_actix(request: &RestRequest) -> Option<actix_http::Request> {
    let body = request.body.clone().unwrap_or_default();
    let has_body = request.body.is_some();
    let length = body.len();
    let mut req = actix_http::Request::with_payload(actix_http::Payload::from(
        actix_web::web::Bytes::from(body),
    ));
    let head = req.head_mut();
    head.method = request.method.clone();
    head.uri = request.path_and_query.parse::<Uri>().ok()?;
    let headers = &mut head.headers;
    if let Some(auth) = &request.authorization {
        headers.insert(
            HeaderName::from_static("authorization"),
            HeaderValue::from_str(auth).ok()?,
        );
    }
    if has_body {
        headers.insert(
            HeaderName::from_static("content-type"),
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            HeaderName::from_static("content-length"),
            HeaderValue::from(length),
        );
    }
    if request.prefer_wait {
        headers.insert(
            HeaderName::from_static("prefer"),
            HeaderValue::from_static("wait=30"),
        );
    }
    if let Some(id) = &request.request_id {
        headers.insert(
            HeaderName::from_static("x-request-id"),
            HeaderValue::from_str(id).ok()?,
        );
    }
    for (name, value) in &request.headers {
        headers.insert(
            HeaderName::from_bytes(name.as_bytes()).ok()?,
            HeaderValue::from_str(value).ok()?,
        );
    }
    Some(req)
}
