//! Fresh, migrated databases for tests (feature `test-support`).
//!
//! [`TestDb::sqlite`] makes a temporary SQLite file; [`TestDb::postgres`] creates a
//! database `ledger_test_<random>` on the server named by `LEDGER_TEST_PG_URL` (for
//! example `postgres://postgres@127.0.0.1:5432/postgres`) and drops it again on
//! [`TestDb::cleanup`] or, failing that, on drop. [`backends`] gives SQLite plus
//! PostgreSQL when configured, so a test can run on both. Setup failures panic: this
//! module is for tests only.

use std::path::PathBuf;

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use ledger_domain::ids::{IdKind, new_id};

use crate::Db;
use crate::db::database_url;

/// The environment variable naming the PostgreSQL server for tests.
pub const PG_URL_VAR: &str = "LEDGER_TEST_PG_URL";

/// A migrated database that disappears after the test.
pub struct TestDb {
    pub db: Db,
    /// The database URL (`sqlite://...` or `postgres://.../ledger_test_...`).
    pub url: String,
    owned: Owned,
}

/// What to remove afterwards.
enum Owned {
    SqliteFile(PathBuf),
    PgDatabase { admin_url: String, name: String },
    Nothing,
}

impl std::fmt::Debug for TestDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestDb").field("url", &self.url).finish()
    }
}

/// A random lowercase suffix for names.
fn random_suffix() -> String {
    new_id(IdKind::Request)
        .trim_start_matches("req_")
        .to_ascii_lowercase()
}

impl TestDb {
    /// A migrated SQLite database in a fresh temporary file.
    ///
    /// # Panics
    /// When the file cannot be created or migrated.
    pub async fn sqlite() -> TestDb {
        let path = std::env::temp_dir().join(format!("ledger-test-{}.sqlite", random_suffix()));
        let url = format!("sqlite://{}", path.display());
        let db = Db::connect(&url, 4)
            .await
            .unwrap_or_else(|e| panic!("test SQLite database {url}: {e}"));
        db.migrate()
            .await
            .unwrap_or_else(|e| panic!("migrating {url}: {e}"));
        TestDb {
            db,
            url,
            owned: Owned::SqliteFile(path),
        }
    }

    /// A migrated, fresh PostgreSQL database on the server of `LEDGER_TEST_PG_URL`;
    /// `None` when the variable is unset or empty, outside CI.
    ///
    /// # Panics
    /// When the server is unreachable or refuses the database or the migrations, and in
    /// CI (`CI=true`) when the variable is unset: CI never skips PostgreSQL quietly.
    pub async fn postgres() -> Option<TestDb> {
        Self::postgres_database(true).await
    }

    /// A fresh PostgreSQL database like [`TestDb::postgres`], but empty: no migration has
    /// run (for tests of the migrations themselves).
    ///
    /// # Panics
    /// As [`TestDb::postgres`].
    pub async fn postgres_unmigrated() -> Option<TestDb> {
        Self::postgres_database(false).await
    }

    async fn postgres_database(migrate: bool) -> Option<TestDb> {
        let configured = std::env::var(PG_URL_VAR)
            .ok()
            .filter(|u| !u.trim().is_empty());
        let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        let admin_url = match configured {
            Some(url) => url,
            None if in_ci => panic!(
                "CI=true but {PG_URL_VAR} is not set: PostgreSQL runs must not be skipped in CI"
            ),
            None => return None,
        };
        let name = format!("ledger_test_{}", random_suffix());
        let mut admin = AsyncPgConnection::establish(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("{PG_URL_VAR}={admin_url}: {e}"));
        diesel::sql_query(format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("creating database {name}: {e}"));
        let url = database_url(&admin_url, &name);
        let db = Db::connect(&url, 4)
            .await
            .unwrap_or_else(|e| panic!("test database {url}: {e}"));
        if migrate {
            db.migrate()
                .await
                .unwrap_or_else(|e| panic!("migrating {url}: {e}"));
        }
        Some(TestDb {
            db,
            url,
            owned: Owned::PgDatabase { admin_url, name },
        })
    }

    /// Lets the server reach this PostgreSQL database or not: `false` makes the database
    /// refuse new connections (`ALLOW_CONNECTIONS false`, which binds superusers too) and
    /// ends the open ones, as a database that restarts or fails over would; `true` lets
    /// connections in again. A SQLite file is always reachable: nothing happens.
    ///
    /// # Panics
    /// When the PostgreSQL server refuses the administrative statements.
    pub async fn set_reachable(&self, reachable: bool) {
        let Owned::PgDatabase { admin_url, name } = &self.owned else {
            return;
        };
        let mut admin = AsyncPgConnection::establish(admin_url)
            .await
            .unwrap_or_else(|e| panic!("{PG_URL_VAR}={admin_url}: {e}"));
        diesel::sql_query(format!(
            "ALTER DATABASE {name} ALLOW_CONNECTIONS {reachable}"
        ))
        .execute(&mut admin)
        .await
        .unwrap_or_else(|e| panic!("changing ALLOW_CONNECTIONS of {name}: {e}"));
        if !reachable {
            diesel::sql_query(format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
            ))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("ending the sessions of {name}: {e}"));
        }
    }

    /// The backend name of the database (`"sqlite"` or `"postgres"`).
    pub fn backend(&self) -> &'static str {
        self.db.backend_name()
    }

    /// Removes the database now (drop does it otherwise).
    pub async fn cleanup(mut self) {
        let owned = std::mem::replace(&mut self.owned, Owned::Nothing);
        remove(owned).await;
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let owned = std::mem::replace(&mut self.owned, Owned::Nothing);
        match owned {
            Owned::Nothing => {}
            Owned::SqliteFile(path) => remove_sqlite(&path),
            // Drop cannot await, and may run inside a runtime: drop the database from a
            // thread of its own with a private runtime.
            owned @ Owned::PgDatabase { .. } => {
                let dropper =
                    std::thread::spawn(move || match tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                    {
                        Ok(runtime) => runtime.block_on(remove(owned)),
                        Err(e) => eprintln!("cannot drop a test database: {e}"),
                    });
                let _ = dropper.join();
            }
        }
    }
}

fn remove_sqlite(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(file));
    }
}

async fn remove(owned: Owned) {
    match owned {
        Owned::Nothing => {}
        Owned::SqliteFile(path) => remove_sqlite(&path),
        Owned::PgDatabase { admin_url, name } => {
            match AsyncPgConnection::establish(&admin_url).await {
                Ok(mut admin) => {
                    let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                    if let Err(e) = diesel::sql_query(drop).execute(&mut admin).await {
                        eprintln!("cannot drop test database {name}: {e}");
                    }
                }
                Err(e) => eprintln!("cannot drop test database {name}: {e}"),
            }
        }
    }
}

/// A fresh migrated database per configured backend: SQLite always, PostgreSQL when
/// `LEDGER_TEST_PG_URL` is set.
pub async fn backends() -> Vec<TestDb> {
    let mut all = vec![TestDb::sqlite().await];
    if let Some(pg) = TestDb::postgres().await {
        all.push(pg);
    }
    all
}
