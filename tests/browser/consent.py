"""The OAuth consent flow (issue 15 item 3) in headless Chromium: a client sends the user
to /authorize; the user signs in with the e-mailed one-time link (read from the server's
outbox), picks the second of their organizations on the consent page, approves only
`ledger:read`, and lands on the client's redirect URI with a code, `state` and `iss`.
The code then buys a token for that organization and that scope only.

Environment (besides harness.py's): LEDGER_OUTBOX (the server's mail directory),
LEDGER_EMAIL (the owner's address), LEDGER_ORG (the organization to pick),
LEDGER_ORG_NAME (its name), LEDGER_OTHER_ORG (the owner's other organization).
Prints "ok: consent".
"""

import base64
import glob
import hashlib
import json
import os
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request

from harness import BASE, browser_page, screenshot

OUTBOX = os.environ["LEDGER_OUTBOX"]
EMAIL = os.environ["LEDGER_EMAIL"]
ORG = os.environ["LEDGER_ORG"]
ORG_NAME = os.environ["LEDGER_ORG_NAME"]
OTHER_ORG = os.environ["LEDGER_OTHER_ORG"]
CLIENT_ORIGIN = "http://localhost:3030"
REDIRECT = f"{CLIENT_ORIGIN}/callback"


def call(method, path, body=None, form=None, token=None):
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(BASE + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


status, client = call("POST", "/register", body={
    "redirect_uris": [REDIRECT],
    "token_endpoint_auth_method": "none",
    "client_name": "Browser test agent",
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
})
assert status == 201, client
client_id = client["client_id"]
verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
state = secrets.token_urlsafe(12)
resource = f"{BASE}/mcp"
authorize = BASE + "/authorize?" + urllib.parse.urlencode({
    "response_type": "code",
    "client_id": client_id,
    "redirect_uri": REDIRECT,
    "code_challenge": challenge,
    "code_challenge_method": "S256",
    "scope": "ledger:read ledger:write",
    "state": state,
    "resource": resource,
})

with browser_page(allowed_origins=(CLIENT_ORIGIN,)) as (page, watch):
    # The client's redirect URI: nothing listens there, the test plays the client.
    page.route(f"{CLIENT_ORIGIN}/**", lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>Client</title><p>Back at the client.</p>"))

    page.goto(authorize)
    page.get_by_role("heading", name="Sign in to Ledger").wait_for()
    page.get_by_label("E-mail address").fill(EMAIL)
    screenshot(page, "sign-in")
    page.get_by_role("button", name="E-mail me a sign-in link").click()
    page.get_by_role("heading", name="Check your e-mail").wait_for()

    mails = sorted(glob.glob(os.path.join(OUTBOX, "*.eml")))
    assert mails, f"no mail in {OUTBOX}"
    mail = open(mails[-1]).read()
    link = re.search(r"(\S+/signin/verify\?token=\S+)", mail).group(1)
    page.goto(link)
    page.get_by_role("button", name="Continue signing in").click()

    page.get_by_role("heading", name=re.compile("Allow Browser test agent to use Ledger")).wait_for()
    organization = page.get_by_role("radio", name=re.compile(re.escape(ORG_NAME)))
    organization.check()
    assert organization.is_checked()
    write = page.get_by_role("checkbox", name=re.compile(r"ledger:write"))
    write.uncheck()
    assert page.get_by_role("checkbox", name=re.compile(r"ledger:read")).is_checked()
    screenshot(page, "consent")
    # In development the test books are the preselected choice.
    assert page.get_by_role("radio", name=re.compile("Test data")).is_checked()
    assert not page.get_by_role("radio", name=re.compile("Live data")).is_checked()
    page.get_by_role("button", name="Allow").click()

    page.wait_for_url(f"{REDIRECT}?**")
    page.get_by_text("Back at the client.").wait_for()
    screenshot(page, "redirected")
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert query["state"] == [state], query
    assert query["iss"] == [BASE], query
    code = query["code"][0]
    watch.check()

# The code buys a token for the organization and the scope the user chose.
status, tokens = call("POST", "/token", form={
    "grant_type": "authorization_code",
    "code": code,
    "redirect_uri": REDIRECT,
    "client_id": client_id,
    "code_verifier": verifier,
    "resource": resource,
})
assert status == 200, tokens
assert tokens["scope"] == "ledger:read", tokens
token = tokens["access_token"]
status, body = call("GET", f"/organizations/{ORG}/accounts", token=token)
assert status == 200, body
status, body = call("GET", f"/organizations/{OTHER_ORG}/accounts", token=token)
assert status == 404, (status, body)
status, body = call("POST", f"/organizations/{ORG}/accounts", token=token,
                    body={"code": "1015", "name": "Till", "account_type": "asset"})
assert status == 403, (status, body)

print("ok: consent")
