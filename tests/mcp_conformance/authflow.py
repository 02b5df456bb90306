#!/usr/bin/env python3
"""Runs the conformance suite's `authorization` command and plays the browser for it.

  authflow.py BASE_URL OUTBOX EMAIL LOG -- COMMAND...

The suite's `authorization-code-grant` scenario prints an authorization URL, waits for
"the user" to complete it in a browser and then reads the redirect at its own callback
server. This script runs COMMAND (its output goes to LOG and to our stdout), and when the
URL appears it does what a person would on our pages, over plain HTTP without following
redirects: the sign-in form (POST /signin with EMAIL), the e-mailed link from the
development outbox OUTBOX (GET, then its confirmation POST), the consent page with the
session cookie (the first organization, live data, every scope offered, "Allow"), and
finally a GET of the redirect back to the suite's callback. It exits with COMMAND's
status (or 1 when the browser part failed).
"""

import html
import http.client
import pathlib
import re
import subprocess
import sys
import threading
import time
import urllib.parse


def say(text):
    print(f"authflow: {text}", flush=True)


def request(method, url, body=None, cookie=None):
    """One request, redirects not followed: (status, headers, text)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=30)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    headers = {"Accept": "text/html"}
    data = None
    if body is not None:
        data = urllib.parse.urlencode(body).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if cookie:
        headers["Cookie"] = cookie
    conn.request(method, path, body=data, headers=headers)
    res = conn.getresponse()
    text = res.read().decode("utf-8", "replace")
    conn.close()
    return res.status, res.headers, text


def inputs(page, name):
    """The values of the inputs named `name` in a page, in order."""
    pattern = re.compile(r'<input[^>]*\bname="%s"[^>]*>' % re.escape(name))
    values = []
    for tag in pattern.findall(page):
        match = re.search(r'\bvalue="([^"]*)"', tag)
        if match:
            values.append(html.unescape(match.group(1)))
    return values


def one(page, name):
    values = inputs(page, name)
    if not values:
        raise RuntimeError(f"no input {name!r} in the page: {page[:2000]}")
    return values[0]


def newest_mail(outbox, before):
    """The first mail in `outbox` that was not there `before`, waiting up to 10 s."""
    for _ in range(100):
        fresh = sorted(set(outbox.glob("*.eml")) - before)
        if fresh:
            return fresh[-1].read_text()
        time.sleep(0.1)
    raise RuntimeError(f"no sign-in mail arrived in {outbox}")


def browse(base, outbox, email, authorize_url):
    """The person at the browser: sign in, approve, return to the client."""
    if not authorize_url.startswith(base + "/authorize?"):
        raise RuntimeError(f"the authorization URL is not ours: {authorize_url}")
    status, _, page = request("GET", authorize_url)
    if status != 200 or 'action="/signin"' not in page:
        raise RuntimeError(f"GET /authorize gave {status}, not the sign-in form: {page[:2000]}")
    return_to = one(page, "return_to")
    before = set(outbox.glob("*.eml")) if outbox.exists() else set()
    status, _, page = request("POST", base + "/signin", {"email": email, "return_to": return_to})
    if status != 200:
        raise RuntimeError(f"POST /signin gave {status}: {page[:2000]}")
    mail = newest_mail(outbox, before)
    link = next((w for w in mail.split() if "/signin/verify?token=" in w), None)
    if not link:
        raise RuntimeError(f"no sign-in link in the mail: {mail}")
    status, _, page = request("GET", link)
    if status != 200:
        raise RuntimeError(f"GET of the sign-in link gave {status}: {page[:2000]}")
    status, headers, page = request("POST", base + "/signin/verify", {"token": one(page, "token")})
    cookie = (headers.get("Set-Cookie") or "").split(";")[0]
    if status != 303 or not cookie.startswith("ledger_session="):
        raise RuntimeError(f"POST /signin/verify gave {status} without a session: {page[:2000]}")
    status, _, page = request("GET", base + headers["Location"], cookie=cookie)
    if status != 200 or 'name="organization_id"' not in page:
        raise RuntimeError(f"the consent page did not come ({status}): {page[:2000]}")
    form = [(name, one(page, name)) for name in (
        "response_type", "client_id", "redirect_uri", "code_challenge",
        "code_challenge_method", "state", "resource", "csrf", "organization_id")
        if inputs(page, name)]
    form += [("approved_scope", s) for s in inputs(page, "approved_scope")]
    form += [("mode", "live"), ("decision", "approve")]
    status, headers, page = request("POST", base + "/authorize", form, cookie=cookie)
    back = headers.get("Location")
    if status != 303 or not back:
        raise RuntimeError(f"the consent decision gave {status}: {page[:2000]}")
    say(f"approved; back to the client at {urllib.parse.urlsplit(back).path}")
    status, _, page = request("GET", back)
    if status != 200:
        raise RuntimeError(f"the suite's callback answered {status}: {page[:500]}")


def main():
    if len(sys.argv) < 7 or sys.argv[5] != "--":
        sys.exit(__doc__)
    base, outbox, email, log = sys.argv[1].rstrip("/"), pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    command = sys.argv[6:]
    failure = []
    with open(log, "w") as out:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            out.write(line)
            out.flush()
            sys.stdout.write(line)
            url = line.strip()
            if url.startswith(base + "/authorize?"):
                # The suite listens for the callback only after printing; browse aside so
                # its output keeps being read.
                def run(url=url):
                    try:
                        browse(base, outbox, email, url)
                    except Exception as e:  # noqa: BLE001 - reported, then fails the run
                        failure.append(str(e))
                        say(f"FAILED: {e}")
                        proc.kill()
                threading.Thread(target=run, daemon=True).start()
        code = proc.wait()
    if failure:
        sys.exit(1)
    sys.exit(code)


if __name__ == "__main__":
    main()
