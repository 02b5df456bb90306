//! The connection pools of both backends and the one place that dispatches to them.
//!
//! [`Db`] wraps a [`DbPool`]: a deadpool of `AsyncPgConnection`s, or two deadpools of
//! SQLite connections (one writer, so writes queue in the pool instead of failing with
//! `SQLITE_BUSY`, and several readers, which WAL lets run beside the writer).
//!
//! Query bodies are written once and expanded in both match arms by [`db_read!`] and
//! [`db_write!`] (vaultwarden's `db_run!`, made async): each body is compiled for both
//! connection types. Backend-specific arms exist only where the databases differ in
//! locking or transaction mode, and say why where they are used.
//!
//! Cancellation: diesel-async leaves a dangling transaction on a pooled connection when
//! a future is dropped mid-transaction, and HTTP handlers are dropped when clients go
//! away. [`db_write!`] therefore runs every write transaction in its own `tokio::spawn`
//! task (owning its data) and awaits the handle: dropping the caller never drops the
//! transaction.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use diesel::SqliteConnection;
use diesel::connection::{AnsiTransactionManager, Instrumentation, InstrumentationEvent};
use diesel::result::{DatabaseErrorKind, Error as DieselError, QueryResult};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
use diesel_async::{AsyncPgConnection, TransactionManager};
use ledger_domain::StoreError;
use ledger_domain::jobs::Job;
use ledger_domain::ports::{AppliedWrite, StoreResult, Written};
use tokio::sync::{mpsc, oneshot};

#[macro_use]
mod queries;
mod setup;

pub(crate) use queries::page_from;
#[cfg(any(feature = "bench", feature = "test-support"))]
pub(crate) use setup::database_url;

pub use setup::{DEFAULT_PG_POOL, DEFAULT_SQLITE_READERS, SetupError, default_pool_size};
use setup::{
    PG_MIGRATIONS, SQLITE_MIGRATIONS, SQLITE_PRAGMAS, counted_pool, is_postgres_url,
    run_migrations, sqlite_path,
};

pub(crate) type PgPool = Pool<AsyncPgConnection>;
/// A SQLite connection whose statements run on a thread of its own (see [`crate::sqlite_thread`]).
pub(crate) type SqliteConn =
    SyncConnectionWrapper<SqliteConnection, crate::sqlite_thread::ConnectionThread>;
pub(crate) type SqlitePool = Pool<SqliteConn>;

/// Runs `body` in a `BEGIN IMMEDIATE` transaction (the write lock taken up front, so two
/// writers never deadlock upgrading read locks): committed when it returns `Ok`, rolled
/// back otherwise. diesel-async offers this only for its default statement runner.
pub(crate) async fn immediate_transaction<R, E, F>(conn: &mut SqliteConn, body: F) -> Result<R, E>
where
    F: for<'r> AsyncFnOnce(&'r mut SqliteConn) -> Result<R, E>,
    E: From<DieselError>,
{
    conn.spawn_blocking(|inner| {
        AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE")
    })
    .await?;
    match body(&mut *conn).await {
        Ok(value) => {
            SqliteTransactions::commit_transaction(conn).await?;
            Ok(value)
        }
        Err(e) => {
            SqliteTransactions::rollback_transaction(conn).await?;
            Err(e)
        }
    }
}

type SqliteTransactions =
    diesel_async::sync_connection_wrapper::SyncTransactionManagerWrapper<AnsiTransactionManager>;

/// The pools of one database.
#[derive(Clone)]
pub(crate) enum DbPool {
    Postgres(PgPool),
    Sqlite {
        writer: SqlitePool,
        reader: SqlitePool,
    },
}

/// The store: a cheap, cloneable handle on the pools of one database.
#[derive(Clone)]
pub struct Db {
    pub(crate) pool: DbPool,
    /// The group-commit queue of applied writes, started on first use (see `group`).
    pub(crate) group: Arc<OnceLock<GroupQueue>>,
    /// Statements run on any connection of the pools (see [`Db::queries_executed`]).
    pub(crate) queries: Arc<AtomicU64>,
    /// Reports' charts, kept while they stay the same (see `charts`).
    pub(crate) charts: Arc<crate::chart_cache::ChartCache>,
}

/// A write handed to the group committer (see `group`), with the channel its answer
/// goes back on.
pub(crate) struct GroupedWrite {
    pub(crate) write: AppliedWrite,
    /// Its rows, built by the caller before it joins a batch.
    pub(crate) rows: crate::rows::WriteRows,
    pub(crate) reply: oneshot::Sender<StoreResult<Written<Job>>>,
}

/// The queue in front of the group committer task.
pub(crate) type GroupQueue = mpsc::UnboundedSender<GroupedWrite>;

/// Counts the statements a connection runs, into a counter shared by the pools.
struct QueryCounter(Arc<AtomicU64>);

impl Instrumentation for QueryCounter {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        if let InstrumentationEvent::StartQuery { .. } = event {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("backend", &self.backend_name())
            .finish()
    }
}

impl Db {
    /// Opens pools on `database_url`: `postgres://` / `postgresql://` select PostgreSQL,
    /// `sqlite://PATH` or a bare path select SQLite (parent directories are created).
    /// `pool_size` is the PostgreSQL pool, or SQLite's reader pool (beside its one
    /// writer); [`default_pool_size`] gives each backend's default. One connection is
    /// checked out to fail early on a bad URL.
    ///
    /// # Errors
    /// [`SetupError`] when the URL, the directory or the first connection fails.
    pub async fn connect(database_url: &str, pool_size: usize) -> Result<Db, SetupError> {
        let size = pool_size.max(1);
        let queries = Arc::new(AtomicU64::new(0));
        let pool = if is_postgres_url(database_url) {
            let pool = counted_pool::<AsyncPgConnection>(database_url, size, &queries, None)?;
            drop(
                pool.get()
                    .await
                    .map_err(|e| SetupError::Connect(e.to_string()))?,
            );
            DbPool::Postgres(pool)
        } else {
            let path = sqlite_path(database_url)?;
            if let Some(dir) = Path::new(&path)
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
            {
                std::fs::create_dir_all(dir).map_err(|source| SetupError::CreateDir {
                    path: dir.display().to_string(),
                    source,
                })?;
            }
            let writer = counted_pool::<SqliteConn>(&path, 1, &queries, Some(SQLITE_PRAGMAS))?;
            // The first connection switches the file to WAL before any reader opens it.
            drop(
                writer
                    .get()
                    .await
                    .map_err(|e| SetupError::Connect(e.to_string()))?,
            );
            let reader = counted_pool::<SqliteConn>(&path, size, &queries, Some(SQLITE_PRAGMAS))?;
            DbPool::Sqlite { writer, reader }
        };
        Ok(Db {
            pool,
            group: Default::default(),
            queries,
            charts: Default::default(),
        })
    }

    /// Runs the pending embedded migrations of the backend.
    ///
    /// # Errors
    /// [`SetupError::Migrate`] when a migration fails.
    pub async fn migrate(&self) -> Result<(), SetupError> {
        match &self.pool {
            DbPool::Postgres(pool) => {
                use diesel_async::RunQueryDsl;
                let connect = |e: diesel_async::pooled_connection::deadpool::PoolError| {
                    SetupError::Connect(e.to_string())
                };
                // One migrator at a time across processes (a `serve` and a `worker`
                // starting together on an empty database): a session advisory lock held
                // on one connection while another runs the migrations; the second
                // process waits, then finds nothing pending.
                if pool.status().max_size < 2 {
                    // A one-connection pool cannot hold the lock and migrate at once.
                    let conn = pool.get().await.map_err(connect)?;
                    return run_migrations(conn, PG_MIGRATIONS).await;
                }
                let mut guard = pool.get().await.map_err(connect)?;
                let lock = |sql: &'static str| diesel::sql_query(sql);
                lock("SELECT pg_advisory_lock(7331004211)")
                    .execute(&mut guard)
                    .await
                    .map_err(|e| SetupError::Migrate(e.to_string()))?;
                let result = match pool.get().await {
                    Ok(conn) => run_migrations(conn, PG_MIGRATIONS).await,
                    Err(e) => Err(connect(e)),
                };
                if let Err(e) = lock("SELECT pg_advisory_unlock(7331004211)")
                    .execute(&mut guard)
                    .await
                {
                    tracing::warn!(error = %e, "the migration lock was not released; its connection closes it");
                }
                result
            }
            DbPool::Sqlite { writer, .. } => {
                let conn = writer
                    .get()
                    .await
                    .map_err(|e| SetupError::Connect(e.to_string()))?;
                run_migrations(conn, SQLITE_MIGRATIONS).await
            }
        }
    }

    /// How many SQL statements the pools' connections have run since the store opened
    /// (every caller together: requests, workers, the purge). Tests read it to prove a
    /// request costs a fixed number of queries.
    pub fn queries_executed(&self) -> u64 {
        self.queries.load(Ordering::Relaxed)
    }

    /// `"postgres"` or `"sqlite"`.
    pub fn backend_name(&self) -> &'static str {
        match self.pool {
            DbPool::Postgres(_) => "postgres",
            DbPool::Sqlite { .. } => "sqlite",
        }
    }
}

/// The error of a query body: a database error (so diesel's `?` works and transactions
/// roll back) or a fact the store observed inside the transaction (the domain words it).
#[derive(Debug)]
pub(crate) enum TxError {
    Db(DieselError),
    Fact(StoreError),
    /// The idempotency record could not be inserted because a concurrent request with
    /// the same key committed first; the caller replays the stored record.
    IdempotencyRace,
}

impl From<DieselError> for TxError {
    fn from(e: DieselError) -> Self {
        Self::Db(e)
    }
}

impl From<StoreError> for TxError {
    fn from(e: StoreError) -> Self {
        Self::Fact(e)
    }
}

impl From<TxError> for StoreError {
    fn from(e: TxError) -> Self {
        match e {
            TxError::Fact(e) => e,
            TxError::IdempotencyRace => {
                StoreError::Internal("concurrent use of an idempotency key".to_owned())
            }
            TxError::Db(e) if is_unavailable(&e) => {
                tracing::warn!(error = %e, "database unavailable");
                StoreError::unavailable(format!("database: {e}"))
            }
            TxError::Db(e) => {
                tracing::error!(error = %e, "database error");
                StoreError::Internal(format!("database: {e}"))
            }
        }
    }
}

impl TxError {
    /// A pool checkout failure: no connection could be opened, or none was free in time.
    pub(crate) fn pool(e: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %e, "no database connection");
        Self::Fact(StoreError::unavailable(format!("connection pool: {e}")))
    }

    /// A spawned write task that panicked or was cancelled.
    pub(crate) fn task(e: tokio::task::JoinError) -> Self {
        Self::Fact(StoreError::Internal(format!("write task: {e}")))
    }
}

/// Whether a statement failed because the database cannot be reached now rather than
/// because of the statement: the connection is closed or broken (no SQLSTATE), the server
/// is shutting down, restarting or recovering (SQLSTATE class 57P, connection exceptions
/// of class 08), or it is a read-only standby (a failover in progress). A retry may
/// succeed on another connection.
pub(crate) fn is_unavailable(e: &DieselError) -> bool {
    const GONE: [&str; 7] = [
        "terminating connection",
        "the database system is",
        "server closed the connection",
        "connection closed",
        "connection reset",
        "broken pipe",
        "could not connect",
    ];
    match e {
        DieselError::DatabaseError(
            DatabaseErrorKind::ClosedConnection
            | DatabaseErrorKind::UnableToSendCommand
            | DatabaseErrorKind::ReadOnlyTransaction,
            _,
        ) => true,
        DieselError::DatabaseError(_, info) => {
            let message = info.message().to_ascii_lowercase();
            GONE.iter().any(|gone| message.contains(gone))
        }
        _ => false,
    }
}

/// Whether a statement failed on a unique index.
pub(crate) fn is_unique_violation(e: &DieselError) -> bool {
    matches!(
        e,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)
    )
}

/// A failed statement: a unique index's refusal is the fact `taken()` (what the duplicate
/// means to the caller), any other failure the database's.
pub(crate) fn unique_or(e: DieselError, taken: impl FnOnce() -> StoreError) -> TxError {
    if is_unique_violation(&e) {
        TxError::Fact(taken())
    } else {
        TxError::Db(e)
    }
}

/// Runs `$body` (a block evaluating to `Result<T, TxError>`) with `$conn` bound to a
/// pooled connection of either backend (a SQLite reader), outside any transaction.
/// Evaluates to `Result<T, StoreError>`. The second form gives each backend its own
/// body (a read of many rows decoded on SQLite's connection thread, [`sqlite_load`]).
macro_rules! db_read {
    ($db:expr, |$conn:ident| $body:block) => {
        db_read!($db, postgres | $conn | $body, sqlite | $conn | $body)
    };
    ($db:expr, postgres |$pg:ident| $pg_body:block, sqlite |$lite:ident| $lite_body:block) => {{
        let result: ::std::result::Result<_, $crate::db::TxError> = match &$db.pool {
            $crate::db::DbPool::Postgres(pool) => {
                async {
                    let mut pooled = pool.get().await.map_err($crate::db::TxError::pool)?;
                    let $pg: &mut ::diesel_async::AsyncPgConnection = &mut pooled;
                    $pg_body
                }
                .await
            }
            $crate::db::DbPool::Sqlite { reader, .. } => {
                async {
                    let mut pooled = reader.get().await.map_err($crate::db::TxError::pool)?;
                    let $lite: &mut $crate::db::SqliteConn = &mut pooled;
                    $lite_body
                }
                .await
            }
        };
        result.map_err(::ledger_domain::StoreError::from)
    }};
}

/// Runs `$body` (a block evaluating to `Result<T, TxError>`) in one write transaction,
/// in a spawned task so that dropping the caller cannot leave the transaction open.
/// Captured variables are moved into the task. An `Err` rolls everything back.
/// Evaluates to `Result<T, TxError>` (so callers can react to particular failures).
///
/// The transaction mode differs: PostgreSQL uses a plain `BEGIN` (READ COMMITTED; the
/// bodies use conditional updates and row locks for their preconditions), SQLite uses
/// `BEGIN IMMEDIATE` so the write lock is taken up front and a read-then-write body
/// never fails with `SQLITE_BUSY` when it upgrades its lock.
///
/// The second form gives each backend its own body, for the few queries that differ.
macro_rules! db_write {
    ($db:expr, |$conn:ident| $body:block) => {
        db_write!($db, postgres | $conn | $body, sqlite | $conn | $body)
    };
    ($db:expr, postgres |$pg:ident| $pg_body:block, sqlite |$lite:ident| $lite_body:block) => {{
        let pool = $db.pool.clone();
        let task = ::tokio::spawn(async move {
            match pool {
                $crate::db::DbPool::Postgres(pool) => {
                    let mut pooled = pool.get().await.map_err($crate::db::TxError::pool)?;
                    let conn: &mut ::diesel_async::AsyncPgConnection = &mut pooled;
                    ::diesel_async::AsyncConnection::transaction(
                        conn,
                        async |$pg: &mut ::diesel_async::AsyncPgConnection| {
                            let result: ::std::result::Result<_, $crate::db::TxError> = $pg_body;
                            result
                        },
                    )
                    .await
                }
                $crate::db::DbPool::Sqlite { writer, .. } => {
                    let mut pooled = writer.get().await.map_err($crate::db::TxError::pool)?;
                    let conn: &mut $crate::db::SqliteConn = &mut pooled;
                    $crate::db::immediate_transaction(
                        conn,
                        async |$lite: &mut $crate::db::SqliteConn| {
                            let result: ::std::result::Result<_, $crate::db::TxError> = $lite_body;
                            result
                        },
                    )
                    .await
                }
            }
        });
        match task.await {
            Ok(result) => result,
            Err(e) => Err($crate::db::TxError::task(e)),
        }
    }};
}

/// Rows per INSERT statement (PostgreSQL allows 65 535 bind parameters per statement).
pub(crate) const ROWS_PER_STATEMENT: usize = 1000;

/// A method inserting rows with one INSERT per chunk of [`ROWS_PER_STATEMENT`] rows
/// (PostgreSQL).
macro_rules! insert_chunks {
    ($name:ident, $table:path, $row:ty) => {
        async fn $name<'a>(&'a mut self, rows: &'a [$row]) -> QueryResult<()> {
            for chunk in rows.chunks($crate::db::ROWS_PER_STATEMENT) {
                diesel::insert_into($table)
                    .values(chunk)
                    .execute(self)
                    .await?;
            }
            Ok(())
        }
    };
}

/// Inside a write transaction: stamps the rows `$query` selects (scoped to the tenant and
/// to what may still be deleted) with `$deletion`'s `deleted_at`, `deleted_by` and
/// `recoverable_until` (and the `$extra` assignments), returns `Err($refusal)` when none
/// was, and records the deletion in `resource_deletions`.
macro_rules! soft_delete {
    ($conn:expr, $table:ident, $query:expr, $deletion:expr, $refusal:expr $(, $extra:expr)* $(,)?) => {{
        let changed = ::diesel_async::RunQueryDsl::execute(
            ::diesel::update($query).set((
                $table::deleted_at.eq(Some($deletion.deleted_at)),
                $table::deleted_by.eq(Some(&$deletion.deleted_by)),
                $table::recoverable_until.eq(Some($deletion.recoverable_until)),
                $($extra,)*
            )),
            &mut *$conn,
        )
        .await?;
        if changed == 0 {
            return Err($refusal);
        }
        ::diesel_async::RunQueryDsl::execute(
            ::diesel::insert_into($crate::schema::resource_deletions::table).values($deletion),
            &mut *$conn,
        )
        .await?;
    }};
}

/// A port's soft delete, as one [`audited!`] write: the live row `$id` of `$table` in the
/// deletion's tenant is marked deleted and the deletion recorded; `Missing` (of
/// `$resource`) when there is no such row. With `refuse_in_use`, a live record that
/// references the row refuses first (`InUse`, see [`crate::references::in_use`]).
macro_rules! audited_soft_delete {
    ($db:expr, $table:ident, $resource:expr, $id:expr, $deletion:expr, $audit:expr) => {
        audited_soft_delete!(@ false, $db, $table, $resource, $id, $deletion, $audit)
    };
    ($db:expr, $table:ident, $resource:expr, $id:expr, $deletion:expr, $audit:expr, refuse_in_use) => {
        audited_soft_delete!(@ true, $db, $table, $resource, $id, $deletion, $audit)
    };
    (@ $refuse_in_use:literal, $db:expr, $table:ident, $resource:expr, $id:expr, $deletion:expr, $audit:expr) => {{
        let id: String = $id.to_owned();
        let resource: ::ledger_domain::Resource = $resource;
        let deletion_row = $crate::rows::DeletionRow::from(&$deletion);
        audited!($db, $audit, |conn| {
            if $refuse_in_use {
                let (org, livemode) = (&deletion_row.organization_id, deletion_row.livemode);
                if let Some(refusal) =
                    $crate::references::in_use(conn, org, livemode, resource, &id).await?
                {
                    return Err(refusal.into());
                }
            }
            let live = $table::table
                .filter(tenant_of!($table, deletion_row))
                .filter($table::id.eq(&id))
                .filter($table::deleted_at.is_null());
            let refusal = ::ledger_domain::StoreError::missing(resource, &id).into();
            soft_delete!(conn, $table, live, &deletion_row, refusal);
        })
    }};
}

/// A method inserting rows with one INSERT per row (SQLite, where diesel-async has no
/// multi-row insert and statements cost no network round trip).
macro_rules! insert_each {
    ($name:ident, $table:path, $row:ty) => {
        async fn $name<'a>(&'a mut self, rows: &'a [$row]) -> QueryResult<()> {
            for row in rows {
                diesel::insert_into($table)
                    .values(row)
                    .execute(self)
                    .await?;
            }
            Ok(())
        }
    };
}

/// Loads the rows of `query` on the SQLite connection's thread, decoded there: the async
/// wrapper's `load` copies every value of every row (`sqlite3_value_dup`) to hand the
/// rows over, which was a third of a trial balance's server CPU (docs/benchmarks.md,
/// "Session 15"). For reads of many rows; the query owns its bound values.
pub(crate) async fn sqlite_load<Q, T>(conn: &mut SqliteConn, query: Q) -> QueryResult<Vec<T>>
where
    Q: diesel::query_dsl::LoadQuery<'static, SqliteConnection, T> + Send + 'static,
    T: Send + 'static,
{
    conn.spawn_blocking(move |inner| diesel::RunQueryDsl::load(query, inner))
        .await
}

/// A `LIKE` pattern matching every text that starts with `prefix` (escape `\`; ids hold
/// `_`, a wildcard): how organization subtrees are read by their materialised `path`.
pub(crate) fn prefix_pattern(prefix: &str) -> String {
    let mut pattern = String::with_capacity(prefix.len() + 8);
    for c in prefix.chars() {
        if matches!(c, '\\' | '%' | '_') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests {
    use diesel::sql_types::Integer;
    use diesel::{Connection, RunQueryDsl, SqliteConnection};

    /// The bundled SQLite is built with the query-planner stability guarantee
    /// (`.cargo/config.toml`): without it every statement with a bound LIMIT (each
    /// `first()`) is compiled again on every execution (docs/decisions.md, "Session 15").
    #[test]
    fn sqlite_keeps_its_plans_whatever_the_bound_values() {
        let mut conn = SqliteConnection::establish(":memory:").expect("in-memory SQLite");
        let used: i32 = diesel::select(diesel::dsl::sql::<Integer>(
            "sqlite_compileoption_used('ENABLE_QPSG')",
        ))
        .get_result(&mut conn)
        .expect("compile options");
        assert_eq!(used, 1, "SQLite built without SQLITE_ENABLE_QPSG");
    }
}
