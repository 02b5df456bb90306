//! One chaos run on one backend: the server started through the fault proxy (on
//! PostgreSQL), the writers and the fault injector side by side, then the checks and the
//! report of what was injected.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::{DRAIN, Options, Rng, Supervised, check, http_client, load, proxy, write_verdict};
use crate::bench::process::{Database, Owned};
use crate::bench::{Backend, sign_up};

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

/// The chaos run on one backend, its files in `scratch`.
pub(super) async fn run_backend(
    options: &Options,
    binary: &Path,
    backend: Backend,
    database: &Database,
    scratch: &Path,
) -> anyhow::Result<Value> {
    // On PostgreSQL the server reaches its database through the proxy.
    let (server_url, pg) = server_url(database).await?;
    eprintln!(
        "xtask chaos: {}: {} writers for {} s on {}",
        backend.name(),
        options.clients,
        options.duration.as_secs(),
        database.shown()
    );
    let client = http_client(options.clients + 4)?;
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
    push_failures(failures, &supervised, &faults, pg.is_some());
    report["backend"] = json!(backend.name());
    report["seconds"] = json!(crate::bench::round(elapsed.as_secs_f64(), 1));
    report["clients"] = json!(options.clients);
    report["faults"] = faults_json(&faults, &supervised, pg.as_ref());
    Ok(report)
}

/// The URL the server is given: the database's own, or on PostgreSQL the address of a
/// new fault proxy in front of it (returned with the run's PostgreSQL pieces).
async fn server_url(database: &Database) -> anyhow::Result<(String, Option<PgFaults>)> {
    Ok(match &database.owned {
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
    })
}

/// Adds to `failures` what the server did wrong (panics, exits of its own) and each kind
/// of fault that was never injected (a run that injected nothing proves nothing).
fn push_failures(failures: &mut Vec<Value>, supervised: &Supervised, faults: &Faults, pg: bool) {
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
    for (kind, count) in &kinds[..if pg { 4 } else { 1 }] {
        if *count == 0 {
            failures.push(json!(format!("no {kind} were injected (run longer)")));
        }
    }
}

/// The report's `faults`: what was injected, server starts and proxy connections.
fn faults_json(faults: &Faults, supervised: &Supervised, pg: Option<&PgFaults>) -> Value {
    json!({
        "server_kills": faults.kills,
        "server_starts": supervised.starts,
        "pg_terminations": faults.terminations,
        "pg_sessions_ended": faults.sessions_ended,
        "proxy_drops": faults.proxy_drops,
        "proxy_stalls": faults.proxy_stalls,
        "proxy_connections": pg.as_ref().map(|p| p.proxy.accepted.load(Ordering::Relaxed)),
        "proxy_connections_cut": pg.as_ref().map(|p| p.proxy.dropped.load(Ordering::Relaxed)),
    })
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
pub(super) fn table(report: &Value) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nLedger chaos run (seed {}, {})\n",
        report["seed"],
        super::server_and_machine(report),
    );
    super::write_backends(&mut out, report, "checks: all passed", |name, backend| {
        let c = &backend["counts"];
        let f = &backend["faults"];
        format!(
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
        )
    });
    write_verdict(&mut out, report, "chaos");
    out
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
}
