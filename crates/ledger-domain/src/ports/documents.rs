//! Invoices, bills and the contacts they name (reads; writes are job effects).

use std::future::Future;

use crate::accounts::Account;
use crate::contacts::{Contact, ContactFilter};
use crate::documents::{Document, DocumentKind, DocumentStatus, Payment, StatusChange};

use super::{Page, PageRequest, StoreResult, Tenant};

/// Filters of a document list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentFilter {
    pub status: Option<DocumentStatus>,
    pub contact_id: Option<String>,
}

/// Invoices and bills. Writes go through [`Jobs::apply_job`](super::Jobs::apply_job) effects.
pub trait Documents: Send + Sync + 'static {
    /// A live document of the tenant and kind.
    fn get_document(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Document>>> + Send;

    /// Live documents of the tenant and kind, newest first.
    fn list_documents(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        filter: &DocumentFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Document>>> + Send;

    /// One more than the highest sequence number of the kind (deleted documents keep
    /// theirs), so numbers have no gaps.
    fn next_document_sequence(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
    ) -> impl Future<Output = StoreResult<i64>> + Send;

    /// The payments of the documents, oldest first.
    fn list_payments(
        &self,
        tenant: &Tenant,
        document_ids: &[String],
    ) -> impl Future<Output = StoreResult<Vec<Payment>>> + Send;

    /// The status history of a document, oldest first.
    fn document_history(
        &self,
        tenant: &Tenant,
        document_id: &str,
    ) -> impl Future<Output = StoreResult<Vec<StatusChange>>> + Send;

    /// The live system accounts of the tenant (the default chart).
    fn system_accounts(
        &self,
        tenant: &Tenant,
    ) -> impl Future<Output = StoreResult<Vec<Account>>> + Send;
}

/// Contacts (spec 2.5). Writes go through [`Jobs::apply_job`](super::Jobs::apply_job) effects.
pub trait Contacts: Send + Sync + 'static {
    /// A contact of the tenant that is not deleted.
    fn get_contact(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Contact>>> + Send;

    /// The contacts of the tenant that are not deleted among `ids` (any order; unknown
    /// ids are skipped), in one query.
    fn contacts_by_ids(
        &self,
        tenant: &Tenant,
        ids: &[String],
    ) -> impl Future<Output = StoreResult<Vec<Contact>>> + Send;

    /// Contacts of the tenant that are not deleted, matching `filter`, oldest first.
    fn list_contacts(
        &self,
        tenant: &Tenant,
        filter: &ContactFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Contact>>> + Send;

    /// The id of the live contact of the tenant whose reference is `reference`, if any.
    fn contact_with_reference(
        &self,
        tenant: &Tenant,
        reference: &str,
    ) -> impl Future<Output = StoreResult<Option<String>>> + Send;
}
