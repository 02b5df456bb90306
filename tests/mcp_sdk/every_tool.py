"""Every MCP tool, called once or more through the official Python SDK (`mcp` on PyPI), in
one protocol era: `2026-07-28` (`server/discover`, no session) or `2025-11-25` (the
`initialize` handshake).

The scenario keeps the books of a fresh organization in a sensible order (accounts,
contacts, transactions, invoices, bills, currencies, transfers, reconciliation, recurring
schedules, reports, sub-organizations, keys, credits) and checks what each call did (ids,
states, balances to the cent). Destructive calls come last, on resources made for them.
It fails when `tools/list` names a tool it did not call, so a new tool cannot go
untested, and prints the tools it called.

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
from decimal import Decimal
from contextlib import asynccontextmanager
from types import SimpleNamespace

import httpx2
from eth_account import Account
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


class Books:
    """An SDK client that records every tool it calls and adds up the credits its
    successful calls cost, as `tools/list` states them (`_meta["ledger/credits"]`)."""

    def __init__(self, client: Client, called: set[str], who: str, costs: dict[str, int]) -> None:
        self.client = client
        self.called = called
        self.who = who
        self.costs = costs
        self.spent = 0

    async def raw(self, name: str, args: dict, meta: dict | None = None):
        self.called.add(name)
        result = await self.client.call_tool(name, args, meta=meta)
        if not result.is_error:
            self.spent += self.costs[name]
        if TRACE:
            print(f"{time.monotonic() - START:.2f} {self.who} {name} -> {text_of(result)[:TRACE]}", file=sys.stderr)
        return result

    async def ok(self, name: str, args: dict | None = None) -> dict:
        """Calls `name`; it must succeed; answers its structuredContent, which must be the
        JSON of the text block."""
        result = await self.raw(name, args or {})
        assert not result.is_error, f"{self.who} {name}({args}) failed: {text_of(result)}"
        sc = result.structured_content
        assert isinstance(sc, dict), f"{name}: no structuredContent: {result}"
        text = text_of(result)
        assert json.loads(text) in (sc, sc.get("items")), f"{name}: text and structuredContent differ"
        return sc

    async def refused(self, name: str, args: dict, code: str) -> dict:
        """Calls `name`; it must be a tool error carrying the domain's `code`."""
        result = await self.raw(name, args)
        assert result.is_error, f"{name}({args}) should have failed: {result.structured_content}"
        error = (result.structured_content or {}).get("error", {})
        assert error.get("code") == code, f"{name}: expected {code}, got {result.structured_content}"
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
            assert session.protocol_version == ERA, f"negotiated {session.protocol_version}, wanted {ERA}"
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


async def keep_the_books(b: Books, peer: Books) -> None:
    # --- System and organization ---------------------------------------------------
    start = await b.ok("get_credit_balance")
    assert start["credits_remaining"] > 100 and start["purchased_credits_remaining"] == 0, start
    health = await b.raw("health_check", {})
    assert not health.is_error and text_of(health) == "OK", health
    org = await b.ok("get_organization")
    assert org["id"] == ORG, org
    base_ccy = org["base_currency"]
    assert base_ccy == "USD", org

    # --- Currencies and exchange rates ---------------------------------------------
    currencies = await b.ok("list_currencies", {"limit": 100})
    codes = [c["code"] for c in currencies["data"]]
    assert len(codes) == 100 and "EUR" in codes and currencies["has_more"], currencies
    eur = await b.ok("get_currency", {"currencyCode": "EUR"})
    assert (eur["code"], eur["decimals"]) == ("EUR", 2), eur
    rate = await b.ok(
        "create_exchange_rate",
        {"fromCurrencyId": "USD", "toCurrencyId": "EUR", "rate": "0.9", "effectiveDate": "2026-01-01"},
    )
    rate_id = rate["id"]
    got = await b.ok("get_exchange_rate", {"exchangeRateId": rate_id})
    assert (got["from_currency"], got["to_currency"]) == ("USD", "EUR"), got
    updated = await b.ok("update_exchange_rate", {"exchangeRateId": rate_id, "rate": "0.92"})
    assert updated["rate"].startswith("0.92"), updated
    rates = await b.ok("list_exchange_rates", {"fromCurrency": "USD", "toCurrency": "EUR"})
    assert [r["id"] for r in rates["data"]] == [rate_id], rates
    converted = await b.ok(
        "convert_currency",
        {"fromCurrency": "USD", "toCurrency": "EUR", "amount": "100.00", "date": "2026-06-01"},
    )
    assert converted["converted_amount"] == "92.00", converted

    # --- Accounts -------------------------------------------------------------------
    bank = (await b.ok("create_account", {"code": "1010", "name": "Checking", "accountType": "asset"}))["id"]
    savings = (await b.ok("create_account", {"code": "1020", "name": "Savings", "accountType": "asset"}))["id"]
    doomed = (await b.ok("create_account", {"code": "6999", "name": "Scratch", "accountType": "expense"}))["id"]
    renamed = await b.ok("update_account", {"accountId": bank, "name": "Main checking", "description": "Day to day"})
    assert renamed["name"] == "Main checking", renamed
    got = await b.ok("get_account", {"accountId": bank})
    assert (got["code"], got["name"], got["type"]) == ("1010", "Main checking", "asset"), got
    chart = (await b.ok("list_accounts", {"limit": 100}))["data"]
    sales, expense, receivable, payable = (by_code(chart, c) for c in ("4000", "5000", "1100", "2000"))
    assets = await b.ok("list_accounts", {"accountType": "asset"})
    assert {"1000", "1010", "1020", "1100"} <= {a["code"] for a in assets["data"]}, assets
    assert all(a["type"] == "asset" for a in assets["data"]), assets

    # --- Contacts -------------------------------------------------------------------
    customer = (await b.ok("create_contact", {"contactType": "customer", "name": "Acme Ltd", "email": "ap@acme.example"}))["id"]
    vendor = (await b.ok("create_contact", {"contactType": "vendor", "name": "Paper Supply Co"}))["id"]
    got = await b.ok("get_contact", {"contactId": customer})
    assert (got["name"], got["contact_type"]) == ("Acme Ltd", "customer"), got
    found = await b.ok("list_contacts", {"search": "acme"})
    assert [c["id"] for c in found["items"]] == [customer], found

    # --- Transactions ---------------------------------------------------------------
    txn = await b.ok(
        "create_transaction",
        {
            "description": "Consulting", "date": "2026-03-02", "contactId": customer,
            "entries": [
                {"accountId": bank, "entryType": "debit", "amount": "250.50"},
                {"accountId": sales, "entryType": "credit", "amount": "250.50"},
            ],
        },
    )
    assert txn["status"] == "pending", txn
    sale = txn["id"]
    changed = await b.ok(
        "update_transaction",
        {
            "transactionId": sale, "description": "Consulting, March",
            "entries": [
                {"accountId": bank, "entryType": "debit", "amount": "300.25"},
                {"accountId": sales, "entryType": "credit", "amount": "300.25"},
            ],
        },
    )
    assert changed["description"] == "Consulting, March", changed
    posted = await b.ok("post_transaction", {"transactionId": sale})
    assert posted["status"] == "posted", posted
    got = await b.ok("get_transaction", {"transactionId": sale})
    assert got["status"] == "posted" and got["contact_id"] == customer, got
    assert sorted(e["amount"] for e in got["entries"]) == ["300.25", "300.25"], got
    sale_entry = entry_on(got, bank)
    fee = await b.ok(
        "create_transaction",
        {
            "description": "Bank fee", "date": "2026-03-03", "autoPost": True,
            "entries": [
                {"accountId": expense, "entryType": "debit", "amount": "10.00"},
                {"accountId": bank, "entryType": "credit", "amount": "10.00"},
            ],
        },
    )
    assert fee["status"] == "posted", fee
    reversed_ = await b.ok("reverse_transaction", {"transactionId": fee["id"], "reason": "charged in error"})
    assert reversed_["status"] == "reversed", reversed_
    balance = await b.ok("get_account_balance", {"accountId": bank})
    assert balance["balance"]["net"] == "300.25", balance
    posted_list = await b.ok("list_transactions", {"status": "posted", "limit": 100})
    assert sale in {t["id"] for t in posted_list["data"]}, posted_list

    # --- Invoices -------------------------------------------------------------------
    invoice = await b.ok(
        "create_invoice",
        {
            "contactId": customer, "invoiceDate": "2026-03-05", "dueDate": DUE,
            "items": [
                {"description": "Consulting", "quantity": "2", "unitPrice": "50.00"},
                {"description": "Setup", "quantity": "1", "unitPrice": "10.00"},
            ],
        },
    )
    assert (invoice["status"], invoice["total"]) == ("draft", "110.00"), invoice
    inv = invoice["id"]
    changed = await b.ok(
        "update_invoice",
        {
            "invoiceId": inv, "notes": "Thank you",
            "items": [{"description": "Consulting", "quantity": "2", "unitPrice": "60.00"}],
        },
    )
    assert (changed["total"], changed["notes"]) == ("120.00", "Thank you"), changed
    sent = await b.ok("send_invoice", {"invoiceId": inv})
    assert sent["status"] == "sent", sent
    pdf = await b.raw("generate_invoice_pdf", {"invoiceId": inv})
    assert not pdf.is_error, pdf
    blob = next(c.resource for c in pdf.content if c.type == "resource")
    assert blob.mime_type == "application/pdf", blob
    assert base64.b64decode(blob.blob).startswith(b"%PDF-"), "not a PDF"
    paid = await b.ok(
        "record_invoice_payment",
        {"invoiceId": inv, "amount": "45.50", "paymentDate": "2026-03-10", "paymentMethod": "bank_transfer", "accountId": bank},
    )
    assert (paid["invoice_id"], paid["amount"], paid["account_id"]) == (inv, "45.50", bank), paid
    receipt = await b.ok("get_transaction", {"transactionId": paid["transaction_id"]})
    assert {(e["account_id"], e["entry_type"], e["amount"]) for e in receipt["entries"]} == {
        (bank, "debit", "45.50"), (receivable, "credit", "45.50")
    }, receipt
    got = await b.ok("get_invoice", {"invoiceId": inv})
    assert (got["status"], got["amount_paid"], got["balance_due"]) == ("partially_paid", "45.50", "74.50"), got
    history = await b.ok("get_invoice_history", {"invoiceId": inv})
    assert [h["status"] for h in history["data"]] == ["draft", "sent", "partially_paid"], history
    listed = await b.ok("list_invoices", {"status": "partially_paid"})
    assert [i["id"] for i in listed["data"]] == [inv], listed

    # --- Bills ----------------------------------------------------------------------
    bill = await b.ok(
        "create_bill",
        {
            "contactId": vendor, "billDate": "2026-03-06", "dueDate": DUE,
            "items": [{"description": "Paper", "quantity": "1", "unitPrice": "80.00", "accountId": expense}],
        },
    )
    assert (bill["status"], bill["total"]) == ("draft", "80.00"), bill
    bid = bill["id"]
    changed = await b.ok(
        "update_bill",
        {"billId": bid, "items": [{"description": "Paper", "quantity": "2", "unitPrice": "45.00", "accountId": expense}]},
    )
    assert changed["total"] == "90.00", changed
    approved = await b.ok("approve_bill", {"billId": bid})
    assert approved["status"] == "open", approved
    paid = await b.ok(
        "record_bill_payment",
        {"billId": bid, "amount": "90.00", "paymentDate": "2026-03-12", "paymentMethod": "bank_transfer", "accountId": bank},
    )
    assert (paid["bill_id"], paid["amount"], paid["account_id"]) == (bid, "90.00", bank), paid
    receipt = await b.ok("get_transaction", {"transactionId": paid["transaction_id"]})
    assert {(e["account_id"], e["entry_type"], e["amount"]) for e in receipt["entries"]} == {
        (payable, "debit", "90.00"), (bank, "credit", "90.00")
    }, receipt
    got = await b.ok("get_bill", {"billId": bid})
    assert (got["status"], got["balance_due"]) == ("paid", "0.00"), got
    listed = await b.ok("list_bills", {"contactId": vendor})
    assert [x["id"] for x in listed["data"]] == [bid], listed

    # --- Transfers between accounts -------------------------------------------------
    moved = await b.ok(
        "create_transfer",
        {"fromAccountId": bank, "toAccountId": savings, "amount": "50.00", "date": "2026-03-15", "description": "To savings"},
    )
    assert moved["status"] == "pending", moved
    tid = moved["id"]
    posted = await b.ok("post_transfer", {"transferId": tid})
    assert posted["status"] == "posted", posted
    got = await b.ok("get_transfer", {"transferId": tid})
    assert got["amount"] == "50.00", got
    oops = await b.ok(
        "create_transfer",
        {"fromAccountId": bank, "toAccountId": savings, "amount": "5.00", "date": "2026-03-16", "autoPost": True},
    )
    undone = await b.ok("reverse_transfer", {"transferId": oops["id"], "reason": "wrong account"})
    assert undone["status"] == "reversed", undone
    listed = await b.ok("list_transfers", {"status": "posted"})
    assert [t["id"] for t in listed["data"]] == [tid], listed

    # --- Recurring schedules --------------------------------------------------------
    template = {
        "description": "Software subscription", "date": "2026-03-20", "auto_post": True,
        "entries": [
            {"account_id": expense, "entry_type": "debit", "amount": "25.00"},
            {"account_id": bank, "entry_type": "credit", "amount": "25.00"},
        ],
    }
    schedule = await b.ok(
        "create_recurring_schedule",
        {"recurableType": "transaction", "frequency": "monthly", "startDate": "2026-03-20", "name": "Subscription", "template": template},
    )
    sid = schedule["id"]
    paused = await b.ok("update_recurring_schedule", {"scheduleId": sid, "status": "paused", "name": "SaaS"})
    assert (paused["status"], paused["name"]) == ("paused", "SaaS"), paused
    run = await b.ok("run_recurring_schedule", {"scheduleId": sid})
    assert (run["status"], run["trigger"], run["document_type"]) == ("succeeded", "manual", "transaction"), run
    made = await b.ok("get_transaction", {"transactionId": run["document_id"]})
    assert (made["status"], made["description"], made["amount"]) == ("posted", "Software subscription", "25.00"), made
    runs = await b.ok("list_recurring_runs", {"scheduleId": sid})
    assert [r["trigger"] for r in runs["data"]] == ["manual"], runs
    got = await b.ok("get_recurring_schedule", {"scheduleId": sid})
    assert got["status"] == "paused", got
    listed = await b.ok("list_recurring_schedules")
    assert [s["id"] for s in listed["data"]] == [sid], listed

    # --- Where the bank stands, and reconciliation ----------------------------------
    # 300.25 sale + 45.50 invoice payment - 90.00 bill - 50.00 to savings - 25.00 run.
    balance = await b.ok("get_account_balance", {"accountId": bank})
    assert balance["balance"]["net"] == "180.75", balance
    lines = await b.ok("get_account_transactions", {"accountId": bank, "limit": 100})
    # The sale, the fee and its reversal, two payments, two transfers and the reversal of
    # one, the subscription.
    assert lines["total_count"] == 9 == len(lines["transactions"]), lines
    net = sum(Decimal(t["debit"]) - Decimal(t["credit"]) for t in lines["transactions"])
    assert net == Decimal("180.75"), lines
    rec = await b.ok(
        "create_reconciliation",
        {"accountId": bank, "startDate": "2026-03-01", "endDate": "2026-03-02", "closingBalance": "300.25"},
    )
    rid = rec["id"]
    assert rec["difference"] == "300.25", rec
    matched = await b.ok("update_reconciliation", {"reconciliationId": rid, "matchEntryIds": [sale_entry]})
    assert matched["difference"] == "0.00", matched
    got = await b.ok("get_reconciliation", {"reconciliationId": rid})
    assert got["matches"][0]["transaction_id"] == sale, got
    done = await b.ok("complete_reconciliation", {"reconciliationId": rid})
    assert done["status"] == "completed", done
    later = await b.ok(
        "create_reconciliation",
        {"accountId": bank, "startDate": "2026-03-03", "endDate": "2026-03-31", "closingBalance": "180.75"},
    )
    listed = await b.ok("list_reconciliations", {"accountId": bank})
    assert {r["id"] for r in listed["data"]} == {rid, later["id"]}, listed

    # --- Reports --------------------------------------------------------------------
    tb = await b.ok("get_trial_balance", {})
    nets = {r["account_code"]: r["net_balance"] for r in tb["accounts"]}
    assert nets["1010"] == "180.75" and nets["1020"] == "50.00", nets
    assert nets["1100"] == "74.50" and nets["4000"] == "420.25" and nets["5000"] == "115.00", nets
    assert tb["total_debits"] == tb["total_credits"], tb
    bs = await b.ok("get_balance_sheet", {})
    assert bs["total_assets"] == "305.25" == bs["total_liabilities_and_equity"], bs
    pl = await b.ok("get_income_statement", {"startDate": "2026-01-01", "endDate": TODAY})
    assert (pl["total_revenue"], pl["total_expenses"], pl["net_income"]) == ("420.25", "115.00", "305.25"), pl
    events = await b.ok("get_entity_events", {"entityType": "transaction", "entityId": sale})
    kinds = [e["event_type"] for e in events["items"]]
    assert kinds[:3] == ["transaction.created", "transaction.updated", "transaction.posted"], kinds
    assert all(e["entity_id"] == sale for e in events["items"]), events

    # --- Sub-organizations ----------------------------------------------------------
    child = await b.ok("create_sub_organization", {"name": "Client A", "relationshipType": "owned"})
    child_id = child["organization"]["id"]
    assert child["api_key"]["key"], child
    subs = await b.ok("list_sub_organizations")
    assert child_id in {s["id"] for s in subs["data"]}, subs

    # --- API keys ----------------------------------------------------------------
    system = await b.ok("create_api_key", {"name": "ops", "permissions": ["system"]})
    async with connect(system["key"]) as c:
        info = await Books(c, b.called, "system", b.costs).ok("get_system_info")
    assert info["database"], info
    spare = await b.ok("create_api_key", {"name": "agent", "permissions": ["read", "invoices:write"]})
    assert spare["key"].startswith("ha_live_") and spare["permissions"] == ["read", "invoices:write"], spare
    got = await b.ok("get_api_key", {"keyId": spare["id"]})
    assert got["name"] == "agent" and not got.get("key"), got
    keys = await b.ok("list_api_keys")
    assert system["id"] in {k["id"] for k in keys["data"]}, keys

    # --- Credits ------------------------------------------------------------------
    packages = await b.ok("list_credit_packages")
    package = packages["data"][0]
    assert package["credits"] == 1000, packages
    checkout = await b.ok("purchase_credits", {"creditAmount": 1000})
    assert checkout["credits_to_add"] == 1000 and checkout["checkout_url"].startswith("http"), checkout
    before = (await b.ok("get_credit_balance"))["credits_remaining"]
    # Every successful write cost what tools/list says; reads and failures cost nothing.
    assert before == start["credits_remaining"] - b.spent, (start, before, b.spent)
    buy = {"masterOrganizationId": ORG, "creditAmount": 1000}
    asked = await b.raw("start_x402_credit_purchase", buy)
    assert asked.is_error, asked
    required = parse_payment_required(asked.structured_content)
    assert required.accepts[0].amount == "10000000", required
    x402, address = payer()
    payload = await x402.create_payment_payload(required)
    signature = encode_payment_signature_header(payload)
    done = await b.ok("complete_x402_credit_purchase", {**buy, "paymentSignatureB64": signature})
    assert (done["status"], done["credits_to_add"]) == ("completed", 1000), done
    again = await b.raw("complete_x402_credit_purchase", {**buy, "paymentSignatureB64": signature})
    assert again.is_error and "payment_replayed" in text_of(again), again
    paid = await x402MCPSession(McpSession(b), x402).call_tool("start_x402_credit_purchase", buy)
    assert paid.payment_made and not paid.is_error, paid.content
    receipt = paid.payment_response
    payer_address = receipt.payer if hasattr(receipt, "payer") else receipt["payer"]
    assert payer_address.lower() == address.lower(), (payer_address, address)
    after = await b.ok("get_credit_balance")
    assert after["credits_remaining"] == before + 2000, (before, after)
    assert after["purchased_credits_remaining"] == 2000, after

    # --- Destructive calls, on resources made for them ------------------------------
    mistake = await b.ok(
        "create_transaction",
        {"description": "Typo", "date": "2026-03-30", "entries": [
            {"accountId": expense, "entryType": "debit", "amount": "1.00"},
            {"accountId": bank, "entryType": "credit", "amount": "1.00"},
        ]},
    )
    gone = await b.ok("delete_transaction", {"transactionId": mistake["id"]})
    assert gone["deleted"] is True, gone
    await b.refused("get_transaction", {"transactionId": mistake["id"]}, "resource_not_found")
    draft = await b.ok(
        "create_invoice",
        {"contactId": customer, "invoiceDate": "2026-03-20", "dueDate": DUE,
         "items": [{"description": "Draft", "quantity": "1", "unitPrice": "5.00"}]},
    )
    assert (await b.ok("delete_invoice", {"invoiceId": draft["id"]}))["deleted"] is True
    draft = await b.ok(
        "create_bill",
        {"contactId": vendor, "billDate": "2026-03-20", "dueDate": DUE,
         "items": [{"description": "Draft", "quantity": "1", "unitPrice": "5.00"}]},
    )
    assert (await b.ok("delete_bill", {"billId": draft["id"]}))["deleted"] is True
    assert (await b.ok("delete_account", {"accountId": doomed}))["deleted"] is True
    await b.refused("get_account", {"accountId": doomed}, "resource_not_found")
    assert (await b.ok("delete_exchange_rate", {"exchangeRateId": rate_id}))["deleted"] is True
    assert (await b.ok("delete_reconciliation", {"reconciliationId": later["id"]}))["deleted"] is True
    assert (await b.ok("delete_recurring_schedule", {"scheduleId": sid}))["deleted"] is True
    rotated = await b.ok("rotate_api_key", {"keyId": spare["id"]})
    assert rotated["key"] != spare["key"], rotated
    assert (await b.ok("delete_api_key", {"keyId": spare["id"]}))["deleted"] is True
    await b.refused("get_api_key", {"keyId": spare["id"]}, "resource_not_found")

    # Ownership transfers of sub-organizations made for them: accepted, rejected, cancelled.
    offered = {}
    for outcome in ("accept", "reject", "cancel"):
        sub = await b.ok("create_sub_organization", {"name": f"To {outcome}", "relationshipType": "owned"})
        sub_id = sub["organization"]["id"]
        transfer = await b.ok("initiate_organization_transfer", {"organizationId": sub_id, "toEmail": PEER_EMAIL})
        assert transfer["status"] == "pending", transfer
        offered[outcome] = (transfer["id"], sub_id)
    outgoing = await b.ok("list_organization_transfers")
    assert {t["id"] for t in outgoing["data"]} == {t for t, _ in offered.values()}, outgoing
    incoming = await peer.ok("list_incoming_organization_transfers")
    assert {t["id"] for t in incoming["data"]} == {t for t, _ in offered.values()}, incoming
    accepted = await peer.ok("accept_organization_transfer", {"transferId": offered["accept"][0], "relationship": "linked"})
    assert accepted["status"] == "accepted", accepted
    rejected = await peer.ok("reject_organization_transfer", {"transferId": offered["reject"][0]})
    assert rejected["status"] == "rejected", rejected
    cancelled = await b.ok("cancel_organization_transfer", {"transferId": offered["cancel"][0], "organizationId": offered["cancel"][1]})
    assert cancelled["status"] == "cancelled", cancelled
    ours = {s["id"] for s in (await b.ok("list_sub_organizations"))["data"]}
    assert offered["accept"][1] not in ours and offered["reject"][1] in ours, ours
    theirs = {s["id"] for s in (await peer.ok("list_sub_organizations"))["data"]}
    assert offered["accept"][1] in theirs, theirs

    final = await b.ok("get_credit_balance")
    assert final["credits_remaining"] == start["credits_remaining"] + 2000 - b.spent, (start, final, b.spent)


async def list_all_tools(client: Client) -> dict[str, int]:
    """Every tool `tools/list` names (all pages), with the credits a call costs."""
    costs, cursor = {}, None
    while True:
        page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
        for tool in page.tools:
            assert tool.name not in costs, f"{tool.name} is listed twice"
            cost = (tool.meta or {}).get("ledger/credits")
            assert isinstance(cost, int) and cost >= 0, f"{tool.name}: no credit cost in {tool.meta}"
            costs[tool.name] = cost
        cursor = page.next_cursor
        if not cursor:
            return costs


async def main() -> None:
    assert ERA in (MODERN, LEGACY), ERA
    called: set[str] = set()
    async with connect(KEY) as client, connect(PEER_KEY) as peer:
        costs = await list_all_tools(client)
        listed = set(costs)
        await keep_the_books(Books(client, called, "owner", costs), Books(peer, called, "peer", costs))
    missing = sorted(set(listed) - called)
    unlisted = sorted(called - listed)
    print(f"called {len(called)} tools: {', '.join(sorted(called))}")
    assert not missing, f"tools/list names tools the scenario never called: {missing}"
    assert not unlisted, f"the scenario called tools tools/list does not name: {unlisted}"
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
