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

/// One item of a new invoice.
#[derive(Debug, GraphQLInputObject)]
pub struct InvoiceItemInput {
    pub description: String,
    /// Positive, up to 4 decimals.
    pub quantity: Decimal,
    /// Not negative, at most the currency's decimals.
    pub unit_price: Decimal,
    /// The client's catalog reference, kept as given.
    pub item_id: Option<String>,
    /// A revenue account (default Sales 4000).
    pub account_id: Option<ID>,
    /// Taxes applied in this order (at most 5).
    pub tax_ids: Option<Vec<ID>>,
    /// A category the line is booked under.
    pub category_id: Option<ID>,
}

/// One item of a new bill.
#[derive(Debug, GraphQLInputObject)]
pub struct BillItemInput {
    pub description: String,
    /// Positive, up to 4 decimals.
    pub quantity: Decimal,
    /// Not negative, at most the currency's decimals.
    pub unit_price: Decimal,
    /// The client's catalog reference, kept as given.
    pub item_id: Option<String>,
    /// An expense or asset account (default General Expenses 5000).
    pub account_id: Option<ID>,
    /// Taxes applied in this order (at most 5).
    pub tax_ids: Option<Vec<ID>>,
    /// A category the line is booked under.
    pub category_id: Option<ID>,
}

impl From<InvoiceItemInput> for DocumentItemInput {
    fn from(i: InvoiceItemInput) -> Self {
        item_input(
            i.description,
            i.quantity,
            i.unit_price,
            i.item_id,
            i.account_id,
            i.tax_ids,
            i.category_id,
        )
    }
}

impl From<BillItemInput> for DocumentItemInput {
    fn from(i: BillItemInput) -> Self {
        item_input(
            i.description,
            i.quantity,
            i.unit_price,
            i.item_id,
            i.account_id,
            i.tax_ids,
            i.category_id,
        )
    }
}

fn item_input(
    description: String,
    quantity: Decimal,
    unit_price: Decimal,
    item_id: Option<String>,
    account_id: Option<ID>,
    tax_ids: Option<Vec<ID>>,
    category_id: Option<ID>,
) -> DocumentItemInput {
    DocumentItemInput {
        description: Some(description),
        quantity: Some(quantity.0),
        unit_price: Some(unit_price.0),
        item_id,
        account_id: account_id.map(|id| id.to_string()),
        tax_ids: tax_ids
            .unwrap_or_default()
            .into_iter()
            .map(|id| id.to_string())
            .collect(),
        category_id: category_id.map(|id| id.to_string()),
    }
}

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
