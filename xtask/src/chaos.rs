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
//! 127.0.0.1 is contacted.

mod check;
mod load;
mod proxy;
mod soak;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::bench::process::{Database, Owned, Server, free_loopback_addr};
use crate::bench::{Backend, machine, server_binary, sign_up, wait_healthy};

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
            let outcome = tokio::select! {
                outcome = async {
                    if options.soak {
                        soak::run(&options, &binary, backend, &database).await
                    } else {
                        run_backend(&options, &binary, backend, &database).await
                    }
                } => outcome,
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

/// The server under test: restarted in place (same address and database) after a kill.
pub(crate) struct Supervised {
    pub(crate) binary: PathBuf,
    pub(crate) database_url: String,
    pub(crate) addr: String,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) server: Option<Server>,
    pub(crate) starts: u64,
    /// Panics found in the output of the server processes so far.
    pub(crate) panics: Vec<String>,
    /// Times the server exited without being killed.
    pub(crate) unexpected_exits: u64,
}

impl Supervised {
    pub(crate) fn new(binary: &Path, database_url: &str, scratch: &Path) -> anyhow::Result<Self> {
        let dir = |name: &str| scratch.join(name).display().to_string();
        Ok(Supervised {
            binary: binary.to_owned(),
            database_url: database_url.to_owned(),
            addr: free_loopback_addr()?,
            env: vec![
                // A job left by a killed process runs again soon.
                ("LEDGER_JOB_LEASE_SECONDS".into(), "3".into()),
                ("LEDGER_BLOB_DIR".into(), dir("blobs")),
                ("LEDGER_MAIL_OUTBOX".into(), dir("outbox")),
                ("LEDGER_DB_POOL".into(), "8".into()),
            ],
            server: None,
            starts: 0,
            panics: Vec::new(),
            unexpected_exits: 0,
        })
    }

    pub(crate) fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Starts the server and waits until it answers `/health`.
    pub(crate) async fn start(&mut self, client: &reqwest::Client) -> anyhow::Result<()> {
        let env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut server = Server::start_on(&self.binary, &self.database_url, &self.addr, &env)?;
        self.starts += 1;
        let healthy = wait_healthy(client, &self.base(), &mut server).await;
        let tail = server.log_tail();
        self.server = Some(server);
        healthy.with_context(|| format!("server output:\n{tail}"))
    }

    /// SIGKILLs the server (if running) and keeps what its output says about panics.
    pub(crate) fn kill(&mut self) {
        if let Some(mut server) = self.server.take() {
            if matches!(server.child.try_wait(), Ok(Some(_))) {
                self.unexpected_exits += 1;
            }
            let _ = server.child.kill();
            let _ = server.child.wait();
            self.collect_panics(&server);
        }
    }

    /// Whether the server exited on its own (counted, and then restarted by the caller).
    pub(crate) fn exited(&mut self) -> bool {
        self.server
            .as_mut()
            .is_some_and(|s| matches!(s.child.try_wait(), Ok(Some(_))))
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.server.as_ref().map(Server::pid)
    }

    fn collect_panics(&mut self, server: &Server) {
        let log = std::fs::read_to_string(&server.log).unwrap_or_default();
        for line in log.lines().filter(|l| l.contains("panicked")) {
            if self.panics.len() < 20 {
                self.panics.push(line.chars().take(400).collect());
            }
        }
    }

    /// Stops the server with SIGTERM, keeping what its output says about panics.
    pub(crate) async fn stop(&mut self) {
        if let Some(mut server) = self.server.take() {
            if let Err(e) = server.stop().await {
                eprintln!("xtask chaos: {e:#}");
            }
            self.collect_panics(&server);
        }
    }

    pub(crate) fn log_tail(&self) -> String {
        self.server
            .as_ref()
            .map(Server::log_tail)
            .unwrap_or_default()
    }
}

/// The counts of faults injected.
#[derive(Debug, Default)]
struct Faults {
    kills: u64,
    terminations: u64,
    sessions_ended: u64,
    proxy_drops: u64,
    proxy_stalls: u64,
}

/// The PostgreSQL pieces of a run: the admin URL, the database name and the proxy.
struct PgFaults {
    admin_url: String,
    name: String,
    proxy: proxy::Proxy,
}

async fn run_backend(
    options: &Options,
    binary: &Path,
    backend: Backend,
    database: &Database,
) -> anyhow::Result<Value> {
    in_scratch("chaos", options.seed, async |scratch| {
        run_backend_in(options, binary, backend, database, scratch).await
    })
    .await
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

async fn run_backend_in(
    options: &Options,
    binary: &Path,
    backend: Backend,
    database: &Database,
    scratch: &Path,
) -> anyhow::Result<Value> {
    // On PostgreSQL the server reaches its database through the proxy.
    let (server_url, pg) = match &database.owned {
        Owned::Postgres { admin_url, name } => {
            let proxy = proxy::Proxy::start(pg_host_port(&database.url)?).await?;
            let url = replace_host_port(&database.url, &proxy.addr)?;
            let pg = PgFaults {
                admin_url: admin_url.clone(),
                name: name.clone(),
                proxy,
            };
            (url, Some(pg))
        }
        _ => (database.url.clone(), None),
    };
    eprintln!(
        "xtask chaos: {}: {} writers for {} s on {}",
        backend.name(),
        options.clients,
        options.duration.as_secs(),
        database.shown()
    );
    let client = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .pool_max_idle_per_host(options.clients + 4)
        .build()
        .context("building the HTTP client")?;
    let mut supervised = Supervised::new(binary, &server_url, scratch)?;
    supervised.start(&client).await?;
    let target = sign_up(&client, &supervised.base()).await?;
    let supervised = Arc::new(Mutex::new(supervised));
    let run_id = format!("{:x}", options.seed & 0xffff_ffff);
    let progress = Arc::new(load::Progress::default());
    let started = Instant::now();
    let stop_new = started + options.duration;
    let give_up = stop_new + DRAIN;

    let writers = load::write_clients(
        options.clients,
        &client,
        &target,
        &run_id,
        (stop_new, give_up),
        &progress,
        options.seed,
    );
    let injector = inject(
        Arc::clone(&supervised),
        &client,
        pg.as_ref(),
        options.seed,
        started + Duration::from_secs(2),
        stop_new
            .checked_sub(Duration::from_secs(3))
            .unwrap_or(stop_new),
        &progress,
    );
    let (outcomes, faults) = tokio::join!(writers, injector);
    let faults = faults?;
    let elapsed = started.elapsed();

    let mut supervised = Arc::try_unwrap(supervised)
        .map_err(|_| anyhow!("the server handle is still shared"))?
        .into_inner();
    if supervised.exited() {
        supervised.kill();
        supervised.start(&client).await?;
    }
    // The checks read the tables directly, not through the proxy.
    let checked = check::check(&client, &target, &database.url, &outcomes).await;
    supervised.stop().await;
    let mut report = match checked {
        Ok(report) => report,
        Err(e) => return Err(e.context(format!("server output:\n{}", supervised.log_tail()))),
    };
    let failures = report["failures"].as_array_mut().context("failures")?;
    if !supervised.panics.is_empty() {
        failures.push(json!(format!(
            "the server panicked: {}",
            supervised.panics.join(" | ")
        )));
    }
    if supervised.unexpected_exits > 0 {
        failures.push(json!(format!(
            "the server exited on its own {} time(s)",
            supervised.unexpected_exits
        )));
    }
    // A run that injected nothing proves nothing.
    let kinds = [
        ("server kills", faults.kills),
        ("PostgreSQL terminations", faults.terminations),
        ("proxy drops", faults.proxy_drops),
        ("proxy stalls", faults.proxy_stalls),
    ];
    for (kind, count) in &kinds[..if pg.is_some() { 4 } else { 1 }] {
        if *count == 0 {
            failures.push(json!(format!("no {kind} were injected (run longer)")));
        }
    }
    report["backend"] = json!(backend.name());
    report["seconds"] = json!(crate::bench::round(elapsed.as_secs_f64(), 1));
    report["clients"] = json!(options.clients);
    report["faults"] = json!({
        "server_kills": faults.kills,
        "server_starts": supervised.starts,
        "pg_terminations": faults.terminations,
        "pg_sessions_ended": faults.sessions_ended,
        "proxy_drops": faults.proxy_drops,
        "proxy_stalls": faults.proxy_stalls,
        "proxy_connections": pg.as_ref().map(|p| p.proxy.accepted.load(Ordering::Relaxed)),
        "proxy_connections_cut": pg.as_ref().map(|p| p.proxy.dropped.load(Ordering::Relaxed)),
    });
    Ok(report)
}

/// Injects faults at random moments from `start` to `stop`: kills on both backends;
/// session terminations and proxy drops and stalls on PostgreSQL.
async fn inject(
    supervised: Arc<Mutex<Supervised>>,
    client: &reqwest::Client,
    pg: Option<&PgFaults>,
    seed: u64,
    start: Instant,
    stop: Instant,
    progress: &load::Progress,
) -> anyhow::Result<Faults> {
    let mut rng = Rng::new(seed.rotate_left(17) ^ 0x5eed);
    let mut faults = Faults::default();
    tokio::time::sleep_until(start).await;
    let mut last_report = Instant::now();
    let mut round = rng.below(4);
    loop {
        let pause = rng.millis(500, 4000);
        if Instant::now() + pause >= stop {
            break;
        }
        tokio::time::sleep(pause).await;
        {
            let mut s = supervised.lock().await;
            if s.exited() {
                s.kill();
                s.start(client).await?;
            }
        }
        // In turn, from a random start, so even a short run injects every kind.
        round += 1;
        let choice = if pg.is_some() { round % 4 } else { 0 };
        match (choice, pg) {
            (1, Some(pg)) => {
                faults.terminations += 1;
                match ledger_store::bench::terminate_pg_connections(&pg.admin_url, &pg.name).await {
                    Ok(n) => faults.sessions_ended += n,
                    Err(e) => eprintln!("xtask chaos: pg_terminate_backend failed: {e}"),
                }
            }
            (2, Some(pg)) => {
                faults.proxy_drops += 1;
                // Half the time every connection, else about a third of them.
                pg.proxy
                    .drop_connections(if rng.below(2) == 0 { 1000 } else { 333 });
            }
            (3, Some(pg)) => {
                faults.proxy_stalls += 1;
                pg.proxy.stall(rng.millis(500, 6000));
            }
            _ => {
                faults.kills += 1;
                let mut s = supervised.lock().await;
                s.kill();
                // Down for a moment: clients meet refused connections.
                tokio::time::sleep(rng.millis(0, 1500)).await;
                s.start(client).await?;
            }
        }
        if last_report.elapsed() >= Duration::from_secs(10) {
            last_report = Instant::now();
            eprintln!(
                "xtask chaos: {} acknowledged, {} attempts; faults so far: {faults:?}",
                progress.acknowledged.load(Ordering::Relaxed),
                progress.attempts.load(Ordering::Relaxed),
            );
        }
    }
    Ok(faults)
}

/// `host:port` of a `postgres://` URL (default port 5432).
fn pg_host_port(url: &str) -> anyhow::Result<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or(rest);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.is_empty() {
        bail!("no host in the PostgreSQL URL");
    }
    Ok(if host_port.contains(':') {
        host_port.to_owned()
    } else {
        format!("{host_port}:5432")
    })
}

/// `url` with its `host:port` replaced by `addr`.
fn replace_host_port(url: &str, addr: &str) -> anyhow::Result<String> {
    let (scheme, rest) = url.split_once("://").context("a URL without a scheme")?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let user = authority.rsplit_once('@').map(|(u, _)| u);
    Ok(match user {
        Some(user) => format!("{scheme}://{user}@{addr}/{path}"),
        None => format!("{scheme}://{addr}/{path}"),
    })
}

/// The human-readable report.
fn table(report: &Value) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nLedger chaos run (seed {}, server {}; {} cores, {})\n",
        report["seed"],
        report["server_build"].as_str().unwrap_or("?"),
        report["machine"]["cores"],
        report["machine"]["cpu"].as_str().unwrap_or("unknown CPU"),
    );
    for backend in report["backends"].as_array().into_iter().flatten() {
        let name = backend["backend"].as_str().unwrap_or("?");
        if let Some(reason) = backend["skipped"].as_str() {
            let _ = writeln!(out, "{name}: skipped: {reason}\n");
            continue;
        }
        let c = &backend["counts"];
        let f = &backend["faults"];
        let _ = writeln!(
            out,
            "{name}: {} s, {} writers\n  writes: sent {}, acknowledged {}, retried {} ({} attempts), \
             unacknowledged {}, refused {}, lost {}, duplicated {}, half-applied {}\n  \
             faults: {} kills ({} starts), {} PostgreSQL terminations ({} sessions), \
             {} proxy drops, {} proxy stalls ({} connections, {} cut)",
            backend["seconds"],
            backend["clients"],
            c["sent"],
            c["acknowledged"],
            c["retried"],
            c["attempts"],
            c["unacknowledged"],
            c["refused"],
            c["lost"],
            c["duplicated"],
            c["half_applied"],
            f["server_kills"],
            f["server_starts"],
            f["pg_terminations"],
            f["pg_sessions_ended"],
            f["proxy_drops"],
            f["proxy_stalls"],
            f["proxy_connections"],
            f["proxy_connections_cut"],
        );
        write_failures(&mut out, backend, "checks: all passed");
    }
    write_verdict(&mut out, report, "chaos");
    out
}

/// A backend's failures, one line each, or `passed` when it has none (report tables of
/// the chaos and soak runs).
pub(crate) fn write_failures(out: &mut String, backend: &Value, passed: &str) {
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
    fn urls_are_rewritten_to_the_proxy() {
        let url = "postgres://postgres@127.0.0.1:5432/ledger_bench_x";
        assert_eq!(pg_host_port(url).unwrap(), "127.0.0.1:5432");
        assert_eq!(
            replace_host_port(url, "127.0.0.1:6000").unwrap(),
            "postgres://postgres@127.0.0.1:6000/ledger_bench_x"
        );
        assert_eq!(pg_host_port("postgres://h/db").unwrap(), "h:5432");
    }

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
