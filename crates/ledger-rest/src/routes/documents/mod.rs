//! Invoices and bills (spec 4.10, DECISIONS 4-5, 7): one set of handlers for both kinds.
//!
//! Creates, updates, deletes, sends/approvals, voids and bill payments are queued writes;
//! an invoice payment answers synchronously with the payment (spec 4.10), through the same
//! queue.
//!
//! `bodies` holds the document body both kinds share, `writes` the writes (with
//! the payment body), `reads` the reads; `operations` states the OpenAPI operations of
//! the handlers (and of the PDF, `super::pdf`), each once for both kinds.

mod bodies;
mod operations;
mod reads;
mod writes;

use ledger_domain::documents::DocumentKind;
use ledger_domain::ports::Store;

use self::reads::{get, history, list, payments};
use self::writes::{create, delete, issue, pay, update, void};
use super::{Routes, at};

/// Which kind of document a route serves.
pub(super) trait Kind: 'static {
    const KIND: DocumentKind;
    /// The plural path segment and permission resource (`invoices`, `bills`).
    const PLURAL: &'static str;
    /// The action that posts a draft (`send`, `approve`).
    const ISSUE: &'static str;
}

pub(super) struct Invoices;
pub(super) struct Bills;

impl Kind for Invoices {
    const KIND: DocumentKind = DocumentKind::Invoice;
    const PLURAL: &'static str = "invoices";
    const ISSUE: &'static str = "send";
}

impl Kind for Bills {
    const KIND: DocumentKind = DocumentKind::Bill;
    const PLURAL: &'static str = "bills";
    const ISSUE: &'static str = "approve";
}

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    routes::<S, Invoices>(r);
    routes::<S, Bills>(r);
}

fn routes<S: Store, K: Kind>(r: &mut Routes<'_>) {
    let base = format!("/organizations/{{org}}/{}", K::PLURAL);
    r.add(at(base.clone()).get(list::<S, K>).post(create::<S, K>))
        .add(
            at(format!("{base}/{{id}}"))
                .get(get::<S, K>)
                .put(update::<S, K>)
                .delete(delete::<S, K>),
        )
        .add(at(format!("{base}/{{id}}/{}", K::ISSUE)).post(issue::<S, K>))
        .add(at(format!("{base}/{{id}}/void")).post(void::<S, K>))
        .add(
            at(format!("{base}/{{id}}/payments"))
                .get(payments::<S, K>)
                .post(pay::<S, K>),
        )
        .add(at(format!("{base}/{{id}}/history")).get(history::<S, K>))
        .add(at(format!("{base}/{{id}}/pdf")).get(super::pdf::pdf::<S, K>));
}

pub(crate) use operations::*;
