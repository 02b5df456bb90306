"""From the README to a working agent (issue 42 item 1), in headless Chromium with the
official MCP Python SDK as the agent.

1. The README's own commands, read out of README.md: the sign-up body and the two
   account bodies, sent with the sign-up's test key.
2. An MCP client authorized through OAuth: the SDK discovers the server, registers and
   sends the person to /authorize. In the browser the person signs in with the e-mailed
   link (read from the server's outbox), finds the README's organization and the test
   books preselected, and allows. The SDK's `list_accounts` then shows the accounts the
   README created.
3. A second person, who owns nothing: the consent page offers to create an
   organization; they create one and authorize the agent with it, whose `get_organization`
   then names it.

Environment (besides harness.py's): LEDGER_README (README.md), LEDGER_OUTBOX (the
server's mail directory). Prints "ok: readme agent".
"""

import asyncio
import glob
import json
import os
import re
import urllib.parse
import urllib.request

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from harness import BASE, browser_page, screenshot

README = open(os.environ["LEDGER_README"]).read()
OUTBOX = os.environ["LEDGER_OUTBOX"]
CLIENT_ORIGIN = "http://localhost:3030"
REDIRECT = f"{CLIENT_ORIGIN}/callback"


def readme_body(after: str) -> dict:
    """The JSON of the first `-d '...'` after `after` in the README's commands."""
    match = re.search(re.escape(after) + r".*?-d '(\{.*?\})'", README, re.DOTALL)
    assert match, f"the README has no -d body after {after!r}"
    return json.loads(match.group(1))


def post(path, body, key=None):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(
        BASE + path, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 201, answer.status
        return json.loads(answer.read())


def newest_mail_to(email: str) -> str:
    mails = [open(m).read() for m in sorted(glob.glob(os.path.join(OUTBOX, "*.eml")), key=os.path.getmtime)]
    mine = [m for m in mails if f"To: {email}" in m]
    assert mine, f"no mail to {email} in {OUTBOX}"
    return mine[-1]


def approve_in_browser(url: str, email: str, step: str, create: str | None) -> AuthorizationCodeResult:
    """The person's part, in the browser: sign in by e-mailed link, create an organization
    named `create` when they own none, keep the preselected organization and test books,
    allow. Returns what the client's redirect URI receives."""
    with browser_page(allowed_origins=(CLIENT_ORIGIN,)) as (page, watch):
        # The client's redirect URI: nothing listens there, the test plays the client.
        page.route(f"{CLIENT_ORIGIN}/**", lambda route: route.fulfill(
            status=200, content_type="text/html",
            body="<!doctype html><title>Agent</title><p>Back at the agent.</p>"))
        page.goto(url)
        page.get_by_role("heading", name="Sign in to Ledger").wait_for()
        page.get_by_label("E-mail address").fill(email)
        page.get_by_role("button", name="E-mail me a sign-in link").click()
        page.get_by_role("heading", name="Check your e-mail").wait_for()
        link = re.search(r"(\S+/signin/verify\?token=\S+)", newest_mail_to(email)).group(1)
        page.goto(link)
        page.get_by_role("button", name="Continue signing in").click()
        page.get_by_role("heading", name=re.compile("to use Ledger")).wait_for()
        if create is not None:
            assert page.get_by_text("You own no organization yet").is_visible()
            screenshot(page, f"{step}-nothing-owned")
            page.get_by_label("Organization name").fill(create)
            page.get_by_role("button", name="Create organization").click()
            page.get_by_role("radio", name=re.compile(re.escape(create))).wait_for()
        screenshot(page, f"{step}-consent")
        organizations = page.get_by_role("radio", name=re.compile(r"\(org_"))
        assert organizations.count() == 1, organizations.count()
        assert organizations.first.is_checked()
        # Outside production the test books, the ones the README's key wrote, come first.
        assert page.get_by_role("radio", name=re.compile("Test data")).is_checked()
        page.get_by_role("button", name="Allow").click()
        page.wait_for_url(f"{REDIRECT}?**")
        page.get_by_text("Back at the agent.").wait_for()
        query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
        watch.check()
    return AuthorizationCodeResult(
        code=query["code"][0], state=query["state"][0], iss=query.get("iss", [None])[0])


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


async def agent(email: str, step: str, create: str | None, work) -> int:
    """An MCP client authorized by `email` through OAuth runs `work(client)`; answers how
    many times the person was sent to the browser."""
    pending = {}
    visits = []

    async def redirect_handler(url: str) -> None:
        visits.append(url)
        pending["result"] = await asyncio.to_thread(approve_in_browser, url, email, step, create)

    async def callback_handler() -> AuthorizationCodeResult:
        return pending.pop("result")

    provider = OAuthClientProvider(
        server_url=f"{BASE}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="README agent",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=MemoryStorage(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=120) as http:
        async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), cache=None) as client:
            await work(client)
    return len(visits)


async def main() -> None:
    # 1. The README's sign-up and its two accounts, as its commands send them.
    signup = post("/accounts/master", readme_body("/accounts/master"))
    org = signup["organization"]["id"]
    key = signup["api_key"]["key"]
    email = readme_body("/accounts/master")["user_email"]
    created = []
    for match in re.finditer(r"/accounts -H .*?-d '(\{.*?\})'", README, re.DOTALL):
        created.append(post(f"/organizations/{org}/accounts", json.loads(match.group(1)), key)["code"])
    assert len(created) == 2, created

    # 2. The README's person authorizes an agent, which lists those accounts.
    async def lists_the_readme_accounts(client):
        tools = await client.list_tools()
        assert any(t.name == "list_accounts" for t in tools.tools), "list_accounts not listed"
        listed = await client.call_tool("list_accounts", {"limit": 100})
        assert not listed.is_error, listed.content
        codes = {a["code"] for a in listed.structured_content["data"]}
        assert set(created) <= codes, (created, codes)
        organization = await client.call_tool("get_organization", {})
        assert organization.structured_content["id"] == org, organization.structured_content

    visits = await agent(email, "readme", None, lists_the_readme_accounts)
    assert visits == 1, visits

    # 3. A person who owns nothing creates books on the consent page.
    async def reads_the_new_books(client):
        organization = await client.call_tool("get_organization", {})
        assert not organization.is_error, organization.content
        assert organization.structured_content["name"] == "Agent Books", organization.structured_content
        listed = await client.call_tool("list_accounts", {"limit": 100})
        assert listed.structured_content["data"], "the new books have the default chart"

    visits = await agent("newcomer@example.com", "newcomer", "Agent Books", reads_the_new_books)
    assert visits == 1, visits
    print("ok: readme agent")


if __name__ == "__main__":
    asyncio.run(main())
