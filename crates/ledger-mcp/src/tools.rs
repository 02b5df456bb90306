//! The tool registry, as data: one row per MCP tool (DECISIONS 7) naming the REST
//! operation it performs, how its camelCase arguments map onto the path, the query and the
//! snake_case body, its credits and its annotations. Adding a tool is adding a row; a
//! tool is listed only when its REST route exists (a test checks every row reaches one).

use actix_web::http::Method;
use ledger_domain::documents::{DocumentKind, DocumentStatus};
use serde_json::{Map, Value, json};

/// HTTP method of a tool's REST operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    Post,
    Put,
    Delete,
}

impl Verb {
    pub fn method(self) -> Method {
        match self {
            Verb::Get => Method::GET,
            Verb::Post => Method::POST,
            Verb::Put => Method::PUT,
            Verb::Delete => Method::DELETE,
        }
    }

    /// Whether the REST operation takes a JSON body.
    pub fn has_body(self) -> bool {
        matches!(self, Verb::Post | Verb::Put)
    }
}

/// Where an argument goes in the REST request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    /// A `{placeholder}` of the path template (same camelCase name).
    Path,
    /// A query parameter (snake_case).
    Query,
    /// A member of the JSON body (snake_case).
    Body,
}

/// JSON type of an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Str,
    Int,
    Bool,
    /// A decimal amount: a string such as `"100.00"` (preferred) or a JSON number.
    Amount,
    /// `YYYY-MM-DD`.
    Date,
    /// A date or an RFC 3339 date-time.
    DateOrTime,
    Enum(&'static [&'static str]),
    StrList,
    /// Journal lines of a transaction.
    Entries,
    /// Priced lines of an invoice or a bill.
    Items,
}

/// One argument of a tool.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    /// camelCase name in `inputSchema`; the snake_case spelling is accepted too.
    pub name: &'static str,
    pub ty: Ty,
    pub loc: Loc,
    pub required: bool,
    pub doc: &'static str,
    /// Default filled in when the argument is absent (integers only).
    pub default: Option<i64>,
    /// When absent, the organization of the caller's key is filled in.
    pub caller_organization: bool,
}

/// One MCP tool.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    /// 80-250 characters, written for an agent.
    pub description: &'static str,
    pub verb: Verb,
    /// REST path with `{camelCase}` placeholders; `{organizationId}` defaults to the
    /// organization of the caller's key.
    pub path: &'static str,
    pub args: &'static [Arg],
    /// Credits the REST operation takes (live mode).
    pub credits: u32,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// Queued write: the call sends `Prefer: wait=30` so the result is the final resource.
    pub queued: bool,
    /// A credit-purchase tool (left out of the directory variant).
    pub purchase: bool,
}

const fn arg(name: &'static str, ty: Ty, loc: Loc, required: bool, doc: &'static str) -> Arg {
    Arg {
        name,
        ty,
        loc,
        required,
        doc,
        default: None,
        caller_organization: false,
    }
}

const fn path_id(name: &'static str, doc: &'static str) -> Arg {
    arg(name, Ty::Str, Loc::Path, true, doc)
}

const fn opt_body(name: &'static str, ty: Ty, doc: &'static str) -> Arg {
    arg(name, ty, Loc::Body, false, doc)
}

const fn req_body(name: &'static str, ty: Ty, doc: &'static str) -> Arg {
    arg(name, ty, Loc::Body, true, doc)
}

const fn query(name: &'static str, ty: Ty, doc: &'static str) -> Arg {
    arg(name, ty, Loc::Query, false, doc)
}

const fn limit(default: i64) -> Arg {
    Arg {
        name: "limit",
        ty: Ty::Int,
        loc: Loc::Query,
        required: false,
        doc: "Page size, 1 to 100.",
        default: Some(default),
        caller_organization: false,
    }
}

const OFFSET: Arg = query("offset", Ty::Int, "Rows to skip; add limit to page on.");

const ACCOUNT_TYPES: &[&str] = &["asset", "liability", "equity", "revenue", "expense"];
const CONTACT_TYPES: &[&str] = &["customer", "vendor", "employee", "other"];

const ACCOUNT_ID: Arg = path_id("accountId", "Account id (acc_...).");
const TRANSACTION_ID: Arg = path_id("transactionId", "Transaction id (txn_...).");
const CONTACT_ID: Arg = path_id("contactId", "Contact id (con_...).");
const KEY_ID: Arg = path_id("keyId", "API key id (key_...).");

const ENTRIES_DOC: &str = "Journal lines, at least two; debits must equal credits.";
const INVOICE_ID: Arg = path_id("invoiceId", "Invoice id (inv_...).");
const BILL_ID: Arg = path_id("billId", "Bill id (bil_...).");
const ITEMS_DOC: &str =
    "Lines: description, quantity, unitPrice, optional accountId, taxIds, categoryId, itemId.";

/// The payment arguments shared by invoices and bills.
const PAYMENT_ARGS: [Arg; 6] = [
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
const fn tool(
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
    }
}

const fn queued(mut t: Tool) -> Tool {
    t.queued = true;
    t
}

const fn destructive(mut t: Tool) -> Tool {
    t.destructive = true;
    t
}

const fn credits(mut t: Tool, n: u32) -> Tool {
    t.credits = n;
    t
}

/// Every tool whose REST operation exists today, in a fixed order.
pub static TOOLS: &[Tool] = &[
    // Accounts (7).
    tool(
        "create_account",
        "Create account",
        "Create an account in the chart of accounts. Use before posting to a new ledger line (bank, revenue stream, expense type). Returns the account with its id, code, type and currency.",
        Verb::Post,
        "/organizations/{organizationId}/accounts",
        &[
            req_body("code", Ty::Str, "Unique account code, e.g. \"1010\"."),
            req_body("name", Ty::Str, "Account name, e.g. \"Checking\"."),
            req_body("accountType", Ty::Enum(ACCOUNT_TYPES), "Account type."),
            opt_body(
                "currencyId",
                Ty::Str,
                "ISO 4217 code; defaults to the organization's base currency.",
            ),
            opt_body("description", Ty::Str, "Free text."),
            opt_body(
                "parentAccountId",
                Ty::Str,
                "Parent account id, to nest this account.",
            ),
        ],
    ),
    tool(
        "list_accounts",
        "List accounts",
        "List the chart of accounts sorted by code, optionally filtered by type or status. Use it to find account ids before posting transactions. Returns a page of accounts with has_more.",
        Verb::Get,
        "/organizations/{organizationId}/accounts",
        &[
            query(
                "accountType",
                Ty::Enum(ACCOUNT_TYPES),
                "Only accounts of this type.",
            ),
            query(
                "status",
                Ty::Enum(&["active", "inactive", "suspended"]),
                "Only accounts in this status.",
            ),
            limit(100),
            OFFSET,
            query(
                "includeHierarchy",
                Ty::Bool,
                "Add the ids of direct children to each account.",
            ),
        ],
    ),
    tool(
        "get_account",
        "Get account",
        "Get one account by id: code, name, type, currency, status and parent. Use it to confirm an account before posting or to read its settings. Returns the account object.",
        Verb::Get,
        "/organizations/{organizationId}/accounts/{accountId}",
        &[ACCOUNT_ID],
    ),
    tool(
        "update_account",
        "Update account",
        "Rename an account, change its description, activate or deactivate it, or move it under another parent. Omitted fields stay unchanged. Returns the updated account.",
        Verb::Put,
        "/organizations/{organizationId}/accounts/{accountId}",
        &[
            ACCOUNT_ID,
            opt_body("name", Ty::Str, "New name."),
            opt_body("description", Ty::Str, "New description."),
            opt_body(
                "isActive",
                Ty::Bool,
                "false stops new postings to the account.",
            ),
            opt_body(
                "status",
                Ty::Enum(&["active", "inactive", "suspended"]),
                "New status.",
            ),
            opt_body("parentAccountId", Ty::Str, "New parent account id."),
        ],
    ),
    queued(tool(
        "delete_account",
        "Delete account",
        "Delete an account that has no transactions (soft delete, recoverable for seven days). System accounts and accounts in use are refused; deactivate those instead. Returns the deletion.",
        Verb::Delete,
        "/organizations/{organizationId}/accounts/{accountId}",
        &[ACCOUNT_ID],
    )),
    tool(
        "get_account_transactions",
        "Get account transactions",
        "List the posted journal lines of one account, oldest first, optionally between two dates, each with debit, credit and running balance. Use it to explain a balance or find a payment.",
        Verb::Get,
        "/organizations/{organizationId}/accounts/{accountId}/transactions",
        &[
            ACCOUNT_ID,
            query("fromDate", Ty::Date, "First day included (YYYY-MM-DD)."),
            query("toDate", Ty::Date, "Last day included (YYYY-MM-DD)."),
            limit(10),
            OFFSET,
        ],
    ),
    tool(
        "get_account_balance",
        "Get account balance",
        "Get the balance of one account (debit, credit and net in the account's normal direction), now or as of a date. Returns decimal strings and the account currency.",
        Verb::Get,
        "/organizations/{organizationId}/accounts/{accountId}/balance",
        &[
            ACCOUNT_ID,
            query("asOf", Ty::DateOrTime, "Balance at the end of this date."),
        ],
    ),
    // Transactions (7).
    tool(
        "list_transactions",
        "List transactions",
        "List journal transactions, optionally between two dates or by status. Use it to review recent bookkeeping or find a transaction id. Returns a page of transactions with entries and has_more.",
        Verb::Get,
        "/organizations/{organizationId}/transactions",
        &[
            query("startDate", Ty::Date, "First day included (YYYY-MM-DD)."),
            query("endDate", Ty::Date, "Last day included (YYYY-MM-DD)."),
            query(
                "status",
                Ty::Enum(&["pending", "posted", "reversed"]),
                "Only transactions in this status.",
            ),
            limit(50),
            OFFSET,
        ],
    ),
    queued(tool(
        "create_transaction",
        "Create transaction",
        "Record a balanced journal transaction (debits equal credits). It stays pending unless autoPost is true; post it to affect balances and reports. Returns the transaction with entries.",
        Verb::Post,
        "/organizations/{organizationId}/transactions",
        &[
            req_body(
                "description",
                Ty::Str,
                "What happened, e.g. \"Office rent March\".",
            ),
            req_body(
                "date",
                Ty::DateOrTime,
                "Transaction date (YYYY-MM-DD or RFC 3339).",
            ),
            req_body("entries", Ty::Entries, ENTRIES_DOC),
            opt_body(
                "autoPost",
                Ty::Bool,
                "Post at once (default false: pending).",
            ),
            opt_body(
                "reference",
                Ty::Str,
                "Your reference, e.g. a receipt number.",
            ),
            opt_body(
                "currency",
                Ty::Str,
                "ISO 4217 code; defaults to the organization's base currency.",
            ),
            opt_body(
                "contactId",
                Ty::Str,
                "Customer or vendor this transaction concerns.",
            ),
            opt_body(
                "categoryId",
                Ty::Str,
                "Category to tag the transaction with.",
            ),
        ],
    )),
    tool(
        "get_transaction",
        "Get transaction",
        "Get one transaction by id with its journal entries, status (pending, posted, reversed) and reversal link. Use it to check a transaction before posting or reversing it.",
        Verb::Get,
        "/organizations/{organizationId}/transactions/{transactionId}",
        &[TRANSACTION_ID],
    ),
    queued(tool(
        "update_transaction",
        "Update transaction",
        "Change the description, date, entries, contact or category of a pending transaction. Posted transactions are refused: reverse them instead. Returns the updated transaction.",
        Verb::Put,
        "/organizations/{organizationId}/transactions/{transactionId}",
        &[
            TRANSACTION_ID,
            opt_body("description", Ty::Str, "New description."),
            opt_body("date", Ty::DateOrTime, "New date."),
            opt_body("entries", Ty::Entries, ENTRIES_DOC),
            opt_body("contactId", Ty::Str, "Contact id."),
            opt_body("categoryId", Ty::Str, "Category id."),
        ],
    )),
    destructive(queued(tool(
        "post_transaction",
        "Post transaction",
        "Post a pending transaction so it counts in balances and reports. Posting is final: corrections need reverse_transaction. Returns the posted transaction.",
        Verb::Post,
        "/organizations/{organizationId}/transactions/{transactionId}/post",
        &[TRANSACTION_ID],
    ))),
    destructive(queued(tool(
        "reverse_transaction",
        "Reverse transaction",
        "Reverse a posted transaction: posts a mirror transaction dated today that cancels it. Use to correct posted mistakes. Returns the original, now reversed, with the mirror's id in reversed_by.",
        Verb::Post,
        "/organizations/{organizationId}/transactions/{transactionId}/reverse",
        &[
            TRANSACTION_ID,
            req_body("reason", Ty::Str, "Why it is reversed."),
        ],
    ))),
    queued(tool(
        "delete_transaction",
        "Delete transaction",
        "Delete a pending transaction (soft delete, recoverable for seven days). Posted transactions cannot be deleted; reverse them instead. Returns the deletion.",
        Verb::Delete,
        "/organizations/{organizationId}/transactions/{transactionId}",
        &[TRANSACTION_ID],
    )),
    // Contacts (3).
    tool(
        "list_contacts",
        "List contacts",
        "List customers, vendors and other contacts, oldest first, filtered by type, enabled state or a search over name, e-mail and reference. Returns an array of contact summaries.",
        Verb::Get,
        "/organizations/{organizationId}/contacts",
        &[
            query(
                "contactType",
                Ty::Enum(CONTACT_TYPES),
                "Only contacts of this type.",
            ),
            query(
                "search",
                Ty::Str,
                "Case-insensitive text in name, e-mail or reference.",
            ),
            query(
                "enabled",
                Ty::Enum(&["true", "false", "all"]),
                "Enabled ones (default true), disabled ones, or all.",
            ),
            limit(20),
            OFFSET,
        ],
    ),
    tool(
        "get_contact",
        "Get contact",
        "Get one contact by id with its type, e-mail, phone, address, tax number, reference and currency. Use it before naming the contact on a transaction.",
        Verb::Get,
        "/organizations/{organizationId}/contacts/{contactId}",
        &[CONTACT_ID],
    ),
    queued(tool(
        "create_contact",
        "Create contact",
        "Create a customer, vendor, employee or other contact to name on transactions. The reference must be unique among live contacts. Returns the new contact with its id.",
        Verb::Post,
        "/organizations/{organizationId}/contacts",
        &[
            req_body("contactType", Ty::Enum(CONTACT_TYPES), "Kind of contact."),
            req_body("name", Ty::Str, "Name, 1-255 characters."),
            opt_body("email", Ty::Str, "E-mail address."),
            opt_body("phone", Ty::Str, "Phone number."),
            opt_body("website", Ty::Str, "http(s) URL."),
            opt_body("taxNumber", Ty::Str, "Tax or VAT number."),
            opt_body("reference", Ty::Str, "Your unique reference."),
            opt_body("address", Ty::Str, "Street address."),
            opt_body("city", Ty::Str, "City."),
            opt_body("state", Ty::Str, "State or region."),
            opt_body("zipCode", Ty::Str, "Postal code."),
            opt_body("country", Ty::Str, "ISO 3166-1 alpha-2 code, e.g. \"DE\"."),
            opt_body(
                "currencyId",
                Ty::Str,
                "ISO 4217 code; defaults to the base currency.",
            ),
        ],
    )),
    // Invoices (9).
    tool(
        "list_invoices",
        "List invoices",
        "List invoices, newest first, optionally by status or contact, with items, totals, amount paid and balance due. Status reads overdue when past due with a balance.",
        Verb::Get,
        "/organizations/{organizationId}/invoices",
        &[
            query(
                "status",
                Ty::Enum(DocumentStatus::of_kind(DocumentKind::Invoice)),
                "Only invoices in this stored status.",
            ),
            query("contactId", Ty::Str, "Only invoices of this customer."),
            limit(20),
            OFFSET,
        ],
    ),
    queued(tool(
        "create_invoice",
        "Create invoice",
        "Create a draft invoice for a customer with priced, taxed lines; totals are computed exactly. It posts nothing until send_invoice. Returns the draft with its invoice number.",
        Verb::Post,
        "/organizations/{organizationId}/invoices",
        &[
            req_body(
                "contactId",
                Ty::Str,
                "Customer (or other) contact id (con_...).",
            ),
            opt_body("invoiceDate", Ty::Date, "Issue date; defaults to today."),
            opt_body(
                "dueDate",
                Ty::Date,
                "Due date; defaults to 30 days after the issue date.",
            ),
            req_body("items", Ty::Items, ITEMS_DOC),
            opt_body("notes", Ty::Str, "Notes printed on the invoice."),
        ],
    )),
    tool(
        "get_invoice",
        "Get invoice",
        "Get one invoice with its items, taxes, totals, payments, balance due and status (draft, sent, partially_paid, paid, overdue, void). Use it before sending or recording a payment.",
        Verb::Get,
        "/organizations/{organizationId}/invoices/{invoiceId}",
        &[INVOICE_ID],
    ),
    queued(tool(
        "update_invoice",
        "Update invoice",
        "Change a draft invoice: contact, dates, items (the whole list is replaced) or notes. Sent invoices are refused with invoice_not_draft. Returns the updated draft.",
        Verb::Put,
        "/organizations/{organizationId}/invoices/{invoiceId}",
        &[
            INVOICE_ID,
            opt_body("contactId", Ty::Str, "Customer contact id."),
            opt_body("invoiceDate", Ty::Date, "Issue date."),
            opt_body("dueDate", Ty::Date, "Due date."),
            opt_body("items", Ty::Items, ITEMS_DOC),
            opt_body("notes", Ty::Str, "Notes."),
        ],
    )),
    destructive(queued(tool(
        "delete_invoice",
        "Delete invoice",
        "Delete a draft invoice (soft delete, recoverable for seven days; its number is not reused). Sent invoices cannot be deleted. Returns the deletion.",
        Verb::Delete,
        "/organizations/{organizationId}/invoices/{invoiceId}",
        &[INVOICE_ID],
    ))),
    queued(tool(
        "send_invoice",
        "Send invoice",
        "Send a draft invoice: posts Dr Accounts Receivable, Cr revenue per item and Cr Sales Tax Payable, and marks it sent. Returns the invoice with its posting transaction id.",
        Verb::Post,
        "/organizations/{organizationId}/invoices/{invoiceId}/send",
        &[INVOICE_ID],
    )),
    tool(
        "generate_invoice_pdf",
        "Generate invoice PDF",
        "Render an invoice as a PDF (organization, customer, items, taxes, totals, payments, balance due). Costs no credits. Returns the PDF as an embedded application/pdf resource.",
        Verb::Get,
        "/organizations/{organizationId}/invoices/{invoiceId}/pdf",
        &[INVOICE_ID],
    ),
    tool(
        "record_invoice_payment",
        "Record invoice payment",
        "Record a customer payment on a sent invoice: posts Dr the bank or cash account, Cr Accounts Receivable, and moves it to partially_paid or paid. Refuses overpayment. Returns the payment.",
        Verb::Post,
        "/organizations/{organizationId}/invoices/{invoiceId}/payments",
        &[
            INVOICE_ID,
            PAYMENT_ARGS[0],
            PAYMENT_ARGS[1],
            PAYMENT_ARGS[2],
            PAYMENT_ARGS[3],
            PAYMENT_ARGS[4],
            PAYMENT_ARGS[5],
        ],
    ),
    tool(
        "get_invoice_history",
        "Get invoice history",
        "List every status change of an invoice (draft, sent, partially_paid, paid, void) with its time, the API key that made it and a note. Use it to audit who did what.",
        Verb::Get,
        "/organizations/{organizationId}/invoices/{invoiceId}/history",
        &[INVOICE_ID],
    ),
    // Bills (7).
    tool(
        "list_bills",
        "List bills",
        "List vendor bills, newest first, optionally by status or contact, with items, totals, amount paid and balance due. Status reads overdue when past due with a balance.",
        Verb::Get,
        "/organizations/{organizationId}/bills",
        &[
            query(
                "status",
                Ty::Enum(DocumentStatus::of_kind(DocumentKind::Bill)),
                "Only bills in this stored status.",
            ),
            query("contactId", Ty::Str, "Only bills of this vendor."),
            limit(20),
            OFFSET,
        ],
    ),
    queued(tool(
        "create_bill",
        "Create bill",
        "Record a draft bill from a vendor with priced, taxed lines (expense or asset accounts, default General Expenses). It posts nothing until approve_bill. Returns the draft bill.",
        Verb::Post,
        "/organizations/{organizationId}/bills",
        &[
            req_body(
                "contactId",
                Ty::Str,
                "Vendor (or other) contact id (con_...).",
            ),
            opt_body("billDate", Ty::Date, "Bill date; defaults to today."),
            opt_body(
                "dueDate",
                Ty::Date,
                "Due date; defaults to 30 days after the bill date.",
            ),
            req_body("items", Ty::Items, ITEMS_DOC),
            opt_body("notes", Ty::Str, "Notes."),
        ],
    )),
    tool(
        "get_bill",
        "Get bill",
        "Get one bill with its items, taxes, totals, payments, balance due and status (draft, open, partially_paid, paid, overdue, void). Use it before approving or paying it.",
        Verb::Get,
        "/organizations/{organizationId}/bills/{billId}",
        &[BILL_ID],
    ),
    queued(tool(
        "update_bill",
        "Update bill",
        "Change a draft bill: contact, dates, items (the whole list is replaced) or notes. Approved bills are refused. Returns the updated draft bill.",
        Verb::Put,
        "/organizations/{organizationId}/bills/{billId}",
        &[
            BILL_ID,
            opt_body("contactId", Ty::Str, "Vendor contact id."),
            opt_body("billDate", Ty::Date, "Bill date."),
            opt_body("dueDate", Ty::Date, "Due date."),
            opt_body("items", Ty::Items, ITEMS_DOC),
            opt_body("notes", Ty::Str, "Notes."),
        ],
    )),
    destructive(queued(tool(
        "delete_bill",
        "Delete bill",
        "Delete a draft bill (soft delete, recoverable for seven days). Approved bills cannot be deleted. Returns the deletion record.",
        Verb::Delete,
        "/organizations/{organizationId}/bills/{billId}",
        &[BILL_ID],
    ))),
    queued(tool(
        "approve_bill",
        "Approve bill",
        "Approve a draft bill: posts Dr expense per item (and recoverable tax when configured), Cr Accounts Payable, and marks it open for payment. Returns the bill with its posting id.",
        Verb::Post,
        "/organizations/{organizationId}/bills/{billId}/approve",
        &[BILL_ID],
    )),
    queued(tool(
        "record_bill_payment",
        "Record bill payment",
        "Record a payment of an approved bill: posts Dr Accounts Payable, Cr the bank or cash account, and moves it to partially_paid or paid. Refuses overpayment. Returns the payment.",
        Verb::Post,
        "/organizations/{organizationId}/bills/{billId}/payments",
        &[
            BILL_ID,
            PAYMENT_ARGS[0],
            PAYMENT_ARGS[1],
            PAYMENT_ARGS[2],
            PAYMENT_ARGS[3],
            PAYMENT_ARGS[4],
            PAYMENT_ARGS[5],
        ],
    )),
    // Organization (2 of 9 exist).
    tool(
        "get_organization",
        "Get organization",
        "Get the organization: name, base currency, parent and relationship, credit figures. Call it first to learn the base currency and which organization the key acts in.",
        Verb::Get,
        "/organizations/{organizationId}",
        &[],
    ),
    credits(
        tool(
            "create_sub_organization",
            "Create sub-organization",
            "Create a sub-organization under an organization the key reaches (needs admin). Returns the new organization and an API key scoped to it, shown once: store it.",
            Verb::Post,
            "/accounts/sub",
            &[
                Arg {
                    caller_organization: true,
                    ..opt_body(
                        "parentOrganizationId",
                        Ty::Str,
                        "Parent organization id (org_...); defaults to the key's organization.",
                    )
                },
                req_body("name", Ty::Str, "Name of the new organization."),
                req_body(
                    "relationshipType",
                    Ty::Enum(&["owned", "linked"]),
                    "owned (consolidated) or linked.",
                ),
            ],
        ),
        0,
    ),
    // Reporting (3).
    tool(
        "get_trial_balance",
        "Get trial balance",
        "Get the trial balance: every account's debit, credit and net from posted entries, as of a date (default now). Total debits always equal total credits. Use it to check the books.",
        Verb::Get,
        "/organizations/{organizationId}/reports/trial-balance",
        &[query(
            "asOf",
            Ty::DateOrTime,
            "Include entries up to the end of this date.",
        )],
    ),
    tool(
        "get_balance_sheet",
        "Get balance sheet",
        "Get the balance sheet as of a date: assets, liabilities and equity (with current earnings) by account and in total. Use it to report financial position at a period end.",
        Verb::Get,
        "/organizations/{organizationId}/reports/balance-sheet",
        &[query(
            "asOf",
            Ty::DateOrTime,
            "Position at the end of this date.",
        )],
    ),
    tool(
        "get_income_statement",
        "Get income statement",
        "Get the income statement (profit and loss) between two dates: revenue and expenses by account, their totals and net income. Defaults to the current calendar year to date.",
        Verb::Get,
        "/organizations/{organizationId}/reports/income-statement",
        &[
            query("startDate", Ty::Date, "First day included (YYYY-MM-DD)."),
            query("endDate", Ty::Date, "Last day included (YYYY-MM-DD)."),
        ],
    ),
    // System (3).
    tool(
        "health_check",
        "Health check",
        "Check that the service and its database answer. Use it when other tools fail unexpectedly. Returns the text OK when healthy, or an error when the database is unavailable.",
        Verb::Get,
        "/health",
        &[],
    ),
    tool(
        "get_system_info",
        "Get system information",
        "Get service status: version, uptime, database, worker and queue figures, and event counts of the caller's organization tree. Needs a key with the system permission.",
        Verb::Get,
        "/system",
        &[],
    ),
    tool(
        "get_entity_events",
        "Get entity events",
        "Get the audit trail of one entity (account, transaction, contact, api_key, ...): who did what and when, with before and after states. Returns an array of events, oldest first.",
        Verb::Get,
        "/events/{entityType}/{entityId}",
        &[
            path_id(
                "entityType",
                "Singular resource name, e.g. \"transaction\".",
            ),
            path_id("entityId", "Id of the entity."),
        ],
    ),
    // API keys (5).
    tool(
        "list_api_keys",
        "List API keys",
        "List the API keys of the organization in the caller's mode: names, permissions, expiry, last use. Secrets are never shown. Needs admin. Returns a page of keys.",
        Verb::Get,
        "/organizations/{organizationId}/api-keys",
        &[limit(20), OFFSET],
    ),
    tool(
        "get_api_key",
        "Get API key",
        "Get one API key by id: name, permissions, mode, expiry, disabled flag and last use. The secret is never shown. Needs admin. Use it to audit what a key may do.",
        Verb::Get,
        "/organizations/{organizationId}/api-keys/{keyId}",
        &[KEY_ID],
    ),
    credits(
        tool(
            "create_api_key",
            "Create API key",
            "Create an API key with the given permissions (read, write, admin, optionally per resource like invoices:write). Needs admin. The secret is in the answer only once: store it.",
            Verb::Post,
            "/organizations/{organizationId}/api-keys",
            &[
                req_body("name", Ty::Str, "Label for the key."),
                req_body(
                    "permissions",
                    Ty::StrList,
                    "Permissions, e.g. [\"read\", \"write\"].",
                ),
                opt_body(
                    "mode",
                    Ty::Enum(&["live", "test"]),
                    "Defaults to the caller's mode.",
                ),
                opt_body("expiresAt", Ty::DateOrTime, "When the key stops working."),
            ],
        ),
        0,
    ),
    credits(
        destructive(tool(
            "rotate_api_key",
            "Rotate API key",
            "Issue a new secret for an API key; the old secret keeps working for a grace period (24 h by default), then fails. Needs admin. Returns the key with the new secret, shown once.",
            Verb::Post,
            "/organizations/{organizationId}/api-keys/{keyId}/rotate",
            &[KEY_ID],
        )),
        0,
    ),
    credits(
        tool(
            "delete_api_key",
            "Delete API key",
            "Delete an API key: it stops authenticating at once (soft delete, purged after seven days). Needs admin. Do not delete the key this session uses. Returns the deletion.",
            Verb::Delete,
            "/organizations/{organizationId}/api-keys/{keyId}",
            &[KEY_ID],
        ),
        0,
    ),
    // Credits (1 of 5 exists).
    tool(
        "get_credit_balance",
        "Get credit balance",
        "Get the billing record of the organization's credit pool: credits remaining and total, test-mode credits used and the billing e-mail. Check it before large batches of writes.",
        Verb::Get,
        "/organizations/{organizationId}/billing",
        &[],
    ),
];

/// The tools of an endpoint: all of them, or without purchase tools for the directory.
pub fn listed(directory: bool) -> impl Iterator<Item = &'static Tool> {
    TOOLS.iter().filter(move |t| !(directory && t.purchase))
}

/// Finds a listed tool by name.
pub fn find(name: &str, directory: bool) -> Option<&'static Tool> {
    listed(directory).find(|t| t.name == name)
}

/// `accountId` -> `account_id`.
pub fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

const ORGANIZATION_ARG: Arg = Arg {
    caller_organization: true,
    ..arg(
        "organizationId",
        Ty::Str,
        Loc::Path,
        false,
        "Organization to act in (org_...); defaults to the organization of the API key.",
    )
};

impl Tool {
    /// Every argument including the implicit `organizationId` of organization paths.
    pub fn all_args(&self) -> impl Iterator<Item = &Arg> {
        let org = self.path.contains("{organizationId}");
        org.then_some(&ORGANIZATION_ARG)
            .into_iter()
            .chain(self.args.iter())
    }

    /// The tool as `tools/list` shows it.
    pub fn describe(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for a in self.all_args() {
            properties.insert(a.name.to_owned(), schema(a));
            if a.required {
                required.push(Value::from(a.name));
            }
        }
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            },
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.read_only,
                "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent,
                "openWorldHint": false,
            },
            "_meta": { "ledger/credits": self.credits },
        })
    }

    /// Maps call arguments to the REST request: path, query and body.
    ///
    /// # Errors
    /// A message for a `-32602` error: unknown or duplicate argument, wrong type, missing
    /// required argument, or a path value that is not a plain identifier.
    pub fn request(
        &self,
        arguments: Option<&Value>,
        default_org: &str,
    ) -> Result<(String, Option<Value>), String> {
        let empty = Map::new();
        let given = match arguments {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(_) => return Err("arguments must be an object".into()),
        };
        let args: Vec<&Arg> = self.all_args().collect();
        let mut values: Vec<Option<&Value>> = vec![None; args.len()];
        for (key, value) in given {
            let Some(i) = args
                .iter()
                .position(|a| a.name == key || snake(a.name) == *key)
            else {
                let known: Vec<&str> = args.iter().map(|a| a.name).collect();
                return Err(format!(
                    "unknown argument '{key}' for {}; expected: {}",
                    self.name,
                    known.join(", ")
                ));
            };
            if values[i].is_some() {
                return Err(format!("argument '{}' is given twice", args[i].name));
            }
            if !value.is_null() {
                values[i] = Some(value);
            }
        }
        let mut path = self.path.to_owned();
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        let mut has_query = false;
        let mut body = Map::new();
        for (a, value) in args.iter().zip(values) {
            let default = match (a.default, a.caller_organization) {
                (Some(n), _) => Some(Value::from(n)),
                (None, true) => Some(Value::from(default_org)),
                (None, false) => None,
            };
            let value = match (value, &default) {
                (Some(v), _) => v,
                (None, Some(d)) => d,
                (None, None) if a.required => {
                    return Err(format!("missing required argument '{}'", a.name));
                }
                (None, None) => continue,
            };
            check_type(a, value)?;
            match a.loc {
                Loc::Path => {
                    let text = value.as_str().unwrap_or_default();
                    if text.is_empty()
                        || text == "."
                        || text == ".."
                        || !text
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
                    {
                        return Err(format!("'{}' must be a plain id", a.name));
                    }
                    path = path.replace(&format!("{{{}}}", a.name), text);
                }
                Loc::Query => {
                    let text = match value {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    query.append_pair(&snake(a.name), &text);
                    has_query = true;
                }
                Loc::Body => {
                    body.insert(snake(a.name), snake_keys(value));
                }
            }
        }
        if has_query {
            path.push('?');
            path.push_str(&query.finish());
        }
        let body = self.verb.has_body().then_some(Value::Object(body));
        Ok((path, body))
    }
}

/// The members of an invoice or bill line.
const ITEM_FIELDS: [&str; 7] = [
    "description",
    "quantity",
    "unitPrice",
    "accountId",
    "categoryId",
    "taxIds",
    "itemId",
];

/// Converts object keys to snake_case, recursively (journal lines are objects).
fn snake_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (snake(k), snake_keys(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(snake_keys).collect()),
        other => other.clone(),
    }
}

fn check_type(a: &Arg, value: &Value) -> Result<(), String> {
    let ok = match a.ty {
        Ty::Str | Ty::Date | Ty::DateOrTime => value.is_string(),
        Ty::Int => value.is_i64() || value.is_u64(),
        Ty::Bool => value.is_boolean(),
        Ty::Amount => value.is_string() || value.is_number(),
        Ty::Enum(options) => value.as_str().is_some_and(|v| options.contains(&v)),
        Ty::StrList => value
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string)),
        Ty::Items => value.as_array().is_some_and(|items| {
            !items.is_empty()
                && items.iter().all(|line| {
                    line.as_object().is_some_and(|o| {
                        o.keys()
                            .all(|k| ITEM_FIELDS.iter().any(|n| *n == k || snake(n) == *k))
                    })
                })
        }),
        Ty::Entries => value.as_array().is_some_and(|items| {
            items.iter().all(|line| {
                line.as_object().is_some_and(|o| {
                    o.keys().all(|k| {
                        ["accountId", "entryType", "amount", "description"]
                            .iter()
                            .any(|n| *n == k || snake(n) == *k)
                    })
                })
            })
        }),
    };
    if ok {
        Ok(())
    } else {
        let expected = match a.ty {
            Ty::Str => "a string".to_owned(),
            Ty::Date => "a date string (YYYY-MM-DD)".to_owned(),
            Ty::DateOrTime => "a date or date-time string".to_owned(),
            Ty::Int => "an integer".to_owned(),
            Ty::Bool => "a boolean".to_owned(),
            Ty::Amount => "a decimal string or number".to_owned(),
            Ty::Enum(options) => format!("one of {}", options.join(", ")),
            Ty::StrList => "an array of strings".to_owned(),
            Ty::Entries => {
                "an array of {accountId, entryType, amount, description?} objects".to_owned()
            }
            Ty::Items => "a non-empty array of {description, quantity, unitPrice, accountId?, taxIds?, categoryId?, itemId?} objects".to_owned(),
        };
        Err(format!("argument '{}' must be {expected}", a.name))
    }
}

fn schema(a: &Arg) -> Value {
    let mut s = match a.ty {
        Ty::Str => json!({"type": "string"}),
        Ty::Int => json!({"type": "integer", "minimum": 0}),
        Ty::Bool => json!({"type": "boolean"}),
        Ty::Amount => json!({"type": ["string", "number"]}),
        Ty::Date => json!({"type": "string", "format": "date"}),
        Ty::DateOrTime => json!({"type": "string"}),
        Ty::Enum(options) => json!({"type": "string", "enum": options}),
        Ty::StrList => json!({"type": "array", "items": {"type": "string"}}),
        Ty::Items => json!({
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "quantity": {"type": ["string", "number"], "description": "Positive, up to 4 decimals."},
                    "unitPrice": {"type": ["string", "number"], "description": "Price per unit, e.g. \"19.99\"."},
                    "accountId": {"type": "string", "description": "Revenue (invoice) or expense/asset (bill) account."},
                    "taxIds": {"type": "array", "items": {"type": "string"}, "description": "Taxes in order (tax_...)."},
                    "categoryId": {"type": "string", "description": "A category (cat_...) the line is booked under."},
                    "itemId": {"type": "string", "description": "Your catalog reference."},
                },
                "required": ["description", "quantity", "unitPrice"],
                "additionalProperties": false,
            },
        }),
        Ty::Entries => json!({
            "type": "array",
            "minItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "accountId": {"type": "string", "description": "Account id (acc_...)."},
                    "entryType": {"type": "string", "enum": ["debit", "credit"]},
                    "amount": {"type": ["string", "number"], "description": "Positive decimal, e.g. \"100.00\"."},
                    "description": {"type": "string"},
                },
                "required": ["accountId", "entryType", "amount"],
                "additionalProperties": false,
            },
        }),
    };
    s["description"] = Value::from(a.doc);
    if let Some(d) = a.default {
        s["default"] = Value::from(d);
    }
    if a.name == "limit" {
        s["maximum"] = Value::from(100);
        s["minimum"] = Value::from(1);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_names_and_annotations_follow_the_rules() {
        let mut names = std::collections::HashSet::new();
        for t in TOOLS {
            let n = t.description.chars().count();
            assert!((80..=250).contains(&n), "{}: {n} characters", t.name);
            assert!(names.insert(t.name), "duplicate {}", t.name);
            assert!(
                t.name.len() <= 64 && t.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
            );
            assert!(!(t.read_only && t.destructive), "{}", t.name);
            assert_eq!(t.read_only, t.verb == Verb::Get, "{}", t.name);
            if t.name.starts_with("delete_")
                || t.name.starts_with("reverse_")
                || t.name.starts_with("post_")
                || t.name.starts_with("rotate_")
            {
                assert!(t.destructive, "{} must be destructive", t.name);
            }
            for placeholder in t.path.split('{').skip(1) {
                let name = placeholder.split('}').next().unwrap_or_default();
                assert!(
                    t.all_args().any(|a| a.name == name && a.loc == Loc::Path),
                    "{}: {name}",
                    t.name
                );
            }
        }
    }

    /// The tool list as agents see it; review changes with `cargo insta review`.
    #[test]
    fn tool_list_snapshot() {
        // Pretty JSON text: amounts and credits print as plain numbers (the workspace's
        // arbitrary-precision numbers do not go through insta's own serializer cleanly).
        let tools: Vec<Value> = listed(false).map(Tool::describe).collect();
        let text = serde_json::to_string_pretty(&tools).unwrap_or_default();
        insta::assert_snapshot!("tools", text);
    }

    #[test]
    fn arguments_map_to_path_query_and_snake_case_body() {
        let t = find("create_transaction", false).expect("tool");
        let (path, body) = t
            .request(
                Some(
                    &json!({"description": "d", "date": "2026-01-01", "auto_post": true,
                    "entries": [{"accountId": "acc_1", "entry_type": "debit", "amount": "1.00"}]}),
                ),
                "org_x",
            )
            .expect("maps");
        assert_eq!(path, "/organizations/org_x/transactions");
        let body = body.expect("body");
        assert_eq!(body["auto_post"], true);
        assert_eq!(body["entries"][0]["account_id"], "acc_1");
        let t = find("list_transactions", false).expect("tool");
        let (path, body) = t
            .request(
                Some(&json!({"organizationId": "org_y", "startDate": "2026-01-01"})),
                "org_x",
            )
            .expect("maps");
        assert_eq!(
            path,
            "/organizations/org_y/transactions?start_date=2026-01-01&limit=50"
        );
        assert!(body.is_none());
        assert!(t.request(Some(&json!({"bogus": 1})), "o").is_err());
        assert!(t.request(Some(&json!({"limit": "x"})), "o").is_err());
        let g = find("get_account", false).expect("tool");
        assert!(g.request(None, "o").is_err());
        assert!(g.request(Some(&json!({"accountId": "../x"})), "o").is_err());
        assert!(
            g.request(Some(&json!({"accountId": "a", "account_id": "b"})), "o")
                .is_err()
        );
    }
}
