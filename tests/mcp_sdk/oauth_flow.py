"""The official MCP Python SDK's OAuth client (`mcp` on PyPI) against the server.

The SDK does the protocol on its own: the 401 challenge, RFC 9728 and RFC 8414
discovery, dynamic client registration, PKCE with `resource`, the `iss` check, the code
exchange and the bearer on every request. Its redirect handler plays the user headlessly:
it opens the authorization URL, asks for a sign-in link, reads the mail from the outbox,
follows it, and approves on the consent page. Then tools are called with the token; the
first consent grants read access only, so the first write is refused with 403
insufficient_scope and the SDK steps up (authorizes again with the larger scope).

Environment: LEDGER_BASE (server URL), LEDGER_OUTBOX (the server's mail directory),
LEDGER_EMAIL (the owner's address). Exits non-zero on any failure.
"""

import glob
import html
import os
import re
from urllib.parse import parse_qs, urlencode, urlparse

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

import runner

BASE = os.environ["LEDGER_BASE"]
OUTBOX = os.environ["LEDGER_OUTBOX"]
EMAIL = os.environ["LEDGER_EMAIL"]
REDIRECT = "http://localhost:3030/callback"


class MemoryStorage:
    """The SDK's TokenStorage protocol, in memory."""

    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


def hidden_inputs(page: str) -> dict:
    return {
        name: html.unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)
    }


async def approve_in_browser(authorization_url: str, only=None) -> AuthorizationCodeResult:
    """What a user does in the browser, without the browser; `only` unticks every other
    scope on the consent page."""
    async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as browser:
        page = (await browser.get(authorization_url)).text
        assert 'name="email"' in page, page
        answer = await browser.post(
            f"{BASE}/signin",
            data={"email": EMAIL, "return_to": hidden_inputs(page)["return_to"]},
        )
        assert answer.status_code == 200, answer.text
        mail = open(sorted(glob.glob(os.path.join(OUTBOX, "*.eml")))[-1]).read()
        link = re.search(r"(\S+/signin/verify\?token=\S+)", mail).group(1)
        token = hidden_inputs((await browser.get(link)).text)["token"]
        answer = await browser.post(f"{BASE}/signin/verify", data={"token": token})
        assert answer.status_code == 303, answer.text
        cookie = answer.headers["set-cookie"].split(";")[0]
        consent = (
            await browser.get(BASE + answer.headers["location"], headers={"cookie": cookie})
        ).text
        assert "<legend>Organization</legend>" in consent, consent
        form = list(hidden_inputs(consent).items())
        form.append(("organization_id", re.search(r'name="organization_id" value="([^"]+)"', consent).group(1)))
        form.append(("mode", "test"))
        form += [
            ("approved_scope", s)
            for s in re.findall(r'name="approved_scope" value="([^"]+)"', consent)
            if only is None or s in only
        ]
        form.append(("decision", "approve"))
        answer = await browser.post(
            f"{BASE}/authorize",
            content=urlencode(form),
            headers={"cookie": cookie, "content-type": "application/x-www-form-urlencoded"},
        )
        assert answer.status_code == 303, answer.text
        back = urlparse(answer.headers["location"])
        assert back.geturl().startswith(REDIRECT), back.geturl()
        query = {k: v[0] for k, v in parse_qs(back.query).items()}
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


async def main() -> None:
    pending = {}
    authorizations = []

    async def redirect_handler(url: str) -> None:
        assert "code_challenge_method=S256" in url, url
        assert "resource=" in url, url
        authorizations.append(url)
        # The first time the user grants read access only, so the first write meets a
        # 403 insufficient_scope and the SDK has to step up (authorize again, asking
        # for the scope the challenge names).
        only = {"ledger:read"} if len(authorizations) == 1 else None
        pending["result"] = await approve_in_browser(url, only)

    async def callback_handler() -> AuthorizationCodeResult:
        return pending.pop("result")

    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=f"{BASE}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="MCP Python SDK test",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            scope="ledger:read ledger:write",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=60) as http:
        transport = streamable_http_client(f"{BASE}/mcp", http_client=http)
        async with Client(transport, cache=None) as client:
            listed = await client.list_tools()
            assert any(t.name == "create_account" for t in listed.tools), "tools not listed"
            created = await client.call_tool(
                "create_account", {"code": "1105", "name": "Bank via OAuth", "accountType": "asset"}
            )
            assert not created.is_error, f"create_account failed: {created.content}"
            accounts = await client.call_tool("list_accounts", {"limit": 100})
            assert not accounts.is_error, accounts.content
            codes = {a["code"] for a in accounts.structured_content["data"]}
            assert "1105" in codes, codes
    assert len(authorizations) == 2, f"expected one step-up, saw {authorizations}"
    stepped_up = parse_qs(urlparse(authorizations[1]).query)["scope"][0].split()
    assert "ledger:write" in stepped_up, authorizations[1]
    assert "ledger:write" in (storage.tokens.scope or "").split(), storage.tokens
    assert storage.client is not None and storage.client.client_id.startswith("cli_"), storage.client
    assert storage.tokens is not None and storage.tokens.access_token.startswith("ledger_at_")
    print("ok: oauth")


if __name__ == "__main__":
    runner.run(main)
