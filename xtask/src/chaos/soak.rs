//! `cargo xtask chaos --soak` (or `cargo xtask soak`): a steady mixed load for some
//! minutes with no faults, sampling the server's resident memory (`VmRSS`) and open file
//! descriptors (`/proc/PID/fd`). After a warm-up, the median of the last third of the
//! samples is compared with the median of the first third; growth beyond the tolerance
//! fails the run, as does any failed check of the books afterwards.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{Options, Supervised, check, load};
use crate::bench::process::{Database, proc_status_kb};
use crate::bench::{Backend, round, sign_up};

/// Memory may grow by this share of the first third's median...
const RSS_TOLERANCE: f64 = 0.15;
/// ...or by this many kB, whichever is larger (allocator and cache noise).
const RSS_SLACK_KB: u64 = 12 * 1024;
/// Open descriptors may differ by this many (pooled connections come and go).
const FD_SLACK: u64 = 6;

/// One sample of the server process.
#[derive(Debug, Clone, Copy)]
struct Sample {
    at_s: f64,
    rss_kb: u64,
    fds: u64,
}

/// The soak run on one backend, its files in `scratch`.
pub(crate) async fn run(
    options: &Options,
    binary: &Path,
    backend: Backend,
    database: &Database,
    scratch: &Path,
) -> anyhow::Result<Value> {
    let client = super::http_client(options.clients * 2 + 4)?;
    let mut server = Supervised::new(binary, &database.url, scratch)?;
    server.start(&client).await?;
    let pid = server.pid().context("the server's pid")?;
    let target = sign_up(&client, &server.base()).await?;
    eprintln!(
        "xtask soak: {}: {} writers and {} readers for {} s on {}",
        backend.name(),
        options.clients,
        options.clients,
        options.soak_duration.as_secs(),
        database.shown()
    );
    let progress = Arc::new(load::Progress::default());
    let started = Instant::now();
    let stop = started + options.soak_duration;
    let run_id = format!("soak{:x}", options.seed & 0xffff_ffff);
    let writers = load::write_clients(
        options.clients,
        &client,
        &target,
        &run_id,
        (stop, stop + Duration::from_secs(60)),
        &progress,
        options.seed,
    );
    let readers = load::read_clients(options.clients, &client, &target, stop, &progress);
    let sampler = async {
        let mut samples = Vec::new();
        while Instant::now() < stop {
            if let (Some(rss_kb), Some(fds)) = (proc_status_kb(pid, "VmRSS"), fd_count(pid)) {
                samples.push(Sample {
                    at_s: started.elapsed().as_secs_f64(),
                    rss_kb,
                    fds,
                });
                if samples.len() % 12 == 0 {
                    eprintln!(
                        "xtask soak: {:>5.0} s: RSS {} MB, {} fds, {} writes, {} reads",
                        started.elapsed().as_secs_f64(),
                        rss_kb / 1024,
                        fds,
                        progress.acknowledged.load(Ordering::Relaxed),
                        progress.reads.load(Ordering::Relaxed),
                    );
                }
            }
            tokio::time::sleep(options.sample_every).await;
        }
        samples
    };
    let (outcomes, (), samples) = tokio::join!(writers, readers, sampler);
    let elapsed = started.elapsed();
    let checked = check::check(&client, &target, &database.url, &outcomes).await;
    let exited = server.exited();
    server.stop().await;
    let mut report = checked?;
    let failures = report["failures"].as_array_mut().context("failures")?;
    if exited {
        failures.push(json!("the server exited during the soak"));
    }
    if !server.panics.is_empty() {
        failures.push(json!(format!(
            "the server panicked: {}",
            server.panics.join(" | ")
        )));
    }
    let growth = growth(&samples, options.soak_duration);
    if let Some(problem) = growth["problem"].as_str() {
        failures.push(json!(problem));
    }
    let seconds = elapsed.as_secs_f64();
    report["backend"] = json!(backend.name());
    report["seconds"] = json!(round(seconds, 1));
    report["clients"] = json!({ "writers": options.clients, "readers": options.clients });
    report["throughput"] = json!({
        "writes_per_second": round(progress.acknowledged.load(Ordering::Relaxed) as f64 / seconds, 1),
        "reads_per_second": round(progress.reads.load(Ordering::Relaxed) as f64 / seconds, 1),
        "read_errors": progress.read_errors.load(Ordering::Relaxed),
    });
    report["growth"] = growth;
    Ok(report)
}

/// Open file descriptors of `pid`.
fn fd_count(pid: u32) -> Option<u64> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()
        .map(|dir| dir.count() as u64)
}

fn median(mut values: Vec<u64>) -> u64 {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

/// Compares the first and last thirds of the samples after the warm-up (a quarter of
/// the run, at most 60 s); `problem` is set when memory or descriptors grew beyond the
/// tolerance.
fn growth(samples: &[Sample], duration: Duration) -> Value {
    let warm_up = (duration.as_secs_f64() / 4.0).min(60.0);
    let steady: Vec<Sample> = samples
        .iter()
        .copied()
        .filter(|s| s.at_s >= warm_up)
        .collect();
    let third = steady.len() / 3;
    if third < 2 {
        return json!({
            "samples": samples.len(),
            "problem": format!("too few samples after the warm-up ({}) to judge growth", steady.len()),
        });
    }
    let first = &steady[..third];
    let last = &steady[steady.len() - third..];
    let rss_first = median(first.iter().map(|s| s.rss_kb).collect());
    let rss_last = median(last.iter().map(|s| s.rss_kb).collect());
    let fds_first = median(first.iter().map(|s| s.fds).collect());
    let fds_last = median(last.iter().map(|s| s.fds).collect());
    let rss_allowed = rss_first + ((rss_first as f64 * RSS_TOLERANCE) as u64).max(RSS_SLACK_KB);
    let mut problems = Vec::new();
    if rss_last > rss_allowed {
        problems.push(format!(
            "memory grew: median RSS {} kB in the first third, {} kB in the last (allowed {} kB)",
            rss_first, rss_last, rss_allowed
        ));
    }
    if fds_last > fds_first + FD_SLACK {
        problems.push(format!(
            "file descriptors grew: median {fds_first} in the first third, {fds_last} in the last (allowed +{FD_SLACK})"
        ));
    }
    json!({
        "samples": samples.len(),
        "warm_up_s": round(warm_up, 0),
        "rss_mb": {
            "start": samples.first().map(|s| round(s.rss_kb as f64 / 1024.0, 1)),
            "first_third_median": round(rss_first as f64 / 1024.0, 1),
            "last_third_median": round(rss_last as f64 / 1024.0, 1),
            "max": samples.iter().map(|s| s.rss_kb).max().map(|kb| round(kb as f64 / 1024.0, 1)),
            "allowed": round(rss_allowed as f64 / 1024.0, 1),
        },
        "fds": {
            "start": samples.first().map(|s| s.fds),
            "first_third_median": fds_first,
            "last_third_median": fds_last,
            "max": samples.iter().map(|s| s.fds).max(),
        },
        "problem": if problems.is_empty() { Value::Null } else { json!(problems.join("; ")) },
    })
}

/// The human-readable soak report.
pub(crate) fn table(report: &Value) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nLedger soak ({})\n",
        super::server_and_machine(report)
    );
    super::write_backends(&mut out, report, "no growth; checks passed", |name, b| {
        let (g, t, c) = (&b["growth"], &b["throughput"], &b["counts"]);
        format!(
            "{name}: {} s, {} writes/s, {} reads/s ({} read errors); writes acknowledged {}, lost {}, duplicated {}\n  \
             RSS MB: start {}, first third {}, last third {}, max {} (allowed {})\n  \
             fds: start {}, first third {}, last third {}, max {}",
            b["seconds"],
            t["writes_per_second"],
            t["reads_per_second"],
            t["read_errors"],
            c["acknowledged"],
            c["lost"],
            c["duplicated"],
            g["rss_mb"]["start"],
            g["rss_mb"]["first_third_median"],
            g["rss_mb"]["last_third_median"],
            g["rss_mb"]["max"],
            g["rss_mb"]["allowed"],
            g["fds"]["start"],
            g["fds"]["first_third_median"],
            g["fds"]["last_third_median"],
            g["fds"]["max"],
        )
    });
    super::write_verdict(&mut out, report, "soak");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(rss: impl Fn(u64) -> u64, fds: impl Fn(u64) -> u64) -> Vec<Sample> {
        (0..120)
            .map(|i| Sample {
                at_s: i as f64 * 5.0,
                rss_kb: rss(i),
                fds: fds(i),
            })
            .collect()
    }

    #[test]
    fn flat_series_pass_and_growing_ones_fail() {
        let ten_minutes = Duration::from_secs(600);
        let flat = growth(
            &samples(|i| 50_000 + (i % 7) * 300, |i| 30 + i % 3),
            ten_minutes,
        );
        assert!(flat["problem"].is_null(), "{flat}");
        // 300 kB per sample: about 21 MB over the measured span.
        let leaking = growth(&samples(|i| 50_000 + i * 300, |_| 30), ten_minutes);
        assert!(leaking["problem"].as_str().unwrap().contains("memory grew"));
        let fd_leak = growth(&samples(|_| 50_000, |i| 30 + i / 4), ten_minutes);
        assert!(
            fd_leak["problem"]
                .as_str()
                .unwrap()
                .contains("file descriptors")
        );
        let short = growth(&samples(|_| 1, |_| 1)[..3], ten_minutes);
        assert!(short["problem"].as_str().unwrap().contains("too few"));
    }
}
