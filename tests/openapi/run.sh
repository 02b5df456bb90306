#!/usr/bin/env bash
# Outside OpenAPI checkers against the document the real server serves (issue 20):
#   1. openapi-spec-validator (PyPI): the document is valid OpenAPI 3.1;
#   2. Redocly's linter (npm), with the rules of redocly.yaml: it lints clean.
#
# The server is the workspace's debug `ledger-server` (built here unless
# LEDGER_SERVER_BIN names one) on SQLite, on a free loopback port. The Python tool comes
# from $LEDGER_OPENAPI_VENV (default: .tools/openapi-venv, made by .ci/run); the npm package
# is pinned in package-lock.json and installed into ./node_modules once.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

say() { echo "openapi: $*"; }
fail() { echo "openapi: FAILED: $*" >&2; exit 1; }

VENV="${LEDGER_OPENAPI_VENV:-$ROOT/.tools/openapi-venv}"
[ -x "$VENV/bin/openapi-spec-validator" ] || fail "no openapi-spec-validator in $VENV (see .ci/run)"
command -v npm >/dev/null 2>&1 || fail "npm is missing (apt-get install -y npm)"
command -v curl >/dev/null 2>&1 || fail "curl is missing"

want="$(sha256sum package-lock.json | cut -d' ' -f1)"
stamp=node_modules/.ledger-lock-sha256
if [ ! -e node_modules/@redocly/cli/bin/cli.js ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "installing the pinned npm packages"
  npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
  echo "$want" > "$stamp"
fi
REDOCLY="$HERE/node_modules/@redocly/cli/bin/cli.js"

BIN="${LEDGER_SERVER_BIN:-}"
if [ -z "$BIN" ]; then
  (cd "$ROOT" && cargo build --quiet -j"${CARGO_BUILD_JOBS:-2}" -p server --bin ledger-server)
  BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/ledger-server"
fi
[ -x "$BIN" ] || fail "no server binary at $BIN"

WORK="$(mktemp -d)"
OUT="${LEDGER_OPENAPI_OUT:-$WORK/results}"
mkdir -p "$OUT"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK/db"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server NAME DATABASE_URL: starts the server, sets PORT and KEY.
start_server() {
  local name="$1" url="$2"
  PORT="$(free_port)"
  LEDGER_ADDR="127.0.0.1:$PORT" DATABASE_URL="$url" \
    LEDGER_ENV=development LEDGER_RATE_LIMITS=off LEDGER_LOG="${LEDGER_LOG:-warn}" \
    "$BIN" serve > "$OUT/server-$name.log" 2>&1 &
  pids+=("$!")
  local pid="$!"
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$OUT/server-$name.log" >&2; fail "the server ($name) exited"; }
    sleep 0.5
  done
  curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || fail "the server ($name) did not answer /health"
  KEY="$(curl -sf -X POST "http://127.0.0.1:$PORT/accounts/master" -H 'Content-Type: application/json' \
    -d "{\"name\":\"OpenAPI $name\",\"user_provider_id\":\"openapi-$name\",\"user_email\":\"openapi-$name@example.com\"}" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"]["key"])')" || fail "sign-up failed ($name)"
}

mkdir -p "$WORK/db"
start_server sqlite "sqlite://$WORK/db/ledger.sqlite"

# 1-2. The served document: fetched without a key, validated and linted.
curl -sf "http://127.0.0.1:$PORT/openapi.json" -o "$OUT/openapi.json" || fail "GET /openapi.json"
say "openapi-spec-validator --schema 3.1"
"$VENV/bin/openapi-spec-validator" --schema 3.1 "$OUT/openapi.json" || fail "openapi-spec-validator"
say "redocly lint (rules in redocly.yaml)"
(cd "$HERE" && node "$REDOCLY" lint --config "$HERE/redocly.yaml" --format=stylish "$OUT/openapi.json") \
  || fail "redocly lint"

say "all passed (results in $OUT)"
