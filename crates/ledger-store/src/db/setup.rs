//! Opening a database: the migrations of each backend, the SQLite pool with its
//! connection settings, the default pool sizes, and what can fail on the way.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use diesel::ConnectionError;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, PoolableConnection, RecyclingMethod,
};
use diesel_async::{AsyncConnection, AsyncMigrationHarness, SimpleAsyncConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use super::QueryCounter;

/// The migrations of each backend, embedded in the binary.
pub(super) const PG_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
pub(super) const SQLITE_MIGRATIONS: EmbeddedMigrations =
    embed_migrations!("../../migrations/sqlite");

/// The settings every SQLite connection starts with: enforced foreign keys, WAL so
/// readers run beside the writer, a busy timeout instead of immediate `SQLITE_BUSY`, and
/// NORMAL sync (durable at checkpoints; safe with WAL).
pub(super) const SQLITE_PRAGMAS: &str = "PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; \
     PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;";

/// Failures to connect to or migrate a database.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("unsupported database URL '{0}' (expected postgres://, postgresql:// or sqlite://)")]
    UnsupportedUrl(String),
    #[error("cannot create the SQLite directory {path}: {source}")]
    CreateDir {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot build the connection pool: {0}")]
    Pool(String),
    #[error("cannot connect to the database: {0}")]
    Connect(String),
    #[error("migration failed: {0}")]
    Migrate(String),
}

/// PostgreSQL's default pool: enough connections to keep a few cores of PostgreSQL busy
/// from one replica.
pub const DEFAULT_PG_POOL: usize = 16;
/// SQLite's default reader pool (beside its one writer). Each SQLite connection holds its
/// own page cache, prepared statements and thread; readers only add throughput up to
/// about the number of cores, so more of them cost memory for nothing
/// (docs/benchmarks.md, "Session 10: SQLite memory").
pub const DEFAULT_SQLITE_READERS: usize = 4;

/// The pool size used when none is configured: [`DEFAULT_PG_POOL`] for a PostgreSQL URL,
/// [`DEFAULT_SQLITE_READERS`] otherwise.
pub fn default_pool_size(database_url: &str) -> usize {
    if is_postgres_url(database_url) {
        DEFAULT_PG_POOL
    } else {
        DEFAULT_SQLITE_READERS
    }
}

pub(super) fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// The file path of a SQLite URL (`sqlite://PATH`, `sqlite:PATH` or a bare path).
pub(super) fn sqlite_path(url: &str) -> Result<String, SetupError> {
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    if path.is_empty() || path.contains("://") {
        return Err(SetupError::UnsupportedUrl(url.to_owned()));
    }
    Ok(path.to_owned())
}

/// A pool of at most `size` connections to `url`, each running `setup_sql` (when given)
/// before its statements are counted into `queries` (a connection's setup is the pool's,
/// not a caller's query). Fast recycling: a broken connection shows on its next query
/// (and is then dropped) instead of costing a `SELECT 1` on every checkout.
pub(super) fn counted_pool<C>(
    url: &str,
    size: usize,
    queries: &Arc<AtomicU64>,
    setup_sql: Option<&'static str>,
) -> Result<Pool<C>, SetupError>
where
    C: PoolableConnection + SimpleAsyncConnection + Send + 'static,
    for<'a> diesel::dsl::select<diesel::dsl::AsExprOf<i32, diesel::sql_types::Integer>>:
        diesel_async::methods::LoadQuery<'a, C, i32>,
    diesel::query_builder::SqlQuery: diesel::query_builder::QueryFragment<C::Backend>,
{
    let mut config = ManagerConfig::<C>::default();
    config.recycling_method = RecyclingMethod::Fast;
    let counter = queries.clone();
    config.custom_setup = Box::new(move |url| {
        let url = url.to_owned();
        let counter = counter.clone();
        Box::pin(async move {
            let mut conn = C::establish(&url).await?;
            if let Some(sql) = setup_sql {
                conn.batch_execute(sql)
                    .await
                    .map_err(ConnectionError::CouldntSetupConfiguration)?;
            }
            conn.set_instrumentation(QueryCounter(counter));
            Ok(conn)
        })
    });
    let manager = AsyncDieselConnectionManager::<C>::new_with_config(url, config);
    Pool::builder(manager)
        .max_size(size)
        .build()
        .map_err(|e| SetupError::Pool(e.to_string()))
}

/// Runs migrations on a blocking thread: the harness blocks on the async connection,
/// which must not happen on a runtime worker (and `block_in_place` would panic on a
/// current-thread runtime, as in `#[tokio::test]`).
pub(super) async fn run_migrations<C>(
    conn: C,
    migrations: EmbeddedMigrations,
) -> Result<(), SetupError>
where
    C: AsyncConnection + 'static,
    AsyncMigrationHarness<C>: MigrationHarness<C::Backend>,
{
    tokio::task::spawn_blocking(move || {
        let mut harness = AsyncMigrationHarness::new(conn);
        harness
            .run_pending_migrations(migrations)
            .map(|versions| versions.len())
            .map_err(|e| SetupError::Migrate(e.to_string()))
    })
    .await
    .map_err(|e| SetupError::Migrate(e.to_string()))?
    .map(|applied| tracing::info!(applied, "database migrated"))
}

/// `admin_url` with its database name replaced by `name` (query parameters dropped): the
/// throwaway databases of tests and benchmarks, made beside the admin database.
#[cfg(any(feature = "bench", feature = "test-support"))]
pub(crate) fn database_url(admin_url: &str, name: &str) -> String {
    let without_query = admin_url.split('?').next().unwrap_or(admin_url);
    let (scheme, rest) = without_query
        .split_once("://")
        .unwrap_or(("postgres", without_query));
    let authority = rest.split('/').next().unwrap_or(rest);
    format!("{scheme}://{authority}/{name}")
}
