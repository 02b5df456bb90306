//! Tools of account-to-account transfers (DECISIONS 7: transfer 5).

use super::rows::*;
use super::{Arg, Tool, Ty, Verb};

const TRANSFER_ID: Arg = path_id(
    "transferId",
    "Transfer id (txn_...: a transfer is recorded as a transaction).",
);

pub(super) const TOOLS: &[Tool] = &[
    tool(
        "list_transfers",
        "List transfers",
        "List transfers between the organization's accounts, newest first, optionally by status. Use it to find a transfer id or review money moved between bank accounts. Returns a page of transfers.",
        Verb::Get,
        "/organizations/{organizationId}/transfers",
        &[
            query(
                "status",
                Ty::Enum(&["pending", "posted", "reversed"]),
                "Only transfers in this status.",
            ),
            limit(50),
            OFFSET,
        ],
    ),
    tool(
        "get_transfer",
        "Get transfer",
        "Get one transfer by id: source and destination accounts, amount and currency of each side, the exchange rate used, status and date. Use it before posting or reversing a transfer.",
        Verb::Get,
        "/organizations/{organizationId}/transfers/{transferId}",
        &[TRANSFER_ID],
    ),
    queued(tool(
        "create_transfer",
        "Create transfer",
        "Move money between two accounts of the organization, e.g. from checking to savings. Pending unless autoPost is true. Between currencies give toAmount, what the destination receives. Returns the transfer.",
        Verb::Post,
        "/organizations/{organizationId}/transfers",
        &[
            req_body("fromAccountId", Ty::Str, "Account the money leaves."),
            req_body("toAccountId", Ty::Str, "Account the money reaches."),
            req_body(
                "amount",
                Ty::Amount,
                "Amount leaving the source, in its currency, e.g. \"250.00\".",
            ),
            opt_body(
                "toAmount",
                Ty::Amount,
                "Amount the destination receives in its currency; required between currencies.",
            ),
            opt_body("date", Ty::DateOrTime, "Transfer date; defaults to now."),
            opt_body("description", Ty::Str, "What the transfer is for."),
            opt_body(
                "reference",
                Ty::Str,
                "Your reference, e.g. a bank reference.",
            ),
            opt_body(
                "autoPost",
                Ty::Bool,
                "Post at once (default false: pending).",
            ),
        ],
    )),
    destructive(queued(tool(
        "post_transfer",
        "Post transfer",
        "Post a pending transfer so both accounts' balances move. Posting is final: corrections need reverse_transfer. Returns the posted transfer.",
        Verb::Post,
        "/organizations/{organizationId}/transfers/{transferId}/post",
        &[TRANSFER_ID],
    ))),
    destructive(queued(tool(
        "reverse_transfer",
        "Reverse transfer",
        "Reverse a posted transfer: posts a mirror transaction dated today that moves the money back. Use to correct a transfer made in error. Returns the transfer, now reversed.",
        Verb::Post,
        "/organizations/{organizationId}/transfers/{transferId}/reverse",
        &[
            TRANSFER_ID,
            req_body("reason", Ty::Str, "Why it is reversed."),
        ],
    ))),
];
