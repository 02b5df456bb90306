"""Every MCP tool, called once or more through the official Python SDK (`mcp` on PyPI), in
one protocol era: `2026-07-28` (`server/discover`, no session) or `2025-11-25` (the
`initialize` handshake).

The scenario keeps the books of a fresh organization in a sensible order (accounts,
contacts, transactions, invoices, bills, currencies, transfers, reconciliation, recurring
schedules, reports, sub-organizations, keys, credits) and checks what each call did (ids,
states, balances to the cent). Destructive calls come last, on resources made for them.
It fails when `tools/list` names a tool it did not call, so a new tool cannot go
untested, and prints the tools it called.

Every successful result is checked against the `outputSchema` its tool declares in
`tools/list`, with `jsonschema`'s Draft 2020-12 validator and format checks (`date`,
`date-time`): a result without `structuredContent`, or with one that does not validate,
fails the run. The SDK (mcp 2.3.0) validates results as well, without format checks,
and raises on the first error before this check runs; the check stays so that the proof
does not rest on what an SDK version chooses to do, and it also fails when a tool that
should declare a schema does not. Only the tools whose answer is not JSON declare none.

The credit purchases pay with the reference x402 client (`x402` on PyPI, a throwaway
`eth_account` key, the server's local facilitator), as `tests/x402/pay.py` does.

Environment: LEDGER_BASE (server URL), LEDGER_ERA (`2026-07-28` or `2025-11-25`),
LEDGER_KEY (a live admin key of a root organization), LEDGER_ORG (its id),
LEDGER_PEER_KEY (a live admin key of another user's root organization, the recipient of
the ownership transfers) and LEDGER_PEER_EMAIL (that user's e-mail). Prints
`ok: every tool <era> (<n> tools)` on success; exits non-zero on any failure.
"""

import asyncio
import base64
import datetime
import json
import os
import sys
import time
import traceback
from contextlib import asynccontextmanager
from decimal import Decimal
from types import SimpleNamespace

import httpx2
from eth_account import Account
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from x402 import x402Client
from x402.http import encode_payment_signature_header
from x402.mcp.client import x402MCPSession
from x402.mechanisms.evm.exact import register_exact_evm_client
from x402.mechanisms.evm.signers import EthAccountSigner
from x402.schemas.helpers import parse_payment_required

START = time.monotonic()
MODERN = "2026-07-28"
LEGACY = "2025-11-25"

BASE = os.environ["LEDGER_BASE"].rstrip("/")
ERA = os.environ["LEDGER_ERA"]
KEY = os.environ["LEDGER_KEY"]
ORG = os.environ["LEDGER_ORG"]
PEER_KEY = os.environ["LEDGER_PEER_KEY"]
PEER_EMAIL = os.environ["LEDGER_PEER_EMAIL"]
# Documents fall due after the run, so they are not overdue.
TODAY = datetime.date.today().isoformat()
DUE = (datetime.date.today() + datetime.timedelta(days=60)).isoformat()
TRACE = int(os.environ.get("LEDGER_SDK_TRACE", "0"))  # print that many characters a result
# The tools whose successful result is not JSON (the PDF is an embedded resource, the
# health check a text block), hence without an outputSchema; every other tool has one.
WITHOUT_OUTPUT_SCHEMA = {"generate_invoice_pdf", "health_check"}


class Listing:
    """What `tools/list` says of each tool: the credits a call costs
    (`_meta["ledger/credits"]`) and its `outputSchema`, compiled once; and the tools whose
    successful results were checked against it."""

    def __init__(self) -> None:
        self.costs: dict[str, int] = {}
        self.validators: dict[str, Draft202012Validator | None] = {}
        self.validated: set[str] = set()

    def add(self, tool) -> None:
        assert tool.name not in self.costs, f"{tool.name} is listed twice"
        cost = (tool.meta or {}).get("ledger/credits")
        assert isinstance(cost, int) and cost >= 0, f"{tool.name}: no cost in {tool.meta}"
        self.costs[tool.name] = cost
        schema = tool.output_schema
        if tool.name in WITHOUT_OUTPUT_SCHEMA:
            assert schema is None, f"{tool.name} answers no JSON yet declares {schema}"
            self.validators[tool.name] = None
            return
        assert isinstance(schema, dict), f"{tool.name} declares no outputSchema"
        assert schema.get("type") == "object", f"{tool.name}: the root is not an object"
        assert schema.get("required"), f"{tool.name}: the schema requires nothing"
        Draft202012Validator.check_schema(schema)
        self.validators[tool.name] = Draft202012Validator(
            schema, format_checker=Draft202012Validator.FORMAT_CHECKER
        )

    def check(self, name: str, result) -> None:
        """A successful result of a tool with an outputSchema carries structuredContent
        that validates against it; every mismatch is listed with where it is."""
        validator = self.validators[name]
        if validator is None:
            return
        content = result.structured_content
        assert content is not None, f"{name} has an outputSchema but no structuredContent"
        errors = [
            f"  at /{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(content)
        ]
        assert not errors, f"{name}: structuredContent does not match its outputSchema:\n" + (
            "\n".join(sorted(errors))
        )
        self.validated.add(name)


class Books:
    """An SDK client that records every tool it calls and adds up the credits its
    successful calls cost, as `tools/list` states them (`_meta["ledger/credits"]`), and
    checks each successful result against the tool's outputSchema."""

    def __init__(self, client: Client, called: set[str], who: str, listing: Listing):
        self.client = client
        self.called = called
        self.who = who
        self.listing = listing
        self.spent = 0

    async def raw(self, name: str, args: dict, meta: dict | None = None):
        self.called.add(name)
        result = await self.client.call_tool(name, args, meta=meta)
        if not result.is_error:
            self.spent += self.listing.costs[name]
            self.listing.check(name, result)
        if TRACE:
            took = time.monotonic() - START
            print(f"{took:.2f} {self.who} {name} -> {text_of(result)[:TRACE]}", file=sys.stderr)
        return result

    async def ok(self, name: str, args: dict | None = None) -> dict:
        """Calls `name`; it must succeed; answers its structuredContent, which must be the
        JSON of the text block."""
        result = await self.raw(name, args or {})
        assert not result.is_error, f"{self.who} {name}({args}) failed: {text_of(result)}"
        sc = result.structured_content
        assert isinstance(sc, dict), f"{name}: no structuredContent: {result}"
        text = text_of(result)
        assert json.loads(text) in (sc, sc.get("items")), name
        return sc

    async def refused(self, name: str, args: dict, code: str) -> dict:
        """Calls `name`; it must be a tool error carrying the domain's `code`."""
        result = await self.raw(name, args)
        assert result.is_error, f"{name}({args}) should have failed: {result.structured_content}"
        error = (result.structured_content or {}).get("error", {})
        assert error.get("code") == code, f"{name}: not {code}: {result.structured_content}"
        assert error.get("request_id"), f"{name}: no request id in {error}"
        return error


def text_of(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", None) == "text")


@asynccontextmanager
async def connect(key: str):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    async with http:
        transport = streamable_http_client(f"{BASE}/mcp", http_client=http)
        mode = "legacy" if ERA == LEGACY else "auto"
        async with Client(transport, mode=mode, cache=None) as client:
            session = client.session
            version = session.protocol_version
            assert version == ERA, f"negotiated {version}, wanted {ERA}"
            if ERA == MODERN:  # server/discover, no initialize
                assert session.discover_result is not None and session.initialize_result is None
            else:
                assert session.initialize_result is not None
            yield client


def by_code(accounts: list[dict], code: str) -> str:
    return next(a["id"] for a in accounts if a["code"] == code)


def entry_on(txn: dict, account: str) -> str:
    return next(e["id"] for e in txn["entries"] if e["account_id"] == account)


def payer() -> tuple[x402Client, str]:
    account = Account.create()  # a throwaway key, never funded, never reused
    client = x402Client()
    client.set_spend_controls({"max_amount_per_payment": "$10"})
    register_exact_evm_client(client, EthAccountSigner(account))
    return client, account.address


class McpSession:
    """The mcp 1.x `ClientSession.call_tool` interface x402MCPSession drives, over the
    mcp 2.3 `Client` (see tests/x402/pay.py)."""

    def __init__(self, books: Books) -> None:
        self.books = books

    async def initialize(self) -> None:
        return None

    async def call_tool(self, name, arguments=None, meta=None, read_timeout_seconds=None):
        r = await self.books.raw(name, arguments or {}, meta=meta)
        return SimpleNamespace(
            isError=r.is_error,
            structuredContent=r.structured_content,
            meta=r.meta,
            content=[c.model_dump(by_alias=True) for c in r.content],
        )


def lines(*entries: tuple[str, str, str]) -> list[dict]:
    """Transaction entries from (account id, debit|credit, amount)."""
    return [{"accountId": a, "entryType": t, "amount": amount} for a, t, amount in entries]


def item(description: str, quantity: str, price: str, **more) -> dict:
    return {"description": description, "quantity": quantity, "unitPrice": price, **more}


def entry_set(txn: dict) -> set[tuple[str, str, str]]:
    return {(e["account_id"], e["entry_type"], e["amount"]) for e in txn["entries"]}


async def organization_and_currencies(b: Books, s: SimpleNamespace) -> None:
    s.start = await b.ok("get_credit_balance")
    assert s.start["credits_remaining"] > 100, s.start
    assert s.start["purchased_credits_remaining"] == 0, s.start
    health = await b.raw("health_check", {})
    assert not health.is_error and text_of(health) == "OK", health
    org = await b.ok("get_organization")
    assert (org["id"], org["base_currency"], org["is_root"]) == (ORG, "USD", True), org

    currencies = await b.ok("list_currencies", {"limit": 100})
    codes = [c["code"] for c in currencies["data"]]
    assert len(codes) == 100 and "EUR" in codes and currencies["has_more"], currencies
    eur = await b.ok("get_currency", {"currencyCode": "EUR"})
    assert (eur["code"], eur["decimals"]) == ("EUR", 2), eur
    rate = await b.ok(
        "create_exchange_rate",
        {"fromCurrencyId": "USD", "toCurrencyId": "EUR", "rate": "0.9",
         "effectiveDate": "2026-01-01"},
    )
    s.rate = rate["id"]
    got = await b.ok("get_exchange_rate", {"exchangeRateId": s.rate})
    assert (got["from_currency"], got["to_currency"], got["rate"]) == ("USD", "EUR", "0.9"), got
    updated = await b.ok("update_exchange_rate", {"exchangeRateId": s.rate, "rate": "0.92"})
    assert updated["rate"] == "0.92", updated
    rates = await b.ok("list_exchange_rates", {"fromCurrency": "USD", "toCurrency": "EUR"})
    assert [r["id"] for r in rates["data"]] == [s.rate], rates
    converted = await b.ok(
        "convert_currency",
        {"fromCurrency": "USD", "toCurrency": "EUR", "amount": "100.00", "date": "2026-06-01"},
    )
    assert (converted["converted_amount"], converted["rate"]) == ("92.00", "0.92"), converted


async def accounts_and_contacts(b: Books, s: SimpleNamespace) -> None:
    async def account(code: str, name: str, kind: str) -> str:
        made = await b.ok("create_account", {"code": code, "name": name, "accountType": kind})
        assert (made["code"], made["type"], made["balance"]["net"]) == (code, kind, "0.00"), made
        return made["id"]

    s.bank = await account("1010", "Checking", "asset")
    s.savings = await account("1020", "Savings", "asset")
    s.doomed = await account("6999", "Scratch", "expense")
    renamed = await b.ok(
        "update_account", {"accountId": s.bank, "name": "Main checking", "description": "Daily"}
    )
    assert (renamed["name"], renamed["description"]) == ("Main checking", "Daily"), renamed
    got = await b.ok("get_account", {"accountId": s.bank})
    assert (got["code"], got["name"], got["type"]) == ("1010", "Main checking", "asset"), got
    chart = (await b.ok("list_accounts", {"limit": 100}))["data"]
    s.sales, s.expense, s.receivable, s.payable = (
        by_code(chart, code) for code in ("4000", "5000", "1100", "2000")
    )
    assets = (await b.ok("list_accounts", {"accountType": "asset"}))["data"]
    assert [a["code"] for a in assets] == ["1000", "1010", "1020", "1100"], assets

    customer = await b.ok(
        "create_contact",
        {"contactType": "customer", "name": "Acme Ltd", "email": "ap@acme.example"},
    )
    s.customer = customer["id"]
    vendor = await b.ok("create_contact", {"contactType": "vendor", "name": "Paper Supply Co"})
    s.vendor = vendor["id"]
    got = await b.ok("get_contact", {"contactId": s.customer})
    assert (got["name"], got["contact_type"], got["email"]) == (
        "Acme Ltd", "customer", "ap@acme.example"
    ), got
    found = await b.ok("list_contacts", {"search": "acme"})
    assert [c["id"] for c in found["items"]] == [s.customer], found


async def transactions(b: Books, s: SimpleNamespace) -> None:
    txn = await b.ok(
        "create_transaction",
        {"description": "Consulting", "date": "2026-03-02", "contactId": s.customer,
         "entries": lines((s.bank, "debit", "250.50"), (s.sales, "credit", "250.50"))},
    )
    assert txn["status"] == "pending", txn
    s.sale = txn["id"]
    changed = await b.ok(
        "update_transaction",
        {"transactionId": s.sale, "description": "Consulting, March",
         "entries": lines((s.bank, "debit", "300.25"), (s.sales, "credit", "300.25"))},
    )
    assert (changed["description"], changed["amount"]) == ("Consulting, March", "300.25"), changed
    posted = await b.ok("post_transaction", {"transactionId": s.sale})
    assert posted["status"] == "posted", posted
    got = await b.ok("get_transaction", {"transactionId": s.sale})
    assert (got["status"], got["contact_id"]) == ("posted", s.customer), got
    assert entry_set(got) == {(s.bank, "debit", "300.25"), (s.sales, "credit", "300.25")}, got
    s.sale_entry = entry_on(got, s.bank)

    fee = await b.ok(
        "create_transaction",
        {"description": "Bank fee", "date": "2026-03-03", "autoPost": True,
         "entries": lines((s.expense, "debit", "10.00"), (s.bank, "credit", "10.00"))},
    )
    assert fee["status"] == "posted", fee
    undone = await b.ok(
        "reverse_transaction", {"transactionId": fee["id"], "reason": "charged in error"}
    )
    assert undone["status"] == "reversed" and undone["reversed_by"], undone
    balance = await b.ok("get_account_balance", {"accountId": s.bank})
    assert balance["balance"]["net"] == "300.25", balance
    listed = await b.ok("list_transactions", {"status": "posted", "limit": 100})
    ids = {t["id"] for t in listed["data"]}
    assert s.sale in ids and undone["reversed_by"] in ids and fee["id"] not in ids, listed


async def invoices_and_bills(b: Books, s: SimpleNamespace) -> None:
    invoice = await b.ok(
        "create_invoice",
        {"contactId": s.customer, "invoiceDate": "2026-03-05", "dueDate": DUE,
         "items": [item("Consulting", "2", "50.00"), item("Setup", "1", "10.00")]},
    )
    assert (invoice["status"], invoice["total"]) == ("draft", "110.00"), invoice
    inv = invoice["id"]
    changed = await b.ok(
        "update_invoice",
        {"invoiceId": inv, "notes": "Thank you", "items": [item("Consulting", "2", "60.00")]},
    )
    assert (changed["total"], changed["notes"]) == ("120.00", "Thank you"), changed
    sent = await b.ok("send_invoice", {"invoiceId": inv})
    assert sent["status"] == "sent" and sent["posting_transaction_id"], sent
    pdf = await b.raw("generate_invoice_pdf", {"invoiceId": inv})
    assert not pdf.is_error, pdf
    blob = next(c.resource for c in pdf.content if c.type == "resource")
    assert blob.mime_type == "application/pdf", blob
    assert base64.b64decode(blob.blob).startswith(b"%PDF-"), "not a PDF"
    paid = await b.ok(
        "record_invoice_payment",
        {"invoiceId": inv, "amount": "45.50", "paymentDate": "2026-03-10",
         "paymentMethod": "bank_transfer", "accountId": s.bank},
    )
    assert (paid["invoice_id"], paid["amount"], paid["account_id"]) == (inv, "45.50", s.bank)
    receipt = await b.ok("get_transaction", {"transactionId": paid["transaction_id"]})
    assert entry_set(receipt) == {
        (s.bank, "debit", "45.50"), (s.receivable, "credit", "45.50")
    }, receipt
    got = await b.ok("get_invoice", {"invoiceId": inv})
    assert (got["status"], got["amount_paid"], got["balance_due"]) == (
        "partially_paid", "45.50", "74.50"
    ), got
    history = await b.ok("get_invoice_history", {"invoiceId": inv})
    assert [h["status"] for h in history["data"]] == ["draft", "sent", "partially_paid"], history
    listed = await b.ok("list_invoices", {"status": "partially_paid"})
    assert [i["id"] for i in listed["data"]] == [inv], listed

    bill = await b.ok(
        "create_bill",
        {"contactId": s.vendor, "billDate": "2026-03-06", "dueDate": DUE,
         "items": [item("Paper", "1", "80.00", accountId=s.expense)]},
    )
    assert (bill["status"], bill["total"]) == ("draft", "80.00"), bill
    bid = bill["id"]
    changed = await b.ok(
        "update_bill", {"billId": bid, "items": [item("Paper", "2", "45.00", accountId=s.expense)]}
    )
    assert changed["total"] == "90.00", changed
    approved = await b.ok("approve_bill", {"billId": bid})
    assert approved["status"] == "open", approved
    paid = await b.ok(
        "record_bill_payment",
        {"billId": bid, "amount": "90.00", "paymentDate": "2026-03-12",
         "paymentMethod": "bank_transfer", "accountId": s.bank},
    )
    assert (paid["bill_id"], paid["amount"], paid["account_id"]) == (bid, "90.00", s.bank), paid
    receipt = await b.ok("get_transaction", {"transactionId": paid["transaction_id"]})
    assert entry_set(receipt) == {(s.payable, "debit", "90.00"), (s.bank, "credit", "90.00")}
    got = await b.ok("get_bill", {"billId": bid})
    assert (got["status"], got["balance_due"]) == ("paid", "0.00"), got
    listed = await b.ok("list_bills", {"contactId": s.vendor})
    assert [x["id"] for x in listed["data"]] == [bid], listed


async def transfers_and_schedules(b: Books, s: SimpleNamespace) -> None:
    moved = await b.ok(
        "create_transfer",
        {"fromAccountId": s.bank, "toAccountId": s.savings, "amount": "50.00",
         "date": "2026-03-15", "description": "To savings"},
    )
    assert moved["status"] == "pending", moved
    posted = await b.ok("post_transfer", {"transferId": moved["id"]})
    assert posted["status"] == "posted", posted
    got = await b.ok("get_transfer", {"transferId": moved["id"]})
    assert (got["amount"], got["from_account_id"], got["to_account_id"]) == (
        "50.00", s.bank, s.savings
    ), got
    oops = await b.ok(
        "create_transfer",
        {"fromAccountId": s.bank, "toAccountId": s.savings, "amount": "5.00",
         "date": "2026-03-16", "autoPost": True},
    )
    undone = await b.ok("reverse_transfer", {"transferId": oops["id"], "reason": "wrong account"})
    assert undone["status"] == "reversed", undone
    listed = await b.ok("list_transfers", {"status": "posted"})
    assert [t["id"] for t in listed["data"]] == [moved["id"]], listed

    template = {
        "description": "Software subscription", "date": "2026-03-20", "auto_post": True,
        "entries": [
            {"account_id": s.expense, "entry_type": "debit", "amount": "25.00"},
            {"account_id": s.bank, "entry_type": "credit", "amount": "25.00"},
        ],
    }
    schedule = await b.ok(
        "create_recurring_schedule",
        {"recurableType": "transaction", "frequency": "monthly", "startDate": "2026-03-20",
         "name": "Subscription", "template": template},
    )
    assert (schedule["status"], schedule["next_run_date"]) == ("active", "2026-03-20"), schedule
    s.schedule = schedule["id"]
    paused = await b.ok(
        "update_recurring_schedule", {"scheduleId": s.schedule, "status": "paused", "name": "SaaS"}
    )
    assert (paused["status"], paused["name"]) == ("paused", "SaaS"), paused
    run = await b.ok("run_recurring_schedule", {"scheduleId": s.schedule})
    assert (run["status"], run["trigger"], run["document_type"]) == (
        "succeeded", "manual", "transaction"
    ), run
    made = await b.ok("get_transaction", {"transactionId": run["document_id"]})
    assert (made["status"], made["description"], made["amount"]) == (
        "posted", "Software subscription", "25.00"
    ), made
    runs = await b.ok("list_recurring_runs", {"scheduleId": s.schedule})
    assert [r["id"] for r in runs["data"]] == [run["id"]], runs
    got = await b.ok("get_recurring_schedule", {"scheduleId": s.schedule})
    # A manual run is outside the rule: the next scheduled date does not move.
    assert (got["status"], got["next_run_date"]) == ("paused", "2026-03-20"), got
    listed = await b.ok("list_recurring_schedules")
    assert [x["id"] for x in listed["data"]] == [s.schedule], listed


async def reconciliation_and_reports(b: Books, s: SimpleNamespace) -> None:
    # 300.25 sale + 45.50 invoice payment - 90.00 bill - 50.00 to savings - 25.00 run.
    balance = await b.ok("get_account_balance", {"accountId": s.bank})
    assert balance["balance"]["net"] == "180.75", balance
    history = await b.ok("get_account_transactions", {"accountId": s.bank, "limit": 100})
    # The sale, the fee and its reversal, two payments, two transfers and the reversal of
    # one, the subscription.
    assert history["total_count"] == 9 == len(history["transactions"]), history
    net = sum(Decimal(t["debit"]) - Decimal(t["credit"]) for t in history["transactions"])
    assert net == Decimal("180.75"), history

    rec = await b.ok(
        "create_reconciliation",
        {"accountId": s.bank, "startDate": "2026-03-01", "endDate": "2026-03-02",
         "closingBalance": "300.25"},
    )
    assert (rec["status"], rec["difference"]) == ("open", "300.25"), rec
    matched = await b.ok(
        "update_reconciliation", {"reconciliationId": rec["id"], "matchEntryIds": [s.sale_entry]}
    )
    assert matched["difference"] == "0.00", matched
    got = await b.ok("get_reconciliation", {"reconciliationId": rec["id"]})
    assert [m["transaction_id"] for m in got["matches"]] == [s.sale], got
    done = await b.ok("complete_reconciliation", {"reconciliationId": rec["id"]})
    assert done["status"] == "completed", done
    later = await b.ok(
        "create_reconciliation",
        {"accountId": s.bank, "startDate": "2026-03-03", "endDate": "2026-03-31",
         "closingBalance": "180.75"},
    )
    assert later["opening_balance"] == "300.25", later
    s.later = later["id"]
    listed = await b.ok("list_reconciliations", {"accountId": s.bank})
    assert {r["id"] for r in listed["data"]} == {rec["id"], s.later}, listed

    tb = await b.ok("get_trial_balance", {})
    nets = {r["account_code"]: r["net_balance"] for r in tb["accounts"]}
    expected = {"1010": "180.75", "1020": "50.00", "1100": "74.50", "2000": "0.00",
                "4000": "420.25", "5000": "115.00"}
    assert {code: nets[code] for code in expected} == expected, nets
    assert tb["total_debits"] == tb["total_credits"], tb
    bs = await b.ok("get_balance_sheet", {})
    assert bs["total_assets"] == "305.25" == bs["total_liabilities_and_equity"], bs
    pl = await b.ok("get_income_statement", {"startDate": "2026-01-01", "endDate": TODAY})
    assert (pl["total_revenue"], pl["total_expenses"], pl["net_income"]) == (
        "420.25", "115.00", "305.25"
    ), pl
    events = await b.ok("get_entity_events", {"entityType": "transaction", "entityId": s.sale})
    kinds = [e["event_type"] for e in events["items"]]
    assert kinds[:3] == ["transaction.created", "transaction.updated", "transaction.posted"]
    assert all(e["entity_id"] == s.sale for e in events["items"]), events


async def organizations_and_keys(b: Books, s: SimpleNamespace) -> None:
    child = await b.ok("create_sub_organization", {"name": "Client A", "relationshipType": "owned"})
    assert child["organization"]["parent_organization_id"] == ORG, child
    assert child["api_key"]["key"].startswith("ha_"), child
    subs = await b.ok("list_sub_organizations")
    assert [(x["id"], x["depth"]) for x in subs["data"]] == [(child["organization"]["id"], 1)]

    system = await b.ok("create_api_key", {"name": "ops", "permissions": ["system"]})
    async with connect(system["key"]) as client:
        info = await Books(client, b.called, "system", b.listing).ok("get_system_info")
    assert info["database"]["status"] == "connected", info
    s.spare = await b.ok(
        "create_api_key", {"name": "agent", "permissions": ["read", "invoices:write"]}
    )
    assert s.spare["key"].startswith("ha_live_"), s.spare
    assert s.spare["permissions"] == ["read", "invoices:write"], s.spare
    got = await b.ok("get_api_key", {"keyId": s.spare["id"]})
    assert got["name"] == "agent" and not got.get("key"), got
    keys = await b.ok("list_api_keys")
    assert {system["id"], s.spare["id"]} <= {k["id"] for k in keys["data"]}, keys


async def credits(b: Books, s: SimpleNamespace) -> None:
    packages = await b.ok("list_credit_packages")
    assert [p["credits"] for p in packages["data"]][:1] == [1000], packages
    checkout = await b.ok("purchase_credits", {"creditAmount": 1000})
    assert (checkout["status"], checkout["credits_to_add"]) == ("pending", 1000), checkout
    assert checkout["checkout_url"].startswith("http"), checkout
    before = (await b.ok("get_credit_balance"))["credits_remaining"]
    # Every successful write cost what tools/list says; reads and failures cost nothing.
    assert before == s.start["credits_remaining"] - b.spent, (s.start, before, b.spent)

    # The x402 pair: the PaymentRequired, signed by the reference client, paid once.
    buy = {"masterOrganizationId": ORG, "creditAmount": 1000}
    asked = await b.raw("start_x402_credit_purchase", buy)
    assert asked.is_error, asked
    required = parse_payment_required(asked.structured_content)
    assert required.accepts[0].amount == "10000000", required
    client, address = payer()
    signature = encode_payment_signature_header(await client.create_payment_payload(required))
    done = await b.ok("complete_x402_credit_purchase", {**buy, "paymentSignatureB64": signature})
    assert (done["status"], done["provider"], done["credits_to_add"]) == (
        "completed", "x402", 1000
    ), done
    again = await b.raw("complete_x402_credit_purchase", {**buy, "paymentSignatureB64": signature})
    assert again.is_error and "payment_replayed" in text_of(again), again
    # The MCP way: x402MCPSession pays start_x402_credit_purchase through _meta.
    paid = await x402MCPSession(McpSession(b), client).call_tool("start_x402_credit_purchase", buy)
    assert paid.payment_made and not paid.is_error, paid.content
    receipt = paid.payment_response
    payer_address = receipt.payer if hasattr(receipt, "payer") else receipt["payer"]
    assert payer_address.lower() == address.lower(), (payer_address, address)
    after = await b.ok("get_credit_balance")
    assert after["credits_remaining"] == before + 2000, (before, after)
    assert after["purchased_credits_remaining"] == 2000, after


async def destructive(b: Books, peer: Books, s: SimpleNamespace) -> None:
    """Deletes, key rotation and ownership transfers, on resources made for them."""
    mistake = await b.ok(
        "create_transaction",
        {"description": "Typo", "date": "2026-03-30",
         "entries": lines((s.expense, "debit", "1.00"), (s.bank, "credit", "1.00"))},
    )
    gone = await b.ok("delete_transaction", {"transactionId": mistake["id"]})
    assert (gone["id"], gone["deleted"]) == (mistake["id"], True), gone
    await b.refused("get_transaction", {"transactionId": mistake["id"]}, "resource_not_found")

    async def deleted(kind: str, name: str, id: str) -> None:
        """Deletes the `kind` resource `id` (argument `name`), which is then not found."""
        gone = await b.ok(f"delete_{kind}", {name: id})
        assert gone["deleted"] is True, (kind, gone)
        await b.refused(f"get_{kind}", {name: id}, "resource_not_found")

    drafts = (("invoice", s.customer, "invoiceDate"), ("bill", s.vendor, "billDate"))
    for kind, contact, dated in drafts:
        draft = await b.ok(
            f"create_{kind}",
            {"contactId": contact, dated: "2026-03-20", "dueDate": DUE,
             "items": [item("Draft", "1", "5.00")]},
        )
        await deleted(kind, f"{kind}Id", draft["id"])
    await deleted("account", "accountId", s.doomed)
    await deleted("exchange_rate", "exchangeRateId", s.rate)
    assert (await b.ok("delete_reconciliation", {"reconciliationId": s.later}))["deleted"] is True
    assert (await b.ok("delete_recurring_schedule", {"scheduleId": s.schedule}))["deleted"] is True
    listed = await b.ok("list_recurring_schedules")
    assert listed["data"] == [], listed
    rotated = await b.ok("rotate_api_key", {"keyId": s.spare["id"]})
    assert rotated["key"].startswith("ha_live_") and rotated["key"] != s.spare["key"], rotated
    assert rotated["previous_key_expires_at"], rotated
    assert (await b.ok("delete_api_key", {"keyId": s.spare["id"]}))["deleted"] is True
    await b.refused("get_api_key", {"keyId": s.spare["id"]}, "resource_not_found")

    # Three sub-organizations offered to the peer: accepted, rejected, cancelled.
    offered = {}
    for outcome in ("accept", "reject", "cancel"):
        sub = await b.ok(
            "create_sub_organization", {"name": f"To {outcome}", "relationshipType": "owned"}
        )
        sub_id = sub["organization"]["id"]
        transfer = await b.ok(
            "initiate_organization_transfer", {"organizationId": sub_id, "toEmail": PEER_EMAIL}
        )
        assert (transfer["status"], transfer["organization_id"]) == ("pending", sub_id), transfer
        offered[outcome] = (transfer["id"], sub_id)
    sent = {transfer for transfer, _ in offered.values()}
    outgoing = await b.ok("list_organization_transfers")
    assert {t["id"] for t in outgoing["data"]} == sent, outgoing
    incoming = await peer.ok("list_incoming_organization_transfers")
    assert {t["id"] for t in incoming["data"]} == sent, incoming
    accepted = await peer.ok(
        "accept_organization_transfer",
        {"transferId": offered["accept"][0], "relationship": "linked"},
    )
    assert (accepted["status"], accepted["relationship_on_accept"]) == ("accepted", "linked")
    rejected = await peer.ok("reject_organization_transfer", {"transferId": offered["reject"][0]})
    assert rejected["status"] == "rejected", rejected
    cancelled = await b.ok(
        "cancel_organization_transfer",
        {"transferId": offered["cancel"][0], "organizationId": offered["cancel"][1]},
    )
    assert cancelled["status"] == "cancelled", cancelled
    ours = {x["id"] for x in (await b.ok("list_sub_organizations"))["data"]}
    assert offered["accept"][1] not in ours, ours
    assert {offered["reject"][1], offered["cancel"][1]} <= ours, ours
    theirs = await peer.ok("list_sub_organizations")
    assert [(x["id"], x["relationship_type"]) for x in theirs["data"]] == [
        (offered["accept"][1], "linked")
    ], theirs


async def keep_the_books(b: Books, peer: Books) -> None:
    s = SimpleNamespace()  # ids and figures the later steps need
    await organization_and_currencies(b, s)
    await accounts_and_contacts(b, s)
    await transactions(b, s)
    await invoices_and_bills(b, s)
    await transfers_and_schedules(b, s)
    await reconciliation_and_reports(b, s)
    await organizations_and_keys(b, s)
    await credits(b, s)
    await destructive(b, peer, s)
    final = await b.ok("get_credit_balance")
    spent = s.start["credits_remaining"] + 2000 - final["credits_remaining"]
    assert spent == b.spent, (s.start, final, b.spent)


async def list_all_tools(client: Client) -> Listing:
    """Every tool `tools/list` names (all pages), with its cost and outputSchema."""
    listing, cursor = Listing(), None
    while True:
        page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
        for tool in page.tools:
            listing.add(tool)
        cursor = page.next_cursor
        if not cursor:
            return listing


async def main() -> None:
    assert ERA in (MODERN, LEGACY), ERA
    called: set[str] = set()
    async with connect(KEY) as client, connect(PEER_KEY) as peer:
        listing = await list_all_tools(client)
        listed = set(listing.costs)
        owner = Books(client, called, "owner", listing)
        await keep_the_books(owner, Books(peer, called, "peer", listing))
    missing = sorted(set(listed) - called)
    unlisted = sorted(called - listed)
    print(f"called {len(called)} tools: {', '.join(sorted(called))}")
    assert not missing, f"tools/list names tools the scenario never called: {missing}"
    assert not unlisted, f"the scenario called tools tools/list does not name: {unlisted}"
    with_schema = {name for name, v in listing.validators.items() if v is not None}
    unchecked = sorted(with_schema - listing.validated)
    assert not unchecked, f"no successful result checked against the outputSchema of {unchecked}"
    print(f"checked results of {len(listing.validated)} tools against their outputSchema")
    print(f"ok: every tool {ERA} ({len(listed)} tools)")


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside the SDK's task-group wrappers."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except BaseException as e:  # report the real cause and fail
        for leaf in leaves(e):
            traceback.print_exception(leaf)
            print(f"FAILED: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        sys.exit(1)
