//! The processes and resources of a benchmark run: the throw-away database, the server
//! child process (stopped with SIGTERM), and what `/proc` says about memory and CPU.

use std::io::Read as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use ledger_domain::ids::{IdKind, new_id};
use ledger_store::bench::{create_pg_database, drop_pg_database};

use super::{Backend, DEFAULT_PG_URL, pool_size};

/// The fresh database of one backend, removed by [`Database::remove`] (or, for the
/// SQLite file, on drop).
pub(crate) struct Database {
    pub(crate) url: String,
    pub(crate) owned: Owned,
}

pub(crate) enum Owned {
    SqliteFile(PathBuf),
    Postgres { admin_url: String, name: String },
    Removed,
}

impl Database {
    /// A fresh database, or `None` when PostgreSQL is unreachable.
    pub(crate) async fn create(backend: Backend) -> anyhow::Result<Option<Database>> {
        let suffix = new_id(IdKind::Request)
            .trim_start_matches("req_")
            .to_ascii_lowercase();
        match backend {
            Backend::Sqlite => {
                let path = std::env::temp_dir().join(format!("ledger-bench-{suffix}.sqlite"));
                Ok(Some(Database {
                    url: format!("sqlite://{}", path.display()),
                    owned: Owned::SqliteFile(path),
                }))
            }
            Backend::Postgres => {
                let admin_url = std::env::var("LEDGER_BENCH_PG_URL")
                    .ok()
                    .filter(|u| !u.trim().is_empty())
                    .unwrap_or_else(|| DEFAULT_PG_URL.to_owned());
                let name = format!("ledger_bench_{suffix}");
                match create_pg_database(&admin_url, &name).await {
                    Ok(url) => Ok(Some(Database {
                        url,
                        owned: Owned::Postgres { admin_url, name },
                    })),
                    Err(ledger_store::SetupError::Connect(e)) => {
                        eprintln!(
                            "xtask bench: PostgreSQL at {} is unreachable ({e}); skipping it",
                            redact(&admin_url)
                        );
                        Ok(None)
                    }
                    Err(e) => Err(e).context("creating the PostgreSQL bench database"),
                }
            }
        }
    }

    pub(crate) fn shown(&self) -> String {
        redact(&self.url)
    }

    pub(crate) async fn remove(mut self) {
        match std::mem::replace(&mut self.owned, Owned::Removed) {
            Owned::Postgres { admin_url, name } => {
                if let Err(e) = drop_pg_database(&admin_url, &name).await {
                    eprintln!("xtask bench: could not drop database {name}: {e}");
                }
            }
            Owned::SqliteFile(path) => remove_sqlite(&path),
            Owned::Removed => {}
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Owned::SqliteFile(path) = &self.owned {
            remove_sqlite(path);
        }
    }
}

pub(crate) fn remove_sqlite(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(file));
    }
}

pub(crate) fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user_end = url[scheme + 3..at].find(':').map_or(at, |i| scheme + 3 + i);
            format!("{}{}", &url[..user_end], &url[at..])
        }
        _ => url.to_owned(),
    }
}

/// A free port on 127.0.0.1, as `127.0.0.1:PORT`.
pub(crate) fn free_loopback_addr() -> anyhow::Result<String> {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .context("finding a free port")?
        .port();
    Ok(format!("127.0.0.1:{port}"))
}

/// The `ledger-server` child process; stopped with SIGTERM (then SIGKILL) on drop.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) log: PathBuf,
}

impl Server {
    pub(crate) fn start(binary: &Path, database_url: &str) -> anyhow::Result<(Server, String)> {
        let addr = free_loopback_addr()?;
        let server = Server::start_on(binary, database_url, &addr, &[])?;
        Ok((server, format!("http://{addr}")))
    }

    /// Starts the server on `addr` (a loopback address) with `extra` environment.
    pub(crate) fn start_on(
        binary: &Path,
        database_url: &str,
        addr: &str,
        extra: &[(&str, &str)],
    ) -> anyhow::Result<Server> {
        let log = std::env::temp_dir().join(format!(
            "ledger-bench-server-{}.log",
            new_id(IdKind::Request).to_ascii_lowercase()
        ));
        let log_file = std::fs::File::create(&log).context("creating the server log")?;
        let child = Command::new(binary)
            .env("DATABASE_URL", database_url)
            .env("LEDGER_ADDR", addr)
            .env("LEDGER_ENV", "development")
            .env("LEDGER_DEMO", "false")
            .env("LEDGER_LOG", "warn")
            // The load comes from one key; limits would measure the limiter, not the ledger.
            .env("LEDGER_RATE_LIMITS", "off")
            .env("LEDGER_DB_POOL", pool_size(database_url).to_string())
            .envs(extra.iter().copied())
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        Ok(Server { child, log })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The end of the server's output, for error messages.
    pub(crate) fn log_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut file) = std::fs::File::open(&self.log) {
            let _ = file.read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// Sends SIGTERM and waits for the graceful stop (the server drains for up to 30 s).
    pub(crate) async fn stop(&mut self) -> anyhow::Result<()> {
        if self.child.try_wait()?.is_some() {
            bail!("the server had already exited:\n{}", self.log_tail());
        }
        terminate(self.pid());
        let deadline = Instant::now() + Duration::from_secs(40);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait()? {
                if !status.success() {
                    eprintln!("xtask bench: the server exited with {status}");
                }
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.child.kill().context("killing the server")?;
        let _ = self.child.wait();
        bail!("the server did not stop within 40 s of SIGTERM")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            terminate(self.pid());
            for _ in 0..100 {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_file(&self.log);
    }
}

pub(crate) fn terminate(pid: u32) {
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
}

/// A field of `/proc/<pid>/status` in kB (`VmRSS`, `VmHWM`).
pub(crate) fn proc_status_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Samples the server's resident set every 100 ms while the phases run: the maximum
/// over the whole run and the maximum since the last [`RssSampler::lap`], so each phase
/// reports its own.
pub(crate) struct RssSampler {
    pub(crate) max_kb: Arc<AtomicU64>,
    pub(crate) lap_kb: Arc<AtomicU64>,
    pub(crate) pid: u32,
    pub(crate) task: tokio::task::JoinHandle<()>,
}

impl RssSampler {
    pub(crate) fn start(pid: u32) -> RssSampler {
        let max_kb = Arc::new(AtomicU64::new(0));
        let lap_kb = Arc::new(AtomicU64::new(0));
        let (seen, lap) = (Arc::clone(&max_kb), Arc::clone(&lap_kb));
        let task = tokio::spawn(async move {
            loop {
                if let Some(kb) = proc_status_kb(pid, "VmRSS") {
                    seen.fetch_max(kb, Ordering::Relaxed);
                    lap.fetch_max(kb, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        RssSampler {
            max_kb,
            lap_kb,
            pid,
            task,
        }
    }

    /// The largest resident set since the previous lap (or the start), in kB, counting
    /// a sample taken now (a phase shorter than the period still has one); starts the
    /// next lap.
    pub(crate) fn lap(&self) -> u64 {
        let now = proc_status_kb(self.pid, "VmRSS").unwrap_or(0);
        self.max_kb.fetch_max(now, Ordering::Relaxed);
        self.lap_kb.swap(0, Ordering::Relaxed).max(now)
    }

    pub(crate) fn finish(self) -> u64 {
        self.task.abort();
        self.max_kb.load(Ordering::Relaxed)
    }
}

/// CPU time spent so far, in seconds: by the server, by this process (the load
/// generator or the baseline), and by the whole machine (the rest is mostly the
/// database). From `/proc`, in clock ticks of 1/100 s (Linux's `USER_HZ`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CpuSnapshot {
    pub(crate) server: f64,
    pub(crate) bench: f64,
    /// Every process named `postgres` on the machine (the database's backends).
    pub(crate) postgres: f64,
    pub(crate) machine_busy: f64,
}

pub(crate) const TICKS_PER_SECOND: f64 = 100.0;

impl CpuSnapshot {
    pub(crate) fn take(server_pid: Option<u32>) -> CpuSnapshot {
        CpuSnapshot {
            server: server_pid.map_or(0.0, |pid| process_cpu_seconds(&pid.to_string())),
            bench: process_cpu_seconds("self"),
            postgres: postgres_cpu_seconds(),
            machine_busy: machine_busy_seconds(),
        }
    }

    pub(crate) fn since(&self, earlier: &CpuSnapshot) -> CpuSnapshot {
        CpuSnapshot {
            server: self.server - earlier.server,
            bench: self.bench - earlier.bench,
            postgres: self.postgres - earlier.postgres,
            machine_busy: self.machine_busy - earlier.machine_busy,
        }
    }
}

/// User plus system time of a process (`self` or a pid) from `/proc/<pid>/stat`.
pub(crate) fn process_cpu_seconds(pid: &str) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) start at field 3 (state);
    // utime and stime are fields 14 and 15.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / TICKS_PER_SECOND
}

/// User plus system time of the processes named `postgres` (a local server's backends;
/// zero when the database runs elsewhere).
pub(crate) fn postgres_cpu_seconds() -> f64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|pid| pid.bytes().all(|b| b.is_ascii_digit()))
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim_end() == "postgres")
        })
        .map(|pid| process_cpu_seconds(&pid))
        .sum()
}

/// Non-idle CPU time of the whole machine, summed over cores, from `/proc/stat`.
pub(crate) fn machine_busy_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/stat") else {
        return 0.0;
    };
    let Some(line) = stat.lines().find(|l| l.starts_with("cpu ")) else {
        return 0.0;
    };
    let ticks: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal: everything but idle and iowait.
    let busy: f64 = ticks
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, t)| t)
        .sum();
    busy / TICKS_PER_SECOND
}
