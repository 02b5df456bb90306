#!/usr/bin/env python3
"""Reads the results of run.sh's checkers and fails on any problem.

  summarize.py RESULTS_DIR MCP_URL REQS.yaml    conformance: every checks.json below
  summarize.py --inspector LIST.json LIST.err   Inspector tools/list --strict output
  summarize.py --inspector-call CALL.json       Inspector tools/call output
  summarize.py --authorization RESULTS_DIR      the `authorization` command's checks
"""

import json
import pathlib
import re
import sys
import urllib.request


# Ledger offers neither of these, and declares so in its capabilities, so a check that
# needs them cannot apply (docs/decisions.md, "MCP conformance (issue 22, first slice)").
NOT_OFFERED = {
    "completion-complete": "completions capability (completion/complete)",
    "logging-set-level": "logging capability (logging/setLevel)",
    "tools-call-with-logging": "logging capability (logging/setLevel)",
    "resources-subscribe": "resources.subscribe (needs a server-to-client stream)",
    "resources-unsubscribe": "resources.subscribe (needs a server-to-client stream)",
}
ABSENT = re.compile(r"unknown (tool|prompt) '([^']+)'|resource not found: (\S+?);|Tool '([^']+)' not found")


def listed(url: str) -> set:
    """The names of our tools and prompts and the URIs of our resources."""
    names = set()
    for method, key, field in (("tools/list", "tools", "name"), ("prompts/list", "prompts", "name"),
                               ("resources/list", "resources", "uri")):
        req = urllib.request.Request(url, method="POST", data=json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": method}).encode(), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25"})
        with urllib.request.urlopen(req, timeout=30) as res:
            names |= {item[field] for item in json.load(res)["result"][key]}
    return names


def classify(scenario: str, check: dict, ours: set):
    """Why a failed check cannot apply to Ledger, or None for a real failure."""
    message = check.get("errorMessage") or ""
    match = ABSENT.search(message)
    if match:
        name = next(g for g in match.groups()[1:] if g)
        if name not in ours:
            return f"needs the suite's reference fixture '{name}', which Ledger does not list"
    if message.startswith(("Not testable:", "Prerequisite failed:")) or (check.get("details") or {}).get("untestable"):
        return "the suite marks it untestable here (its reference fixture is absent)"
    for prefix, what in NOT_OFFERED.items():
        if scenario.startswith(prefix) and "Method not found" in message:
            return f"needs the {what}, which Ledger does not declare"
    if scenario.startswith("input-required-result-") and "InputRequiredResult" in message:
        return "needs a tool that asks the client for input (MRTR); no Ledger tool does"
    return None


def conformance(results: pathlib.Path, url: str, requirements: pathlib.Path) -> int:
    files = sorted(results.rglob("checks.json"))
    if not files:
        print(f"  no checks.json under {results}")
        return 1
    ours = listed(url)
    extensions = set(re.findall(r"scenario: (\S+)\n\s+leg: server\n\s+reason: extension",
                                requirements.read_text()))
    counts = {}
    real, cannot, optional = [], [], []
    for f in files:
        scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT[\d-]+Z$", "", f.parent.name)
        for check in json.loads(f.read_text()):
            status = check.get("status", "?")
            counts[status] = counts.get(status, 0) + 1
            if status not in ("FAILURE", "ERROR"):
                continue
            line = f"{scenario} / {check.get('id')}: {check.get('errorMessage', '')}"[:300]
            if scenario in extensions:
                optional.append(line)
                continue
            why = classify(scenario, check, ours)
            if why:
                cannot.append(f"{scenario} / {check.get('id')}: {why}")
            else:
                real.append(line)
    print(f"  {len(files)} scenarios; checks: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"  cannot apply to Ledger ({len(cannot)}; see docs/decisions.md):")
    for line in cannot:
        print("    " + line)
    print(f"  extension scenarios, optional by the requirement set ({len(optional)} failed checks)")
    print(f"  FAILED ({len(real)}):" if real else "  no other failure")
    for line in real:
        print("    " + line)
    return 1 if real else 0


# The one Inspector finding Ledger cannot meet, with why (docs/decisions.md, "Tool output
# schemas from the OpenAPI document"): the `metadata` of an account, a transaction or a
# transfer is whatever JSON value the client sent, kept and returned as it is, so its
# outputSchema truthfully constrains nothing ("untyped-schema"). Any other finding fails.
FREE_FORM_RULE = "untyped-schema"
FREE_FORM_PATH = re.compile(r"(\$defs\.(Account|Transaction|Transfer)\.)?properties\.metadata")
FREE_FORM_WHY = "client metadata of accounts, transactions and transfers is any JSON value"


def free_form(schema: str, path: str, rule: str) -> bool:
    """Whether a finding is the allowed one: untyped client metadata in an outputSchema."""
    wanted = (schema, rule) == ("outputSchema", FREE_FORM_RULE)
    return wanted and bool(FREE_FORM_PATH.fullmatch(path))


def inspector_list(out: pathlib.Path, err: pathlib.Path) -> int:
    """tools/list --strict: any schema finding (warning or error) is a failure, but for the
    free-form metadata above."""
    problems = []
    try:
        doc = json.loads(out.read_text())
    except ValueError:
        print(f"  not JSON: {out.read_text()[:300]}")
        return 1
    tools = (doc.get("result") or {}).get("tools") or []
    if not tools:
        problems.append("no tools listed")
    findings, allowed = [], 0
    for tool in doc.get("schemaFindings") or []:
        for f in tool.get("findings") or []:
            if free_form(f.get("schema"), f.get("path"), f.get("rule")):
                allowed += 1
            else:
                findings.append({"toolName": tool.get("toolName"), **f})
    if findings:
        problems.append(f"{len(findings)} schema findings: {json.dumps(findings)[:3000]}")
    # The Inspector prints each finding on stderr too ("Warning: tool ...", its Path and
    # Issue, a blank line) and a count; the allowed ones and the count are dropped.
    rest = []
    for block in err.read_text().strip().split("\n\n"):
        path = re.search(r"^  Path: (\w+)\.(\S+)$", block, re.M)
        untyped = "\n  Issue: Schema carries no validation keyword at all," in block
        if block.startswith("Warning: tool ") and path and untyped and free_form(
            path.group(1), path.group(2), FREE_FORM_RULE
        ):
            continue
        if re.fullmatch(r"\d+ errors?, \d+ warnings? across \d+ tools?\.", block.strip()):
            continue
        if block.strip():
            rest.append(block)
    if rest:
        problems.append(f"stderr: {chr(10).join(rest)[:3000]}")
    print(f"  {len(tools)} tools, {len(findings)} schema findings "
          f"(and {allowed} allowed: {FREE_FORM_WHY})")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def inspector_call(out: pathlib.Path) -> int:
    doc = json.loads(out.read_text())
    result = doc.get("result") or {}
    if result.get("isError") is not False or "structuredContent" not in result:
        print(f"  unexpected result: {json.dumps(doc)[:500]}")
        return 1
    print("  tools/call list_accounts: ok")
    return 0


# The authorization-server scenarios that must have run (the suite skips the code grant
# without a client id, and a scenario that did not run must not pass silently).
AUTHORIZATION_SCENARIOS = ("authorization-server-metadata-endpoint", "authorization-code-grant")
# Warnings (the suite's SHOULDs) the suite does not count as failures, with why Ledger
# does not meet them; any other warning fails the run.
AUTHORIZATION_WARNINGS = {
    "authorization-server-metadata-cimd": "Ledger registers clients dynamically (RFC 7591) and "
    "does not fetch Client ID Metadata Documents, so it does not advertise "
    "client_id_metadata_document_supported (docs/decisions.md)",
}


def authorization(results: pathlib.Path) -> int:
    """Fails on a failed or skipped check, a missing scenario or an unexplained warning."""
    problems, seen = 0, set()
    for path in sorted(results.glob("*/checks.json")):
        name = path.parent.name.removeprefix("authorization-server-")
        scenario = next((s for s in AUTHORIZATION_SCENARIOS if name.startswith(s + "-")), None)
        if scenario is None:
            print(f"authorization: unexpected scenario directory {path.parent.name}")
            problems += 1
            continue
        seen.add(scenario)
        for check in json.loads(path.read_text()):
            status, cid = check.get("status"), check.get("id")
            if status == "SUCCESS":
                print(f"authorization: {scenario}: {cid} passed")
            elif status == "WARNING" and cid in AUTHORIZATION_WARNINGS:
                print(f"authorization: {scenario}: {cid} warning (not a failure): {AUTHORIZATION_WARNINGS[cid]}")
            else:
                print(f"authorization: {scenario}: {cid} {status}: {check.get('errorMessage') or ''}")
                problems += 1
    for missing in sorted(set(AUTHORIZATION_SCENARIOS) - seen):
        print(f"authorization: scenario {missing} did not run")
        problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1] == "--authorization":
        sys.exit(authorization(pathlib.Path(sys.argv[2])))
    if sys.argv[1] == "--inspector":
        sys.exit(inspector_list(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])))
    if sys.argv[1] == "--inspector-call":
        sys.exit(inspector_call(pathlib.Path(sys.argv[2])))
    sys.exit(conformance(pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])))
