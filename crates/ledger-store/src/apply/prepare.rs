//! An effect turned into the rows it writes, before the transaction opens.

use ledger_domain::events::Deletion;
use ledger_domain::ports::{DocumentEffect, DocumentTransition, Effect};
use ledger_domain::transactions::Transaction;
use time::PrimitiveDateTime;

use crate::rows::{
    ContactRow, DeletionRow, DocumentReferenceRow, DocumentRow, EntryRow, PaymentRow,
    StatusChangeRow, TransactionRow, entry_rows, reference_rows, to_db,
};

/// A transaction and its entry rows, ready to insert.
pub(super) struct NewTransaction {
    pub(super) row: TransactionRow,
    pub(super) entries: Vec<EntryRow>,
}

impl NewTransaction {
    pub(super) fn of(t: &Transaction) -> Self {
        Self {
            row: TransactionRow::from(t),
            entries: entry_rows(t),
        }
    }
}

/// The effect with its rows prepared outside the transaction.
#[expect(
    clippy::large_enum_variant,
    reason = "one short-lived value per applied job: boxing would only add an allocation"
)]
pub(super) enum Prepared {
    Insert(NewTransaction),
    /// A batch's transactions, with every entry row of the batch in one list sorted by
    /// account (see `apply`).
    InsertMany {
        transactions: Vec<NewTransaction>,
        entries: Vec<EntryRow>,
    },
    Replace(NewTransaction),
    Post {
        id: String,
        posted_at: PrimitiveDateTime,
    },
    Reverse {
        id: String,
        reason: String,
        mirror: NewTransaction,
    },
    DeleteTransaction {
        id: String,
        deletion: DeletionRow,
    },
    DeleteAccount {
        id: String,
        deletion: DeletionRow,
    },
    InsertContact(ContactRow),
    ReplaceContact(ContactRow),
    DeleteContact {
        id: String,
        deletion: DeletionRow,
    },
    Document(PreparedDocument),
}

/// A document effect with its rows.
#[expect(
    clippy::large_enum_variant,
    reason = "one short-lived value per applied job: boxing would only add an allocation"
)]
pub(super) enum PreparedDocument {
    Insert {
        row: DocumentRow,
        references: Vec<DocumentReferenceRow>,
        history: StatusChangeRow,
    },
    Replace {
        row: DocumentRow,
        references: Vec<DocumentReferenceRow>,
    },
    Delete {
        id: String,
        deletion: DeletionRow,
    },
    Transition {
        row: DocumentRow,
        expected_status: &'static str,
        expected_paid: i64,
        posting: Option<NewTransaction>,
        reversal: Option<(String, String, NewTransaction)>,
        payment: Option<PaymentRow>,
        history: StatusChangeRow,
    },
}

pub(super) fn prepare_document(effect: DocumentEffect) -> PreparedDocument {
    match effect {
        DocumentEffect::Insert { document, history } => PreparedDocument::Insert {
            row: DocumentRow::from(&document),
            references: reference_rows(&document),
            history: StatusChangeRow::from(&history),
        },
        DocumentEffect::Replace(document) => PreparedDocument::Replace {
            row: DocumentRow::from(&document),
            references: reference_rows(&document),
        },
        DocumentEffect::Delete {
            document_id,
            deletion,
        } => PreparedDocument::Delete {
            id: document_id,
            deletion: DeletionRow::from(&deletion),
        },
        DocumentEffect::Transition(t) => {
            let DocumentTransition {
                document,
                expected_status,
                expected_paid,
                posting,
                reversal,
                payment,
                history,
            } = *t;
            PreparedDocument::Transition {
                row: DocumentRow::from(&document),
                expected_status: expected_status.as_str(),
                expected_paid,
                posting: posting.as_ref().map(NewTransaction::of),
                reversal: reversal
                    .map(|r| (r.transaction_id, r.reason, NewTransaction::of(&r.mirror))),
                payment: payment.as_ref().map(PaymentRow::from),
                history: StatusChangeRow::from(&history),
            }
        }
    }
}

pub(super) fn prepare(effect: Effect) -> Prepared {
    let deletion = |d: &Deletion| DeletionRow::from(d);
    match effect {
        Effect::InsertTransaction(t) => Prepared::Insert(NewTransaction::of(&t)),
        Effect::InsertTransactions(batch) => {
            let mut transactions: Vec<NewTransaction> =
                batch.iter().map(NewTransaction::of).collect();
            let mut entries: Vec<EntryRow> = transactions
                .iter_mut()
                .flat_map(|t| std::mem::take(&mut t.entries))
                .collect();
            entries.sort_by(|a, b| (&a.account_id, a.date).cmp(&(&b.account_id, b.date)));
            Prepared::InsertMany {
                transactions,
                entries,
            }
        }
        Effect::ReplaceTransaction(t) => Prepared::Replace(NewTransaction::of(&t)),
        Effect::PostTransaction {
            transaction_id,
            posted_at,
        } => Prepared::Post {
            id: transaction_id,
            posted_at: to_db(posted_at),
        },
        Effect::ReverseTransaction {
            transaction_id,
            reason,
            mirror,
        } => Prepared::Reverse {
            id: transaction_id,
            reason,
            mirror: NewTransaction::of(&mirror),
        },
        Effect::DeleteTransaction {
            transaction_id,
            deletion: d,
        } => Prepared::DeleteTransaction {
            id: transaction_id,
            deletion: deletion(&d),
        },
        Effect::DeleteAccount {
            account_id,
            deletion: d,
        } => Prepared::DeleteAccount {
            id: account_id,
            deletion: deletion(&d),
        },
        Effect::InsertContact(c) => Prepared::InsertContact(ContactRow::from(&c)),
        Effect::ReplaceContact(c) => Prepared::ReplaceContact(ContactRow::from(&c)),
        Effect::DeleteContact {
            contact_id,
            deletion: d,
        } => Prepared::DeleteContact {
            id: contact_id,
            deletion: deletion(&d),
        },
        Effect::Document(effect) => Prepared::Document(prepare_document(effect)),
    }
}
