//! `cargo xtask chaos`: idempotent writes under faults, then proof that nothing was
//! lost, applied twice or half-applied; and `--soak`, a steady load that watches the
//! server's memory and file descriptors for growth.
//!
//! For each backend the `ledger-server` binary runs as a child on a fresh database and
//! a free loopback port (as `cargo xtask bench` does). Concurrent clients post balanced
//! transactions, each with an `Idempotency-Key` (also its `reference`) and
//! `Prefer: wait`, and send the same request again after any error or cut connection
//! until they get the transaction back. Meanwhile the fault injector, at random
//! moments:
//!
//! - kills the server with SIGKILL and starts it again on the same port and database
//!   (both backends);
//! - ends every PostgreSQL session of the run's database with `pg_terminate_backend`,
//!   which is what the server sees when PostgreSQL restarts — without restarting the
//!   cluster, which other users of the machine share;
//! - cuts some or all of the server's database connections, or stalls them for a few
//!   seconds, through a TCP proxy between the server and PostgreSQL.
//!
//! Then, with the faults stopped, it checks through the API and the tables: every
//! acknowledged write exists exactly once, with the acknowledged id; no write exists
//! twice; every transaction is posted, balanced and has all its lines; the maintained
//! balances equal the journal (`Db::verify_balances`); the trial balance balances; Cash
//! equals the sum of the writes that exist; a replayed key answers the same transaction;
//! the server never panicked. Any failure exits non-zero. Bounded in time; only
//! 127.0.0.1 is contacted.//!
//! The parts: this file holds the options, the run over the backends and what the chaos
//! and soak runs share; `faults` one chaos run on one backend (the fault injector and
//! its report); `supervised` the server under test; `load`, `check`, `proxy` and
//! `soak` as their names say.

mod check;
mod faults;
mod load;
mod proxy;
mod soak;
mod supervised;

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};

use crate::bench::process::Database;
use crate::bench::{Backend, machine, server_binary};
use faults::{run_backend, table};
pub(crate) use supervised::Supervised;

pub(crate) const USAGE: &str = "usage: cargo xtask chaos [options]

Runs ledger-server (debug build unless --release) on SQLite and on PostgreSQL under
concurrent idempotent writes while killing it, ending its database sessions and cutting
or stalling its database connections; then checks that every acknowledged write exists
exactly once and the books balance. Exits non-zero on any loss, duplicate or failed check.

options:
  --short          the CI length: 35 s of faults per backend
  --seconds S      length of the fault phase per backend (default 120)
  --clients N      concurrent writers (default 8)
  --backend B      sqlite, postgres or all (default all)
  --seed N         seed of the fault schedule (default: from the clock; printed)
  --release        run the release build of the server
  --json           print the report as JSON
  --soak           soak mode instead: steady mixed load without faults, sampling the
                   server's RSS and open file descriptors (see --minutes)
  --minutes M      length of the soak per backend (default 10)
  --sample-seconds S   soak sampling interval (default 5)

environment:
  LEDGER_BENCH_PG_URL  PostgreSQL server to create the throw-away database on
                       (default postgres://postgres@127.0.0.1:5432/postgres;
                       skipped with a message when unreachable)
  LEDGER_SERVER_BIN    a ledger-server binary to run instead of building one (CI
                       passes the one `cargo xtask test` built)";

/// How long clients keep retrying the writes they started once the faults stop.
const DRAIN: Duration = Duration::from_secs(90);
/// The timeout of one HTTP request (`Prefer: wait=10` plus slack).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) duration: Duration,
    pub(crate) clients: usize,
    pub(crate) backends: Vec<Backend>,
    pub(crate) seed: u64,
    pub(crate) release: bool,
    pub(crate) json: bool,
    pub(crate) soak: bool,
    pub(crate) soak_duration: Duration,
    pub(crate) sample_every: Duration,
}

fn parse_options(args: &[String]) -> anyhow::Result<Options> {
    let mut options = Options {
        duration: Duration::from_secs(120),
        clients: 8,
        backends: vec![Backend::Sqlite, Backend::Postgres],
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
        release: false,
        json: false,
        soak: false,
        soak_duration: Duration::from_secs(600),
        sample_every: Duration::from_secs(5),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut number = |name: &str, range: std::ops::RangeInclusive<u64>| {
            let value: u64 = args
                .next()
                .ok_or_else(|| anyhow!("{name} needs a value\n\n{USAGE}"))?
                .parse()
                .with_context(|| format!("{name} must be a whole number"))?;
            if !range.contains(&value) {
                bail!(
                    "{name} must be between {} and {}",
                    range.start(),
                    range.end()
                );
            }
            anyhow::Ok(value)
        };
        match arg.as_str() {
            "--short" => options.duration = Duration::from_secs(35),
            "--seconds" => options.duration = Duration::from_secs(number("--seconds", 5..=3600)?),
            "--clients" => options.clients = number("--clients", 1..=256)? as usize,
            "--seed" => options.seed = number("--seed", 0..=u64::MAX)?,
            "--minutes" => {
                options.soak_duration = Duration::from_secs(60 * number("--minutes", 1..=24 * 60)?);
            }
            "--sample-seconds" => {
                options.sample_every = Duration::from_secs(number("--sample-seconds", 1..=600)?);
            }
            "--backend" => {
                options.backends = match args.next().map(String::as_str) {
                    Some("sqlite") => vec![Backend::Sqlite],
                    Some("postgres") => vec![Backend::Postgres],
                    Some("all") => vec![Backend::Sqlite, Backend::Postgres],
                    other => bail!("--backend takes sqlite, postgres or all, not {other:?}"),
                };
            }
            "--release" => options.release = true,
            "--json" => options.json = true,
            "--soak" => options.soak = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown option '{other}'\n\n{USAGE}"),
        }
    }
    Ok(options)
}

/// Runs `cargo xtask chaos` (`soak` forces `--soak`).
pub(crate) fn run(args: &[String], soak: bool) -> anyhow::Result<()> {
    let mut options = parse_options(args)?;
    options.soak |= soak;
    let binary = server_binary("chaos", options.release)?;
    eprintln!("xtask chaos: seed {}", options.seed);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let results = runtime.block_on(async {
        let mut results = Vec::new();
        for &backend in &options.backends {
            let Some(database) = Database::create(backend).await? else {
                results.push(
                    json!({ "backend": backend.name(), "skipped": "PostgreSQL unreachable" }),
                );
                continue;
            };
            let name = if options.soak { "soak" } else { "chaos" };
            let outcome = tokio::select! {
                outcome = in_scratch(name, options.seed, async |scratch| {
                    if options.soak {
                        soak::run(&options, &binary, backend, &database, scratch).await
                    } else {
                        run_backend(&options, &binary, backend, &database, scratch).await
                    }
                }) => outcome,
                _ = tokio::signal::ctrl_c() => Err(anyhow!("interrupted")),
                // `timeout` and CI runners stop with SIGTERM: clean up as for Ctrl-C.
                _ = terminated() => Err(anyhow!("terminated")),
            };
            database.remove().await;
            results.push(outcome.with_context(|| format!("chaos on {}", backend.name()))?);
        }
        anyhow::Ok(results)
    })?;
    let failed: Vec<String> = results
        .iter()
        .flat_map(|r| r["failures"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect();
    let report = json!({
        "mode": if options.soak { "soak" } else { "chaos" },
        "machine": machine(),
        "seed": options.seed,
        "server_build": binary.display().to_string(),
        "backends": results,
        "passed": failed.is_empty(),
    });
    if options.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else if options.soak {
        print!("{}", soak::table(&report));
    } else {
        print!("{}", table(&report));
    }
    if !failed.is_empty() {
        bail!(
            "{} check(s) failed:\n  {}",
            failed.len(),
            failed.join("\n  ")
        );
    }
    Ok(())
}

/// Resolves on SIGTERM (never, if the handler cannot be installed).
async fn terminated() {
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(mut signal) => {
            signal.recv().await;
        }
        Err(_) => std::future::pending().await,
    }
}

/// A small, seedable xorshift generator: the fault schedule needs no better.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..bound` (0 when `bound` is 0).
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 { 0 } else { self.next() % bound }
    }

    pub(crate) fn millis(&mut self, from: u64, to: u64) -> Duration {
        Duration::from_millis(from + self.below(to.saturating_sub(from)))
    }
}

/// The HTTP client of a run's clients: the request timeout, and idle connections kept
/// for `connections` at once.
fn http_client(connections: usize) -> anyhow::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .pool_max_idle_per_host(connections)
        .build()
        .context("building the HTTP client")
}

/// Runs `body` in a scratch directory of its own (`ledger-NAME-SEED` in the temporary
/// directory), removed afterwards whatever `body` answered.
pub(crate) async fn in_scratch<T>(
    name: &str,
    seed: u64,
    body: impl AsyncFnOnce(&Path) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let scratch = std::env::temp_dir().join(format!("ledger-{name}-{seed}"));
    std::fs::create_dir_all(&scratch).context("creating the scratch directory")?;
    let outcome = body(&scratch).await;
    let _ = std::fs::remove_dir_all(&scratch);
    outcome
}

/// "server BUILD; N cores, CPU": the header words of the chaos and soak reports.
pub(crate) fn server_and_machine(report: &Value) -> String {
    format!(
        "server {}; {} cores, {}",
        report["server_build"].as_str().unwrap_or("?"),
        report["machine"]["cores"],
        report["machine"]["cpu"].as_str().unwrap_or("unknown CPU"),
    )
}

/// Writes each backend of a chaos or soak report: `skipped: REASON` for one that did not
/// run, else its `summary` line (of its name and figures) and its failures, or `passed`.
pub(crate) fn write_backends(
    out: &mut String,
    report: &Value,
    passed: &str,
    summary: impl Fn(&str, &Value) -> String,
) {
    use std::fmt::Write as _;
    for backend in report["backends"].as_array().into_iter().flatten() {
        let name = backend["backend"].as_str().unwrap_or("?");
        if let Some(reason) = backend["skipped"].as_str() {
            let _ = writeln!(out, "{name}: skipped: {reason}\n");
            continue;
        }
        let _ = writeln!(out, "{}", summary(name, backend));
        write_failures(out, backend, passed);
    }
}

/// A backend's failures, one line each, or `passed` when it has none (report tables of
/// the chaos and soak runs).
fn write_failures(out: &mut String, backend: &Value, passed: &str) {
    use std::fmt::Write as _;
    let failures = backend["failures"].as_array().cloned().unwrap_or_default();
    if failures.is_empty() {
        let _ = writeln!(out, "  {passed}\n");
        return;
    }
    for failure in failures {
        let _ = writeln!(out, "  FAILED: {}", failure.as_str().unwrap_or("?"));
    }
    let _ = writeln!(out);
}

/// The run's last line: `NAME: passed` or `NAME: FAILED`.
pub(crate) fn write_verdict(out: &mut String, report: &Value, name: &str) {
    use std::fmt::Write as _;
    let verdict = if report["passed"] == true {
        "passed"
    } else {
        "FAILED"
    };
    let _ = writeln!(out, "{name}: {verdict}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_seeded_and_bounded() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            let x = a.below(10);
            assert_eq!(x, b.below(10));
            assert!(x < 10);
        }
        assert_eq!(a.below(0), 0);
    }
}
