//! How a row of the table is written: the argument and tool constructors, and the
//! arguments several tools share.

use super::{Arg, Loc, Tool, Ty, Verb};

pub(super) const fn arg(
    name: &'static str,
    ty: Ty,
    loc: Loc,
    required: bool,
    doc: &'static str,
) -> Arg {
    Arg {
        name,
        ty,
        loc,
        required,
        doc,
        default: None,
        caller_organization: false,
        required_of_agents_only: false,
    }
}

/// A body member REST defaults when absent but the agent must give (see
/// [`Arg::required_of_agents_only`]).
pub(super) const fn agent_body(name: &'static str, ty: Ty, doc: &'static str) -> Arg {
    Arg {
        required_of_agents_only: true,
        ..arg(name, ty, Loc::Body, true, doc)
    }
}

pub(super) const fn path_id(name: &'static str, doc: &'static str) -> Arg {
    arg(name, Ty::Str, Loc::Path, true, doc)
}

pub(super) const fn opt_body(name: &'static str, ty: Ty, doc: &'static str) -> Arg {
    arg(name, ty, Loc::Body, false, doc)
}

pub(super) const fn req_body(name: &'static str, ty: Ty, doc: &'static str) -> Arg {
    arg(name, ty, Loc::Body, true, doc)
}

pub(super) const fn query(name: &'static str, ty: Ty, doc: &'static str) -> Arg {
    arg(name, ty, Loc::Query, false, doc)
}

pub(super) const fn limit(default: i64) -> Arg {
    Arg {
        name: "limit",
        ty: Ty::Int,
        loc: Loc::Query,
        required: false,
        doc: "Page size, 1 to 100.",
        default: Some(default),
        caller_organization: false,
        required_of_agents_only: false,
    }
}

pub(super) const OFFSET: Arg = query("offset", Ty::Int, "Rows to skip; add limit to page on.");

pub(super) const ACCOUNT_TYPES: &[&str] = &["asset", "liability", "equity", "revenue", "expense"];
pub(super) const CONTACT_TYPES: &[&str] = &["customer", "vendor", "employee", "other"];

pub(super) const ACCOUNT_ID: Arg = path_id("accountId", "Account id (acc_...).");
pub(super) const TRANSACTION_ID: Arg = path_id("transactionId", "Transaction id (txn_...).");
pub(super) const CONTACT_ID: Arg = path_id("contactId", "Contact id (con_...).");
pub(super) const KEY_ID: Arg = path_id("keyId", "API key id (key_...).");

pub(super) const ENTRIES_DOC: &str = "Journal lines, at least two; debits must equal credits.";
pub(super) const INVOICE_ID: Arg = path_id("invoiceId", "Invoice id (inv_...).");
pub(super) const BILL_ID: Arg = path_id("billId", "Bill id (bil_...).");
pub(super) const ITEMS_DOC: &str =
    "Lines: description, quantity, unitPrice, optional accountId, taxIds, categoryId, itemId.";

/// The payment arguments shared by invoices and bills.
pub(super) const PAYMENT_ARGS: [Arg; 6] = [
    req_body(
        "amount",
        Ty::Amount,
        "Amount paid, at most the balance due, e.g. \"50.00\".",
    ),
    req_body("paymentDate", Ty::Date, "Date of the payment (YYYY-MM-DD)."),
    req_body(
        "paymentMethod",
        Ty::Str,
        "How it was paid, e.g. bank_transfer, card, cash.",
    ),
    opt_body("reference", Ty::Str, "Bank or payment reference."),
    opt_body("notes", Ty::Str, "Free notes."),
    opt_body(
        "accountId",
        Ty::Str,
        "Bank or cash account (asset); defaults to Cash.",
    ),
];

/// A plain tool with the given annotations; the builders below fill the rest.
pub(super) const fn tool(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    verb: Verb,
    path: &'static str,
    args: &'static [Arg],
) -> Tool {
    let read_only = matches!(verb, Verb::Get);
    Tool {
        name,
        title,
        description,
        verb,
        path,
        args,
        credits: if read_only { 0 } else { 1 },
        read_only,
        destructive: matches!(verb, Verb::Delete),
        // Reads, and PUT/DELETE of one resource, give the same result when repeated.
        idempotent: !matches!(verb, Verb::Post),
        queued: false,
        purchase: false,
        x402: false,
    }
}

pub(super) const fn queued(mut t: Tool) -> Tool {
    t.queued = true;
    t
}

pub(super) const fn destructive(mut t: Tool) -> Tool {
    t.destructive = true;
    t
}

pub(super) const fn credits(mut t: Tool, n: u32) -> Tool {
    t.credits = n;
    t
}

/// A POST that only reads (a computation): read-only, idempotent and free.
pub(super) const fn read_only(mut t: Tool) -> Tool {
    t.read_only = true;
    t.idempotent = true;
    t.credits = 0;
    t
}

/// A credit-purchase tool: left out of the directory variant, free (the purchase is
/// paid at the checkout).
pub(super) const fn purchase(mut t: Tool) -> Tool {
    t.purchase = true;
    t.credits = 0;
    t
}

/// An x402 purchase tool (see [`Tool::x402`]): a purchase tool too.
pub(super) const fn x402(mut t: Tool) -> Tool {
    t.x402 = true;
    purchase(t)
}
