//! The writes of invoices and bills through GraphQL: the item input objects, creating a
//! document, paying it and the issue-like transitions, each run and read back.

use juniper::{GraphQLInputObject, ID};
use ledger_domain::DomainError;
use ledger_domain::documents::DocumentKind;
use ledger_domain::ports::Store;
use ledger_domain::services::{DocumentInput, DocumentItemInput, PaymentInput, Write};

use super::{DocumentNode, PaymentNode, date_of, plural};
use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql, field_error};
use crate::scalars::{DateTime, Decimal};

/// The input object of one item of a new document of a kind: the same fields for
/// invoices and bills, with the kind's default account named in `account_id`'s doc.
macro_rules! document_item_input {
    ($(#[$doc:meta])* $name:ident, $account_doc:literal) => {
        $(#[$doc])*
        #[derive(Debug, GraphQLInputObject)]
        pub struct $name {
            pub description: String,
            /// Positive, up to 4 decimals.
            pub quantity: Decimal,
            /// Not negative, at most the currency's decimals.
            pub unit_price: Decimal,
            /// The client's catalog reference, kept as given.
            pub item_id: Option<String>,
            #[doc = $account_doc]
            pub account_id: Option<ID>,
            /// Taxes applied in this order (at most 5).
            pub tax_ids: Option<Vec<ID>>,
            /// A category the line is booked under.
            pub category_id: Option<ID>,
        }

        impl From<$name> for DocumentItemInput {
            fn from(i: $name) -> Self {
                DocumentItemInput {
                    description: Some(i.description),
                    quantity: Some(i.quantity.0),
                    unit_price: Some(i.unit_price.0),
                    item_id: i.item_id,
                    account_id: i.account_id.map(|id| id.to_string()),
                    tax_ids: i
                        .tax_ids
                        .unwrap_or_default()
                        .into_iter()
                        .map(|id| id.to_string())
                        .collect(),
                    category_id: i.category_id.map(|id| id.to_string()),
                }
            }
        }
    };
}

document_item_input!(
    /// One item of a new invoice.
    InvoiceItemInput,
    " A revenue account (default Sales 4000)."
);
document_item_input!(
    /// One item of a new bill.
    BillItemInput,
    " An expense or asset account (default General Expenses 5000)."
);

/// Creates a document (5 credits), runs its job and reads it back.
pub(crate) async fn create<St: Store>(
    context: &Ctx<St>,
    kind: DocumentKind,
    contact_id: ID,
    issue_date: DateTime,
    due_date: DateTime,
    items: Vec<DocumentItemInput>,
    notes: Option<String>,
) -> GqlResult<DocumentNode<St>> {
    let access = context
        .own(ledger_domain::organizations::Scope::Write, plural(kind))
        .await?;
    let input = DocumentInput {
        contact_id: Some(contact_id.to_string()),
        issue_date: Some(date_of(&issue_date)),
        due_date: Some(date_of(&due_date)),
        items: Some(items),
        notes: Some(notes),
    };
    let write = Write::CreateDocument { kind, input };
    let view = context
        .submit_and_read(&access, write, async |access, id| {
            context.ledger.document_view(access, kind, id).await
        })
        .await?;
    Ok(DocumentNode::one(
        &access,
        view,
        context.ledger.now().date(),
    ))
}

/// Records a payment (2 credits), runs its job and reads the payment back.
#[expect(
    clippy::too_many_arguments,
    reason = "one argument per GraphQL argument"
)]
pub(crate) async fn pay<St: Store>(
    context: &Ctx<St>,
    kind: DocumentKind,
    document_id: ID,
    amount: Decimal,
    payment_date: DateTime,
    payment_method: String,
    reference: Option<String>,
    notes: Option<String>,
    account_id: Option<ID>,
) -> GqlResult<PaymentNode> {
    let access = context
        .own(ledger_domain::organizations::Scope::Write, plural(kind))
        .await?;
    let input = PaymentInput {
        amount: amount.0,
        payment_date: Some(date_of(&payment_date)),
        payment_method: Some(payment_method),
        reference,
        notes,
        account_id: account_id.map(|id| id.to_string()),
    };
    let document_id = document_id.to_string();
    let write = Write::RecordPayment {
        kind,
        id: document_id.clone(),
        payment: input,
    };
    let payment_id = crate::context::id_of(&context.submit(&access, write).await?)?;
    let view = context
        .ledger
        .document_view(&access, kind, &document_id)
        .await
        .gql()?;
    view.payments
        .into_iter()
        .find(|p| p.id == payment_id)
        .map(PaymentNode)
        .ok_or_else(|| {
            field_error(DomainError::Internal(format!(
                "payment {payment_id} is not among its document's payments"
            )))
        })
}

/// Sends an invoice or approves a bill (1 credit, as REST): it is posted to the books.
pub(crate) async fn issue<St: Store>(
    context: &Ctx<St>,
    kind: DocumentKind,
    id: &str,
) -> GqlResult<DocumentNode<St>> {
    let access = context
        .own(ledger_domain::organizations::Scope::Write, plural(kind))
        .await?;
    let write = Write::IssueDocument {
        kind,
        id: id.to_owned(),
    };
    context.submit(&access, write).await?;
    let view = context
        .ledger
        .document_view(&access, kind, id)
        .await
        .gql()?;
    Ok(DocumentNode::one(
        &access,
        view,
        context.ledger.now().date(),
    ))
}
