//! Reconciliations with their matches, and statement lines with what they are matched
//! (or proposed) to.

use serde_json::{Value, json};

use super::{amount, date, opt_timestamp, timestamp};

/// A reconciliation (balances in the account type's normal direction, DECISIONS 8):
/// the difference is computed here, on every read, from the matches.
pub fn reconciliation(r: &crate::reconciliation::Reconciliation) -> Value {
    let money = |units: i64| amount(units, &r.currency);
    let matches: Vec<Value> = r
        .matches
        .iter()
        .map(|m| {
            json!({
                "entry_id": m.entry_id,
                "transaction_id": m.transaction_id,
                "date": date(m.date),
                "amount": money(m.amount),
                "description": m.description,
                "statement_line_id": m.statement_line_id,
                "matched_at": timestamp(m.matched_at),
            })
        })
        .collect();
    json!({
        "id": r.id,
        "object": "reconciliation",
        "organization_id": r.organization_id,
        "account_id": r.account_id,
        "currency": r.currency,
        "start_date": date(r.start_date),
        "end_date": date(r.end_date),
        "opening_balance": money(r.opening_balance),
        "closing_balance": money(r.closing_balance),
        "cleared_balance": money(r.cleared_balance()),
        "difference": money(r.difference()),
        "status": r.status.as_str(),
        "matched_count": r.matches.len(),
        "matches": matches,
        "completed_at": opt_timestamp(r.completed_at),
        "created_at": timestamp(r.created_at),
        "updated_at": timestamp(r.updated_at),
        "livemode": r.livemode,
    })
}

/// A statement line with what it is matched to, or the match proposed for it.
pub fn statement_line(
    l: &crate::reconciliation::StatementLine,
    currency: &str,
    matched: Option<&crate::reconciliation::ReconciledEntry>,
    proposal: Option<&crate::reconciliation::matcher::Proposal>,
) -> Value {
    json!({
        "id": l.id,
        "object": "statement_line",
        "reconciliation_id": l.reconciliation_id,
        "line_number": l.line_number,
        "date": date(l.date),
        "amount": amount(l.amount, currency),
        "description": l.description,
        "reference": l.reference,
        "status": if matched.is_some() { "matched" } else { "unmatched" },
        "matched_entry_id": matched.map(|m| m.entry_id.clone()),
        "matched_transaction_id": matched.map(|m| m.transaction_id.clone()),
        "proposal": proposal.map(|p| json!({
            "entry_id": p.entry_id,
            "transaction_id": p.transaction_id,
            "confidence": p.confidence_text(),
            "reason": p.reason,
        })),
    })
}
