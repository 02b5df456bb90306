//! Tools of the organization: its settings, reports, system status, API keys and credits.

use super::rows::*;
use super::{Arg, Loc, Tool, Ty, Verb};

const TRANSFER_ID: Arg = path_id("transferId", "Organization transfer id (trf_...).");

const CONSOLIDATED: Arg = query(
    "consolidated",
    Ty::Bool,
    "true: include the owned sub-organizations, converted into this one's base currency.",
);

pub(super) const TOOLS: &[Tool] = &[
    // Organization (9).
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
    tool(
        "list_sub_organizations",
        "List sub-organizations",
        "List every organization below this one (children, their children, and so on) in tree order, each with its depth and relationship (owned or linked). Use it to find a client organization's id.",
        Verb::Get,
        "/organizations/{organizationId}/sub-organizations",
        &[limit(50), OFFSET],
    ),
    tool(
        "initiate_organization_transfer",
        "Initiate organization transfer",
        "Offer a sub-organization, with everything below it, to another registered user, named by exactly one of toProviderUsername or toEmail (needs admin; never a root organization). Pending for 7 days.",
        Verb::Post,
        "/organizations/{organizationId}/organization-transfers",
        &[
            opt_body(
                "toProviderUsername",
                Ty::Str,
                "Recipient's sign-in provider username (any case).",
            ),
            opt_body("toEmail", Ty::Str, "Recipient's e-mail (any case)."),
        ],
    ),
    tool(
        "list_organization_transfers",
        "List outgoing organization transfers",
        "List ownership transfers sent from this organization or one below it, newest first, with status (pending, accepted, rejected, cancelled, expired), recipient and counts.",
        Verb::Get,
        "/organizations/{organizationId}/organization-transfers",
        &[limit(20), OFFSET],
    ),
    tool(
        "list_incoming_organization_transfers",
        "List incoming organization transfers",
        "List ownership transfers offered to the owner of this root organization, newest first. Needs a key of a root organization; accept or reject the pending ones by id.",
        Verb::Get,
        "/organizations/{organizationId}/organization-transfers/incoming",
        &[limit(20), OFFSET],
    ),
    tool(
        "accept_organization_transfer",
        "Accept organization transfer",
        "Accept a pending ownership transfer offered to you, with a root organization's key: the organization and its subtree move under your root as owned (consolidated) or linked. Needs admin.",
        Verb::Post,
        "/organizations/{organizationId}/organization-transfers/{transferId}/accept",
        &[
            TRANSFER_ID,
            req_body(
                "relationship",
                Ty::Enum(&["owned", "linked"]),
                "owned (consolidated into your reports) or linked.",
            ),
        ],
    ),
    tool(
        "reject_organization_transfer",
        "Reject organization transfer",
        "Reject a pending ownership transfer offered to you (a root organization's key, needs admin). The organization stays with its sender. Returns the transfer, now rejected.",
        Verb::Post,
        "/organizations/{organizationId}/organization-transfers/{transferId}/reject",
        &[TRANSFER_ID],
    ),
    tool(
        "cancel_organization_transfer",
        "Cancel organization transfer",
        "Cancel a pending ownership transfer you sent, with a key of the transferred organization or an ancestor (needs admin). Returns the transfer, now cancelled.",
        Verb::Post,
        "/organizations/{organizationId}/organization-transfers/{transferId}/cancel",
        &[TRANSFER_ID],
    ),
    // Reporting (3).
    tool(
        "get_trial_balance",
        "Get trial balance",
        "Get the trial balance: every account's debit, credit and net from posted entries, as of a date (default now). Total debits always equal total credits. Use it to check the books.",
        Verb::Get,
        "/organizations/{organizationId}/reports/trial-balance",
        &[
            query(
                "asOf",
                Ty::DateOrTime,
                "Include entries up to the end of this date.",
            ),
            CONSOLIDATED,
        ],
    ),
    tool(
        "get_balance_sheet",
        "Get balance sheet",
        "Get the balance sheet as of a date: assets, liabilities and equity (with current earnings) by account and in total. Use it to report financial position at a period end.",
        Verb::Get,
        "/organizations/{organizationId}/reports/balance-sheet",
        &[
            query("asOf", Ty::DateOrTime, "Position at the end of this date."),
            CONSOLIDATED,
        ],
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
            CONSOLIDATED,
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
    // Credits (3 of 5; the x402 pair is not built).
    tool(
        "get_credit_balance",
        "Get credit balance",
        "Get the organization's credit pool: credits remaining, the free monthly allowance and purchased credits left (purchased ones survive the monthly reset), and when it resets.",
        Verb::Get,
        "/organizations/{organizationId}/credits",
        &[],
    ),
    tool(
        "list_credit_packages",
        "List credit packages",
        "List the credit packages on sale: credits per package and price in cents. Use it before purchase_credits to pick a creditAmount; one write costs one credit.",
        Verb::Get,
        "/organizations/{organizationId}/credits/packages",
        &[],
    ),
    purchase(tool(
        "purchase_credits",
        "Purchase credits",
        "Open a hosted checkout for a credit package (needs admin). Answers checkout_url for a person to open and pay, credits_to_add, price_cents and expires_at; credits are added once paid.",
        Verb::Post,
        "/organizations/{organizationId}/credits/purchases",
        &[
            req_body(
                "creditAmount",
                Ty::Int,
                "Credits to buy: the size of a package from list_credit_packages.",
            ),
            opt_body(
                "successUrl",
                Ty::Str,
                "Where the buyer returns after paying (absolute http(s) URL).",
            ),
            opt_body(
                "cancelUrl",
                Ty::Str,
                "Where the buyer returns when cancelling (absolute http(s) URL).",
            ),
        ],
    )),
    x402(tool(
        "start_x402_credit_purchase",
        "Start an x402 credit purchase",
        "Ask to buy a credit package with x402 (needs admin). Answers isError with the x402 PaymentRequired (USDC amount, payTo, network); sign it and call complete_x402_credit_purchase.",
        Verb::Post,
        "/organizations/{masterOrganizationId}/credits/x402",
        &[MASTER_ORGANIZATION_ID, X402_CREDIT_AMOUNT],
    )),
    x402(tool(
        "complete_x402_credit_purchase",
        "Complete an x402 credit purchase",
        "Pay for a credit package with a signed x402 payment (base64 PAYMENT-SIGNATURE) and add its credits; a payment is used once. Returns the purchase and the settlement in _meta.",
        Verb::Post,
        "/organizations/{masterOrganizationId}/credits/x402",
        &[
            MASTER_ORGANIZATION_ID,
            X402_CREDIT_AMOUNT,
            Arg {
                required_of_agents_only: true,
                ..arg(
                    "paymentSignatureB64",
                    Ty::Str,
                    Loc::Header("PAYMENT-SIGNATURE"),
                    true,
                    "The x402 PaymentPayload (signed EIP-3009 authorization for the requirements start_x402_credit_purchase gave), JSON in standard base64.",
                )
            },
        ],
    )),
];

/// The organization whose pool x402 purchases fill (its root's, for a sub-organization).
const MASTER_ORGANIZATION_ID: Arg = path_id(
    "masterOrganizationId",
    "Organization buying the credits (org_...); credits go to its root organization's pool.",
);

const X402_CREDIT_AMOUNT: Arg = req_body(
    "creditAmount",
    Ty::Int,
    "Credits to buy: the size of a package from list_credit_packages.",
);
