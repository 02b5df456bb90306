//! Configuration wiring: the services' tunables, the webhook, payment and x402 policies,
//! the rate limiters, the mailer, the identity providers, the blob store, and the ledger
//! built over them.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use ledger_domain::ports::Clock;
use ledger_domain::services::{Ledger, LedgerConfig};
use ledger_http::limits::{LimitConfig, RateLimits};
use ledger_http::limits_redis::RedisLimiter;
use ledger_store::Db;

use crate::{AppLedger, Config, Environment, PaymentProviderKind, Switch, TokioRuntime, redact};

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
