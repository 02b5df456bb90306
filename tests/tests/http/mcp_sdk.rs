//! The official MCP Python SDK against the real server (Streamable HTTP) and against the
//! `ledger-mcp` stdio binary: `tests/mcp_sdk/bookkeeping.py` must pass.
//!
//! Needs `python3` with the `mcp` package (`.ci/run` installs the pinned version). Set
//! `LEDGER_SKIP_MCP_SDK=1` to skip it on a machine without them.

use std::path::PathBuf;
use std::process::Command;

use ledger_tests::{TestApp, both};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Builds (if needed) and locates the `ledger-mcp` binary next to this test's profile.
fn ledger_mcp_binary() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(workspace())
        .args(["build", "-j2", "-p", "ledger-mcp", "--bin", "ledger-mcp"])
        .status()
        .expect("run cargo build for ledger-mcp");
    assert!(status.success(), "building the ledger-mcp binary failed");
    let exe = std::env::current_exe().expect("test executable");
    // target/debug/deps/http-... -> target/debug/ledger-mcp
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("profile directory");
    let binary = profile_dir.join("ledger-mcp");
    assert!(
        binary.exists(),
        "no ledger-mcp binary at {}",
        binary.display()
    );
    binary
}

fn python_ready() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import mcp, httpx2; from mcp import Client"])
        .output()
        .map_err(|e| format!("python3 is not installed or not on PATH ({e})"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "python3 cannot import the official MCP SDK: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

async fn official_python_sdk_keeps_the_books(app: &TestApp) {
    if std::env::var("LEDGER_SKIP_MCP_SDK").is_ok_and(|v| v == "1") {
        eprintln!("LEDGER_SKIP_MCP_SDK=1: skipping the MCP Python SDK test");
        return;
    }
    if let Err(why) = python_ready() {
        panic!(
            "{why}.\nThis test needs python3 with the official MCP SDK: \
             `pip install mcp==2.3.0` (.ci/run does it), or set LEDGER_SKIP_MCP_SDK=1 to skip."
        );
    }
    let org = app.signup("Mcp Sdk").await;
    let base = app.base.clone();
    let out = tokio::task::spawn_blocking(move || {
        let binary = ledger_mcp_binary();
        Command::new("python3")
            .arg(workspace().join("tests/mcp_sdk/bookkeeping.py"))
            .env("LEDGER_BASE", base)
            .env("LEDGER_KEY", &org.test_key)
            .env("LEDGER_ORG", &org.id)
            .env("LEDGER_MCP_BIN", binary)
            .output()
            .expect("run python3")
    })
    .await
    .expect("python task");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the MCP Python SDK scenario failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    for label in ["http-auto", "http-legacy", "stdio-auto", "stdio-legacy"] {
        assert!(
            stdout.contains(&format!("ok: {label}")),
            "{label} did not run:\n{stdout}"
        );
    }
}
both!(mcp_python_sdk, official_python_sdk_keeps_the_books);
