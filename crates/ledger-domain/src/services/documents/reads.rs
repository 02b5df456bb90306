//! Reading invoices and bills: one, a page, a history, a rendering.

use serde_json::Value;

use crate::documents::{Document, DocumentKind, Payment, StatusChange};
use crate::error::{DomainError, DomainResult, Resource};
use crate::ids::parse_id;
use crate::ports::{DocumentFilter, Page, PageRequest, Store, Tenant};
use crate::views;

use crate::services::accounts::not_found;
use crate::services::{Access, Ledger};

use super::DocumentView;

impl<S: Store> Ledger<S> {
    /// A live document of the tenant.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn get_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
    ) -> DomainResult<Document> {
        self.current_document(&access.tenant, kind, id).await
    }

    pub(super) async fn current_document(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        id: &str,
    ) -> DomainResult<Document> {
        let Some(parsed) = parse_id(kind.id_kind(), id) else {
            return Err(not_found(kind.as_str(), id));
        };
        self.store
            .get_document(tenant, kind, &parsed)
            .await?
            .ok_or_else(|| not_found(kind.as_str(), id))
    }

    /// A live document with its payments.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn document_view(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
    ) -> DomainResult<DocumentView> {
        let document = self.get_document(access, kind, id).await?;
        let payments = self
            .store
            .list_payments(&access.tenant, std::slice::from_ref(&document.id))
            .await?;
        Ok(DocumentView { document, payments })
    }

    /// Documents of a kind, newest first, each with its payments.
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn list_documents(
        &self,
        access: &Access,
        kind: DocumentKind,
        filter: &DocumentFilter,
        page: PageRequest,
    ) -> DomainResult<Page<DocumentView>> {
        // A contact filter naming no contact of these books is refused, not answered with
        // an empty page (the same words as a body reference).
        if let Some(contact_id) = &filter.contact_id
            && self
                .store
                .get_contact(&access.tenant, contact_id)
                .await?
                .is_none()
        {
            return Err(DomainError::reference_not_found(
                "contact_id",
                Resource::Contact,
                contact_id,
            ));
        }
        let documents = self
            .store
            .list_documents(&access.tenant, kind, filter, page)
            .await?;
        let ids: Vec<String> = documents.items.iter().map(|d| d.id.clone()).collect();
        let mut payments = self.store.list_payments(&access.tenant, &ids).await?;
        let items = documents
            .items
            .into_iter()
            .map(|document| {
                let (mine, rest): (Vec<Payment>, Vec<Payment>) = std::mem::take(&mut payments)
                    .into_iter()
                    .partition(|p| p.document_id == document.id);
                payments = rest;
                DocumentView {
                    document,
                    payments: mine,
                }
            })
            .collect();
        Ok(Page {
            items,
            total_count: documents.total_count,
        })
    }

    /// The status history of a document, oldest first.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn document_history(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
    ) -> DomainResult<Vec<StatusChange>> {
        let document = self.get_document(access, kind, id).await?;
        Ok(self
            .store
            .document_history(&access.tenant, &document.id)
            .await?)
    }

    /// The JSON of a document as of now.
    pub fn render_document(&self, view: &DocumentView) -> Value {
        views::document(&view.document, &view.payments, self.now().date())
    }
}
