//! The server under test: a `ledger-server` child restarted in place (same address and
//! database) after a kill, with what its output said about panics.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::bench::process::{Server, free_loopback_addr};
use crate::bench::wait_healthy;

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
