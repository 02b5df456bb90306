"""The reference x402 client from PyPI paying Ledger's credit purchases.

`x402[evm,httpx]==2.25.0` with `eth-account==0.14.0` (and the official MCP SDK,
`mcp==2.3.0`), signing with a throwaway key made for this run, against the server's local
facilitator (no chain, no funds):

1. HTTP: `x402Client` + `register_exact_evm_client` + `EthAccountSigner` +
   `x402HttpxClient` POST `/organizations/{org}/credits/x402`; the client gets the 402,
   signs the EIP-3009 authorization from `PAYMENT-REQUIRED` and retries with
   `PAYMENT-SIGNATURE`; the answer is 200 with `PAYMENT-RESPONSE` (decoded with the
   package's own helper). Sending the same `PAYMENT-SIGNATURE` again is refused
   (`payment_replayed`).
2. MCP: `x402.mcp.x402MCPSession` over the official SDK's `Client` calls
   `start_x402_credit_purchase`; it reads the PaymentRequired tool error, pays with
   `_meta["x402/payment"]` and gets the settlement in `_meta["x402/payment-response"]`.
   x402 2.25.0's session drives an mcp 1.x `ClientSession` (`call_tool(name=, arguments=,
   meta=, read_timeout_seconds=timedelta)`, results with `isError`/`structuredContent`);
   `McpSession` below maps the mcp 2.3 `Client` onto that interface and nothing else.

Environment: LEDGER_BASE (server URL), LEDGER_KEY (a live API key with admin),
LEDGER_ORG (its organization). Prints `ok: ...` per step; exits non-zero on failure.
"""

import asyncio
import os
import sys
from types import SimpleNamespace

import httpx
from eth_account import Account
from x402 import x402Client
from x402.http import decode_payment_response_header, encode_payment_signature_header
from x402.http.clients import x402HttpxClient
from x402.mechanisms.evm.exact import register_exact_evm_client
from x402.mechanisms.evm.signers import EthAccountSigner

BASE = os.environ["LEDGER_BASE"].rstrip("/")
KEY = os.environ["LEDGER_KEY"]
ORG = os.environ["LEDGER_ORG"]
AUTH = {"Authorization": f"Bearer {KEY}"}


def payer_client() -> tuple[x402Client, str]:
    account = Account.create()  # a throwaway key, never funded, never reused
    client = x402Client()
    # The default cap is $1 a payment; the smallest package costs $10.
    client.set_spend_controls({"max_amount_per_payment": "$10"})
    register_exact_evm_client(client, EthAccountSigner(account))
    return client, account.address


async def over_http() -> None:
    client, address = payer_client()
    created = []

    async def keep(context) -> None:
        created.append(context.payment_payload)

    client.on_after_payment_creation(keep)
    url = f"{BASE}/organizations/{ORG}/credits/x402"
    async with x402HttpxClient(client, headers=AUTH, timeout=30) as http:
        res = await http.post(url, json={"credit_amount": 1000})
    assert res.status_code == 200, f"{res.status_code}: {res.text}"
    body = res.json()
    assert body["status"] == "completed" and body["credits_to_add"] == 1000, body
    settlement = decode_payment_response_header(res.headers["PAYMENT-RESPONSE"])
    assert settlement.success, settlement
    assert settlement.payer.lower() == address.lower(), (settlement.payer, address)
    assert settlement.network == "eip155:84532", settlement
    print("ok: http", settlement.transaction)

    # The payment the client made (kept by its hook); sending it again is refused.
    assert len(created) == 1, created
    signature = encode_payment_signature_header(created[0])
    async with httpx.AsyncClient(headers=AUTH, timeout=30) as plain:
        again = await plain.post(
            url, json={"credit_amount": 1000}, headers={"PAYMENT-SIGNATURE": signature}
        )
    assert again.status_code == 402, f"{again.status_code}: {again.text}"
    assert again.json()["error"]["code"] == "payment_replayed", again.text
    assert "PAYMENT-REQUIRED" in again.headers
    print("ok: replay refused")


class McpSession:
    """The mcp 1.x `ClientSession.call_tool` interface x402MCPSession drives, over the
    mcp 2.3 `Client`."""

    def __init__(self, client) -> None:
        self.client = client

    async def initialize(self) -> None:
        return None

    async def list_tools(self):
        return await self.client.list_tools()

    async def call_tool(self, name, arguments=None, meta=None, read_timeout_seconds=None):
        timeout = read_timeout_seconds.total_seconds() if read_timeout_seconds else None
        r = await self.client.call_tool(
            name, arguments or {}, read_timeout_seconds=timeout, meta=meta
        )
        return SimpleNamespace(
            isError=r.is_error,
            structuredContent=r.structured_content,
            meta=r.meta,
            content=[c.model_dump(by_alias=True) for c in r.content],
        )


async def over_mcp() -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from x402.mcp.client import x402MCPSession

    client, address = payer_client()
    http = httpx2.AsyncClient(headers=AUTH, timeout=30)
    transport = streamable_http_client(f"{BASE}/mcp", http_client=http)
    async with Client(transport) as mcp_client:
        session = x402MCPSession(McpSession(mcp_client), client)
        result = await session.call_tool(
            "start_x402_credit_purchase",
            {"masterOrganizationId": ORG, "creditAmount": 1000},
        )
        assert result.payment_made, result
        assert not result.is_error, result.content
        receipt = result.payment_response
        assert receipt is not None, result.raw_result
        payer = receipt.payer if hasattr(receipt, "payer") else receipt["payer"]
        assert payer.lower() == address.lower(), (payer, address)
        purchase = result.raw_result.structuredContent
        assert purchase["status"] == "completed", purchase
    print("ok: mcp")


async def main() -> None:
    await over_http()
    await over_mcp()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except AssertionError as e:
        print(f"failed: {e}", file=sys.stderr)
        raise
