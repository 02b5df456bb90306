//! Bank reconciliations, their imported statement lines and the answer to an import.

#![expect(dead_code, reason = "documentation types: described, never built")]

use serde_json::Value;
use utoipa::ToSchema;

use super::list_of;

/// A bank reconciliation of one account over a period.
#[derive(ToSchema)]
pub(crate) struct Reconciliation {
    id: String,
    #[schema(example = "reconciliation")]
    object: String,
    organization_id: String,
    account_id: String,
    currency: String,
    start_date: String,
    end_date: String,
    opening_balance: String,
    closing_balance: String,
    cleared_balance: String,
    difference: String,
    status: String,
    matched_count: i64,
    matches: Vec<Value>,
    completed_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    livemode: bool,
}

/// A line of an imported bank statement, with its match proposal.
#[derive(ToSchema)]
pub(crate) struct StatementLine {
    id: String,
    #[schema(example = "statement_line")]
    object: String,
    reconciliation_id: String,
    line_number: i64,
    date: String,
    amount: String,
    description: Option<String>,
    reference: Option<String>,
    status: String,
    matched_entry_id: Option<String>,
    matched_transaction_id: Option<String>,
    proposal: Option<Value>,
}

/// The answer to a statement import.
#[derive(ToSchema)]
pub(crate) struct StatementImport {
    #[schema(example = "statement_import")]
    object: String,
}

list_of! {
    ReconciliationList => Reconciliation,
    StatementLineList => StatementLine,
}
