//! The OpenAPI operation types of the document handlers: each handler serves both kinds,
//! so utoipa cannot name its operations after it; each kind's operation is declared here
//! and implemented by the handler's `#[utoipa::path(impl_for = ...)]`.

#[doc(hidden)]
pub(crate) struct __path_invoices_list;
#[doc(hidden)]
pub(crate) struct __path_bills_list;
#[doc(hidden)]
pub(crate) struct __path_invoices_create;
#[doc(hidden)]
pub(crate) struct __path_bills_create;
#[doc(hidden)]
pub(crate) struct __path_invoices_get;
#[doc(hidden)]
pub(crate) struct __path_bills_get;
#[doc(hidden)]
pub(crate) struct __path_invoices_update;
#[doc(hidden)]
pub(crate) struct __path_bills_update;
#[doc(hidden)]
pub(crate) struct __path_invoices_delete;
#[doc(hidden)]
pub(crate) struct __path_bills_delete;
#[doc(hidden)]
pub(crate) struct __path_invoices_send;
#[doc(hidden)]
pub(crate) struct __path_bills_approve;
#[doc(hidden)]
pub(crate) struct __path_invoices_void;
#[doc(hidden)]
pub(crate) struct __path_bills_void;
#[doc(hidden)]
pub(crate) struct __path_invoices_payments;
#[doc(hidden)]
pub(crate) struct __path_bills_payments;
#[doc(hidden)]
pub(crate) struct __path_invoices_pay;
#[doc(hidden)]
pub(crate) struct __path_bills_pay;
#[doc(hidden)]
pub(crate) struct __path_invoices_history;
#[doc(hidden)]
pub(crate) struct __path_bills_history;
