//! `cargo xtask bench`: end-to-end throughput and latency of the release server on
//! SQLite and PostgreSQL, against a plain-SQL baseline of the same rows.
//!
//! For each backend the release `ledger-server` runs as a child process on a fresh
//! database and a free loopback port. N concurrent clients post balanced transactions
//! over HTTP (`Prefer: wait`, so each answer is the posted transaction), then read
//! balances. After the server stops, the baseline inserts the same rows (a transaction
//! and two entries per database transaction) through `ledger_store::Db` with the same
//! concurrency and pool size. Every loop is bounded in time and count, and only
//! 127.0.0.1 is ever contacted. Temporary files, databases and the child process are
//! removed whatever happens.

pub(crate) mod load;
pub(crate) mod process;
mod scale;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use ledger_domain::ids::{IdKind, new_id};
use serde_json::{Value, json};

use load::{Phase, Target, baseline, load};
use process::{CpuSnapshot, Database, RssSampler, Server, proc_status_kb};

pub(crate) const USAGE: &str = "usage: cargo xtask bench [options]

Builds ledger-server in release, runs it on SQLite and on PostgreSQL and loads it over
HTTP from 127.0.0.1, then inserts the same rows by plain SQL as a baseline.

options:
  --clients N      concurrent clients (default 32)
  --seconds S      length of each phase in seconds (default 10; a cap when --requests is given)
  --requests R     stop each phase after R requests (time cap 300 s unless --seconds is given)
  --backend B      sqlite, postgres or all (default all)
  --scale-max N    grow one account's history to 10^3, 10^5 and 10^6 entries, up to N,
                   reading balances and the trial balance (200 accounts) at each size
                   (default 1000000; 0 skips the scale phase)
  --json           print the results as JSON instead of a table

environment:
  LEDGER_BENCH_PG_URL  PostgreSQL server to create the bench database on
                       (default postgres://postgres@127.0.0.1:5432/postgres;
                       skipped with a message when unreachable)
  LEDGER_BENCH_SERVER_POOL  database pool size of the server under load (default: the
                            server's, 16 on PostgreSQL and 4 SQLite readers)
  LEDGER_SERVER_BIN    a release ledger-server to measure instead of building one";

pub(crate) const DEFAULT_PG_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";
/// The server's connection pool, and the baseline's: the same kind and size
/// (`LEDGER_BENCH_SERVER_POOL`, else the server's default for the backend).
pub(crate) fn pool_size(database_url: &str) -> usize {
    std::env::var("LEDGER_BENCH_SERVER_POOL")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| ledger_store::default_pool_size(database_url))
}
/// The time cap of a phase bounded by `--requests` alone.
const REQUESTS_TIME_CAP: Duration = Duration::from_secs(300);
/// How long one HTTP request may take (`Prefer: wait=30` plus slack).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// The amount of every benchmark transaction: 100.00 (units of 1/10 000).
const AMOUNT_UNITS: i64 = 1_000_000;

/// Parsed command line.
#[derive(Debug, Clone)]
struct Options {
    clients: usize,
    duration: Duration,
    requests: Option<u64>,
    backends: Vec<Backend>,
    json: bool,
    /// Entries per account the scale phase grows to (0: no scale phase).
    scale_max: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Postgres => "postgres",
        }
    }
}

fn parse_options(args: &[String]) -> anyhow::Result<Options> {
    let mut options = Options {
        clients: 32,
        duration: Duration::from_secs(10),
        requests: None,
        backends: vec![Backend::Sqlite, Backend::Postgres],
        json: false,
        scale_max: 1_000_000,
    };
    let mut seconds_given = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| anyhow!("{name} needs a value\n\n{USAGE}"))
        };
        match arg.as_str() {
            "--clients" => {
                options.clients = value("--clients")?
                    .parse()
                    .context("--clients must be a positive integer")?;
                if !(1..=1024).contains(&options.clients) {
                    bail!("--clients must be between 1 and 1024");
                }
            }
            "--seconds" => {
                let seconds: u64 = value("--seconds")?
                    .parse()
                    .context("--seconds must be a positive integer")?;
                if !(1..=3600).contains(&seconds) {
                    bail!("--seconds must be between 1 and 3600");
                }
                options.duration = Duration::from_secs(seconds);
                seconds_given = true;
            }
            "--requests" => {
                let requests: u64 = value("--requests")?
                    .parse()
                    .context("--requests must be a positive integer")?;
                if !(1..=10_000_000).contains(&requests) {
                    bail!("--requests must be between 1 and 10000000");
                }
                options.requests = Some(requests);
            }
            "--backend" => {
                options.backends = match value("--backend")?.as_str() {
                    "sqlite" => vec![Backend::Sqlite],
                    "postgres" => vec![Backend::Postgres],
                    "all" => vec![Backend::Sqlite, Backend::Postgres],
                    other => bail!("unknown backend '{other}' (sqlite, postgres or all)"),
                };
            }
            "--scale-max" => {
                options.scale_max = value("--scale-max")?
                    .parse()
                    .context("--scale-max must be a whole number")?;
            }
            "--json" => options.json = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown option '{other}'\n\n{USAGE}"),
        }
    }
    if options.requests.is_some() && !seconds_given {
        options.duration = REQUESTS_TIME_CAP;
    }
    Ok(options)
}

/// The server `tool` runs: `LEDGER_SERVER_BIN` when set (CI passes the test build's, so
/// nothing is compiled again with other features), else a fresh `-p server` build of the
/// asked profile.
pub(crate) fn server_binary(tool: &str, release: bool) -> anyhow::Result<PathBuf> {
    if let Some(given) = std::env::var_os("LEDGER_SERVER_BIN").filter(|v| !v.is_empty()) {
        let binary = PathBuf::from(given);
        eprintln!(
            "xtask {tool}: running {} (LEDGER_SERVER_BIN)",
            binary.display()
        );
        if !binary.is_file() {
            bail!("LEDGER_SERVER_BIN names no file: {}", binary.display());
        }
        return Ok(binary);
    }
    let profile = if release { "release" } else { "debug" };
    eprintln!("xtask {tool}: building ledger-server ({profile})");
    let mut build = vec!["build", "-p", "server", "--bin", "ledger-server"];
    if release {
        build.push("--release");
    }
    crate::cargo(&build)?;
    let binary = target_dir().join(profile).join("ledger-server");
    if !binary.is_file() {
        bail!("the server binary is not at {}", binary.display());
    }
    Ok(binary)
}

/// Runs `cargo xtask bench`.
pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let options = parse_options(args)?;
    let binary = server_binary("bench", true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let results = runtime.block_on(run_all(&options, &binary))?;
    let report = json!({
        "machine": machine(),
        "clients": options.clients,
        "phase_seconds_cap": options.duration.as_secs(),
        "requests_per_phase": options.requests,
        "backends": results,
    });
    if options.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", table(&report));
    }
    Ok(())
}

/// The cargo target directory (`CARGO_TARGET_DIR` or the workspace's `target/`).
pub(crate) fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or_else(|| Path::new("."))
            .join("target"),
    }
}

/// CPU count and model, so the figures say what they were measured on.
pub(crate) fn machine() -> Value {
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        });
    json!({ "cores": cores, "cpu": model })
}

async fn run_all(options: &Options, binary: &Path) -> anyhow::Result<Vec<Value>> {
    let mut results = Vec::new();
    for &backend in &options.backends {
        let database = match Database::create(backend).await {
            Ok(Some(database)) => database,
            Ok(None) => {
                results.push(
                    json!({ "backend": backend.name(), "skipped": "PostgreSQL unreachable" }),
                );
                continue;
            }
            Err(e) => return Err(e),
        };
        eprintln!("xtask bench: {} on {}", backend.name(), database.shown());
        let outcome = tokio::select! {
            outcome = run_backend(options, binary, backend, &database) => outcome,
            _ = tokio::signal::ctrl_c() => Err(anyhow!("interrupted")),
        };
        database.remove().await;
        results.push(outcome.with_context(|| format!("benchmark on {}", backend.name()))?);
    }
    Ok(results)
}

async fn run_backend(
    options: &Options,
    binary: &Path,
    backend: Backend,
    database: &Database,
) -> anyhow::Result<Value> {
    let (mut server, base) = Server::start(binary, &database.url)?;
    let client = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .pool_max_idle_per_host(options.clients + 4)
        .build()
        .context("building the HTTP client")?;
    let outcome = async {
        wait_healthy(&client, &base, &mut server).await?;
        let target = sign_up(&client, &base).await?;
        let sampler = RssSampler::start(server.pid());
        let started_kb = proc_status_kb(server.pid(), "VmRSS").unwrap_or(0);
        eprintln!(
            "xtask bench: {}: posting transactions ({} clients)",
            backend.name(),
            options.clients
        );
        let before = CpuSnapshot::take(Some(server.pid()));
        let writes = load(options, &client, &target, Phase::Post).await;
        let writes_cpu = CpuSnapshot::take(Some(server.pid())).since(&before);
        let mut rss_by_phase = vec![("post_transaction".to_owned(), sampler.lap())];
        eprintln!("xtask bench: {}: reading balances", backend.name());
        let before = CpuSnapshot::take(Some(server.pid()));
        let reads = load(options, &client, &target, Phase::ReadBalance).await;
        let reads_cpu = CpuSnapshot::take(Some(server.pid())).since(&before);
        rss_by_phase.push(("read_balance".to_owned(), sampler.lap()));
        eprintln!(
            "xtask bench: {}: read mix (balance, history page, trial balance)",
            backend.name()
        );
        let before = CpuSnapshot::take(Some(server.pid()));
        let mix = load(options, &client, &target, Phase::ReadMix).await;
        let mix = with_cpu(
            mix.to_json(),
            &CpuSnapshot::take(Some(server.pid())).since(&before),
            mix.ok,
        );
        rss_by_phase.push(("read_mix".to_owned(), sampler.lap()));
        let scaled = if options.scale_max > 0 {
            let phases = scale::Phases {
                sampler: &sampler,
                rss_by_phase: &mut rss_by_phase,
            };
            scale::scale(options, &client, &target, &database.url, phases).await?
        } else {
            Value::Null
        };
        let sampled_kb = sampler.finish();
        let hwm_kb = proc_status_kb(server.pid(), "VmHWM").unwrap_or(0);
        anyhow::Ok((
            target,
            writes,
            writes_cpu,
            reads,
            reads_cpu,
            (mix, scaled),
            (started_kb, sampled_kb, hwm_kb, rss_by_phase),
        ))
    }
    .await;
    let stopped = server.stop().await;
    let (
        target,
        writes,
        writes_cpu,
        reads,
        reads_cpu,
        (mix, scaled),
        (started_kb, sampled_kb, hwm_kb, rss_by_phase),
    ) = match outcome {
        Ok(o) => o,
        Err(e) => return Err(e.context(format!("server output:\n{}", server.log_tail()))),
    };
    stopped?;
    drop(server);

    eprintln!(
        "xtask bench: {}: baseline (plain SQL inserts)",
        backend.name()
    );
    let before = CpuSnapshot::take(None);
    let baseline = baseline(options, &database.url, &target).await?;
    let baseline_cpu = CpuSnapshot::take(None).since(&before);
    let ratio = if baseline.throughput > 0.0 {
        writes.throughput / baseline.throughput
    } else {
        0.0
    };
    Ok(json!({
        "backend": backend.name(),
        "pool_size": pool_size(&database.url),
        "post_transaction": with_cpu(writes.to_json(), &writes_cpu, writes.ok),
        "read_balance": with_cpu(reads.to_json(), &reads_cpu, reads.ok),
        "read_mix": mix,
        "scale": scaled,
        "baseline_sql_insert": with_cpu(baseline.to_json(), &baseline_cpu, baseline.ok),
        "http_to_baseline_ratio": round(ratio, 3),
        "server_rss_mb": {
            "before_load": mb(started_kb),
            "sampled_max": mb(sampled_kb),
            "peak_vmhwm": mb(hwm_kb),
            // In the order the phases ran.
            "sampled_max_by_phase": rss_by_phase
                .iter()
                .map(|(phase, kb)| json!({ "phase": phase, "mb": mb(*kb) }))
                .collect::<Vec<_>>(),
        },
    }))
}

pub(crate) async fn wait_healthy(
    client: &reqwest::Client,
    base: &str,
    server: &mut Server,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if let Some(status) = server.child.try_wait()? {
            bail!("the server exited during start-up ({status})");
        }
        let healthy = client
            .get(format!("{base}/health"))
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        if healthy {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("the server did not answer /health within 120 s")
}

/// Signs up an organization and finds its Cash (1000) and Sales (4000) accounts.
pub(crate) async fn sign_up(client: &reqwest::Client, base: &str) -> anyhow::Result<Target> {
    let response = client
        .post(format!("{base}/accounts/master"))
        .json(&json!({
            "name": "Bench Co",
            "user_provider_id": format!("bench-{}", new_id(IdKind::User)),
            "user_email": "bench@example.com",
        }))
        .send()
        .await
        .context("signing up")?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .context("reading the sign-up answer")?;
    if status.as_u16() != 201 {
        bail!("sign-up answered {status}: {body}");
    }
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let org =
        text(&body["organization"]["id"]).context("sign-up answer without organization.id")?;
    // The test key: test mode never runs out of credits.
    let key = text(&body["api_key"]["key"]).context("sign-up answer without api_key.key")?;
    let response = client
        .get(format!("{base}/organizations/{org}/accounts?limit=100"))
        .bearer_auth(&key)
        .send()
        .await
        .context("listing accounts")?;
    let status = response.status();
    let accounts: Value = response.json().await.context("reading the account list")?;
    if !status.is_success() {
        bail!("listing accounts answered {status}: {accounts}");
    }
    let by_code = |code: &str| {
        accounts["data"]
            .as_array()
            .and_then(|all| all.iter().find(|a| a["code"] == code))
            .and_then(|a| text(&a["id"]))
            .with_context(|| format!("no account {code} in the default chart"))
    };
    let currency = accounts["data"]
        .as_array()
        .and_then(|all| all.iter().find(|a| a["code"] == "1000"))
        .and_then(|a| text(&a["currency"]))
        .context("account 1000 without a currency")?;
    Ok(Target {
        base: base.to_owned(),
        currency,
        cash: by_code("1000")?,
        sales: by_code("4000")?,
        key,
        org,
    })
}

/// Adds the CPU split of a phase to its JSON, with the server's CPU per operation.
fn with_cpu(mut phase: Value, cpu: &CpuSnapshot, ok: u64) -> Value {
    let rest = (cpu.machine_busy - cpu.server - cpu.bench).max(0.0);
    let per_op_us = |seconds: f64| {
        if ok > 0 {
            (seconds * 1e6 / ok as f64).round() as u64
        } else {
            0
        }
    };
    phase["cpu_seconds"] = json!({
        "server": round(cpu.server, 2),
        "bench_process": round(cpu.bench, 2),
        "rest_of_machine": round(rest, 2),
        "postgres": round(cpu.postgres, 2),
        "machine_busy": round(cpu.machine_busy, 2),
    });
    phase["cpu_us_per_op"] = json!({
        "server": per_op_us(cpu.server),
        "bench_process": per_op_us(cpu.bench),
        "rest_of_machine": per_op_us(rest),
        "postgres": per_op_us(cpu.postgres),
    });
    phase
}

pub(crate) fn round(value: f64, places: i32) -> f64 {
    let factor = 10f64.powi(places);
    (value * factor).round() / factor
}

fn mb(kb: u64) -> f64 {
    round(kb as f64 / 1024.0, 1)
}

/// One row of the report's table: the figures of the phase `p` of the backend `name`,
/// under the column headings `table` writes.
fn phase_row(out: &mut String, name: &str, label: &str, p: &Value) {
    let _ = writeln!(
        out,
        "{name:<9} {label:<22} {:>8} {:>7} {:>9.1} {:>8.2} {:>8.2} {:>8.2}",
        p["ok"].as_u64().unwrap_or(0),
        p["errors"].as_u64().unwrap_or(0),
        p["per_second"].as_f64().unwrap_or(0.0),
        p["p50_ms"].as_f64().unwrap_or(0.0),
        p["p99_ms"].as_f64().unwrap_or(0.0),
        p["max_ms"].as_f64().unwrap_or(0.0),
    );
}

/// The human-readable report.
fn table(report: &Value) -> String {
    let mut out = String::new();
    let cores = &report["machine"]["cores"];
    let cpu = report["machine"]["cpu"].as_str().unwrap_or("unknown CPU");
    let _ = writeln!(
        out,
        "\nLedger benchmark: {} clients, phases of up to {} s{}; {cores} cores ({cpu})\n",
        report["clients"],
        report["phase_seconds_cap"],
        report["requests_per_phase"]
            .as_u64()
            .map_or_else(String::new, |r| format!(" or {r} requests")),
    );
    let _ = writeln!(
        out,
        "{:<9} {:<22} {:>8} {:>7} {:>9} {:>8} {:>8} {:>8}",
        "backend", "phase", "ok", "errors", "per sec", "p50 ms", "p99 ms", "max ms"
    );
    for backend in report["backends"].as_array().into_iter().flatten() {
        let name = backend["backend"].as_str().unwrap_or("?");
        if let Some(reason) = backend["skipped"].as_str() {
            let _ = writeln!(out, "{name:<9} skipped: {reason}");
            continue;
        }
        for (key, label) in [
            ("post_transaction", "POST transaction (HTTP)"),
            ("read_balance", "GET balance (HTTP)"),
            ("read_mix", "read mix (HTTP)"),
            ("baseline_sql_insert", "baseline SQL insert"),
        ] {
            let p = &backend[key];
            phase_row(&mut out, name, label, p);
            let cpu = &p["cpu_us_per_op"];
            let _ = writeln!(
                out,
                "{:<9}   CPU per op: server {} us, bench process {} us, rest of machine (database, OS) {} us, of which postgres processes {} us",
                "", cpu["server"], cpu["bench_process"], cpu["rest_of_machine"], cpu["postgres"],
            );
            if let Some(error) = p["first_error"].as_str() {
                let _ = writeln!(out, "{:<9}   first error: {error}", "");
            }
        }
        for step in backend["scale"]["steps"].as_array().into_iter().flatten() {
            for (key, label) in [
                ("balance", "balance"),
                ("balance_as_of", "balance as of"),
                ("trial_balance", "trial balance"),
            ] {
                let label = format!("{label} @{}", step["entries_per_account"]);
                phase_row(&mut out, name, &label, &step[key]);
            }
        }
        let rss = &backend["server_rss_mb"];
        let _ = writeln!(
            out,
            "{:<9} pool {}; HTTP/baseline throughput: {}; server RSS: {} MB idle, {} MB max sampled, {} MB peak (VmHWM)",
            "",
            backend["pool_size"],
            backend["http_to_baseline_ratio"],
            rss["before_load"],
            rss["sampled_max"],
            rss["peak_vmhwm"],
        );
        if let Some(phases) = rss["sampled_max_by_phase"].as_array() {
            let shown: Vec<String> = phases
                .iter()
                .map(|p| format!("{} {}", p["phase"].as_str().unwrap_or("?"), p["mb"]))
                .collect();
            let _ = writeln!(
                out,
                "{:<9} server RSS max by phase (MB): {}\n",
                "",
                shown.join(", ")
            );
        }
    }
    out
}
