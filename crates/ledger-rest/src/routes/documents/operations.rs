//! The OpenAPI operations of the document handlers: each handler serves both kinds, so
//! utoipa cannot name its operations after it. Each row below states one operation for
//! both kinds: what the two share once (the method, the parameters, the body and the
//! answer), and for each kind its operation id, path below its collection, summary and
//! description, and what it alone takes.

/// Declares the operations of each row: for each kind, a function named after the
/// operation id that only carries its `#[utoipa::path]` (the handler is the row's
/// generic one), tagged and placed under the kind's collection.
macro_rules! document_operations {
    ($(
        $method:ident [$($shared:tt)*]
        invoices $invoice:ident $invoice_path:literal: $invoice_summary:literal,
            $invoice_description:literal $([$($invoice_own:tt)*])?;
        bills $bill:ident $bill_path:literal: $bill_summary:literal,
            $bill_description:literal $([$($bill_own:tt)*])?;
    )+) => {$(
        document_operations!(@one $method "invoices" $invoice $invoice_path,
            $invoice_summary, $invoice_description [$($($invoice_own)*)?] [$($shared)*]);
        document_operations!(@one $method "bills" $bill $bill_path,
            $bill_summary, $bill_description [$($($bill_own)*)?] [$($shared)*]);
    )+};
    (
        @one $method:ident $plural:literal $operation:ident $path:literal,
        $summary:literal, $description:literal [$($own:tt)*] [$($shared:tt)*]
    ) => {
        #[utoipa::path(
            $method,
            path = concat!("/organizations/{org}/", $plural, $path),
            tag = $plural,
            summary = $summary,
            description = $description,
            $($own)*
            $($shared)*
        )]
        #[expect(dead_code, reason = "the OpenAPI operation of a handler that serves both kinds")]
        pub(crate) fn $operation() {}
    };
}

document_operations! {
    get [
        params(
            ("status" = Option<String>, Query, description = "Filter by status."),
            ("contact_id" = Option<String>, Query, description = "Filter by contact id."),
            crate::openapi::params::Paging,
        ),
        responses(
            (status = 200, description = "The resource.", body = crate::openapi::schemas::DocumentList),
        ),
    ]
    invoices invoices_list "": "List invoices",
        "Lists the organization's invoices, newest first, filtered by status and customer.";
    bills bills_list "": "List bills",
        "Lists the organization's bills, newest first, filtered by status and supplier.";

    post [
        params(crate::openapi::params::QueuedWrite),
        responses(
            (status = 201, description = "Created.", body = crate::openapi::schemas::Document),
        ),
    ]
    invoices invoices_create "": "Create a draft invoice",
        "Creates an invoice to a customer as a draft: its lines, taxes and dates. Nothing is posted until it is sent."
        [request_body(content = super::bodies::InvoiceBody, content_type = "application/json"),];
    bills bills_create "": "Create a draft bill",
        "Creates a bill from a supplier as a draft: its lines, taxes and dates. Nothing is posted until it is approved."
        [request_body(content = super::bodies::BillBody, content_type = "application/json"),];

    get [
        responses(
            (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        ),
    ]
    invoices invoices_get "/{id}": "Get an invoice",
        "Returns an invoice with its lines, taxes, totals, the amount paid and the amount due.";
    bills bills_get "/{id}": "Get a bill",
        "Returns a bill with its lines, taxes, totals, the amount paid and the amount due.";

    put [
        params(crate::openapi::params::QueuedWrite),
        responses(
            (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        ),
    ]
    invoices invoices_update "/{id}": "Update a draft invoice",
        "Changes a draft invoice: its customer, dates, lines and taxes. A sent invoice cannot change."
        [request_body(content = super::bodies::InvoiceUpdateBody, content_type = "application/json"),];
    bills bills_update "/{id}": "Update a draft bill",
        "Changes a draft bill: its supplier, dates, lines and taxes. An approved bill cannot change."
        [request_body(content = super::bodies::BillUpdateBody, content_type = "application/json"),];

    // A bill delete is answered synchronously (`super::writes`), so it takes no `Prefer`.
    delete [
        responses(
            (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
        ),
        security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
    ]
    invoices invoices_delete "/{id}": "Delete a draft invoice",
        "Soft-deletes an invoice that is still a draft; a sent invoice is voided instead."
        [params(crate::openapi::params::QueuedWrite),];
    bills bills_delete "/{id}": "Delete a draft bill",
        "Soft-deletes a bill that is still a draft; an approved bill is voided instead.";

    post [
        params(crate::openapi::params::QueuedWrite),
        responses(
            (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        ),
    ]
    invoices invoices_send "/{id}/send": "Send a draft invoice (posts it)",
        "Sends a draft invoice: it is posted to the books (the receivable against its lines' accounts) and becomes open for payment.";
    bills bills_approve "/{id}/approve": "Approve a draft bill (posts it)",
        "Approves a draft bill: it is posted to the books (the payable against its lines' accounts) and becomes open for payment.";

    post [
        params(crate::openapi::params::QueuedWrite),
        responses(
            (status = 200, description = "The resource.", body = crate::openapi::schemas::Document),
        ),
    ]
    invoices invoices_void "/{id}/void": "Void an invoice",
        "Voids an invoice: a draft simply ends; a sent invoice without payments has its posting reversed.";
    bills bills_void "/{id}/void": "Void a bill",
        "Voids a bill: a draft simply ends; an approved bill without payments has its posting reversed.";

    get [
        responses(
            (status = 200, description = "The resource.", body = crate::openapi::schemas::PaymentList),
        ),
    ]
    invoices invoices_payments "/{id}/payments": "List the payments of an invoice",
        "Lists the payments recorded against an invoice.";
    bills bills_payments "/{id}/payments": "List the payments of a bill",
        "Lists the payments recorded against a bill.";

    // An invoice payment is answered synchronously (`super::writes`): it takes the
    // `Idempotency-Key` alone.
    post [
        request_body(content = super::writes::PaymentBody, content_type = "application/json"),
        responses(
            (status = 201, description = "Created.", body = crate::openapi::schemas::Payment),
        ),
    ]
    invoices invoices_pay "/{id}/payments": "Record a payment of an invoice",
        "Records a payment of a sent invoice into a payment account: it posts the receipt and lowers the amount due, marking the invoice paid when nothing is left."
        [params(
            ("Idempotency-Key" = Option<String>, Header, description = "Makes the write safe to retry: the same key with the same request answers the first outcome."),
        ),];
    bills bills_pay "/{id}/payments": "Record a payment of a bill",
        "Records a payment of an approved bill from a payment account: it posts the payment and lowers the amount due, marking the bill paid when nothing is left."
        [params(crate::openapi::params::QueuedWrite),];

    get [
        responses(
            (status = 200, description = "The resource.", body = crate::openapi::schemas::StatusChangeList),
        ),
    ]
    invoices invoices_history "/{id}/history": "List the status changes of an invoice",
        "Lists the invoice's status changes, oldest first, with when and by which key each was made.";
    bills bills_history "/{id}/history": "List the status changes of a bill",
        "Lists the bill's status changes, oldest first, with when and by which key each was made.";

    get [
        responses(
            (status = 200, description = "The PDF.", content_type = "application/pdf", body = String),
        ),
    ]
    invoices invoices_pdf "/{id}/pdf": "Render an invoice as PDF",
        "Renders the invoice as a PDF document.";
    bills bills_pdf "/{id}/pdf": "Render a bill as PDF", "Renders the bill as a PDF document.";
}
