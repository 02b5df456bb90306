//! Configuration from the environment (DECISIONS 1), shown by `ledger-server --help`.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Ledger: a headless, multi-tenant, double-entry accounting service.
///
/// Every option below can also be set by its environment variable or, with `--config`,
/// in a TOML file (keys are the option names with underscores). Flags win over the
/// environment, which wins over the file.
#[derive(Debug, Parser)]
#[command(name = "ledger-server", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub config: Config,
}

/// What to run.
#[derive(Debug, Clone, Copy, Subcommand)]
pub enum Command {
    /// Serve the API with in-process workers (the default).
    Serve,
    /// Run queue workers only, without the HTTP listener.
    Worker,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Recompute every maintained balance (running and daily totals) from the journal,
    /// print each difference, and exit 1 if there is any.
    VerifyBalances,
    /// Speak MCP over stdin and stdout for a local agent, forwarding every message to a
    /// running server: `API_BASE_URL` (default `http://127.0.0.1:8080`), `API_KEY` and
    /// optionally `ORGANIZATION_ID` (as the `ledger-mcp` binary does). Opens no database.
    Mcp,
}

/// Deployment mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Environment {
    Development,
    Production,
}

/// Which payment provider takes live-mode credit purchases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PaymentProviderKind {
    /// The development checkout page served by this service (no money moves).
    Dev,
    /// Stripe Checkout (`LEDGER_STRIPE_SECRET_KEY`, `LEDGER_STRIPE_WEBHOOK_SECRET`).
    Stripe,
    /// No live purchases.
    None,
}

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// Every setting, each from an environment variable or a flag.
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// Optional TOML file whose keys (the flag names with underscores) give defaults.
    #[arg(long = "config", env = "LEDGER_CONFIG")]
    pub config_file: Option<String>,
    /// Listen address.
    #[arg(long, env = "LEDGER_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// `sqlite://PATH` (embedded default) or `postgres://...` (production).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://./data/ledger.sqlite"
    )]
    pub database_url: String,
    /// `development` (open sign-up, demo organization) or `production`.
    #[arg(
        long = "env",
        env = "LEDGER_ENV",
        value_enum,
        default_value = "development"
    )]
    pub environment: Environment,
    /// Public URL used in metadata and links.
    #[arg(long, env = "LEDGER_BASE_URL")]
    pub base_url: Option<String>,
    /// PEM certificate chain: serve HTTPS natively (needs `--tls-key`).
    #[arg(long, env = "LEDGER_TLS_CERT")]
    pub tls_cert: Option<String>,
    /// PEM private key of `--tls-cert`.
    #[arg(long, env = "LEDGER_TLS_KEY", hide_env_values = true)]
    pub tls_key: Option<String>,
    /// Proxies (IP addresses or CIDR networks, comma-separated) that terminate TLS and
    /// whose `X-Forwarded-Proto: https` is believed. In production a request must come over
    /// native TLS or through one of these; anything else is refused with `https_required`.
    #[arg(long, env = "LEDGER_TRUSTED_PROXIES", default_value = "")]
    pub trusted_proxies: String,
    /// Token that allows `POST /accounts/master` in production.
    #[arg(long, env = "LEDGER_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Allow sign-up without the admin token in production.
    #[arg(long, env = "LEDGER_OPEN_SIGNUP", default_value_t = false)]
    pub open_signup: bool,
    /// Queue workers in this process.
    #[arg(long, env = "LEDGER_WORKERS", default_value_t = 2)]
    pub workers: usize,
    /// Seconds a worker holds a claimed job before another may take it over (a crashed
    /// process's jobs run again after this).
    #[arg(long, env = "LEDGER_JOB_LEASE_SECONDS", default_value_t = 30)]
    pub job_lease_seconds: i64,
    /// Milliseconds a copy of an account read to validate new entries is reused (0: never).
    /// Writes re-check their accounts under lock, so a stale copy never posts to a deleted
    /// or inactive account; another process's account changes show after this long.
    #[arg(long, env = "LEDGER_ACCOUNT_CACHE_MS", default_value_t = 2000)]
    pub account_cache_ms: u64,
    /// Milliseconds the key and organization behind a bearer secret are reused without
    /// reading them again (0: never). Key changes made through this process apply at once;
    /// another process's (rotation, disabling, deletion) show after this long.
    #[arg(long, env = "LEDGER_KEY_CACHE_MS", default_value_t = 2000)]
    pub key_cache_ms: u64,
    /// Run each accepted job at once in the request's process (else only workers run jobs).
    #[arg(long, env = "LEDGER_INLINE_JOBS", default_value_t = true, action = clap::ArgAction::Set)]
    pub inline_jobs: bool,
    /// HTTP worker threads (default: one per core).
    #[arg(long, env = "LEDGER_HTTP_WORKERS")]
    pub http_workers: Option<usize>,
    /// Database connections in the pool (default: 16 on PostgreSQL; on SQLite, 4 readers
    /// beside the one writer, see docs/decisions.md "SQLite memory").
    #[arg(long, env = "LEDGER_DB_POOL")]
    pub db_pool: Option<usize>,
    /// Tracing filter, e.g. `info` or `ledger=debug`.
    #[arg(long, env = "LEDGER_LOG", default_value = "info")]
    pub log: String,
    /// Write logs as JSON lines.
    #[arg(long, env = "LEDGER_LOG_JSON", default_value_t = false)]
    pub log_json: bool,
    /// OpenTelemetry: base URL of an OTLP/HTTP collector (e.g. `http://127.0.0.1:4318`);
    /// request spans are exported as JSON to `{url}/v1/traces`. Unset: no export.
    #[arg(long, env = "LEDGER_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,
    /// OpenTelemetry: the `service.name` of the exported spans.
    #[arg(
        long,
        env = "LEDGER_OTLP_SERVICE_NAME",
        default_value = "ledger-server"
    )]
    pub otlp_service_name: String,
    /// OpenTelemetry: the share of requests traced, 0.0 to 1.0 (a request that arrives
    /// with a sampled parent is traced regardless).
    #[arg(long, env = "LEDGER_OTLP_SAMPLE_RATIO", default_value_t = 1.0)]
    pub otlp_sample_ratio: f64,
    /// `on` or `off` (off only for benchmarks).
    #[arg(long, env = "LEDGER_RATE_LIMITS", value_enum, default_value = "on")]
    pub rate_limits: Switch,
    /// Redis for the rate limiter shared by several replicas (in-process when unset).
    #[arg(long, env = "REDIS_URL")]
    pub redis_url: Option<String>,
    /// Prefix of the limiter's Redis keys.
    #[arg(long, env = "LEDGER_REDIS_PREFIX", default_value = "ledger:ratelimit")]
    pub redis_prefix: String,
    /// Requests per minute of one live key.
    #[arg(long, env = "LEDGER_RATE_LIMIT_LIVE", default_value_t = 1000)]
    pub rate_limit_live: u32,
    /// Requests per minute of one test key.
    #[arg(long, env = "LEDGER_RATE_LIMIT_TEST", default_value_t = 100)]
    pub rate_limit_test: u32,
    /// Requests per minute of one organization, all keys together.
    #[arg(long, env = "LEDGER_RATE_LIMIT_ORGANIZATION", default_value_t = 10_000)]
    pub rate_limit_organization: u32,
    /// Requests per hour to `/system` of one key.
    #[arg(long, env = "LEDGER_RATE_LIMIT_SYSTEM", default_value_t = 60)]
    pub rate_limit_system: u32,
    /// Requests per minute of one client address to each of `/register`, `/token`,
    /// `/revoke` and the sign-in endpoints (`/signin`, `/signin/verify`,
    /// `/signin/oidc/...`).
    #[arg(long, env = "LEDGER_RATE_LIMIT_AUTH", default_value_t = 30)]
    pub rate_limit_auth: u32,
    /// Credits a new root organization starts with.
    #[arg(long, env = "LEDGER_SIGNUP_CREDITS", default_value_t = 500)]
    pub signup_credits: i64,
    /// Seconds a rotated API key's old secret keeps working.
    #[arg(long, env = "LEDGER_KEY_GRACE_SECONDS", default_value_t = 86_400)]
    pub key_grace_seconds: u64,
    /// Days an organization ownership transfer waits for its recipient before it expires.
    #[arg(long, env = "LEDGER_TRANSFER_EXPIRY_DAYS", default_value_t = 7)]
    pub transfer_expiry_days: u32,
    /// Deepest nesting of selection sets a GraphQL document may have.
    #[arg(long, env = "LEDGER_GRAPHQL_MAX_DEPTH", default_value_t = 20)]
    pub graphql_max_depth: usize,
    /// Most fields one GraphQL operation may select (fragments counted once per spread).
    #[arg(long, env = "LEDGER_GRAPHQL_MAX_COMPLEXITY", default_value_t = 1000)]
    pub graphql_max_complexity: usize,
    /// Directory of the local blob store that keeps attachment bytes.
    #[arg(long, env = "LEDGER_BLOB_DIR", default_value = "./data/blobs")]
    pub blob_dir: String,
    /// Bucket of an S3-compatible object store for attachment bytes; when set, it is
    /// used instead of `LEDGER_BLOB_DIR`.
    #[arg(long, env = "LEDGER_S3_BUCKET")]
    pub s3_bucket: Option<String>,
    /// Endpoint of the S3-compatible store (path-style requests).
    #[arg(
        long,
        env = "LEDGER_S3_ENDPOINT",
        default_value = "https://s3.amazonaws.com"
    )]
    pub s3_endpoint: String,
    /// Region the requests are signed for.
    #[arg(long, env = "LEDGER_S3_REGION", default_value = "us-east-1")]
    pub s3_region: String,
    /// Access key id of the S3-compatible store.
    #[arg(long, env = "LEDGER_S3_ACCESS_KEY_ID", default_value = "")]
    pub s3_access_key_id: String,
    /// Secret access key of the S3-compatible store.
    #[arg(
        long,
        env = "LEDGER_S3_SECRET_ACCESS_KEY",
        default_value = "",
        hide_env_values = true
    )]
    pub s3_secret_access_key: String,
    /// Largest attachment upload, in bytes (default 10 MiB).
    #[arg(long, env = "LEDGER_MAX_ATTACHMENT_BYTES", default_value_t = 10 * 1024 * 1024)]
    pub max_attachment_bytes: usize,
    /// Public URL of the OAuth authorization server (its issuer); default: the base URL.
    /// The endpoints are served by this process; a separate URL must route to it.
    #[arg(long, env = "LEDGER_AUTH_URL")]
    pub auth_url: Option<String>,
    /// Directory the sign-in mail is written to, one `.eml` file per message.
    #[arg(long, env = "LEDGER_MAIL_OUTBOX", default_value = "./data/outbox")]
    pub mail_outbox: String,
    /// Sender address of the sign-in mail.
    #[arg(
        long,
        env = "LEDGER_MAIL_FROM",
        default_value = "Ledger <ledger@localhost>"
    )]
    pub mail_from: String,
    /// Seconds an OAuth authorization code may be redeemed.
    #[arg(long, env = "LEDGER_OAUTH_CODE_SECONDS", default_value_t = 60)]
    pub oauth_code_seconds: u32,
    /// Seconds an OAuth access token authenticates.
    #[arg(
        long,
        env = "LEDGER_OAUTH_ACCESS_TOKEN_SECONDS",
        default_value_t = 3600
    )]
    pub oauth_access_token_seconds: u32,
    /// Days an OAuth refresh token may be used (each use issues a new one).
    #[arg(long, env = "LEDGER_OAUTH_REFRESH_TOKEN_DAYS", default_value_t = 30)]
    pub oauth_refresh_token_days: u32,
    /// Minutes an e-mailed sign-in link works.
    #[arg(long, env = "LEDGER_SIGN_IN_LINK_MINUTES", default_value_t = 15)]
    pub sign_in_link_minutes: u32,
    /// Hours a console session (the consent page's sign-in) lasts.
    #[arg(long, env = "LEDGER_SESSION_HOURS", default_value_t = 12)]
    pub session_hours: u32,
    /// SMTP relay of the sign-in mail, lettre's URL form: `smtps://user:pass@host:465`,
    /// `smtp://user:pass@host:587?tls=required`, or `smtp://host:port` (plain). When unset,
    /// mail is written to `LEDGER_MAIL_OUTBOX` (development).
    #[arg(long, env = "LEDGER_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// External OpenID Connect providers of the console sign-in: a JSON array of
    /// `{"id", "name", "issuer", "client_id", "client_secret", "scopes"?, "apple"?}`
    /// (see docs/decisions.md). The callback to register at a provider is
    /// `{auth_url}/signin/oidc/{id}/callback`.
    #[arg(long, env = "LEDGER_OIDC_PROVIDERS", hide_env_values = true)]
    pub oidc_providers: Option<String>,
    /// Deliver webhooks to loopback, private, link-local and other non-public addresses
    /// (default: allowed in development, refused in production, where `true` is an error).
    #[arg(long, env = "LEDGER_WEBHOOK_ALLOW_PRIVATE", action = clap::ArgAction::Set)]
    pub webhook_allow_private: Option<bool>,
    /// Milliseconds a webhook receiver has to answer.
    #[arg(long, env = "LEDGER_WEBHOOK_TIMEOUT_MS", default_value_t = 10_000)]
    pub webhook_timeout_ms: u64,
    /// Milliseconds before a failed delivery's second attempt; each further one doubles
    /// it (with jitter), up to `--webhook-backoff-cap-ms`.
    #[arg(long, env = "LEDGER_WEBHOOK_BACKOFF_MS", default_value_t = 30_000)]
    pub webhook_backoff_ms: u64,
    /// Longest wait between two attempts of a delivery, in milliseconds (default 6 h).
    #[arg(
        long,
        env = "LEDGER_WEBHOOK_BACKOFF_CAP_MS",
        default_value_t = 21_600_000
    )]
    pub webhook_backoff_cap_ms: u64,
    /// Attempts of one delivery before it is given up.
    #[arg(long, env = "LEDGER_WEBHOOK_MAX_ATTEMPTS", default_value_t = 12)]
    pub webhook_max_attempts: i64,
    /// Consecutive failed attempts that disable a webhook endpoint.
    #[arg(long, env = "LEDGER_WEBHOOK_DISABLE_AFTER", default_value_t = 100)]
    pub webhook_disable_after: i64,
    /// Milliseconds an event waits before it is fanned out to webhook endpoints (lets a
    /// concurrent transaction holding an earlier event commit first).
    #[arg(long, env = "LEDGER_WEBHOOK_SETTLE_MS", default_value_t = 2_000)]
    pub webhook_settle_ms: u64,
    /// Milliseconds between two webhook passes when there was nothing to deliver.
    #[arg(long, env = "LEDGER_WEBHOOK_POLL_MS", default_value_t = 1_000)]
    pub webhook_poll_ms: u64,
    /// Free credits of a credit pool each month (reset monthly, without roll-over;
    /// purchased credits survive the reset).
    #[arg(long, env = "LEDGER_MONTHLY_CREDITS", default_value_t = 500)]
    pub monthly_credits: i64,
    /// Credit packages on sale, `credits:price_cents` separated by commas.
    #[arg(
        long,
        env = "LEDGER_CREDIT_PACKAGES",
        default_value = "1000:1000,5000:4500,20000:16000"
    )]
    pub credit_packages: String,
    /// Provider of live-mode credit purchases (default: `dev` in development; in
    /// production `stripe` when its secret key is set, else none). Test-mode purchases
    /// always use the development checkout.
    #[arg(long, env = "LEDGER_PAYMENT_PROVIDER", value_enum)]
    pub payment_provider: Option<PaymentProviderKind>,
    /// Stripe secret API key (`sk_live_...`).
    #[arg(long, env = "LEDGER_STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<String>,
    /// Signing secret of the Stripe webhook endpoint `/webhooks/stripe` (`whsec_...`).
    #[arg(long, env = "LEDGER_STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
    pub stripe_webhook_secret: Option<String>,
    /// Base URL of the Stripe API.
    #[arg(
        long,
        env = "LEDGER_STRIPE_API_BASE",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_base: String,
    /// x402 credit purchases (`POST /organizations/{org}/credits/x402`): on by default in
    /// development; production refuses to start with them on, since the only facilitator
    /// is the local one, which moves no funds.
    #[arg(long, env = "LEDGER_X402_ENABLED", value_enum)]
    pub x402_enabled: Option<Switch>,
    /// The address x402 payments go to (0x + 40 hex; required when x402 is on outside
    /// development, which has a fixed development address).
    #[arg(long, env = "LEDGER_X402_PAY_TO")]
    pub x402_pay_to: Option<String>,
    /// CAIP-2 network of x402 payments (`eip155:<chain id>`; default Base Sepolia).
    #[arg(long, env = "LEDGER_X402_NETWORK", default_value = "eip155:84532")]
    pub x402_network: String,
    /// The token contract x402 payments are made in (default: USDC on Base Sepolia).
    #[arg(
        long,
        env = "LEDGER_X402_ASSET",
        default_value = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
    )]
    pub x402_asset: String,
    /// EIP-712 domain name of the token.
    #[arg(long, env = "LEDGER_X402_ASSET_NAME", default_value = "USDC")]
    pub x402_asset_name: String,
    /// EIP-712 domain version of the token.
    #[arg(long, env = "LEDGER_X402_ASSET_VERSION", default_value = "2")]
    pub x402_asset_version: String,
    /// Decimals of the token (USDC: 6, so one cent is 10 000 atomic units).
    #[arg(long, env = "LEDGER_X402_ASSET_DECIMALS", default_value_t = 6)]
    pub x402_asset_decimals: u32,
    /// How long a signed x402 authorization may be valid (`maxTimeoutSeconds`).
    #[arg(long, env = "LEDGER_X402_MAX_TIMEOUT_SECONDS", default_value_t = 300)]
    pub x402_max_timeout_seconds: u64,
    /// Create a demo organization on first start (development only).
    #[arg(long, env = "LEDGER_DEMO", default_value_t = true, action = clap::ArgAction::Set)]
    pub demo: bool,
}

impl Config {
    /// The defaults, with another database: for tests and tools.
    pub fn with_database(database_url: &str) -> Self {
        Self {
            config_file: None,
            addr: "127.0.0.1:0".into(),
            database_url: database_url.to_owned(),
            environment: Environment::Development,
            base_url: None,
            tls_cert: None,
            tls_key: None,
            trusted_proxies: String::new(),
            admin_token: None,
            open_signup: false,
            workers: 2,
            inline_jobs: true,
            job_lease_seconds: 30,
            account_cache_ms: 2000,
            key_cache_ms: 2000,
            http_workers: Some(2),
            db_pool: Some(8),
            log: "warn".into(),
            log_json: false,
            otlp_endpoint: None,
            otlp_service_name: "ledger-server".into(),
            otlp_sample_ratio: 1.0,
            demo: false,
            signup_credits: 500,
            key_grace_seconds: 86_400,
            transfer_expiry_days: 7,
            // Generous limits keep the headers on every test response without throttling
            // the suites; the rate-limit suite sets small ones.
            rate_limits: Switch::On,
            redis_url: None,
            redis_prefix: "ledger:ratelimit".into(),
            rate_limit_live: 100_000,
            rate_limit_test: 100_000,
            rate_limit_organization: 1_000_000,
            rate_limit_system: 1_000,
            rate_limit_auth: 100_000,
            graphql_max_depth: 20,
            graphql_max_complexity: 1000,
            blob_dir: "./data/blobs".into(),
            s3_bucket: None,
            s3_endpoint: "https://s3.amazonaws.com".into(),
            s3_region: "us-east-1".into(),
            s3_access_key_id: String::new(),
            s3_secret_access_key: String::new(),
            max_attachment_bytes: 10 * 1024 * 1024,
            auth_url: None,
            mail_outbox: "./data/outbox".into(),
            mail_from: "Ledger <ledger@localhost>".into(),
            oauth_code_seconds: 60,
            oauth_access_token_seconds: 3600,
            oauth_refresh_token_days: 30,
            sign_in_link_minutes: 15,
            session_hours: 12,
            smtp_url: None,
            oidc_providers: None,
            webhook_allow_private: None,
            webhook_timeout_ms: 10_000,
            webhook_backoff_ms: 30_000,
            webhook_backoff_cap_ms: 21_600_000,
            webhook_max_attempts: 12,
            webhook_disable_after: 100,
            webhook_settle_ms: 2_000,
            webhook_poll_ms: 1_000,
            monthly_credits: 500,
            credit_packages: "1000:1000,5000:4500,20000:16000".into(),
            payment_provider: None,
            stripe_secret_key: None,
            stripe_webhook_secret: None,
            stripe_api_base: "https://api.stripe.com".into(),
            x402_enabled: None,
            x402_pay_to: None,
            x402_network: "eip155:84532".into(),
            x402_asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into(),
            x402_asset_name: "USDC".into(),
            x402_asset_version: "2".into(),
            x402_asset_decimals: 6,
            x402_max_timeout_seconds: 300,
        }
    }
}

/// Parses the command line and environment, with defaults taken from the TOML file named
/// by `--config` / `LEDGER_CONFIG` when there is one. Precedence: flags, then environment
/// variables, then the file, then the built-in defaults. File keys are the flag names with
/// underscores (`database_url = "postgres://..."`, `workers = 4`).
///
/// # Errors
/// When the file cannot be read or parsed, or names an unknown setting.
pub fn parse_cli() -> anyhow::Result<Cli> {
    parse_cli_from(std::env::args_os().collect())
}

/// [`parse_cli`] over given arguments (the first is the program name).
///
/// # Errors
/// As [`parse_cli`].
pub fn parse_cli_from(args: Vec<std::ffi::OsString>) -> anyhow::Result<Cli> {
    use clap::{CommandFactory, FromArgMatches};
    let path = config_path(&args);
    let mut command = Cli::command();
    if let Some(path) = path {
        let text =
            std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("reading {path}: {e}"))?;
        let table: toml::Table =
            toml::from_str(&text).map_err(|e| anyhow::anyhow!("parsing {path}: {e}"))?;
        let known: Vec<String> = command
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect();
        for (key, value) in table {
            if key == "config_file" || !known.contains(&key) {
                anyhow::bail!(
                    "{path}: unknown setting '{key}' (known: {})",
                    known.join(", ")
                );
            }
            let text = match value {
                toml::Value::String(s) => s,
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => anyhow::bail!(
                    "{path}: '{key}' must be a string, integer or boolean, not {}",
                    other.type_str()
                ),
            };
            command = command.mut_arg(key.as_str(), |arg| arg.default_value(text));
        }
    }
    let matches = command.get_matches_from(args);
    Ok(Cli::from_arg_matches(&matches)?)
}

fn config_path(args: &[std::ffi::OsString]) -> Option<String> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    for (i, arg) in args.iter().enumerate() {
        if let Some(path) = arg.strip_prefix("--config=") {
            return Some(path.to_owned());
        }
        if arg == "--config" {
            return args.get(i + 1).cloned();
        }
    }
    std::env::var("LEDGER_CONFIG")
        .ok()
        .filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_values_are_defaults_that_flags_override() {
        let path = std::env::temp_dir().join(format!("ledger-config-{}.toml", std::process::id()));
        std::fs::write(
            &path,
            "signup_credits = 42\nrate_limit_system = 7\nlog_json = true\n",
        )
        .expect("write");
        let path = path.to_string_lossy().into_owned();
        let cli = parse_cli_from(vec![
            "ledger-server".into(),
            "--config".into(),
            path.clone().into(),
        ])
        .expect("parse");
        assert_eq!(
            (
                cli.config.signup_credits,
                cli.config.rate_limit_system,
                cli.config.log_json
            ),
            (42, 7, true)
        );
        let cli = parse_cli_from(vec![
            "ledger-server".into(),
            format!("--config={path}").into(),
            "--signup-credits".into(),
            "9".into(),
        ])
        .expect("parse");
        assert_eq!(cli.config.signup_credits, 9);
        std::fs::write(&path, "nonsense = 1\n").expect("write");
        let err = parse_cli_from(vec![
            "ledger-server".into(),
            "--config".into(),
            path.clone().into(),
        ])
        .expect_err("unknown key");
        assert!(
            err.to_string().contains("unknown setting 'nonsense'"),
            "{err}"
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_pool_size_defaults_per_backend_unless_set() {
        // SQLite's default counts readers (beside the one writer) and is smaller: each
        // SQLite connection holds its own cache, statements and thread.
        assert_eq!(
            ledger_store::default_pool_size("postgres://u@h/db"),
            ledger_store::DEFAULT_PG_POOL
        );
        assert_eq!(
            ledger_store::default_pool_size("postgresql://u@h/db"),
            ledger_store::DEFAULT_PG_POOL
        );
        for sqlite in [
            "sqlite://./data/ledger.sqlite",
            "sqlite:ledger.db",
            "ledger.db",
        ] {
            assert_eq!(
                ledger_store::default_pool_size(sqlite),
                ledger_store::DEFAULT_SQLITE_READERS
            );
        }
        let cli = parse_cli_from(vec!["ledger-server".into(), "--db-pool".into(), "3".into()])
            .expect("parse");
        assert_eq!(cli.config.db_pool, Some(3));
    }
}
