#!/usr/bin/env python3
"""External client check of the GraphQL interface with graphql-core (a real client library).

1. Builds the client schema from the live server's introspection.
2. Checks it prints the same as the committed SDL (docs/schema.graphql).
3. Validates every documented operation in operations/*.graphql against it.
4. Executes a few of them against the server and requires answers without errors.

Usage: LEDGER_GRAPHQL_URL=http://127.0.0.1:8080/graphql LEDGER_GRAPHQL_KEY=ha_test_... \
       python3 tests/graphql_client/check_schema.py

Exit status: 0 when everything holds, 1 on a failure, 3 when graphql-core is missing.
"""

import json
import os
import pathlib
import sys
import urllib.error
import urllib.request

PINNED = "3.2.8"

try:
    import graphql
    from graphql import (
        build_client_schema,
        build_schema,
        get_introspection_query,
        parse,
        print_schema,
        validate,
    )
except ImportError:
    print(
        f"graphql-core is not installed: run `python3 -m pip install graphql-core=={PINNED}`",
        file=sys.stderr,
    )
    sys.exit(3)

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def post(url, key, query, variables=None, operation_name=None):
    body = json.dumps(
        {"query": query, "variables": variables or {}, "operationName": operation_name}
    ).encode()
    req = urllib.request.Request(
        url,
        data=body,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.loads(res.read())
    except urllib.error.HTTPError as e:
        return json.loads(e.read() or b"{}")


def main():
    url = os.environ.get("LEDGER_GRAPHQL_URL")
    key = os.environ.get("LEDGER_GRAPHQL_KEY")
    if not url or not key:
        print("set LEDGER_GRAPHQL_URL and LEDGER_GRAPHQL_KEY", file=sys.stderr)
        return 1
    if graphql.__version__ != PINNED:
        print(f"note: graphql-core {graphql.__version__} (CI pins {PINNED})", file=sys.stderr)
    failures = []

    answer = post(url, key, get_introspection_query(descriptions=True))
    if answer.get("errors") or not answer.get("data"):
        print(f"introspection failed: {json.dumps(answer)}", file=sys.stderr)
        return 1
    schema = build_client_schema(answer["data"])
    print(f"client schema: {len(schema.type_map)} types")

    committed = build_schema((ROOT / "docs" / "schema.graphql").read_text())
    if print_schema(committed) != print_schema(schema):
        failures.append("docs/schema.graphql differs from the live schema")

    documents = {}
    for path in sorted((HERE / "operations").glob("*.graphql")):
        document = parse(path.read_text())
        errors = validate(schema, document)
        for e in errors:
            failures.append(f"{path.name}: {e.message}")
        documents[path.name] = path.read_text()
        print(f"validated {path.name}: {len(errors)} errors")

    executed = [
        ("organization_overview.graphql", "OrganizationOverview", {}),
        ("currencies.graphql", "Currencies", {}),
        ("account_mutations.graphql", "CreateAccount", {"code": "5900", "name": "Client test"}),
        ("contact_mutations.graphql", "CreateContact", {"name": "Client Vendor"}),
        ("reports.graphql", "Reports", {"asOf": "2026-12-31"}),
        ("invoices.graphql", "Invoices", {}),
    ]
    for name, operation, variables in executed:
        answer = post(url, key, documents[name], variables, operation)
        if answer.get("errors") or not answer.get("data"):
            failures.append(f"executing {operation}: {json.dumps(answer)}")
        else:
            print(f"executed {operation}")

    # Unknown fields are refused by the server with the documented code.
    answer = post(url, key, "{ organization { noSuchField } }")
    codes = [e.get("extensions", {}).get("code") for e in answer.get("errors", [])]
    if codes != ["GRAPHQL_VALIDATION_FAILED"]:
        failures.append(f"an unknown field answered {json.dumps(answer)}")

    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
