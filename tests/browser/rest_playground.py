"""Swagger UI at /api/playground in headless Chromium, over /openapi.json: the accounts
list of an organization, run without a key (refused), then with the key typed into the
key bar (the accounts come back).

Environment (besides harness.py's): LEDGER_KEY (a test key), LEDGER_ORG (its
organization's id), LEDGER_EXPECT (text the accounts answer must contain). Prints
"ok: rest playground".
"""

import os
import re

from harness import BASE, browser_page, screenshot

KEY = os.environ["LEDGER_KEY"]
ORG = os.environ["LEDGER_ORG"]
EXPECT = os.environ["LEDGER_EXPECT"]

# GET /organizations/{any parameter name}/accounts
ACCOUNTS = re.compile(r"^/organizations/\{[^}/]+\}/accounts$")


def accounts_operation(page):
    """The GET block of the accounts list, whatever the document names its parameter.

    Swagger UI (5.3x) virtualizes a long operation list: only the operations near the
    viewport are in the page. Narrow the list with its filter box, as a user would, then
    wait for a candidate block."""
    page.get_by_placeholder("Filter by tag or path").fill("accounts")
    candidates = page.locator(".opblock.opblock-get").filter(
        has=page.locator('.opblock-summary-path[data-path^="/organizations/{"][data-path$="}/accounts"]')
    )
    candidates.first.wait_for()
    for i in range(candidates.count()):
        block = candidates.nth(i)
        path = block.locator(".opblock-summary-path").first.get_attribute("data-path") or ""
        if ACCOUNTS.match(path):
            return block
    raise AssertionError("no GET /organizations/{...}/accounts operation in the document")


def execute(block):
    block.locator("button.execute").click()
    status = block.locator(".live-responses-table tr.response .response-col_status").first
    status.wait_for()
    return status


with browser_page() as (page, watch):
    page.goto(f"{BASE}/api/playground")
    page.get_by_role("heading", name="Ledger REST API", exact=True).wait_for()
    block = accounts_operation(page)
    block.locator(".opblock-summary-control").click()
    row = block.locator('tr[data-param-in="path"]')
    # The block's body renders once Swagger UI has resolved the operation.
    row.first.wait_for()
    assert row.count() == 1, "the accounts list has one path parameter"
    row.locator("input").fill(ORG)

    # Without a key: the server refuses, and Swagger UI shows the 401.
    status = execute(block)
    assert status.inner_text().strip() == "401", status.inner_text()
    screenshot(page, "without-key")

    page.get_by_label("API key").fill(KEY)
    page.get_by_role("button", name="Use key").click()
    page.get_by_role("status").get_by_text("Key set").wait_for()
    block.locator("button.btn-clear").click()
    status = execute(block)
    assert status.inner_text().strip() == "200", status.inner_text()
    body = block.locator(".live-responses-table tr.response .response-col_description").first
    body.get_by_text(EXPECT).first.wait_for()
    body.get_by_text(EXPECT).first.scroll_into_view_if_needed()
    # The request Swagger UI shows carried the key as a bearer token.
    curl = block.locator(".curl-command").inner_text()
    assert "Authorization: Bearer" in curl, curl
    screenshot(page, "answer")
    watch.check()

print("ok: rest playground")
