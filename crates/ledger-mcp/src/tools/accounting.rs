//! Tools of the chart of accounts and the journal.

use super::rows::*;
use super::{Tool, Ty, Verb};

pub(super) const TOOLS: &[Tool] = &[
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
            query(
                "currency",
                Ty::Str,
                "ISO 4217 code: also show the balance converted at that day's rate.",
            ),
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
            opt_body(
                "dryRun",
                Ty::Bool,
                "Only validate: answer the would-be transaction, writing and charging nothing.",
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
];
