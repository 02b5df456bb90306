#!/usr/bin/env bash
# schemathesis (PyPI, pinned in .ci/run) against the real server, on SQLite and on
# PostgreSQL (issue 20):
#   1. OpenAPI mode on /openapi.json with `--checks all`: the examples, coverage, fuzzing
#      and stateful phases (the stateful phase follows the document's `links`). Zero 5xx,
#      zero schema violations, zero `ignored_auth`, and no cross-tenant read: two sign-ups
#      (two users, two organizations) are the WFC `peers` of `object_level_authorization`.
#   2. GraphQL mode on /graphql.
# Options of the run are in schemathesis.toml (next to this script): the organization
# id of the `{org}` parameter, the hooks (hooks_openapi.py: fresh values where the
# organization needs unique ones, alice's own key kept out of the key operations) and
# why 422 counts as an acceptance of valid data. A fresh database
# for each run: a temporary SQLite file, and a PostgreSQL database created here and
# dropped afterwards.
#
# Environment: LEDGER_SERVER_BIN (default: the debug binary, built if missing),
# LEDGER_OPENAPI_VENV (default .tools/openapi-venv, where .ci/run installs schemathesis),
# LEDGER_TEST_PG_URL (the PostgreSQL server; without it, SQLite only unless CI=true),
# LEDGER_ST_DATABASES (default "sqlite postgres"), LEDGER_ST_MAX_EXAMPLES (default 6),
# LEDGER_ST_OUT (where the reports and server logs go), LEDGER_ST_EXCLUDE_CHECKS, LEDGER_ST_REPORT
# (the OpenAPI mode's report formats, default junit; `junit,vcr` also records every
# request and answer), LEDGER_ST_SEED (default 1), LEDGER_ST_WORKERS (default 1: with two
# worker threads, CPython 3.11's `ast.parse`, which hypothesis calls to describe its
# filters, sometimes fails with "SystemError: AST constructor recursion depth mismatch",
# an error of the interpreter under threads, not of the API; seen once in session 13).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

. "$ROOT/tests/ledger_server.sh" schemathesis

VENV="${LEDGER_OPENAPI_VENV:-$ROOT/.tools/openapi-venv}"
ST="$VENV/bin/st"
[ -x "$ST" ] || fail "no schemathesis in $VENV (see .ci/run)"
"$ST" --version | grep -q '4\.32\.5' || fail "schemathesis 4.32.5 expected in $VENV, got $("$ST" --version)"
command -v curl >/dev/null 2>&1 || fail "curl is missing"

server_binary

DATABASES="${LEDGER_ST_DATABASES:-sqlite postgres}"
PG_URL="${LEDGER_TEST_PG_URL:-}"
if [[ " $DATABASES " == *" postgres "* ]] && [ -z "$PG_URL" ]; then
  [ "${CI:-}" = "true" ] && fail "LEDGER_TEST_PG_URL is not set (CI=true)"
  say "LEDGER_TEST_PG_URL is not set: SQLite only"
  DATABASES="${DATABASES//postgres/}"
fi
MAX_EXAMPLES="${LEDGER_ST_MAX_EXAMPLES:-6}"
# Every check gates (issue 20 item 2; docs/decisions.md "schemathesis against the live
# server"): no 5xx, no response-schema violation, no ignored_auth, no cross-tenant read,
# no schema-violating request accepted, no schema-valid request refused with 400, no
# created resource missing. `LEDGER_ST_EXCLUDE_CHECKS=a,b` leaves checks out of a run.
# `positive_data_acceptance` is always left out of the OpenAPI mode: hooks_openapi.py's
# `ledger_positive_data_acceptance` takes its place (the built-in's verdict, but for the
# two 400s that depend on stored data, which it says).
EXCLUDE_CHECKS="positive_data_acceptance${LEDGER_ST_EXCLUDE_CHECKS:+,$LEDGER_ST_EXCLUDE_CHECKS}"
exclude_args=(--exclude-checks "$EXCLUDE_CHECKS")

WORK="$(mktemp -d)"
OUT="${LEDGER_ST_OUT:-$WORK/results}"
mkdir -p "$OUT"
pg_dbs=()
failed=()
cleanup() {
  stop_started
  for db in "${pg_dbs[@]}"; do
    psql "$PG_URL" -q -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  done
  rm -rf "$WORK/db"
}
trap cleanup EXIT

# sign_up NAME: a root organization of its own user; prints "ORG KEY KEY_ID" (the
# test-mode key, so credits never run out, and its id).
sign_up() {
  curl -sf -X POST "$BASE/accounts/master" -H 'Content-Type: application/json' \
    -d "{\"name\":\"Schemathesis $1\",\"user_provider_id\":\"st-$1-$RANDOM$RANDOM\",\"user_email\":\"st-$1@example.com\"}" \
    | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["organization"]["id"], d["api_key"]["key"], d["api_key"]["id"])' \
    || fail "sign-up of $1 failed"
}

run_one() {
  local name="$1" url="$2"
  start_server "$name" "$url" LEDGER_BLOB_DIR="$WORK/db/blobs-$name"
  read -r ORG_A KEY_A KEY_ID_A < <(sign_up "alice-$name")
  read -r ORG_B KEY_B _ < <(sign_up "bob-$name")
  # Sign-up makes each organization its default chart of accounts: reads and the
  # stateful phase find records from the first request.
  # The key the key operations (revoke, rotate, update) act on when a case names alice's
  # own (hooks_openapi.py).
  SPARE_KEY_ID="$(curl -sf -X POST "$BASE/organizations/$ORG_A/api-keys" -H "Authorization: Bearer $KEY_A" \
    -H 'Content-Type: application/json' -d '{"name":"spare","permissions":["read","write"]}' \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')" || fail "creating the spare key failed"
  # The two users as WFC identities: alice's key is the one requests are made with, bob
  # is her peer for `object_level_authorization` (he must never read her objects).
  python3 - "$WORK/auth-$name.json" "$KEY_A" "$KEY_B" <<'PY'
import json, sys
path, a, b = sys.argv[1:]
json.dump({"auth": [
    {"name": "alice", "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {a}"}]},
    {"name": "bob", "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {b}"}]},
]}, open(path, "w"))
PY
  curl -sf "$BASE/openapi.json" -o "$OUT/openapi-$name.json" || fail "GET /openapi.json ($name)"

  say "OpenAPI mode, $name ($BASE, organization $ORG_A)"
  local started=$SECONDS
  ST_ORG="$ORG_A" ST_AUTH_FILE="$WORK/auth-$name.json" ST_HOOKS="$HERE/hooks_openapi.py" \
    ST_ALICE_KEY_ID="$KEY_ID_A" ST_SPARE_KEY_ID="$SPARE_KEY_ID" \
    "$ST" --config-file "$HERE/schemathesis.toml" run "$BASE/openapi.json" --url "$BASE" \
      --checks all "${exclude_args[@]}" --phases examples,coverage,fuzzing,stateful \
      --max-examples "$MAX_EXAMPLES" --workers "${LEDGER_ST_WORKERS:-1}" --seed "${LEDGER_ST_SEED:-1}" \
      --report "${LEDGER_ST_REPORT:-junit}" --report-dir "$OUT/openapi-$name" \
      --no-color > "$OUT/openapi-$name.txt" 2>&1 \
    || { tail -n 200 "$OUT/openapi-$name.txt" >&2; failed+=("OpenAPI mode on $name ($OUT/openapi-$name.txt)"); }
  tail -n 25 "$OUT/openapi-$name.txt"
  say "OpenAPI mode on $name done in $((SECONDS - started)) s"

  # Every check runs but the two schemathesis-graphql.toml replaces (no `--checks all`
  # here: it would switch them back on).
  say "GraphQL mode, $name"
  started=$SECONDS
  ST_HOOKS="$HERE/hooks.py" \
    "$ST" --config-file "$HERE/schemathesis-graphql.toml" run "$BASE/graphql" \
      -H "Authorization: Bearer $KEY_A" \
      --max-examples "${LEDGER_ST_GRAPHQL_MAX_EXAMPLES:-3}" --workers "${LEDGER_ST_WORKERS:-1}" --seed "${LEDGER_ST_SEED:-1}" \
      --report junit --report-dir "$OUT/graphql-$name" \
      --no-color > "$OUT/graphql-$name.txt" 2>&1 \
    || { tail -n 200 "$OUT/graphql-$name.txt" >&2; failed+=("GraphQL mode on $name ($OUT/graphql-$name.txt)"); }
  tail -n 12 "$OUT/graphql-$name.txt"
  say "GraphQL mode on $name done in $((SECONDS - started)) s"
}

mkdir -p "$WORK/db"
cd "$WORK"
for db in $DATABASES; do
  case "$db" in
    sqlite) run_one sqlite "sqlite://$WORK/db/ledger.sqlite" ;;
    postgres)
      name="ledger_st_$$_$RANDOM"
      psql "$PG_URL" -q -c "CREATE DATABASE \"$name\"" >/dev/null || fail "CREATE DATABASE $name"
      pg_dbs+=("$name")
      run_one postgres "${PG_URL%/*}/$name"
      ;;
    *) fail "unknown database $db" ;;
  esac
done
# Every database and mode runs even when one fails, so one CI run shows them all.
if [ "${#failed[@]}" -gt 0 ]; then
  for f in "${failed[@]}"; do echo "schemathesis: FAILED: $f" >&2; done
  exit 1
fi
say "all passed (results in $OUT)"
