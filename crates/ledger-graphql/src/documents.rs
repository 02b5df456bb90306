//! Invoices, bills and their payments (spec 2.8, 4.12): `InvoiceNode`, `BillNode`,
//! `PaymentNode` and the item types, their input objects and the shared write helpers.
//!
//! Document dates are calendar dates in the domain; GraphQL's `DateTime` carries them as
//! midnight UTC on output and takes a date-time (its UTC date) or a `YYYY-MM-DD` date on
//! input. A list of documents resolves its contacts in one read.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::DomainError;
use ledger_domain::contacts::Contact;
use ledger_domain::documents::{DocumentItem, DocumentKind, DocumentStatus, Payment};
use ledger_domain::ports::{DocumentFilter, Store};
use ledger_domain::services::{Access, DocumentView};
use time::{Date, Time};
use tokio::sync::OnceCell;

use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql, field_error};
use crate::nodes::{ContactNode, decimal, page};
use crate::scalars::{DateTime, Decimal};

mod writes;

pub use writes::{BillItemInput, InvoiceItemInput};
pub(crate) use writes::{create, issue, pay};

/// A calendar date as a `DateTime` (midnight UTC).
fn midnight(date: Date) -> DateTime {
    DateTime::at(date.with_time(Time::MIDNIGHT).assume_utc())
}

/// The UTC calendar date of a `DateTime` input.
pub(crate) fn date_of(value: &DateTime) -> Date {
    value.0.at.date()
}

/// The contacts of a list of documents, read once for the whole list.
pub(crate) struct ContactBatch {
    access: Access,
    ids: Vec<String>,
    loaded: OnceCell<HashMap<String, Contact>>,
}

impl ContactBatch {
    fn new(access: Access, ids: Vec<String>) -> Arc<Self> {
        Arc::new(Self {
            access,
            ids,
            loaded: OnceCell::new(),
        })
    }

    async fn get<St: Store>(&self, ctx: &Ctx<St>, id: &str) -> GqlResult<Option<ContactNode>> {
        let loaded = self
            .loaded
            .get_or_try_init(|| async {
                let mut ids = self.ids.clone();
                ids.sort();
                ids.dedup();
                let contacts = ctx.ledger.contacts_by_ids(&self.access, &ids).await.gql()?;
                Ok::<_, juniper::FieldError>(
                    contacts.into_iter().map(|c| (c.id.clone(), c)).collect(),
                )
            })
            .await?;
        Ok(loaded.get(id).cloned().map(ContactNode))
    }
}

/// One document with what its fields need: the contact batch of its list and today's
/// date (for `overdue`).
pub(crate) struct DocumentNode<St> {
    view: DocumentView,
    contacts: Arc<ContactBatch>,
    today: Date,
    _store: PhantomData<fn() -> St>,
}

impl<St> DocumentNode<St> {
    /// Nodes of `views`, sharing one contact batch.
    pub(crate) fn many(access: &Access, views: Vec<DocumentView>, today: Date) -> Vec<Self> {
        let ids = views
            .iter()
            .map(|v| v.document.contact_id.clone())
            .collect();
        let contacts = ContactBatch::new(access.clone(), ids);
        views
            .into_iter()
            .map(|view| Self {
                view,
                contacts: Arc::clone(&contacts),
                today,
                _store: PhantomData,
            })
            .collect()
    }

    pub(crate) fn one(access: &Access, view: DocumentView, today: Date) -> Self {
        let mut many = Self::many(access, vec![view], today);
        // `many` of one view has exactly one node.
        many.swap_remove(0)
    }

    fn currency(&self) -> &str {
        &self.view.document.currency
    }
}

/// An invoice (spec 2.8).
pub struct InvoiceNode<St>(pub(crate) DocumentNode<St>);

/// A bill (spec 2.8).
pub struct BillNode<St>(pub(crate) DocumentNode<St>);

/// The fields invoices and bills share; only the number and date fields are named
/// after the kind.
macro_rules! document_object {
    ($node:ident, $name:literal, $doc:literal, $number:ident, $date:ident) => {
        #[doc = $doc]
        #[graphql_object(name = $name, context = Ctx<St>, scalar = DefaultScalarValue)]
        impl<St: Store> $node<St> {
            fn id(&self) -> ID {
                ID::new(&self.0.view.document.id)
            }
            /// `INV-000001` / `BILL-000001` (prefix from the organization's settings).
            fn $number(&self) -> &str {
                &self.0.view.document.number
            }
            fn contact_id(&self) -> ID {
                ID::new(&self.0.view.document.contact_id)
            }
            /// The contact (`null` once it is deleted); a list reads its contacts at once.
            async fn contact(&self, context: &Ctx<St>) -> GqlResult<Option<ContactNode>> {
                self.0
                    .contacts
                    .get(context, &self.0.view.document.contact_id)
                    .await
            }
            /// The issue date, as midnight UTC.
            fn $date(&self) -> DateTime {
                midnight(self.0.view.document.issue_date)
            }
            /// The due date, as midnight UTC.
            fn due_date(&self) -> DateTime {
                midnight(self.0.view.document.due_date)
            }
            /// `draft`, `sent` (invoice) / `open` (bill), `partially_paid`, `paid`, `void`,
            /// or `overdue` when the due date has passed with a balance due.
            fn status(&self) -> &str {
                self.0.view.document.display_status(self.0.today)
            }
            /// ISO 4217 code (the contact's currency).
            fn currency(&self) -> &str {
                self.0.currency()
            }
            fn subtotal(&self) -> Decimal {
                decimal(self.0.view.document.subtotal, self.0.currency())
            }
            fn tax_amount(&self) -> Decimal {
                decimal(self.0.view.document.tax_amount, self.0.currency())
            }
            fn total(&self) -> Decimal {
                decimal(self.0.view.document.total, self.0.currency())
            }
            fn amount_paid(&self) -> Decimal {
                decimal(self.0.view.document.amount_paid, self.0.currency())
            }
            fn balance_due(&self) -> Decimal {
                decimal(self.0.view.document.balance_due(), self.0.currency())
            }
            fn notes(&self) -> Option<&str> {
                self.0.view.document.notes.as_deref()
            }
            /// Files kept with the document (upload through REST), oldest first.
            async fn attachments(
                &self,
                context: &Ctx<St>,
            ) -> GqlResult<Vec<crate::nodes::AttachmentNode>> {
                let document = &self.0.view.document;
                let tenant = ledger_domain::ports::Tenant {
                    organization_id: document.organization_id.clone(),
                    livemode: document.livemode,
                };
                let owner = match document.kind {
                    ledger_domain::documents::DocumentKind::Invoice => {
                        ledger_domain::attachments::OwnerKind::Invoice
                    }
                    ledger_domain::documents::DocumentKind::Bill => {
                        ledger_domain::attachments::OwnerKind::Bill
                    }
                };
                crate::nodes::attachment_nodes(context, &tenant, owner, &document.id).await
            }
            fn items(&self) -> Vec<DocumentItemNode> {
                self.0
                    .view
                    .document
                    .items
                    .iter()
                    .map(|item| DocumentItemNode {
                        item: item.clone(),
                        currency: self.0.currency().to_owned(),
                    })
                    .collect()
            }
            /// Payments, oldest first.
            fn payments(&self) -> Vec<PaymentNode> {
                self.0
                    .view
                    .payments
                    .iter()
                    .cloned()
                    .map(PaymentNode)
                    .collect()
            }
            fn created_at(&self) -> DateTime {
                DateTime::at(self.0.view.document.created_at)
            }
            fn updated_at(&self) -> DateTime {
                DateTime::at(self.0.view.document.updated_at)
            }
        }
    };
}

document_object!(
    InvoiceNode,
    "InvoiceNode",
    "An invoice (spec 2.8).",
    invoice_number,
    invoice_date
);
document_object!(
    BillNode,
    "BillNode",
    "A bill (spec 2.8).",
    bill_number,
    bill_date
);

/// One item of an invoice or a bill.
pub struct DocumentItemNode {
    item: DocumentItem,
    currency: String,
}

/// One item of an invoice or a bill.
#[graphql_object(name = "DocumentItemNode", scalar = DefaultScalarValue)]
impl DocumentItemNode {
    fn description(&self) -> &str {
        &self.item.description
    }
    /// Up to 4 decimals, without trailing zeros (`2`, `1.5`).
    fn quantity(&self) -> Decimal {
        Decimal(ledger_domain::views::quantity(self.item.quantity))
    }
    fn unit_price(&self) -> Decimal {
        decimal(self.item.unit_price, &self.currency)
    }
    /// `quantity x unitPrice`, rounded to the minor unit.
    fn amount(&self) -> Decimal {
        decimal(self.item.amount, &self.currency)
    }
    fn tax_amount(&self) -> Decimal {
        decimal(self.item.tax_amount, &self.currency)
    }
    /// Amount plus taxes.
    fn line_total(&self) -> Decimal {
        decimal(self.item.line_total(), &self.currency)
    }
    /// The revenue (invoice) or expense/asset (bill) account the line posts to.
    fn account_id(&self) -> ID {
        ID::new(&self.item.account_id)
    }
    fn tax_ids(&self) -> Vec<ID> {
        self.item.tax_ids.iter().map(ID::new).collect()
    }
    /// The category the line is booked under.
    fn category_id(&self) -> Option<ID> {
        self.item.category_id.as_deref().map(ID::new)
    }
    /// The client's catalog reference, as given.
    fn item_id(&self) -> Option<&str> {
        self.item.item_id.as_deref()
    }
}

/// A payment on an invoice or a bill (spec 2.8).
pub struct PaymentNode(pub Payment);

/// A payment on an invoice or a bill (spec 2.8).
#[graphql_object(name = "PaymentNode", scalar = DefaultScalarValue)]
impl PaymentNode {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    /// The invoice paid (`null` on a bill's payment).
    fn invoice_id(&self) -> Option<ID> {
        (self.0.kind == DocumentKind::Invoice).then(|| ID::new(&self.0.document_id))
    }
    /// The bill paid (`null` on an invoice's payment).
    fn bill_id(&self) -> Option<ID> {
        (self.0.kind == DocumentKind::Bill).then(|| ID::new(&self.0.document_id))
    }
    fn amount(&self) -> Decimal {
        decimal(self.0.amount, &self.0.currency)
    }
    fn currency(&self) -> &str {
        &self.0.currency
    }
    /// The payment date, as midnight UTC.
    fn payment_date(&self) -> DateTime {
        midnight(self.0.payment_date)
    }
    fn payment_method(&self) -> &str {
        &self.0.payment_method
    }
    fn reference(&self) -> Option<&str> {
        self.0.reference.as_deref()
    }
    fn notes(&self) -> Option<&str> {
        self.0.notes.as_deref()
    }
    /// The bank or cash account the money moved through.
    fn account_id(&self) -> ID {
        ID::new(&self.0.account_id)
    }
    /// The posted transaction of the payment.
    fn transaction_id(&self) -> ID {
        ID::new(&self.0.transaction_id)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
}

/// The REST resource name of a kind (permissions and messages).
pub(crate) fn plural(kind: DocumentKind) -> &'static str {
    match kind {
        DocumentKind::Invoice => "invoices",
        DocumentKind::Bill => "bills",
    }
}

/// A document of the key's organization; `None` when there is none with this id.
pub(crate) async fn find<St: Store>(
    context: &Ctx<St>,
    kind: DocumentKind,
    id: &str,
) -> GqlResult<Option<DocumentNode<St>>> {
    let access = context
        .own(ledger_domain::organizations::Scope::Read, plural(kind))
        .await?;
    match context.ledger.document_view(&access, kind, id).await {
        Ok(view) => Ok(Some(DocumentNode::one(
            &access,
            view,
            context.ledger.now().date(),
        ))),
        Err(DomainError::NotFound { .. }) => Ok(None),
        Err(e) => Err(field_error(e)),
    }
}

/// Documents of an organization, newest first (default 20, at most 100), by stored
/// status (`overdue` is not a stored status and is refused as a filter).
pub(crate) async fn list<St: Store>(
    context: &Ctx<St>,
    org_id: &str,
    kind: DocumentKind,
    status: Option<String>,
    limit: Option<i32>,
    offset: Option<i32>,
) -> GqlResult<Vec<DocumentNode<St>>> {
    let access = context
        .access(
            org_id,
            ledger_domain::organizations::Scope::Read,
            plural(kind),
        )
        .await?;
    let status = match status.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(DocumentStatus::parse_filter(kind, text).gql()?),
    };
    let mut request = page(limit, 20)?;
    request.offset = match offset {
        None => 0,
        Some(o) if o >= 0 => i64::from(o),
        Some(_) => {
            return Err(field_error(DomainError::invalid_field(
                "offset",
                "must not be negative",
            )));
        }
    };
    let filter = DocumentFilter {
        status,
        contact_id: None,
    };
    let list = context
        .ledger
        .list_documents(&access, kind, &filter, request)
        .await
        .gql()?;
    Ok(DocumentNode::many(
        &access,
        list.items,
        context.ledger.now().date(),
    ))
}
