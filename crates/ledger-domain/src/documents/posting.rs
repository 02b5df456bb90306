//! The balanced postings a document's issue and payments make.

use crate::accounts::EntryType;
use crate::transactions::EntryLine;

use super::{Document, DocumentKind};

/// The accounts a document posts to besides its items' accounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostingAccounts {
    /// Accounts Receivable (invoice) or Accounts Payable (bill).
    pub control: String,
    /// Where invoice taxes are credited (Sales Tax Payable) or bill taxes debited
    /// (a recoverable-tax account). `None` for a bill: its taxes add to each line's
    /// expense account.
    pub tax: Option<String>,
}

fn push_line(lines: &mut Vec<EntryLine>, account: &str, side: EntryType, amount: i64) {
    if amount == 0 {
        return;
    }
    match lines
        .iter_mut()
        .find(|l| l.account_id == account && l.entry_type == side)
    {
        Some(line) => line.amount += amount,
        None => lines.push(EntryLine {
            account_id: account.to_owned(),
            entry_type: side,
            amount,
            description: None,
            currency: None,
        }),
    }
}

/// The balanced posting of issuing a document. Invoice: Dr receivable (total), Cr each
/// line's revenue account (amount), Cr sales tax payable (tax). Bill: Dr each line's
/// account (amount, plus its tax when no recoverable-tax account is set), Dr the
/// recoverable-tax account (tax) when set, Cr payable (total). Lines on the same account
/// and side are merged.
pub fn issue_entries(doc: &Document, accounts: &PostingAccounts) -> Vec<EntryLine> {
    let (item_side, control_side) = match doc.kind {
        DocumentKind::Invoice => (EntryType::Credit, EntryType::Debit),
        DocumentKind::Bill => (EntryType::Debit, EntryType::Credit),
    };
    let mut lines = Vec::new();
    push_line(&mut lines, &accounts.control, control_side, doc.total);
    for item in &doc.items {
        match &accounts.tax {
            Some(_) => push_line(&mut lines, &item.account_id, item_side, item.amount),
            None => push_line(&mut lines, &item.account_id, item_side, item.line_total()),
        }
    }
    if let Some(tax_account) = &accounts.tax {
        push_line(&mut lines, tax_account, item_side, doc.tax_amount);
    }
    lines
}

/// The posting of a payment: invoice Dr deposit / Cr receivable; bill Dr payable / Cr the
/// paying account.
pub fn payment_entries(
    kind: DocumentKind,
    amount: i64,
    money_account: &str,
    control: &str,
) -> Vec<EntryLine> {
    let (debit, credit) = match kind {
        DocumentKind::Invoice => (money_account, control),
        DocumentKind::Bill => (control, money_account),
    };
    let mut lines = Vec::new();
    push_line(&mut lines, debit, EntryType::Debit, amount);
    push_line(&mut lines, credit, EntryType::Credit, amount);
    lines
}
