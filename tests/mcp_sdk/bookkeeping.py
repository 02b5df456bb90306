"""Real-client check of the MCP interface with the official Python SDK (`mcp` on PyPI).

Drives the Streamable HTTP endpoint, the `ledger-mcp` stdio binary and `ledger-server
mcp`, in the modern era (`server/discover`, 2026-07-28) and the legacy handshake:
initialize, list tools, create an account, post a transaction and read the trial balance.
Exits non-zero on any failure.

Environment: LEDGER_BASE (server URL), LEDGER_KEY (API key), LEDGER_ORG (organization
id), LEDGER_MCP_BIN (path to the ledger-mcp binary), LEDGER_SERVER_BIN (path to the
ledger-server binary).
"""

import os

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

import runner


async def keep_books(client: Client, label: str, code: str) -> None:
    session = client.session
    if label.endswith("auto"):
        # The server speaks 2026-07-28, so the probe must settle on the modern era.
        assert session.discover_result is not None, f"{label}: discover was not adopted"
        assert "2026-07-28" in session.discover_result.supported_versions
    else:
        assert session.initialize_result is not None, f"{label}: no handshake"
        assert session.initialize_result.protocol_version in ("2025-11-25", "2025-06-18")
    listed = await client.list_tools()
    names = {t.name for t in listed.tools}
    for needed in ("create_account", "create_transaction", "get_trial_balance"):
        assert needed in names, f"{label}: {needed} not listed"
    for tool in listed.tools:
        assert tool.annotations is not None and tool.annotations.open_world_hint is False, tool.name

    created = await client.call_tool(
        "create_account", {"code": code, "name": f"Bank {label}", "accountType": "asset"}
    )
    assert not created.is_error, f"{label}: create_account failed: {created.content}"
    bank = created.structured_content["id"]

    accounts = await client.call_tool("list_accounts", {"limit": 100})
    assert not accounts.is_error, accounts.content
    sales = next(a["id"] for a in accounts.structured_content["data"] if a["code"] == "4000")

    posted = await client.call_tool(
        "create_transaction",
        {
            "description": f"Sale via {label}",
            "date": "2026-02-01",
            "autoPost": True,
            "entries": [
                {"accountId": bank, "entryType": "debit", "amount": "100.25"},
                {"accountId": sales, "entryType": "credit", "amount": "100.25"},
            ],
        },
    )
    assert not posted.is_error, f"{label}: create_transaction failed: {posted.content}"
    assert posted.structured_content["status"] == "posted", posted.structured_content

    unbalanced = await client.call_tool(
        "create_transaction",
        {
            "description": "unbalanced",
            "date": "2026-02-01",
            "entries": [
                {"accountId": bank, "entryType": "debit", "amount": "1.00"},
                {"accountId": sales, "entryType": "credit", "amount": "2.00"},
            ],
        },
    )
    assert unbalanced.is_error, f"{label}: an unbalanced transaction was accepted"

    tb = await client.call_tool("get_trial_balance", {})
    assert not tb.is_error, tb.content
    report = tb.structured_content
    row = next(r for r in report["accounts"] if r["account_id"] == bank)
    assert row["debit"] == "100.25" and row["net_balance"] == "100.25", row
    assert report["total_debits"] == report["total_credits"], report
    print(f"ok: {label}")


async def main() -> None:
    base = os.environ["LEDGER_BASE"]
    key = os.environ["LEDGER_KEY"]
    org = os.environ["LEDGER_ORG"]
    binary = os.environ["LEDGER_MCP_BIN"]

    for mode, code in (("auto", "1101"), ("legacy", "1102")):
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
        async with http:
            transport = streamable_http_client(f"{base}/mcp", http_client=http)
            async with Client(transport, mode=mode, cache=None) as client:
                await keep_books(client, f"http-{mode}", code)

    # The stdio forwarder as the `ledger-mcp` binary and as `ledger-server mcp` (the
    # README's command: the binary its first command builds).
    stdio = (
        ("stdio", binary, [], ("1103", "1104")),
        ("server-mcp", os.environ["LEDGER_SERVER_BIN"], ["mcp"], ("1105", "1106")),
    )
    for label, command, args, codes in stdio:
        for mode, code in zip(("auto", "legacy"), codes):
            params = StdioServerParameters(
                command=command,
                args=args,
                env={"API_BASE_URL": base, "API_KEY": key, "ORGANIZATION_ID": org},
            )
            async with Client(params, mode=mode, cache=None) as client:
                await keep_books(client, f"{label}-{mode}", code)


if __name__ == "__main__":
    runner.run(main)
