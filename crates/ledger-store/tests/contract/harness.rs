//! The backends of the contract suite and [`contract!`], which runs one test body on each.
//!
//! A contract test is written once, generic over the ports:
//!
//! ```ignore
//! contract!(duplicate_codes_are_refused);
//! async fn duplicate_codes_are_refused<S: Store>(db: &S, backend: &str) { ... }
//! ```
//!
//! `contract!(name)` makes a module `name` with one `#[tokio::test]` per backend:
//! `name::memory` (the in-memory store of `ledger-domain`), `name::sqlite` (a fresh SQLite
//! file) and `name::postgres` (a fresh PostgreSQL database; it returns at once when
//! `LEDGER_TEST_PG_URL` is unset, and panics in CI then). Each backend is a test of its own,
//! so a failure names its backend and never hides the others' results
//! (`cargo test -p ledger-store --all-features --test contract -- ::memory` runs one
//! backend). The body gets the backend's name for its assertion messages. `contract!(name, multi_thread)` runs the body on a
//! four-worker multi-thread runtime, for tests that race tasks.

use ledger_domain::memory::MemoryStore;
use ledger_domain::ports::Store;
use ledger_store::Db;

/// What a backend can tell beyond the ports, for the few checks that only make sense on
/// some backends.
pub trait Probe: Store {
    /// The statements sent to the database so far; `None` for a store without a
    /// database (memory), where "one query per call" means nothing.
    fn queries_executed(&self) -> Option<u64>;

    /// Whether the store holds connections, so that `Monitoring::pool_stats` has any to
    /// count (the memory store reports zeros).
    fn has_connection_pool(&self) -> bool;
}

impl Probe for Db {
    fn queries_executed(&self) -> Option<u64> {
        Some(Db::queries_executed(self))
    }

    fn has_connection_pool(&self) -> bool {
        true
    }
}

impl Probe for MemoryStore {
    fn queries_executed(&self) -> Option<u64> {
        None
    }

    fn has_connection_pool(&self) -> bool {
        false
    }
}

/// Awaits `read` and, on a database store, asserts that it sent exactly `statements`
/// statements (the memory store has none to count); answers what `read` gave.
///
/// # Panics
/// When a database store counted another number of statements.
pub async fn in_statements<P: Probe, T>(
    db: &P,
    statements: u64,
    backend: &str,
    read: impl Future<Output = T>,
) -> T {
    let before = db.queries_executed();
    let answer = read.await;
    if let Some(before) = before {
        assert_eq!(
            db.queries_executed(),
            Some(before + statements),
            "{backend}: statements sent"
        );
    }
    answer
}

/// `#[tokio::test]`s running the generic body `$name(db, backend)` on every backend (see
/// the module documentation).
macro_rules! contract {
    ($name:ident) => {
        contract!(@tests $name, [tokio::test]);
    };
    ($name:ident, multi_thread) => {
        contract!(@tests $name, [tokio::test(flavor = "multi_thread", worker_threads = 4)]);
    };
    (@tests $name:ident, [$($test:tt)*]) => {
        mod $name {
            #[$($test)*]
            async fn memory() {
                let store = ledger_domain::memory::MemoryStore::new();
                super::$name(&store, "memory").await;
            }

            #[$($test)*]
            async fn sqlite() {
                let t = ledger_store::testing::TestDb::sqlite().await;
                super::$name(&t.db, t.backend()).await;
                t.cleanup().await;
            }

            #[$($test)*]
            async fn postgres() {
                let Some(t) = ledger_store::testing::TestDb::postgres().await else {
                    eprintln!("{} unset: PostgreSQL skipped", ledger_store::testing::PG_URL_VAR);
                    return;
                };
                super::$name(&t.db, t.backend()).await;
                t.cleanup().await;
            }
        }
    };
}
