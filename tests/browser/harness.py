"""What the browser tests share: Debian's Chromium driven by Playwright, a watch on the
page (console errors, Content-Security-Policy violations, requests that leave the
server's origin, security headers of every HTML page), and screenshots kept as artifacts.

Environment: LEDGER_BASE (server URL), LEDGER_ARTIFACTS (directory for screenshots),
LEDGER_ARTIFACT_PREFIX (file-name prefix, e.g. the test and database), LEDGER_CHROMIUM
(the browser, default /usr/bin/chromium).
"""

import os
import sys
from contextlib import contextmanager

from playwright.sync_api import sync_playwright

BASE = os.environ["LEDGER_BASE"].rstrip("/")
ARTIFACTS = os.environ.get("LEDGER_ARTIFACTS", "target/artifacts/browser")
PREFIX = os.environ.get("LEDGER_ARTIFACT_PREFIX", "browser")
CHROMIUM = os.environ.get("LEDGER_CHROMIUM", "/usr/bin/chromium")

# The flags that keep Chromium quiet on a closed network.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]

# Every HTML page the server sends must carry these (issue 21 item 5).
PAGE_HEADERS = ("content-security-policy", "x-content-type-options", "x-frame-options",
                "referrer-policy")


class Watch:
    """Collects what must not happen on a page."""

    def __init__(self, page, allowed_origins=()):
        self.problems = []
        self.pages_checked = 0
        self.allowed = (BASE,) + tuple(allowed_origins)
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("request", self._request)
        page.on("response", self._response)

    def _console(self, message):
        text = message.text
        if "Content Security Policy" in text or "Content-Security-Policy" in text:
            self.problems.append(f"CSP violation: {text}")
        elif message.type == "error" and "Failed to load resource" not in text:
            self.problems.append(f"console error: {text}")

    def _request(self, request):
        url = request.url
        if url.startswith("data:") or url.startswith("blob:"):
            return
        if not any(url == o or url.startswith(o + "/") for o in self.allowed):
            self.problems.append(f"request left the server: {request.method} {url}")

    def _response(self, response):
        if not response.url.startswith(BASE + "/"):
            return
        if response.request.resource_type != "document" or response.status >= 300:
            return
        headers = response.headers
        missing = [h for h in PAGE_HEADERS if h not in headers]
        if missing:
            self.problems.append(f"{response.url} lacks {missing}")
            return
        csp = headers["content-security-policy"]
        if "frame-ancestors 'none'" not in csp:
            self.problems.append(f"{response.url}: CSP without frame-ancestors 'none': {csp}")
        if "unsafe-eval" in csp:
            self.problems.append(f"{response.url}: CSP allows eval: {csp}")
        if headers["x-content-type-options"] != "nosniff":
            self.problems.append(f"{response.url}: x-content-type-options is not nosniff")
        self.pages_checked += 1

    def check(self):
        assert not self.problems, "\n".join(self.problems)
        assert self.pages_checked > 0, "no HTML page of the server was checked"


def screenshot(page, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, f"{PREFIX}-{name}.png")
    page.screenshot(path=path, full_page=False)
    print(f"screenshot: {path}")
    return path


@contextmanager
def browser_page(allowed_origins=()):
    """A fresh page of a headless Chromium, watched; its last state is saved as
    `<prefix>-failure.png` when the test fails."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            # Generous: CI runs the suite on two busy cores; a wait is not a time assertion.
            page.set_default_timeout(90_000)
            watch = Watch(page, allowed_origins)
            try:
                yield page, watch
            except BaseException:
                try:
                    screenshot(page, "failure")
                except Exception as e:  # the page may be gone
                    print(f"no failure screenshot: {e}", file=sys.stderr)
                raise
        finally:
            browser.close()
