# The server the outside checkers drive, sourced by mcp_conformance/run.sh, openapi/run.sh
# and schemathesis/run.sh as `. ledger_server.sh NAME`: their messages (`say`, `fail`,
# prefixed with NAME), the pinned npm packages, the server's binary, free ports, starting it, signing up, and
# stopping what was started. The caller sets ROOT and OUT, and calls `stop_started` from
# its exit trap.

CHECKER="$1"
say() { echo "$CHECKER: $*"; }
fail() { echo "$CHECKER: FAILED: $*" >&2; exit 1; }

# npm_packages FILE...: installs the npm packages pinned in ./package-lock.json into
# ./node_modules, unless every FILE is there and the lock file is the one installed last.
npm_packages() {
  local want stamp=node_modules/.ledger-lock-sha256 missing=""
  want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  for f in "$@"; do [ -e "$f" ] || missing=1; done
  if [ -n "$missing" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "installing the pinned npm packages"
    npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
    echo "$want" > "$stamp"
  fi
}

# server_binary: sets BIN to $LEDGER_SERVER_BIN, else to the workspace's debug
# `ledger-server`, built (or brought up to date) here.
server_binary() {
  BIN="${LEDGER_SERVER_BIN:-}"
  if [ -z "$BIN" ]; then
    (cd "$ROOT" && cargo build --quiet -j"${CARGO_BUILD_JOBS:-2}" -p server --bin ledger-server)
    BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/ledger-server"
  fi
  [ -x "$BIN" ] || fail "no server binary at $BIN"
}

# The processes started for the run (servers, and whatever the caller adds).
pids=()

# stop_started: ends and reaps every process in `pids`.
stop_started() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server NAME DATABASE_URL [VAR=VALUE...]: the server in development mode on a free
# loopback port, with the extra environment given, logging to $OUT/server-NAME.log; sets
# PORT and BASE once it answers /health.
start_server() {
  local name="$1" url="$2"
  shift 2
  PORT="$(free_port)"
  BASE="http://127.0.0.1:$PORT"
  env LEDGER_ADDR="127.0.0.1:$PORT" DATABASE_URL="$url" "$@" \
    LEDGER_ENV=development LEDGER_RATE_LIMITS=off LEDGER_LOG="${LEDGER_LOG:-warn}" \
    "$BIN" serve > "$OUT/server-$name.log" 2>&1 &
  pids+=("$!")
  local pid="$!"
  for _ in $(seq 1 120); do
    curl -sf "$BASE/health" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$OUT/server-$name.log" >&2; fail "the server ($name) exited"; }
    sleep 0.5
  done
  curl -sf "$BASE/health" >/dev/null || fail "the server ($name) did not answer /health"
}

# master_key BODY: signs up a root organization with the sign-up BODY (JSON) on the
# server at BASE (sign-up is open in development); prints its test-mode key.
master_key() {
  curl -sf -X POST "$BASE/accounts/master" -H 'Content-Type: application/json' -d "$1" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"]["key"])'
}
