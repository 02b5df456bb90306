#!/usr/bin/env python3
"""Loopback proxy that adds `Authorization: Bearer $LEDGER_KEY` to every request.

The MCP conformance runner's `server` mode has no option to send a header, and Ledger's
`/mcp` answers 401 without a key, so the runner talks to this proxy instead. Everything
else (method, path, headers including Host and Origin, body, status, response headers)
passes through unchanged. Listens on 127.0.0.1 only.

Usage: LEDGER_KEY=... authproxy.py LISTEN_PORT TARGET_PORT
"""

import http.client
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LISTEN_PORT = int(sys.argv[1])
TARGET_PORT = int(sys.argv[2])
TOKEN = os.environ["LEDGER_KEY"]
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-authorization", "proxy-authenticate"}


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        upstream = http.client.HTTPConnection("127.0.0.1", TARGET_PORT, timeout=60)
        upstream.putrequest(self.command, self.path, skip_host=True,
                            skip_accept_encoding=True)
        for name, value in self.headers.items():
            if name.lower() in HOP_BY_HOP or name.lower() in ("authorization", "content-length"):
                continue
            upstream.putheader(name, value)
        upstream.putheader("Authorization", "Bearer " + TOKEN)
        upstream.putheader("Content-Length", str(len(body or b"")))
        upstream.endheaders(body)
        res = upstream.getresponse()
        data = res.read()
        self.send_response_only(res.status, res.reason)
        for name, value in res.getheaders():
            if name.lower() in HOP_BY_HOP or name.lower() == "content-length":
                continue
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = forward

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that hangs up mid-request (the runners do) is not worth a traceback.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


if __name__ == "__main__":
    Server(("127.0.0.1", LISTEN_PORT), Proxy).serve_forever()
