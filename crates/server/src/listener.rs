//! The HTTP listener: the transport policy and TLS of the configuration, the app every
//! HTTP worker runs, and `start`, which builds the service, spawns its background work
//! and serves it.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{App, HttpServer, web};
use anyhow::Context;
use ledger_domain::ports::Clock;
use ledger_http::AppState;
use ledger_http::transport::TransportPolicy;
use ledger_store::Db;
use tokio::sync::watch;

use crate::wiring::{
    check_webhooks, identity_providers, ledger, payments, rate_limits, x402_config,
};
use crate::workers::{
    spawn_credit_reset, spawn_every, spawn_oauth_purge, spawn_purge, spawn_recurring,
    spawn_transfer_expiry, spawn_webhooks, spawn_workers,
};
use crate::{AppLedger, Config, Environment, TokioRuntime};

/// How often the metrics recorder folds its histogram samples into their buckets
/// (`ledger_http::metrics::upkeep`; the exporter's own upkeep task runs every 5 s).
const METRICS_UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// A running server: its address and a handle to stop it.
pub struct Running {
    pub addr: std::net::SocketAddr,
    pub ledger: AppLedger,
    server: actix_web::dev::ServerHandle,
    stop_workers: watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    http: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Stops accepting requests, lets in-flight requests and claimed jobs finish, then returns.
    pub async fn stop(self) {
        self.server.stop(true).await;
        let _ = self.http.await;
        let _ = self.stop_workers.send(true);
        for task in self.tasks {
            let _ = task.await;
        }
    }

    /// Waits until the HTTP server ends (on SIGINT/SIGTERM), then stops the workers.
    pub async fn wait(self) -> anyhow::Result<()> {
        let result = self.http.await;
        let _ = self.stop_workers.send(true);
        for task in self.tasks {
            let _ = task.await;
        }
        result.context("HTTP server task")?.context("HTTP server")
    }
}

/// The transport policy of the configuration: in production, HTTPS only, natively or
/// through the trusted proxies.
///
/// # Errors
/// A malformed proxy list; production with neither TLS nor a trusted proxy (every request
/// would be refused); a certificate without a key or the reverse.
pub fn transport_policy(config: &Config) -> anyhow::Result<TransportPolicy> {
    let trusted_proxies = TransportPolicy::parse_proxies(&config.trusted_proxies)
        .map_err(|e| anyhow::anyhow!("LEDGER_TRUSTED_PROXIES: {e}"))?;
    let native_tls = match (&config.tls_cert, &config.tls_key) {
        (Some(_), Some(_)) => true,
        (None, None) => false,
        _ => anyhow::bail!("LEDGER_TLS_CERT and LEDGER_TLS_KEY must be set together"),
    };
    let require_https = config.environment == Environment::Production;
    if require_https && !native_tls && trusted_proxies.is_empty() {
        anyhow::bail!(
            "production refuses plain HTTP: set LEDGER_TLS_CERT and LEDGER_TLS_KEY to serve \
             HTTPS, or LEDGER_TRUSTED_PROXIES to the proxy that terminates TLS"
        );
    }
    Ok(TransportPolicy {
        require_https,
        native_tls,
        trusted_proxies,
    })
}

/// The rustls server configuration for `--tls-cert` / `--tls-key`, if set.
///
/// # Errors
/// When the files cannot be read or do not hold a certificate chain and a matching key.
pub fn tls_config(config: &Config) -> anyhow::Result<Option<rustls::ServerConfig>> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let (Some(cert), Some(key)) = (&config.tls_cert, &config.tls_key) else {
        return Ok(None);
    };
    let certs = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .with_context(|| format!("reading the certificate chain {cert}"))?;
    anyhow::ensure!(!certs.is_empty(), "{cert} holds no certificate");
    let key = PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("reading the private key {key}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .context("the TLS certificate and key do not match")?;
    Ok(Some(tls))
}

/// Builds the service over `db` with `clock` (the system clock in production; tests may
/// pass their own) and starts the HTTP server on `listener` with workers.
///
/// # Errors
/// When the listener cannot be used.
pub async fn start(
    config: &Config,
    db: Db,
    listener: TcpListener,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<Running> {
    let transport = web::Data::new(transport_policy(config)?);
    check_webhooks(config)?;
    let tls = tls_config(config)?;
    let identity_providers = web::Data::new(identity_providers(config)?);
    let limits = rate_limits(config).await?;
    // Batches of applied writes commit on this (the caller's) runtime, not on an HTTP
    // worker's (`Db::start_group_committer`).
    db.start_group_committer();
    let runtime = TokioRuntime::default();
    let addr = listener.local_addr()?;
    let base_url = base_url(config, tls.is_some(), addr);
    let (live_payments, dev_payments) = payments(config, &base_url)?;
    x402_config(config)?;
    let ledger = ledger(config, db, clock, &runtime)?.with_payments(live_payments, dev_payments);
    let (stop_workers, _) = watch::channel(false);
    let mut tasks = spawn_background(config, &ledger, &runtime, &stop_workers);
    let oauth_urls = oauth_urls(config, &base_url);
    let state = web::Data::new(AppState {
        ledger: ledger.clone(),
        open_signup: config.environment == Environment::Development || config.open_signup,
        admin_token: config.admin_token.clone(),
        limits,
        oauth: oauth_urls.clone(),
    });
    let oauth_urls = web::Data::new(oauth_urls);
    if state.limits.is_some() {
        tasks.push(spawn_limits_shrink(state.clone(), &stop_workers));
    }
    let graphql = web::Data::new(ledger_graphql::schema::<Db>(
        ledger_graphql::GraphqlLimits {
            max_depth: config.graphql_max_depth,
            max_complexity: config.graphql_max_complexity,
        },
    ));
    // MCP: tool calls go to an in-process copy of the REST app.
    let mcp = ledger_mcp::Mcp::start(state.clone(), &base_url).context("starting MCP")?;
    // The process-wide Prometheus recorder, before anything records; its histogram
    // samples are folded into their buckets every few seconds, scraped or not.
    ledger_http::metrics::recorder();
    tasks.push(spawn_every(
        METRICS_UPKEEP_INTERVAL,
        &stop_workers,
        || async {
            ledger_http::metrics::upkeep();
        },
    ));
    let server = http_server(
        config,
        listener,
        tls,
        AppData {
            state,
            transport,
            mcp,
            oauth_urls,
            identity_providers,
            graphql,
        },
    )?;
    let handle = server.handle();
    let http = tokio::spawn(server);
    Ok(Running {
        addr,
        ledger,
        server: handle,
        stop_workers,
        tasks,
        http,
    })
}

/// The service's base URL for metadata and links (MCP, OAuth, the development
/// checkout): the configured one, else the listener's address (`https` with TLS),
/// without a trailing slash. MCP tool calls go to an in-process copy of the REST app.
fn base_url(config: &Config, tls: bool, addr: std::net::SocketAddr) -> String {
    config
        .base_url
        .clone()
        .unwrap_or_else(|| {
            let scheme = if tls { "https" } else { "http" };
            format!("{scheme}://{addr}")
        })
        .trim_end_matches('/')
        .to_owned()
}

/// Where the authorization server (`LEDGER_AUTH_URL`, else this service) and the
/// protected resources are; cookies are secure in production.
fn oauth_urls(config: &Config, base_url: &str) -> ledger_http::OAuthUrls {
    ledger_http::OAuthUrls {
        issuer: config
            .auth_url
            .as_deref()
            .unwrap_or(base_url)
            .trim_end_matches('/')
            .to_owned(),
        base_url: base_url.to_owned(),
        secure_cookies: config.environment == Environment::Production,
    }
}

/// Spawns the queue workers and, with workers, the webhook deliveries, then the periodic
/// sweeps every process runs; all of them stop when `stop_workers` turns true.
fn spawn_background(
    config: &Config,
    ledger: &AppLedger,
    runtime: &TokioRuntime,
    stop_workers: &watch::Sender<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = spawn_workers(ledger, config.workers, runtime, stop_workers);
    if config.workers > 0 {
        let poll = Duration::from_millis(config.webhook_poll_ms.max(1));
        tasks.push(spawn_webhooks(ledger, poll, stop_workers));
    }
    tasks
        .into_iter()
        .chain([
            spawn_purge(ledger, stop_workers),
            spawn_oauth_purge(ledger, stop_workers),
            spawn_transfer_expiry(ledger, stop_workers),
            spawn_recurring(ledger, stop_workers),
            spawn_credit_reset(ledger, stop_workers),
        ])
        .collect()
}

/// Shrinks the rate limiters every minute, until `stop_workers` turns true.
fn spawn_limits_shrink(
    state: web::Data<AppState<Db>>,
    stop_workers: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let mut stop = stop_workers.subscribe();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_secs(60)) => {}
                _ = stop.changed() => break,
            }
            if let Some(limits) = &state.limits {
                limits.shrink();
            }
        }
    })
}

/// The shared handles every HTTP worker's app is built with.
struct AppData {
    state: web::Data<AppState<Db>>,
    transport: web::Data<TransportPolicy>,
    mcp: web::Data<ledger_mcp::Mcp>,
    oauth_urls: web::Data<ledger_http::OAuthUrls>,
    identity_providers: web::Data<ledger_auth::oidc::Providers>,
    graphql: web::Data<ledger_graphql::Schema<Db>>,
}

/// The HTTP server on `listener` (over TLS when `tls` is set), each worker's app with
/// every interface's routes and the middleware every answer goes through; not yet
/// spawned.
///
/// # Errors
/// When the listener cannot be used.
fn http_server(
    config: &Config,
    listener: TcpListener,
    tls: Option<rustls::ServerConfig>,
    data: AppData,
) -> anyhow::Result<actix_web::dev::Server> {
    let AppData {
        state,
        transport,
        mcp,
        oauth_urls,
        identity_providers,
        graphql,
    } = data;
    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(transport.clone())
            .app_data(mcp.clone())
            .app_data(oauth_urls.clone())
            .app_data(identity_providers.clone())
            .app_data(web::QueryConfig::default().error_handler(ledger_http::query_error_handler))
            .configure(ledger_rest::configure::<Db>)
            .configure(ledger_mcp::configure::<Db>)
            .configure(ledger_auth::configure::<Db>)
            .configure(|cfg| ledger_graphql::configure::<Db>(cfg, graphql.clone()))
            .configure(ledger_playground::configure)
            .default_service(web::to(ledger_http::not_found))
            .wrap(actix_web::middleware::from_fn(
                ledger_http::auth::bearer_challenge,
            ))
            // Outermost last: the request id first, then the security headers, then the
            // metrics, then HEAD routed as GET, then the transport check, so even a refused
            // plain-HTTP request carries its id and headers.
            .wrap(actix_web::middleware::from_fn(
                ledger_http::transport::require_https,
            ))
            .wrap(actix_web::middleware::from_fn(ledger_http::head_as_get))
            .wrap(actix_web::middleware::from_fn(
                ledger_http::metrics::record_requests,
            ))
            // Security headers (nosniff everywhere, the page policies on HTML) on every
            // answer, refusals included.
            .wrap(actix_web::middleware::from_fn(
                ledger_http::security::security_headers,
            ))
            .wrap(actix_web::middleware::from_fn(ledger_http::with_request_id))
    })
    .shutdown_timeout(30);
    server = match tls {
        Some(tls) => server.listen_rustls_0_23(listener, tls)?,
        None => server.listen(listener)?,
    };
    if let Some(n) = config.http_workers {
        server = server.workers(n);
    }
    Ok(server.run())
}
