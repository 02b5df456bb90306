//! The baseline of `cargo xtask bench` (feature `bench`): the rows of one posted
//! two-entry transaction inserted by plain SQL through the store's own pools, with none
//! of the service around it (no authentication, validation, queue or audit events).
//!
//! Comparing the HTTP throughput with this one says how much of the cost of a posted
//! transaction is the database writing its rows, and how much is everything else. The
//! insert runs through `db_write!`, so it takes the same pool, transaction mode and
//! spawned task as the real writes on both backends.
//!
//! Also here: creating and dropping the throw-away PostgreSQL database the benchmark
//! runs on, so `xtask` needs no database driver of its own.

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use ledger_domain::StoreError;
use ledger_domain::accounts::EntryType;
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::StoreResult;
use ledger_domain::transactions::TransactionStatus;
use time::OffsetDateTime;

use crate::apply::EntryConn;
use crate::db::{Db, SetupError, database_url};
use crate::rows::{EntryRow, TransactionRow, to_db};
use crate::schema::transactions;

/// Where the baseline writes: one tenant and the two accounts each transaction moves
/// money between (the same ones the HTTP load uses).
#[derive(Debug, Clone)]
pub struct BaselineTarget {
    pub organization_id: String,
    pub livemode: bool,
    pub currency: String,
    pub debit_account_id: String,
    pub credit_account_id: String,
}

/// Inserts one posted transaction of `amount` units (a debit and a credit entry, both
/// counted in balances) in one database transaction: the rows a posted
/// `POST /transactions` leaves in `transactions` and `ledger_entries`.
///
/// # Errors
/// `Internal` when the pool or a statement fails (for example an unknown account id,
/// refused by the foreign key).
pub async fn insert_posted_transaction(
    db: &Db,
    target: &BaselineTarget,
    amount: i64,
) -> StoreResult<()> {
    let now = OffsetDateTime::now_utc();
    let at = to_db(now);
    let transaction_id = new_id(IdKind::Transaction);
    let row = TransactionRow {
        organization_id: target.organization_id.clone(),
        livemode: target.livemode,
        id: transaction_id.clone(),
        description: "Benchmark baseline".to_owned(),
        date: at,
        status: TransactionStatus::Posted.as_str().to_owned(),
        currency: target.currency.clone(),
        amount,
        reference: None,
        reversal_of: None,
        reversed_by: None,
        reversal_reason: None,
        metadata: "{}".to_owned(),
        posted_at: Some(at),
        created_at: at,
        updated_at: at,
        deleted_at: None,
        deleted_by: None,
        recoverable_until: None,
        contact_id: None,
        category_id: None,
        source: None,
    };
    let entry = |line_no: i32, account_id: &str, side: EntryType| EntryRow {
        organization_id: target.organization_id.clone(),
        livemode: target.livemode,
        id: new_id(IdKind::Entry),
        transaction_id: transaction_id.clone(),
        line_no,
        account_id: account_id.to_owned(),
        entry_type: side.as_str().to_owned(),
        amount,
        description: None,
        date: at,
        counted: true,
        currency: None,
    };
    let entries = vec![
        entry(0, &target.debit_account_id, EntryType::Debit),
        entry(1, &target.credit_account_id, EntryType::Credit),
    ];
    let written: Result<(), crate::db::TxError> = db_write!(db, |conn| {
        diesel::insert_into(transactions::table)
            .values(&row)
            .execute(conn)
            .await?;
        // As `apply` writes a transaction's lines (one statement on PostgreSQL).
        conn.insert_entries(&entries).await?;
        Ok(())
    });
    written.map_err(StoreError::from)
}

/// Seeds history for the scale phase: `count` posted transactions numbered from
/// `first` (ids `txn_seed_<n>`), each debiting `debit_account_id` and crediting
/// `credit_account_id` one unit, dated over `days` days from 2020-01-01, written by
/// set-based SQL in chunks (each chunk one database transaction). The triggers keeping
/// the maintained totals run as for any write.
///
/// # Errors
/// `Internal` when a statement fails.
pub async fn seed_history(
    db: &Db,
    target: &BaselineTarget,
    first: u64,
    count: u64,
    days: u32,
) -> StoreResult<()> {
    use diesel::sql_types::{BigInt, Bool, Integer, Text};
    const CHUNK: u64 = 50_000;
    let mut from = first;
    let end = first + count;
    while from < end {
        let until = (from + CHUNK).min(end);
        let (org, livemode) = (target.organization_id.clone(), target.livemode);
        let (debit, credit) = (
            target.debit_account_id.clone(),
            target.credit_account_id.clone(),
        );
        let currency = target.currency.clone();
        let (lo, hi) = (
            i64::try_from(from).unwrap_or(i64::MAX),
            i64::try_from(until).unwrap_or(i64::MAX) - 1,
        );
        let days = i32::try_from(days.max(1)).unwrap_or(i32::MAX);
        let written: Result<(), crate::db::TxError> = db_write!(
            db,
            postgres | conn | {
                diesel::sql_query(
                    "INSERT INTO transactions (organization_id, livemode, id, description, \
                     date, status, currency, amount, metadata, posted_at, created_at, \
                     updated_at) SELECT $1, $2, 'txn_seed_' || g, 'Seeded', \
                     TIMESTAMP '2020-01-01' + (g % $3) * INTERVAL '1 day', 'posted', $4, 1, \
                     '{}', now(), now(), now() FROM generate_series($5::int8, $6::int8) g",
                )
                .bind::<Text, _>(&org)
                .bind::<Bool, _>(livemode)
                .bind::<Integer, _>(days)
                .bind::<Text, _>(&currency)
                .bind::<BigInt, _>(lo)
                .bind::<BigInt, _>(hi)
                .execute(conn)
                .await?;
                diesel::sql_query(
                    "INSERT INTO ledger_entries (organization_id, livemode, id, \
                     transaction_id, line_no, account_id, entry_type, amount, date, counted) \
                     SELECT $1, $2, 'ent_seed_' || g || '_' || l.line_no, 'txn_seed_' || g, \
                     l.line_no, l.account_id, l.entry_type, 1, \
                     TIMESTAMP '2020-01-01' + (g % $3) * INTERVAL '1 day', TRUE \
                     FROM generate_series($4::int8, $5::int8) g, \
                     (VALUES (0, $6, 'debit'), (1, $7, 'credit')) \
                     AS l (line_no, account_id, entry_type)",
                )
                .bind::<Text, _>(&org)
                .bind::<Bool, _>(livemode)
                .bind::<Integer, _>(days)
                .bind::<BigInt, _>(lo)
                .bind::<BigInt, _>(hi)
                .bind::<Text, _>(&debit)
                .bind::<Text, _>(&credit)
                .execute(conn)
                .await?;
                Ok(())
            },
            sqlite | conn | {
                let numbers = "WITH RECURSIVE g(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM g \
                     WHERE n < ?) ";
                diesel::sql_query(format!(
                    "{numbers}INSERT INTO transactions (organization_id, livemode, id, \
                     description, date, status, currency, amount, metadata, posted_at, \
                     created_at, updated_at) SELECT ?, ?, 'txn_seed_' || n, 'Seeded', \
                     datetime('2020-01-01', '+' || (n % ?) || ' days'), 'posted', ?, 1, '{{}}', \
                     datetime('now'), datetime('now'), datetime('now') FROM g"
                ))
                .bind::<BigInt, _>(lo)
                .bind::<BigInt, _>(hi)
                .bind::<Text, _>(&org)
                .bind::<Bool, _>(livemode)
                .bind::<Integer, _>(days)
                .bind::<Text, _>(&currency)
                .execute(conn)
                .await?;
                diesel::sql_query(format!(
                    "{numbers}INSERT INTO ledger_entries (organization_id, livemode, id, \
                     transaction_id, line_no, account_id, entry_type, amount, date, counted) \
                     SELECT ?, ?, 'ent_seed_' || n || '_' || l.line_no, 'txn_seed_' || n, \
                     l.line_no, l.account_id, l.entry_type, 1, \
                     datetime('2020-01-01', '+' || (n % ?) || ' days'), 1 FROM g, \
                     (SELECT 0 AS line_no, ? AS account_id, 'debit' AS entry_type \
                     UNION ALL SELECT 1, ?, 'credit') AS l"
                ))
                .bind::<BigInt, _>(lo)
                .bind::<BigInt, _>(hi)
                .bind::<Text, _>(&org)
                .bind::<Bool, _>(livemode)
                .bind::<Integer, _>(days)
                .bind::<Text, _>(&debit)
                .bind::<Text, _>(&credit)
                .execute(conn)
                .await?;
                Ok(())
            }
        );
        written.map_err(StoreError::from)?;
        from = until;
    }
    Ok(())
}

/// A connection to the PostgreSQL server of `admin_url`, to act on its database `name`
/// (checked a plain identifier first: it is spliced into DDL).
async fn admin_connection(admin_url: &str, name: &str) -> Result<AsyncPgConnection, SetupError> {
    check_identifier(name)?;
    AsyncPgConnection::establish(admin_url)
        .await
        .map_err(|e| SetupError::Connect(e.to_string()))
}

/// Creates the empty database `name` on the PostgreSQL server of `admin_url` and
/// returns its URL. `name` must be a plain identifier (lowercase letters, digits, `_`).
///
/// # Errors
/// [`SetupError::Connect`] when the server cannot be reached, [`SetupError::Pool`]
/// (with the server's message) when it refuses the database or the name is not plain.
pub async fn create_pg_database(admin_url: &str, name: &str) -> Result<String, SetupError> {
    let mut admin = admin_connection(admin_url, name).await?;
    diesel::sql_query(format!("CREATE DATABASE {name}"))
        .execute(&mut admin)
        .await
        .map_err(|e| SetupError::Pool(format!("creating database {name}: {e}")))?;
    Ok(database_url(admin_url, name))
}

/// Drops the database `name` (closing its remaining connections) if it exists.
///
/// # Errors
/// As [`create_pg_database`].
pub async fn drop_pg_database(admin_url: &str, name: &str) -> Result<(), SetupError> {
    let mut admin = admin_connection(admin_url, name).await?;
    diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .execute(&mut admin)
        .await
        .map_err(|e| SetupError::Pool(format!("dropping database {name}: {e}")))?;
    Ok(())
}

/// Ends every session on database `name` of the PostgreSQL server of `admin_url` but
/// the caller's own (`pg_terminate_backend`), as a restart of the server would, without
/// disturbing other databases; answers how many were ended. For `cargo xtask chaos`.
///
/// # Errors
/// As [`create_pg_database`].
pub async fn terminate_pg_connections(admin_url: &str, name: &str) -> Result<u64, SetupError> {
    let mut admin = admin_connection(admin_url, name).await?;
    #[derive(diesel::QueryableByName)]
    struct Ended {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        ended: i64,
    }
    let ended: Ended = diesel::sql_query(
        "SELECT CAST(COUNT(*) AS BIGINT) AS ended FROM \
         (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
          WHERE datname = $1 AND pid <> pg_backend_pid()) AS t",
    )
    .bind::<diesel::sql_types::Text, _>(name)
    .get_result(&mut admin)
    .await
    .map_err(|e| SetupError::Pool(format!("terminating sessions on {name}: {e}")))?;
    Ok(u64::try_from(ended.ended).unwrap_or(0))
}

/// One stored transaction of an organization with the sums of its lines, for the
/// after-the-fact checks of `cargo xtask chaos`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditedTransaction {
    pub id: String,
    pub reference: Option<String>,
    pub status: String,
    pub amount: i64,
    pub deleted: bool,
    pub entries: i64,
    pub debits: i64,
    pub credits: i64,
}

/// Every transaction of `organization_id` (both modes, deleted ones included) with the
/// count and sums of its ledger lines, read straight from the tables; plus the lines
/// whose transaction row does not exist, and the jobs by status.
#[derive(Debug, Clone, Default)]
pub struct JournalAudit {
    pub transactions: Vec<AuditedTransaction>,
    pub orphan_entries: i64,
    pub jobs_by_status: Vec<(String, i64)>,
}

/// Reads a [`JournalAudit`] of one organization.
///
/// # Errors
/// `Internal` when the database cannot be read.
pub async fn audit_journal(db: &Db, organization_id: &str) -> StoreResult<JournalAudit> {
    use crate::schema::{jobs, ledger_entries};
    use diesel::{ExpressionMethods, QueryDsl};
    type Txn = (
        String,
        Option<String>,
        String,
        i64,
        Option<time::PrimitiveDateTime>,
    );
    type Line = (String, String, i64);
    let org = organization_id.to_owned();
    let (txns, lines, statuses): (Vec<Txn>, Vec<Line>, Vec<String>) = db_read!(db, |conn| {
        let txns = transactions::table
            .filter(transactions::organization_id.eq(&org))
            .select((
                transactions::id,
                transactions::reference,
                transactions::status,
                transactions::amount,
                transactions::deleted_at,
            ))
            .load(conn)
            .await?;
        let lines = ledger_entries::table
            .filter(ledger_entries::organization_id.eq(&org))
            .select((
                ledger_entries::transaction_id,
                ledger_entries::entry_type,
                ledger_entries::amount,
            ))
            .load(conn)
            .await?;
        let statuses = jobs::table
            .filter(jobs::organization_id.eq(&org))
            .select(jobs::status)
            .load(conn)
            .await?;
        Ok((txns, lines, statuses))
    })?;
    let mut audit = JournalAudit::default();
    let mut index = std::collections::HashMap::new();
    for (id, reference, status, amount, deleted_at) in txns {
        index.insert(id.clone(), audit.transactions.len());
        audit.transactions.push(AuditedTransaction {
            id,
            reference,
            status,
            amount,
            deleted: deleted_at.is_some(),
            entries: 0,
            debits: 0,
            credits: 0,
        });
    }
    for (transaction_id, entry_type, amount) in lines {
        let Some(&i) = index.get(&transaction_id) else {
            audit.orphan_entries += 1;
            continue;
        };
        let txn = &mut audit.transactions[i];
        txn.entries += 1;
        if entry_type == EntryType::Debit.as_str() {
            txn.debits += amount;
        } else {
            txn.credits += amount;
        }
    }
    let mut by_status = std::collections::BTreeMap::<String, i64>::new();
    for status in statuses {
        *by_status.entry(status).or_default() += 1;
    }
    audit.jobs_by_status = by_status.into_iter().collect();
    Ok(audit)
}

/// The name goes into DDL text (identifiers cannot be bound), so only plain names pass.
fn check_identifier(name: &str) -> Result<(), SetupError> {
    let plain = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if plain {
        Ok(())
    } else {
        Err(SetupError::Pool(format!(
            "'{name}' is not a plain database name"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_url_replaces_the_database_name() {
        assert_eq!(
            database_url(
                "postgres://postgres@127.0.0.1:5432/postgres",
                "ledger_bench_x"
            ),
            "postgres://postgres@127.0.0.1:5432/ledger_bench_x"
        );
        assert_eq!(
            database_url("postgresql://u:p@h/db?sslmode=disable", "b"),
            "postgresql://u:p@h/b"
        );
    }

    #[test]
    fn only_plain_identifiers_reach_ddl() {
        assert!(check_identifier("ledger_bench_01abc").is_ok());
        assert!(check_identifier("x; DROP DATABASE postgres").is_err());
        assert!(check_identifier("").is_err());
    }
}
