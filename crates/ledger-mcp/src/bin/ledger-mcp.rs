//! `ledger-mcp`: MCP over stdio for local agents, forwarding to a running server
//! (`ledger_mcp::stdio`; `ledger-server mcp` runs the same).

#[tokio::main(flavor = "current_thread")]
async fn main() {
    ledger_mcp::stdio::serve_from_env().await;
}
