//! Status rules: which changes a document's status allows, and where a payment leads.

use crate::error::{DomainError, ErrorCode};

use super::{Document, DocumentKind, DocumentStatus};

/// The status after a payment of `amount` (already checked against the balance due).
pub fn status_after_payment(doc: &Document, amount: i64) -> DocumentStatus {
    if doc.amount_paid + amount >= doc.total {
        DocumentStatus::Paid
    } else {
        DocumentStatus::PartiallyPaid
    }
}

/// Checks that a payment of `amount` may be recorded on `doc`.
///
/// # Errors
/// `invalid_state_transition` unless the document is posted and unpaid; `overpayment` above
/// the balance due.
pub fn check_payment(doc: &Document, amount: i64, decimals: u32) -> Result<(), DomainError> {
    if !doc.status.awaits_payment() {
        let why = match doc.status {
            DocumentStatus::Draft => format!(
                "{} {} is a draft; {} it before recording a payment",
                doc.kind.as_str(),
                doc.number,
                match doc.kind {
                    DocumentKind::Invoice => "send",
                    DocumentKind::Bill => "approve",
                }
            ),
            other => format!(
                "{} {} is {} and takes no payment",
                doc.kind.as_str(),
                doc.number,
                other.as_str()
            ),
        };
        return Err(DomainError::rule(ErrorCode::InvalidStateTransition, why));
    }
    if amount > doc.balance_due() {
        return Err(DomainError::rule(
            ErrorCode::Overpayment,
            format!(
                "the payment of {} exceeds the balance due of {}",
                crate::money::format_units(amount, decimals),
                crate::money::format_units(doc.balance_due(), decimals)
            ),
        ));
    }
    Ok(())
}

/// Checks that `doc` may be voided: a draft, or posted without payments.
///
/// # Errors
/// `invalid_state_transition` otherwise.
pub fn check_void(doc: &Document) -> Result<(), DomainError> {
    let ok = doc.status == DocumentStatus::Draft
        || (doc.status.awaits_payment() && doc.amount_paid == 0);
    if ok {
        Ok(())
    } else {
        Err(DomainError::rule(
            ErrorCode::InvalidStateTransition,
            format!(
                "{} {} is {}{}; only a draft or an unpaid {} can be voided",
                doc.kind.as_str(),
                doc.number,
                doc.status.as_str(),
                if doc.amount_paid > 0 {
                    " with payments"
                } else {
                    ""
                },
                doc.kind.as_str()
            ),
        ))
    }
}

/// Checks that `doc` is a draft (update, delete, issue).
///
/// # Errors
/// `invoice_not_draft` (invoices) or `invalid_state_transition` (bills).
pub fn check_draft(doc: &Document, action: &str) -> Result<(), DomainError> {
    if doc.status == DocumentStatus::Draft {
        Ok(())
    } else {
        Err(DomainError::rule(
            doc.kind.not_draft_code(),
            format!(
                "{} {} is {}; only a draft can be {action}",
                doc.kind.as_str(),
                doc.number,
                doc.status.as_str()
            ),
        ))
    }
}
