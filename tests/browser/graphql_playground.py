"""GraphiQL at /graphql/playground in headless Chromium: without a key the schema is
refused; with the key typed into the key bar it loads, and a query typed into the editor
runs and shows the organization's data in the response pane.

Environment (besides harness.py's): LEDGER_KEY (a test key), LEDGER_ORG_NAME (the key's
organization's name). Prints "ok: graphql playground".
"""

import os

from harness import BASE, browser_page, screenshot

KEY = os.environ["LEDGER_KEY"]
ORG_NAME = os.environ["LEDGER_ORG_NAME"]

QUERY = """query Accounts {
  organization {
    name
    accounts { code name }
  }
}
"""

with browser_page() as (page, watch):
    page.goto(f"{BASE}/graphql/playground")
    page.get_by_role("heading", name="Ledger GraphQL").wait_for()
    editor = page.locator(".graphiql-query-editor .CodeMirror")
    editor.wait_for()
    response = page.locator(".graphiql-response")
    # No key yet: GraphiQL's schema request went without Authorization and the server's
    # refusal is what the response pane shows.
    response.get_by_text("UNAUTHENTICATED").wait_for()
    screenshot(page, "without-key")

    page.get_by_label("API key").fill(KEY)
    page.get_by_role("button", name="Use key").click()
    page.get_by_role("status").get_by_text("Key set").wait_for()
    # The remounted GraphiQL fetched the schema with the key: the refusal is gone.
    response.get_by_text("UNAUTHENTICATED").wait_for(state="detached")
    # Replace the editor's text as a user pasting would.
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(QUERY)
    assert editor.inner_text().count("accounts") == 1, editor.inner_text()
    # GraphiQL has parsed the new document once its tab takes the operation's name.
    page.locator(".graphiql-tab").get_by_text("Accounts").wait_for()
    page.get_by_role("button", name="Execute query").click()
    response.get_by_text(ORG_NAME).wait_for()
    text = response.inner_text()
    assert '"accounts"' in text, text
    assert '"errors"' not in text, text
    screenshot(page, "answer")

    # The documentation explorer shows the schema fetched with the key.
    page.get_by_role("button", name="Show Documentation Explorer").click()
    page.locator(".graphiql-doc-explorer").get_by_text("organization").first.wait_for()
    screenshot(page, "docs")
    # A dialog (its scroll lock inserts a nonce'd <style>): no policy violation.
    page.get_by_role("button", name="Open settings dialog").click()
    page.get_by_role("dialog").get_by_text("Settings").first.wait_for()
    page.keyboard.press("Escape")
    watch.check()

print("ok: graphql playground")
