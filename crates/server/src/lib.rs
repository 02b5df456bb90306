//! `server`: the composition root. Reads configuration, opens the store, wires the
//! services into the REST interface, and runs the HTTP listener and the queue workers.
//! No business rule lives here.

pub mod config;
pub mod telemetry;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{App, HttpServer, web};
use anyhow::Context;
use ledger_domain::ports::Clock;
use ledger_domain::services::{Ledger, LedgerConfig, MasterSignup};
use ledger_http::AppState;
use ledger_http::limits::{LimitConfig, RateLimits};
use ledger_http::limits_redis::RedisLimiter;
use ledger_http::transport::TransportPolicy;
use ledger_store::Db;
use tokio::sync::watch;

pub use config::{Cli, Command, Config, Environment, PaymentProviderKind, Switch};
pub use ledger_store::TokioRuntime;

/// The ledger over the real store.
pub type AppLedger = Ledger<Db>;

/// Opens and migrates the database named by the configuration.
///
/// # Errors
/// When the database cannot be reached or migrated.
pub async fn open_store(config: &Config) -> anyhow::Result<Db> {
    let pool_size = config
        .db_pool
        .unwrap_or_else(|| ledger_store::default_pool_size(&config.database_url));
    let db = Db::connect(&config.database_url, pool_size)
        .await
        .with_context(|| format!("opening {}", redact(&config.database_url)))?;
    db.migrate().await.context("migrating the database")?;
    Ok(db)
}

fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://***{}", &url[..scheme], &url[at..])
        }
        _ => url.to_owned(),
    }
}

/// The services' tunables from the configuration.
pub fn ledger_config(config: &Config) -> LedgerConfig {
    LedgerConfig {
        signup_credits: config.signup_credits,
        // Clamped so the conversion to the domain's signed duration cannot fail.
        key_grace: Duration::from_secs(config.key_grace_seconds.min(i64::MAX as u64))
            .try_into()
            .unwrap_or_default(),
        workers: config.workers,
        job_lease: ledger_domain::jobs::lease_seconds(config.job_lease_seconds),
        account_cache_ttl: Duration::from_millis(config.account_cache_ms),
        key_cache_ttl: Duration::from_millis(config.key_cache_ms),
        run_inline: config.inline_jobs,
        transfer_expiry: Duration::from_secs(u64::from(config.transfer_expiry_days) * 86_400)
            .try_into()
            .unwrap_or_default(),
        max_attachment_bytes: config.max_attachment_bytes,
        webhooks: webhook_policy(config),
        monthly_credits: config.monthly_credits.max(0),
        // Checked at start (`payments`); a malformed list falls back to the defaults here.
        credit_packages: ledger_domain::credits::parse_packages(&config.credit_packages)
            .unwrap_or_else(|_| ledger_domain::credits::default_packages()),
        // Checked at start (`x402_config`); a malformed setting leaves x402 off here.
        x402: x402_config(config).ok().flatten(),
        oauth_lifetimes: oauth_lifetimes(config),
        ..LedgerConfig::default()
    }
}

/// The lifetimes of OAuth codes, tokens, sign-in links and sessions (each at least one
/// unit).
pub fn oauth_lifetimes(config: &Config) -> ledger_domain::oauth::OAuthLifetimes {
    use time::Duration as Span;
    ledger_domain::oauth::OAuthLifetimes {
        code: Span::seconds(i64::from(config.oauth_code_seconds.max(1))),
        access_token: Span::seconds(i64::from(config.oauth_access_token_seconds.max(1))),
        refresh_token: Span::days(i64::from(config.oauth_refresh_token_days.max(1))),
        sign_in_link: Span::minutes(i64::from(config.sign_in_link_minutes.max(1))),
        session: Span::hours(i64::from(config.session_hours.max(1))),
    }
}

/// The webhook delivery policy of the configuration. Private targets are allowed in
/// development unless turned off, and never in production (`check_webhooks` refuses
/// to start with them).
pub fn webhook_policy(config: &Config) -> ledger_domain::webhooks::WebhookPolicy {
    ledger_domain::webhooks::WebhookPolicy {
        backoff_base: Duration::from_millis(config.webhook_backoff_ms),
        backoff_cap: Duration::from_millis(
            config.webhook_backoff_cap_ms.max(config.webhook_backoff_ms),
        ),
        max_attempts: config.webhook_max_attempts.max(1),
        disable_after: config.webhook_disable_after.max(1),
        timeout: Duration::from_millis(config.webhook_timeout_ms.max(1)),
        settle: Duration::from_millis(config.webhook_settle_ms),
        allow_private: config.environment == Environment::Development
            && config.webhook_allow_private.unwrap_or(true),
        ..ledger_domain::webhooks::WebhookPolicy::default()
    }
}

/// Refuses a production configuration that would deliver webhooks to private addresses.
///
/// # Errors
/// `LEDGER_WEBHOOK_ALLOW_PRIVATE=true` with `LEDGER_ENV=production`.
pub fn check_webhooks(config: &Config) -> anyhow::Result<()> {
    if config.environment == Environment::Production && config.webhook_allow_private == Some(true) {
        anyhow::bail!(
            "LEDGER_WEBHOOK_ALLOW_PRIVATE=true is refused in production: webhooks are never \
             delivered to loopback, private or link-local addresses there"
        );
    }
    Ok(())
}

/// Runs the webhook fan-out and deliveries until `stop` turns true: a pass right after
/// a busy one, else after `poll`. Every step is safe with several replicas (idempotent
/// fan-out, claims that never share a delivery).
pub fn spawn_webhooks(
    ledger: &AppLedger,
    poll: Duration,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    let mut stop = stop.subscribe();
    tokio::spawn(async move {
        loop {
            if *stop.borrow() {
                break;
            }
            let claimed = match ledger.run_webhooks().await {
                Ok(n) => n,
                Err(e) => {
                    tracing::error!(error = %e, "a webhook pass failed");
                    0
                }
            };
            if claimed == 0 {
                tokio::select! {
                    _ = tokio::time::sleep(poll) => {}
                    _ = stop.changed() => break,
                }
            }
        }
    })
}

/// The payment provider of live-mode purchases and the development checkout, for a
/// service reached at `base_url`.
///
/// # Errors
/// A malformed `LEDGER_CREDIT_PACKAGES`; `stripe` without its secret key or webhook
/// secret.
pub fn payments(
    config: &Config,
    base_url: &str,
) -> anyhow::Result<(
    Arc<dyn ledger_domain::ports::PaymentProvider>,
    ledger_domain::ports::DevPayments,
)> {
    ledger_domain::credits::parse_packages(&config.credit_packages)
        .map_err(|e| anyhow::anyhow!("LEDGER_CREDIT_PACKAGES: {e}"))?;
    let dev = ledger_domain::ports::DevPayments {
        base_url: base_url.to_owned(),
    };
    let kind =
        config
            .payment_provider
            .unwrap_or(match (config.environment, &config.stripe_secret_key) {
                (Environment::Development, None) => PaymentProviderKind::Dev,
                (_, Some(_)) => PaymentProviderKind::Stripe,
                (Environment::Production, None) => PaymentProviderKind::None,
            });
    let live: Arc<dyn ledger_domain::ports::PaymentProvider> = match kind {
        PaymentProviderKind::Dev => Arc::new(dev.clone()),
        PaymentProviderKind::None => Arc::new(ledger_domain::ports::NoPayments),
        PaymentProviderKind::Stripe => {
            let (Some(secret_key), Some(webhook_secret)) =
                (&config.stripe_secret_key, &config.stripe_webhook_secret)
            else {
                anyhow::bail!(
                    "the stripe payment provider needs LEDGER_STRIPE_SECRET_KEY and \
                     LEDGER_STRIPE_WEBHOOK_SECRET"
                );
            };
            let base = base_url.trim_end_matches('/');
            Arc::new(ledger_payments::Stripe::new(
                ledger_payments::StripeConfig {
                    secret_key: secret_key.clone(),
                    webhook_secret: webhook_secret.clone(),
                    api_base: config.stripe_api_base.clone(),
                    default_success_url: format!("{base}/checkout/return?status=success"),
                    default_cancel_url: format!("{base}/checkout/return?status=cancel"),
                },
            ))
        }
    };
    Ok((live, dev))
}

/// The address x402 payments go to in development when `LEDGER_X402_PAY_TO` is not set
/// (no funds move in development: the local facilitator settles nothing).
pub const DEV_X402_PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

/// The x402 configuration: `None` when x402 purchases are off.
///
/// # Errors
/// A malformed network, asset, pay-to address or decimals; x402 on in production (the
/// only facilitator is the local one, which moves no funds, so purchases would be free).
pub fn x402_config(config: &Config) -> anyhow::Result<Option<ledger_domain::x402::X402Config>> {
    let development = config.environment == Environment::Development;
    let enabled = config
        .x402_enabled
        .unwrap_or(if development { Switch::On } else { Switch::Off });
    if enabled == Switch::Off {
        return Ok(None);
    }
    if !development {
        anyhow::bail!(
            "LEDGER_X402_ENABLED=on needs a facilitator that settles on chain; this build has \
             only the local one, which moves no funds (development only)"
        );
    }
    let pay_to = config.x402_pay_to.as_deref().unwrap_or(DEV_X402_PAY_TO);
    ledger_domain::x402::X402Config::new(
        &config.x402_network,
        &config.x402_asset,
        &config.x402_asset_name,
        &config.x402_asset_version,
        config.x402_asset_decimals,
        pay_to,
        config.x402_max_timeout_seconds,
    )
    .map(Some)
    .map_err(|e| anyhow::anyhow!("LEDGER_X402_*: {e}"))
}

/// The rate limiters the configuration asks for: none, in-process, or shared via Redis.
///
/// # Errors
/// When `REDIS_URL` is set but Redis cannot be reached at start.
pub async fn rate_limits(config: &Config) -> anyhow::Result<Option<RateLimits>> {
    if config.rate_limits == Switch::Off {
        return Ok(None);
    }
    let budgets = LimitConfig {
        live_per_minute: config.rate_limit_live,
        test_per_minute: config.rate_limit_test,
        organization_per_minute: config.rate_limit_organization,
        system_per_hour: config.rate_limit_system,
        auth_per_minute: config.rate_limit_auth,
    };
    Ok(Some(match &config.redis_url {
        Some(url) => {
            let redis = RedisLimiter::connect(url, &config.redis_prefix)
                .await
                .with_context(|| format!("connecting to Redis at {}", redact(url)))?;
            RateLimits::shared(budgets, redis)
        }
        None => RateLimits::new(budgets),
    }))
}

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

/// Starts queue workers; they run until `stop` turns true, finishing the job in hand.
pub fn spawn_workers(
    ledger: &AppLedger,
    count: usize,
    runtime: &TokioRuntime,
    stop: &watch::Sender<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..count)
        .map(|n| {
            let ledger = ledger.clone();
            let wake = runtime.wake.clone();
            let mut stop = stop.subscribe();
            tokio::spawn(async move {
                tracing::debug!(worker = n, "queue worker started");
                loop {
                    if *stop.borrow() {
                        break;
                    }
                    let claimed = match ledger.run_batch(16).await {
                        Ok(n) => n,
                        Err(e) => {
                            tracing::error!(error = %e, "claiming jobs failed");
                            0
                        }
                    };
                    if claimed == 0 {
                        tokio::select! {
                            _ = wake.notified() => {}
                            _ = stop.changed() => {}
                            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                        }
                    }
                }
                tracing::debug!(worker = n, "queue worker stopped");
            })
        })
        .collect()
}

/// How often the metrics recorder folds its histogram samples into their buckets
/// (`ledger_http::metrics::upkeep`; the exporter's own upkeep task runs every 5 s).
const METRICS_UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// How often the soft-delete purge runs (DECISIONS 5: daily).
const PURGE_INTERVAL: Duration = Duration::from_secs(24 * 60 * 60);

/// Runs `pass` now and then every `interval`, until `stop` turns true (the periodic
/// sweeps every replica runs: purge, OAuth purge, transfer expiry, recurring, credit
/// reset).
fn spawn_every<F, Fut>(
    interval: Duration,
    stop: &watch::Sender<bool>,
    mut pass: F,
) -> tokio::task::JoinHandle<()>
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let mut stop = stop.subscribe();
    tokio::spawn(async move {
        loop {
            if *stop.borrow() {
                break;
            }
            pass().await;
            tokio::select! {
                _ = tokio::time::sleep(interval) => {}
                _ = stop.changed() => break,
            }
        }
    })
}

/// Runs the purge of expired soft-deleted rows once now and then daily, until `stop`
/// turns true. A failed run is logged and retried at the next interval.
pub fn spawn_purge(ledger: &AppLedger, stop: &watch::Sender<bool>) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(PURGE_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            if let Err(e) = ledger.purge_expired().await {
                tracing::error!(error = %e, "purging expired soft-deleted rows failed");
            }
        }
    })
}

/// How often expired and revoked OAuth secrets (codes, tokens, sessions, sign-in links)
/// are deleted. They stop working at expiry without it; this only keeps the table small.
const OAUTH_PURGE_INTERVAL: Duration = Duration::from_secs(60 * 60);

/// Runs the purge of expired and revoked OAuth secrets now and then hourly, until `stop`
/// turns true. Deleting what is already gone is a no-op, so every replica may run it.
pub fn spawn_oauth_purge(
    ledger: &AppLedger,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(OAUTH_PURGE_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            if let Err(e) = ledger.purge_oauth_secrets().await {
                tracing::error!(error = %e, "purging expired OAuth secrets failed");
            }
        }
    })
}

/// How often pending ownership transfers past their expiry are stored as expired (they
/// read as expired at once; this stores the status and the event).
const TRANSFER_EXPIRY_INTERVAL: Duration = Duration::from_secs(5 * 60);

/// Runs the expiry of ownership transfers now and then every few minutes, until `stop`
/// turns true. Each expiry is a compare-and-set, so every replica may run it.
pub fn spawn_transfer_expiry(
    ledger: &AppLedger,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(TRANSFER_EXPIRY_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            if let Err(e) = ledger.expire_organization_transfers().await {
                tracing::error!(error = %e, "expiring organization transfers failed");
            }
        }
    })
}

/// How often the scheduler looks for due recurring occurrences.
const RECURRING_INTERVAL: Duration = Duration::from_secs(60);

/// Runs the recurring scheduler now and then every minute, until `stop` turns true: every
/// occurrence due up to today is generated (catching up after downtime). Each occurrence
/// is written once whichever replica or worker process generates it (see
/// `ledger_domain::services::Ledger::run_due_recurring`), so every process may run it.
pub fn spawn_recurring(
    ledger: &AppLedger,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(RECURRING_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            match ledger.run_due_recurring().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(runs = n, "recurring occurrences generated"),
                Err(e) => tracing::error!(error = %e, "the recurring scheduler failed"),
            }
        }
    })
}

/// How often pools not yet reset for the current month are looked for. A reset is
/// exactly-once per pool and month, so every replica runs the sweep.
const CREDIT_RESET_INTERVAL: Duration = Duration::from_secs(10 * 60);

/// Runs the monthly credit reset now and then every few minutes, until `stop` turns true.
pub fn spawn_credit_reset(
    ledger: &AppLedger,
    stop: &watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let ledger = ledger.clone();
    spawn_every(CREDIT_RESET_INTERVAL, stop, move || {
        let ledger = ledger.clone();
        async move {
            match ledger.reset_monthly_credits().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(pools = n, "monthly credits reset"),
                Err(e) => tracing::error!(error = %e, "resetting monthly credits failed"),
            }
        }
    })
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

/// The service over `db`, reading time from `clock`, its background work on `runtime`.
///
/// # Errors
/// When the webhook HTTP client cannot be built.
pub fn ledger(
    config: &Config,
    db: Db,
    clock: Arc<dyn Clock>,
    runtime: &TokioRuntime,
) -> anyhow::Result<AppLedger> {
    let transport = ledger_webhooks::HttpWebhookTransport::new().context("webhook HTTP client")?;
    Ok(
        Ledger::new(db, clock, Arc::new(runtime.clone()), ledger_config(config))
            .with_blobs(blobs(config))
            .with_tokens(Arc::new(ledger_http::auth::RingTokens))
            .with_mailer(mailer(config)?)
            .with_webhook_transport(Arc::new(transport)),
    )
}

/// Where sign-in mail goes: the SMTP relay of `LEDGER_SMTP_URL`, else the outbox
/// directory.
///
/// # Errors
/// When the SMTP URL or the sender address is not usable.
pub fn mailer(config: &Config) -> anyhow::Result<Arc<dyn ledger_domain::ports::Mailer>> {
    Ok(match &config.smtp_url {
        Some(url) => Arc::new(
            ledger_auth::smtp::SmtpMailer::new(url, &config.mail_from)
                .map_err(anyhow::Error::msg)?,
        ),
        None => Arc::new(ledger_auth::outbox::OutboxMailer::new(
            &config.mail_outbox,
            config.mail_from.clone(),
        )),
    })
}

/// The external OpenID Connect providers of `LEDGER_OIDC_PROVIDERS` (none when unset).
///
/// # Errors
/// When the provider list is not valid.
pub fn identity_providers(config: &Config) -> anyhow::Result<ledger_auth::oidc::Providers> {
    match config.oidc_providers.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => ledger_auth::oidc::Providers::from_json(text),
        _ => ledger_auth::oidc::Providers::none(),
    }
    .map_err(anyhow::Error::msg)
}

/// The blob store of attachment bytes: the S3-compatible bucket when one is configured,
/// else the local directory.
pub fn blobs(config: &Config) -> Arc<dyn ledger_domain::ports::Blobs> {
    match &config.s3_bucket {
        Some(bucket) => Arc::new(ledger_store::S3Blobs::new(ledger_store::S3Config {
            endpoint: config.s3_endpoint.clone(),
            bucket: bucket.clone(),
            region: config.s3_region.clone(),
            access_key_id: config.s3_access_key_id.clone(),
            secret_access_key: config.s3_secret_access_key.clone(),
        })),
        None => Arc::new(ledger_store::LocalBlobs::new(&config.blob_dir)),
    }
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
    // Base URL for metadata and links (MCP, OAuth, the development checkout); MCP tool
    // calls go to an in-process copy of the REST app.
    let base_url = config
        .base_url
        .clone()
        .unwrap_or_else(|| {
            let scheme = if tls.is_some() { "https" } else { "http" };
            format!("{scheme}://{addr}")
        })
        .trim_end_matches('/')
        .to_owned();
    let (live_payments, dev_payments) = payments(config, &base_url)?;
    x402_config(config)?;
    let ledger = ledger(config, db, clock, &runtime)?.with_payments(live_payments, dev_payments);
    let (stop_workers, _) = watch::channel(false);
    let mut tasks = spawn_workers(&ledger, config.workers, &runtime, &stop_workers);
    if config.workers > 0 {
        let poll = Duration::from_millis(config.webhook_poll_ms.max(1));
        tasks.push(spawn_webhooks(&ledger, poll, &stop_workers));
    }
    let tasks: Vec<_> = tasks
        .into_iter()
        .chain([
            spawn_purge(&ledger, &stop_workers),
            spawn_oauth_purge(&ledger, &stop_workers),
            spawn_transfer_expiry(&ledger, &stop_workers),
            spawn_recurring(&ledger, &stop_workers),
            spawn_credit_reset(&ledger, &stop_workers),
        ])
        .collect();
    let oauth_urls = ledger_http::OAuthUrls {
        issuer: config
            .auth_url
            .as_deref()
            .unwrap_or(&base_url)
            .trim_end_matches('/')
            .to_owned(),
        base_url: base_url.clone(),
        secure_cookies: config.environment == Environment::Production,
    };
    let state = web::Data::new(AppState {
        ledger: ledger.clone(),
        open_signup: config.environment == Environment::Development || config.open_signup,
        admin_token: config.admin_token.clone(),
        limits,
        oauth: oauth_urls.clone(),
    });
    let oauth_urls = web::Data::new(oauth_urls);
    let mut tasks = tasks;
    if state.limits.is_some() {
        let state = state.clone();
        let mut stop = stop_workers.subscribe();
        tasks.push(tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(60)) => {}
                    _ = stop.changed() => break,
                }
                if let Some(limits) = &state.limits {
                    limits.shrink();
                }
            }
        }));
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
    let server = server.run();
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

/// On first start in development, makes a demo organization and prints its test key.
///
/// # Errors
/// Storage failures.
pub async fn ensure_demo(ledger: &AppLedger) -> anyhow::Result<()> {
    const DEMO_PROVIDER_ID: &str = "ledger-demo";
    if ledger.user_exists(DEMO_PROVIDER_ID).await? {
        return Ok(());
    }
    let result = ledger
        .sign_up_master(MasterSignup {
            name: "Demo Company".into(),
            user_provider_id: DEMO_PROVIDER_ID.into(),
            user_email: "demo@example.com".into(),
            provider_username: Some("demo".into()),
            base_currency: None,
            test_key: ledger_http::auth::generate_key(false)?,
            live_key: ledger_http::auth::generate_key(true)?,
        })
        .await?;
    let test_key = result
        .keys
        .iter()
        .find(|(k, _)| !k.livemode)
        .map(|(_, s)| s.clone())
        .unwrap_or_default();
    println!("Demo organization: {}", result.organization.id);
    println!("Demo test API key (shown once): {test_key}");
    Ok(())
}
