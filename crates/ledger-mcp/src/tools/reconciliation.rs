//! Tools of bank reconciliation (DECISIONS 7's reconciliation group): list, read, create,
//! change (period, closing balance, match and unmatch entries), complete (destructive:
//! it locks the matched transactions) and delete an open reconciliation.

use super::rows::*;
use super::{Arg, Tool, Ty, Verb};

const RECONCILIATION_ID: Arg = path_id("reconciliationId", "Reconciliation id (rec_...).");

pub(super) const TOOLS: &[Tool] = &[
    tool(
        "list_reconciliations",
        "List reconciliations",
        "List the organization's bank reconciliations, latest statement end date first, optionally of one account or status (open, completed). Each shows closing, cleared balance and difference.",
        Verb::Get,
        "/organizations/{organizationId}/reconciliations",
        &[
            query(
                "accountId",
                Ty::Str,
                "Only reconciliations of this account (act_...).",
            ),
            query(
                "status",
                Ty::Enum(&["open", "completed"]),
                "Only reconciliations in this status.",
            ),
            limit(20),
            OFFSET,
        ],
    ),
    tool(
        "get_reconciliation",
        "Get reconciliation",
        "Get one reconciliation: account, statement period, opening, closing and cleared balance, the difference still to explain, its status and the matched journal entries (entry and transaction ids).",
        Verb::Get,
        "/organizations/{organizationId}/reconciliations/{reconciliationId}",
        &[RECONCILIATION_ID],
    ),
    tool(
        "create_reconciliation",
        "Create reconciliation",
        "Start reconciling a bank, cash or card account for a statement period against the statement's closing balance. One open reconciliation per account; the opening balance is the last completed one's.",
        Verb::Post,
        "/organizations/{organizationId}/reconciliations",
        &[
            req_body(
                "accountId",
                Ty::Str,
                "Asset or liability account (act_...).",
            ),
            req_body(
                "startDate",
                Ty::Date,
                "First day of the statement (YYYY-MM-DD).",
            ),
            req_body(
                "endDate",
                Ty::Date,
                "Last day of the statement (YYYY-MM-DD).",
            ),
            req_body(
                "closingBalance",
                Ty::Amount,
                "Statement closing balance, e.g. \"1424.50\" (what you owe on a card is positive).",
            ),
        ],
    ),
    tool(
        "update_reconciliation",
        "Update reconciliation",
        "Change an open reconciliation: its period or closing balance, and mark journal entries of the account cleared (matchEntryIds) or not (unmatchEntryIds). Returns it with the new difference.",
        Verb::Put,
        "/organizations/{organizationId}/reconciliations/{reconciliationId}",
        &[
            RECONCILIATION_ID,
            opt_body("startDate", Ty::Date, "New first day (YYYY-MM-DD)."),
            opt_body("endDate", Ty::Date, "New last day (YYYY-MM-DD)."),
            opt_body(
                "closingBalance",
                Ty::Amount,
                "New statement closing balance.",
            ),
            opt_body(
                "matchEntryIds",
                Ty::StrList,
                "Ledger entry ids (ent_...) of posted transactions on the account to match.",
            ),
            opt_body(
                "unmatchEntryIds",
                Ty::StrList,
                "Matched entry ids (ent_...) to unmatch.",
            ),
        ],
    ),
    destructive(tool(
        "complete_reconciliation",
        "Complete reconciliation",
        "Finalize a reconciliation whose difference is zero. Its matched transactions are then locked: they can no longer be updated, reversed or deleted. Refused with reconciliation_not_balanced otherwise.",
        Verb::Post,
        "/organizations/{organizationId}/reconciliations/{reconciliationId}/complete",
        &[RECONCILIATION_ID],
    )),
    tool(
        "delete_reconciliation",
        "Delete reconciliation",
        "Delete an open reconciliation (soft delete); its matched entries become free to match again. A completed reconciliation cannot be deleted. Needs admin. Returns the deletion.",
        Verb::Delete,
        "/organizations/{organizationId}/reconciliations/{reconciliationId}",
        &[RECONCILIATION_ID],
    ),
];
