//! Invoices, bills and contacts in memory: reads (their writes are job effects, see
//! `apply`).

use crate::accounts::Account;
use crate::contacts::{Contact, ContactFilter};
use crate::documents::{Document, DocumentKind, Payment, StatusChange};
use crate::ports::{Contacts, DocumentFilter, Documents, Page, PageRequest, StoreResult, Tenant};

use super::{MemoryStore, in_tenant, page_of};

/// Whether `text` contains `needle` (already lowercase), ignoring case, as
/// `LOWER(column) LIKE LOWER('%needle%')` does.
fn contains(text: Option<&str>, needle: &str) -> bool {
    text.is_some_and(|t| t.to_lowercase().contains(needle))
}

impl Documents for MemoryStore {
    async fn get_document(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        id: &str,
    ) -> StoreResult<Option<Document>> {
        let state = self.state();
        Ok(state
            .documents
            .iter()
            .find(|d| {
                d.is_live()
                    && d.value.id == id
                    && d.value.kind == kind
                    && in_tenant(tenant, &d.value.organization_id, d.value.livemode)
            })
            .map(|d| d.value.clone()))
    }

    async fn list_documents(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        filter: &DocumentFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Document>> {
        let state = self.state();
        let mut found: Vec<Document> = state
            .documents
            .iter()
            .filter(|d| {
                d.is_live()
                    && d.value.kind == kind
                    && in_tenant(tenant, &d.value.organization_id, d.value.livemode)
                    && filter.status.is_none_or(|s| d.value.status == s)
                    && filter
                        .contact_id
                        .as_ref()
                        .is_none_or(|c| d.value.contact_id == *c)
            })
            .map(|d| d.value.clone())
            .collect();
        // Newest first.
        found.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(page_of(found, Some(page)))
    }

    async fn next_document_sequence(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
    ) -> StoreResult<i64> {
        let state = self.state();
        let highest = state
            .documents
            .iter()
            .filter(|d| {
                d.value.kind == kind
                    && in_tenant(tenant, &d.value.organization_id, d.value.livemode)
            })
            .map(|d| d.value.sequence)
            .max();
        Ok(highest.unwrap_or(0) + 1)
    }

    async fn list_payments(
        &self,
        tenant: &Tenant,
        document_ids: &[String],
    ) -> StoreResult<Vec<Payment>> {
        let state = self.state();
        let mut found: Vec<Payment> = state
            .payments
            .iter()
            .filter(|p| {
                in_tenant(tenant, &p.organization_id, p.livemode)
                    && document_ids.contains(&p.document_id)
            })
            .cloned()
            .collect();
        found.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(found)
    }

    async fn document_history(
        &self,
        tenant: &Tenant,
        document_id: &str,
    ) -> StoreResult<Vec<StatusChange>> {
        let state = self.state();
        // History rows carry no mode; the document id is unique in the organization.
        let mut found: Vec<StatusChange> = state
            .history
            .iter()
            .filter(|h| h.organization_id == tenant.organization_id && h.document_id == document_id)
            .cloned()
            .collect();
        found.sort_by(|a, b| (a.changed_at, &a.id).cmp(&(b.changed_at, &b.id)));
        Ok(found)
    }

    async fn system_accounts(&self, tenant: &Tenant) -> StoreResult<Vec<Account>> {
        let state = self.state();
        let mut found: Vec<Account> = state
            .accounts
            .iter()
            .filter(|a| {
                a.is_live()
                    && a.value.is_system
                    && in_tenant(tenant, &a.value.organization_id, a.value.livemode)
            })
            .map(|a| a.value.clone())
            .collect();
        found.sort_by(|a, b| a.code.cmp(&b.code));
        Ok(found)
    }
}

impl Contacts for MemoryStore {
    async fn get_contact(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Contact>> {
        let state = self.state();
        Ok(state
            .contacts
            .iter()
            .find(|c| {
                c.is_live()
                    && c.value.id == id
                    && in_tenant(tenant, &c.value.organization_id, c.value.livemode)
            })
            .map(|c| c.value.clone()))
    }

    async fn contacts_by_ids(&self, tenant: &Tenant, ids: &[String]) -> StoreResult<Vec<Contact>> {
        let state = self.state();
        Ok(state
            .contacts
            .iter()
            .filter(|c| {
                c.is_live()
                    && in_tenant(tenant, &c.value.organization_id, c.value.livemode)
                    && ids.contains(&c.value.id)
            })
            .map(|c| c.value.clone())
            .collect())
    }

    async fn list_contacts(
        &self,
        tenant: &Tenant,
        filter: &ContactFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Contact>> {
        let needle = filter
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_lowercase);
        let state = self.state();
        let mut found: Vec<Contact> = state
            .contacts
            .iter()
            .filter(|c| {
                let f = &c.value.fields;
                c.is_live()
                    && in_tenant(tenant, &c.value.organization_id, c.value.livemode)
                    && filter
                        .contact_type
                        .is_none_or(|t| c.value.contact_type == t)
                    && filter.enabled.is_none_or(|e| f.enabled == e)
                    && needle.as_deref().is_none_or(|n| {
                        contains(Some(&f.name), n)
                            || contains(f.email.as_deref(), n)
                            || contains(f.reference.as_deref(), n)
                    })
            })
            .map(|c| c.value.clone())
            .collect();
        // Oldest first.
        found.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(page_of(found, Some(page)))
    }

    async fn contact_with_reference(
        &self,
        tenant: &Tenant,
        reference: &str,
    ) -> StoreResult<Option<String>> {
        let state = self.state();
        Ok(state
            .contacts
            .iter()
            .find(|c| {
                c.is_live()
                    && in_tenant(tenant, &c.value.organization_id, c.value.livemode)
                    && c.value.fields.reference.as_deref() == Some(reference)
            })
            .map(|c| c.value.id.clone()))
    }
}
