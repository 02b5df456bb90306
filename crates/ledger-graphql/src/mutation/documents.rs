//! The invoice and bill fields of the mutation root: create, pay, and send an invoice or
//! approve a bill (`crate::documents` does the work for both kinds).
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends the creates of an invoice and a bill to the fields gathered so far (`[...]`) and
/// hands them on to the next macro named.
macro_rules! document_create_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Creates a draft invoice (5 credits). Dates take a `YYYY-MM-DD` date or a date-time
            /// (its UTC date).
            async fn create_invoice(
                context: &Ctx<St>,
                contact_id: ID,
                invoice_date: DateTime,
                due_date: DateTime,
                items: Vec<InvoiceItemInput>,
                notes: Option<String>,
            ) -> GqlResult<Option<InvoiceNode<St>>> {
                let items = items.into_iter().map(Into::into).collect();
                let node = crate::documents::create(
                    context,
                    DocumentKind::Invoice,
                    contact_id,
                    invoice_date,
                    due_date,
                    items,
                    notes,
                )
                .await?;
                Ok(Some(InvoiceNode(node)))
            }

            /// Creates a draft bill (5 credits).
            async fn create_bill(
                context: &Ctx<St>,
                contact_id: ID,
                bill_date: DateTime,
                due_date: DateTime,
                items: Vec<BillItemInput>,
                notes: Option<String>,
            ) -> GqlResult<Option<BillNode<St>>> {
                let items = items.into_iter().map(Into::into).collect();
                let node = crate::documents::create(
                    context,
                    DocumentKind::Bill,
                    contact_id,
                    bill_date,
                    due_date,
                    items,
                    notes,
                )
                .await?;
                Ok(Some(BillNode(node)))
            }

        ] $($rest)* }
    };
}
pub(super) use document_create_fields;

/// Appends the writes that post a document or its payment to the books to the fields
/// gathered so far (`[...]`) and hands them on to the next macro named.
macro_rules! document_posting_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Records a payment on a sent invoice (2 credits). The money goes into `accountId`
            /// (an asset account in the invoice's currency; default Cash).
            #[expect(
                clippy::too_many_arguments,
                reason = "one argument per GraphQL argument"
            )]
            async fn record_invoice_payment(
                context: &Ctx<St>,
                invoice_id: ID,
                amount: Decimal,
                payment_date: DateTime,
                payment_method: String,
                reference: Option<String>,
                notes: Option<String>,
                account_id: Option<ID>,
            ) -> GqlResult<Option<PaymentNode>> {
                let payment = crate::documents::pay(
                    context,
                    DocumentKind::Invoice,
                    invoice_id,
                    amount,
                    payment_date,
                    payment_method,
                    reference,
                    notes,
                    account_id,
                )
                .await?;
                Ok(Some(payment))
            }

            /// Records a payment on an approved bill (2 credits). The money leaves `accountId`
            /// (an asset account in the bill's currency; default Cash).
            #[expect(
                clippy::too_many_arguments,
                reason = "one argument per GraphQL argument"
            )]
            async fn record_bill_payment(
                context: &Ctx<St>,
                bill_id: ID,
                amount: Decimal,
                payment_date: DateTime,
                payment_method: String,
                reference: Option<String>,
                notes: Option<String>,
                account_id: Option<ID>,
            ) -> GqlResult<Option<PaymentNode>> {
                let payment = crate::documents::pay(
                    context,
                    DocumentKind::Bill,
                    bill_id,
                    amount,
                    payment_date,
                    payment_method,
                    reference,
                    notes,
                    account_id,
                )
                .await?;
                Ok(Some(payment))
            }

            /// Sends a draft invoice: it is posted to the books (1 credit; beyond spec 4.12's
            /// table, as REST's `POST /invoices/{id}/send`).
            async fn send_invoice(context: &Ctx<St>, id: ID) -> GqlResult<Option<InvoiceNode<St>>> {
                let node = crate::documents::issue(context, DocumentKind::Invoice, &id).await?;
                Ok(Some(InvoiceNode(node)))
            }

            /// Approves a draft bill: it is posted to the books (1 credit; beyond spec 4.12's
            /// table, as REST's `POST /bills/{id}/approve`).
            async fn approve_bill(context: &Ctx<St>, id: ID) -> GqlResult<Option<BillNode<St>>> {
                let node = crate::documents::issue(context, DocumentKind::Bill, &id).await?;
                Ok(Some(BillNode(node)))
            }

        ] $($rest)* }
    };
}
pub(super) use document_posting_fields;
