//! `server`: the composition root. Reads configuration, opens the store, wires the
//! services into the REST interface, and runs the HTTP listener and the queue workers.
//! No business rule lives here.
//!
//! The parts: `wiring` (the services, providers and policies the configuration asks
//! for), `workers` (the queue workers and periodic sweeps), `listener` (the HTTP
//! listener and the start of it all).

pub mod config;
mod listener;
pub mod telemetry;
mod wiring;
mod workers;

use anyhow::Context;
use ledger_domain::services::{Ledger, MasterSignup};
use ledger_store::Db;

pub use config::{Cli, Command, Config, Environment, PaymentProviderKind, Switch};
pub use ledger_store::TokioRuntime;
pub use listener::{Running, start, tls_config, transport_policy};
pub use wiring::{
    DEV_X402_PAY_TO, blobs, check_webhooks, identity_providers, ledger, ledger_config, mailer,
    oauth_lifetimes, payments, rate_limits, webhook_policy, x402_config,
};
pub use workers::{
    spawn_credit_reset, spawn_oauth_purge, spawn_purge, spawn_recurring, spawn_transfer_expiry,
    spawn_webhooks, spawn_workers,
};

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
