//! The official MCP Python SDK against the real server (Streamable HTTP) and against the
//! `ledger-mcp` stdio binary: `tests/mcp_sdk/bookkeeping.py` must pass; and every tool of
//! `tools/list` called through the SDK in each protocol era: `tests/mcp_sdk/every_tool.py`.
//!
//! Needs `python3` with the `mcp` package, and for the every-tool scenario the reference
//! x402 client (`.ci/run` installs the pinned versions). Set `LEDGER_SKIP_MCP_SDK=1` to skip
//! them on a machine without them.

use std::path::PathBuf;
use std::process::Command;

use ledger_tests::{TestApp, both, python_imports, require_python, run_python, workspace};

use crate::organization_transfers::signup_user;

/// The binary `name` of `package` next to this test's profile. A workspace test build makes
/// both binaries this file runs (`ledger-mcp` for its own test target,
/// `crates/ledger-mcp/tests/stdio.rs`; `ledger-server` for `crates/server/tests`), so one
/// is used as found; only when it is missing or older than the newest source under
/// `crates/` (a run of this package alone) is it built here, which with other features
/// than the workspace's can take minutes.
fn workspace_binary(name: &str, package: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    // target/debug/deps/http-... -> target/debug/<name>
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("profile directory");
    let binary = profile_dir.join(name);
    let modified = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let current = modified(&binary).is_some_and(|built| {
        newest_source(&workspace().join("crates")).is_none_or(|written| built >= written)
    });
    if !current {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(workspace())
            .args(["build", "-j2", "-p", package, "--bin", name])
            .status()
            .unwrap_or_else(|e| panic!("run cargo build for {name}: {e}"));
        assert!(status.success(), "building the {name} binary failed");
    }
    assert!(binary.exists(), "no {name} binary at {}", binary.display());
    binary
}

/// The latest modification time of a file below `dir`.
fn newest_source(dir: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            if meta.is_dir() {
                newest_source(&entry.path())
            } else {
                meta.modified().ok()
            }
        })
        .max()
}

async fn official_python_sdk_keeps_the_books(app: &TestApp) {
    if std::env::var("LEDGER_SKIP_MCP_SDK").is_ok_and(|v| v == "1") {
        eprintln!("LEDGER_SKIP_MCP_SDK=1: skipping the MCP Python SDK test");
        return;
    }
    if let Err(why) = python_imports("import mcp, httpx2; from mcp import Client") {
        panic!(
            "{why}.\nThis test needs python3 with the official MCP SDK: \
             `pip install mcp==2.3.0` (.ci/run does it), or set LEDGER_SKIP_MCP_SDK=1 to skip."
        );
    }
    let org = app.signup("Mcp Sdk").await;
    let (binary, server) = tokio::task::spawn_blocking(|| {
        (
            workspace_binary("ledger-mcp", "ledger-mcp"),
            workspace_binary("ledger-server", "server"),
        )
    })
    .await
    .expect("build task");
    let stdout = run_scenario(
        "bookkeeping.py",
        vec![
            ("LEDGER_BASE", app.base.clone().into()),
            ("LEDGER_KEY", org.test_key.clone().into()),
            ("LEDGER_ORG", org.id.clone().into()),
            ("LEDGER_MCP_BIN", binary.into()),
            ("LEDGER_SERVER_BIN", server.into()),
        ],
        "the MCP Python SDK scenario".to_owned(),
    )
    .await;
    for label in [
        "http-auto",
        "http-legacy",
        "stdio-auto",
        "stdio-legacy",
        "server-mcp-auto",
        "server-mcp-legacy",
    ] {
        assert!(
            stdout.contains(&format!("ok: {label}")),
            "{label} did not run:\n{stdout}"
        );
    }
}
both!(mcp_python_sdk, official_python_sdk_keeps_the_books);

/// `tests/mcp_sdk/every_tool.py`: every tool `tools/list` names, called through the official
/// Python SDK in one protocol era (`2026-07-28` or `2025-11-25`), with the credit purchases
/// paid by the reference x402 client. The script fails on a listed tool it did not call,
/// and on a successful result whose `structuredContent` does not validate against the
/// tool's `outputSchema`.
async fn every_tool_in_era(app: &TestApp, era: &str) {
    if std::env::var("LEDGER_SKIP_MCP_SDK").is_ok_and(|v| v == "1") {
        eprintln!("LEDGER_SKIP_MCP_SDK=1: skipping the MCP Python SDK test");
        return;
    }
    require_python(
        "import httpx2, eth_account, x402, jsonschema; from mcp import Client",
        "the official MCP SDK, the reference x402 client and jsonschema (it checks every \
         result against its outputSchema): `pip install mcp==2.3.0 \
         \"x402[evm,httpx]==2.25.0\" eth-account==0.14.0 jsonschema==4.26.0` (.ci/run does \
         it), or set LEDGER_SKIP_MCP_SDK=1 to skip",
    );
    let tag = era.replace('-', "");
    let owner = signup_user(
        app,
        "Every Tool Co",
        &format!("owner{tag}"),
        &format!("owner{tag}@example.com"),
    )
    .await;
    let peer_email = format!("peer{tag}@example.com");
    let peer = signup_user(app, "Peer Co", &format!("peer{tag}"), &peer_email).await;
    let stdout = run_scenario(
        "every_tool.py",
        vec![
            ("LEDGER_BASE", app.base.clone().into()),
            ("LEDGER_ERA", era.into()),
            ("LEDGER_KEY", owner.live_key.clone().into()),
            ("LEDGER_ORG", owner.id.clone().into()),
            ("LEDGER_PEER_KEY", peer.live_key.clone().into()),
            ("LEDGER_PEER_EMAIL", peer_email.into()),
        ],
        format!("the every-tool scenario ({era})"),
    )
    .await;
    assert!(
        stdout.contains(&format!("ok: every tool {era} (")),
        "the every-tool scenario did not finish ({era}):\n{stdout}"
    );
    // What the scenario did, read back over REST: the x402 pair bought two packages, and
    // the accepted ownership transfer moved one sub-organization under the peer.
    let purchases = app
        .read(&owner.live_key, &owner.path("credits/purchases?limit=100"))
        .await;
    let x402_completed = purchases["data"]
        .as_array()
        .expect("purchases")
        .iter()
        .filter(|p| p["provider"] == "x402" && p["status"] == "completed")
        .count();
    assert_eq!(x402_completed, 2, "{}", purchases);
    let moved = app
        .read(&peer.live_key, &peer.path("sub-organizations"))
        .await;
    assert_eq!(moved["data"].as_array().map(Vec::len), Some(1), "{}", moved);
}

async fn every_tool_modern(app: &TestApp) {
    every_tool_in_era(app, "2026-07-28").await;
}
both!(mcp_python_sdk_every_tool_2026, every_tool_modern);

async fn every_tool_legacy(app: &TestApp) {
    every_tool_in_era(app, "2025-11-25").await;
}
both!(mcp_python_sdk_every_tool_2025, every_tool_legacy);

/// Runs `tests/mcp_sdk/SCRIPT` with `env` on a blocking thread and answers its standard
/// output; fails the test with both outputs when the script exits non-zero.
async fn run_scenario(
    script: &'static str,
    env: Vec<(&'static str, std::ffi::OsString)>,
    what: String,
) -> String {
    let out = run_python(
        workspace().join("tests/mcp_sdk").join(script),
        Vec::new(),
        env,
    )
    .await;
    out.assert_ok(&what, &[]);
    out.stdout
}
