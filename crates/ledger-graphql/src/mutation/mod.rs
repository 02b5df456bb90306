//! The mutation root (spec 4.12) with its credit costs: account create/update 1
//! (synchronous), account delete 1 (queued), transaction create 2, contact
//! create/update/delete 1 each (queued), invoice/bill create 5 and invoice/bill
//! payment 2 (queued). Queued writes are run and awaited, so the
//! mutation answers what it wrote.
//!
//! Every field is nullable: a refused alias answers `null` with its error (naming its
//! path) and the other aliases of the operation keep their results. Mutations run in
//! document order.
//! `purchaseCredits` is free and needs `admin`: it opens a hosted checkout and answers
//! its URL; the credits are added when the payment is confirmed. The x402 pair
//! (`startX402CreditPurchase`, `completeX402CreditPurchase`) is free and needs `admin`
//! too, and runs the same domain call as REST's x402 endpoint.
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl. The fields are
//! written by resource, in the resource's module, inside macros that each append their
//! fields to the fields gathered so far and hand them on to the next macro named; the
//! last, `mutation_root`, writes the impl. The bodies are expanded here, so the names they
//! use are this module's imports.

mod accounts;
mod contacts;
mod credits;
mod documents;
mod exchange;
mod ownership;
mod reconciliations;
mod recurring;
mod transactions;
mod transfers;
mod webhooks;

use std::marker::PhantomData;

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::contacts::ContactChanges;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{
    AccountChanges, NewAccountInput, NewContactInput, NewTransactionInput, Write,
};

use self::accounts::account_fields;
use self::contacts::{contact_change_fields, contact_create_fields};
use self::credits::credit_fields;
use self::documents::{document_create_fields, document_posting_fields};
use self::exchange::exchange_rate_fields;
use self::ownership::ownership_fields;
use self::reconciliations::{reconciliation_fields, statement_fields};
use self::recurring::recurring_fields;
use self::transactions::{
    batch_nodes, entry_inputs, transaction_batch_fields, transaction_create_fields,
    transaction_state_fields, written_transaction,
};
use self::transfers::{transfer_fields, written_transfer};
use self::webhooks::webhook_fields;
use crate::context::Ctx;
use crate::documents::{BillItemInput, BillNode, InvoiceItemInput, InvoiceNode, PaymentNode};
use crate::errors::{GqlResult, IntoGql};
use crate::exchange::ExchangeRateNode;
use crate::nodes::{
    AccountNode, AccountStatus, AccountType, ContactNode, ContactType, TransactionNode,
};
use crate::ownership::{OrganizationRelationship, OrganizationTransferNode};
use crate::reconciliations::{ReconciliationNode, StatementImportNode, StatementLineNode};
use crate::scalars::{DateTime, Decimal, Json};
use crate::transfers::TransferNode;
use ledger_domain::documents::DocumentKind;
use ledger_domain::services::ReconciliationChanges;
use ledger_domain::services::TransferInput;

pub use self::transactions::{LedgerEntryInput, TransactionInput};

/// The mutation root.
pub struct Mutation<St>(pub(crate) PhantomData<fn() -> St>);

/// Writes the one impl of the mutation root with the fields gathered (`[...]`).
macro_rules! mutation_root {
    ([$($fields:tt)*]) => {
        /// The mutation root.
        #[graphql_object(name = "Mutation", context = Ctx<St>, scalar = DefaultScalarValue)]
        impl<St: Store> Mutation<St> {
            $($fields)*
        }
    };
}

// The fields in the schema's order.
credit_fields! {
    []
    account_fields
    transaction_create_fields
    transaction_batch_fields
    transaction_state_fields
    transfer_fields
    contact_create_fields
    contact_change_fields
    document_create_fields
    document_posting_fields
    exchange_rate_fields
    ownership_fields
    recurring_fields
    webhook_fields
    reconciliation_fields
    statement_fields
    mutation_root
}
