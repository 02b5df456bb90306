//! The `ledger-mcp` stdio binary on its own: what it answers before (or without) a server.
//! Each JSON-RPC request line gets exactly one answer line; notifications get none. The
//! official SDK drives it against a real server in `tests/tests/http/mcp_sdk.rs`, which
//! uses the binary this test target makes cargo build.

use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// A local address nothing listens on: bound, read, then released.
fn closed_address() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    let address = listener.local_addr().expect("local address");
    drop(listener);
    format!("http://{address}")
}

/// Runs the binary over `lines` and returns the JSON lines it printed.
fn run(lines: &[String], api_key: Option<&str>) -> Vec<Value> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ledger-mcp"));
    command
        .env("API_BASE_URL", closed_address())
        .env_remove("API_KEY")
        .env_remove("ORGANIZATION_ID")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(key) = api_key {
        command.env("API_KEY", key);
    }
    let mut child = command.spawn().expect("start ledger-mcp");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for line in lines {
            writeln!(stdin, "{line}").expect("write a line");
        }
    }
    let output = child
        .wait_with_output()
        .expect("ledger-mcp exits at end of input");
    assert!(output.status.success(), "ledger-mcp failed: {output:?}");
    String::from_utf8(output.stdout)
        .expect("utf-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn request(id: i64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

#[test]
fn every_request_gets_one_error_line_without_a_key() {
    let answers = run(
        &[
            "this is not json".to_owned(),
            String::new(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            request(7, "tools/list", json!({})),
        ],
        None,
    );
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["id"], Value::Null);
    assert_eq!(answers[0]["error"]["code"], -32700);
    assert_eq!(answers[1]["id"], 7);
    assert_eq!(answers[1]["error"]["code"], -32001);
    assert!(
        answers[1]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("API_KEY")),
        "{answers:?}"
    );
}

#[test]
fn an_unreachable_server_is_an_internal_error_naming_the_url() {
    // The key may come in `initialize` params instead of the environment.
    let initialize = request(
        1,
        "initialize",
        json!({"apiKey": "sk_test_x", "protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    for (lines, key) in [
        (vec![initialize], None),
        (vec![request(2, "tools/list", json!({}))], Some("sk_test_x")),
    ] {
        let answers = run(&lines, key);
        assert_eq!(answers.len(), 1, "{answers:?}");
        let error = &answers[0]["error"];
        assert_eq!(error["code"], -32603, "{answers:?}");
        assert!(
            error["message"].as_str().is_some_and(|m| m
                .starts_with("cannot reach http://127.0.0.1:")
                && m.contains("/mcp")),
            "{answers:?}"
        );
    }
}
