//! Configuration from the environment (DECISIONS 1), shown by `ledger-server --help`.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Ledger: a headless, multi-tenant, double-entry accounting service.
#[derive(Debug, Parser)]
#[command(name = "ledger-server", version, about)]
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
}

/// Deployment mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Environment {
    Development,
    Production,
}

/// Every setting, each from an environment variable or a flag.
#[derive(Debug, Clone, Args)]
pub struct Config {
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
    /// Token that allows `POST /accounts/master` in production.
    #[arg(long, env = "LEDGER_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Allow sign-up without the admin token in production.
    #[arg(long, env = "LEDGER_OPEN_SIGNUP", default_value_t = false)]
    pub open_signup: bool,
    /// Queue workers in this process.
    #[arg(long, env = "LEDGER_WORKERS", default_value_t = 2)]
    pub workers: usize,
    /// HTTP worker threads (default: one per core).
    #[arg(long, env = "LEDGER_HTTP_WORKERS")]
    pub http_workers: Option<usize>,
    /// Database connections in the pool.
    #[arg(long, env = "LEDGER_DB_POOL", default_value_t = 16)]
    pub db_pool: usize,
    /// Tracing filter, e.g. `info` or `ledger=debug`.
    #[arg(long, env = "LEDGER_LOG", default_value = "info")]
    pub log: String,
    /// Write logs as JSON lines.
    #[arg(long, env = "LEDGER_LOG_JSON", default_value_t = false)]
    pub log_json: bool,
    /// Credits a new root organization starts with.
    #[arg(long, env = "LEDGER_SIGNUP_CREDITS", default_value_t = 500)]
    pub signup_credits: i64,
    /// Seconds a rotated API key's old secret keeps working.
    #[arg(long, env = "LEDGER_KEY_GRACE_SECONDS", default_value_t = 86_400)]
    pub key_grace_seconds: u64,
    /// Create a demo organization on first start (development only).
    #[arg(long, env = "LEDGER_DEMO", default_value_t = true, action = clap::ArgAction::Set)]
    pub demo: bool,
}

impl Config {
    /// The defaults, with another database: for tests and tools.
    pub fn with_database(database_url: &str) -> Self {
        Self {
            addr: "127.0.0.1:0".into(),
            database_url: database_url.to_owned(),
            environment: Environment::Development,
            base_url: None,
            admin_token: None,
            open_signup: false,
            workers: 2,
            http_workers: Some(2),
            db_pool: 8,
            log: "warn".into(),
            log_json: false,
            demo: false,
            signup_credits: 500,
            key_grace_seconds: 86_400,
        }
    }
}
