"""schemathesis hooks for the GraphQL mode (loaded through schemathesis-graphql.toml).

Ledger's `Decimal` scalar (an exact amount, sent as a string such as "12.50") has no
built-in strategy: without one, the mutations that take an amount are not generated.
"""

import graphql
from hypothesis import strategies as st

import schemathesis
from schemathesis.graphql import nodes

schemathesis.graphql.scalar(
    "Decimal",
    st.decimals(min_value=-(10**12), max_value=10**12, places=2, allow_nan=False, allow_infinity=False)
    .map(str)
    .map(nodes.String),
)

# `Json`: free-form metadata; a small object or a string is what a client sends.
schemathesis.graphql.scalar(
    "Json",
    st.one_of(
        st.dictionaries(st.sampled_from(["note", "ref", "source"]), st.text(max_size=8), max_size=2).map(
            lambda d: nodes.Object(
                [graphql.ObjectFieldNode(name=graphql.NameNode(value=k), value=nodes.String(v)) for k, v in d.items()]
            )
        ),
        st.text(max_size=8).map(nodes.String),
    ),
)


# Ledger labels every GraphQL error with `extensions.code` (spec 7.2): VALIDATION_ERROR,
# BUSINESS_RULE_VIOLATION, FORBIDDEN, ... for a refusal of the caller's input, and
# INTERNAL_SERVER_ERROR for a failure of its own. schemathesis trusts only the labels of
# Apollo and graphql-java; with any other label it guesses from the shape (an error with a
# `path` is "a server error", ST113; a refused well-formed query is ST206), so Ledger's
# intended refusals would count as failures. schemathesis-graphql.toml turns those two
# built-in checks off for the GraphQL mode only, and this check takes their place with
# Ledger's labels: a 5xx, an INTERNAL_SERVER_ERROR or an unlabelled error fails.
LEDGER_CODES = frozenset(
    {
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "GRAPHQL_VALIDATION_FAILED",
        "VALIDATION_ERROR",
        "BUSINESS_RULE_VIOLATION",
        "CREDIT_LIMIT_EXCEEDED",
        "RATE_LIMIT_EXCEEDED",
    }
)


@schemathesis.check
def ledger_graphql_no_server_error(ctx, response, case):
    if response.status_code >= 500:
        raise AssertionError(f"server error: HTTP {response.status_code}")
    try:
        payload = response.json()
    except ValueError:
        raise AssertionError("the answer is not JSON") from None
    if not isinstance(payload, dict):
        raise AssertionError("the answer is not a JSON object")
    for error in payload.get("errors") or []:
        code = (error.get("extensions") or {}).get("code") if isinstance(error, dict) else None
        if code not in LEDGER_CODES:
            raise AssertionError(f"GraphQL error labelled {code!r}: {error}")
