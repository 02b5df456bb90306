//! Invoices, bills and contacts in memory: reads (their writes are job effects, see
//! `apply`).

use crate::accounts::Account;
use crate::contacts::{Contact, ContactFilter};
use crate::documents::{Document, DocumentKind, Payment, StatusChange};
use crate::ports::{Contacts, DocumentFilter, Documents, Page, PageRequest, StoreResult, Tenant};

use super::tenanted::{live_rows, live_where, of_tenant, sort_newest_first, sort_oldest_first};
use super::{MemoryStore, State, in_tenant, page_of};

/// Whether `text` contains `needle` (already lowercase), ignoring case, as
/// `LOWER(column) LIKE LOWER('%needle%')` does.
fn contains(text: Option<&str>, needle: &str) -> bool {
    text.is_some_and(|t| t.to_lowercase().contains(needle))
}

/// The tenant's live documents of `kind`.
fn live_documents<'a>(
    state: &'a State,
    tenant: &'a Tenant,
    kind: DocumentKind,
) -> impl Iterator<Item = &'a Document> {
    live_rows(&state.documents, tenant).filter(move |d| d.kind == kind)
}

/// The tenant's live contacts.
fn live_contacts<'a>(state: &'a State, tenant: &'a Tenant) -> impl Iterator<Item = &'a Contact> {
    live_rows(&state.contacts, tenant)
}

impl Documents for MemoryStore {
    async fn get_document(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        id: &str,
    ) -> StoreResult<Option<Document>> {
        let state = self.state();
        Ok(live_documents(&state, tenant, kind)
            .find(|d| d.id == id)
            .cloned())
    }

    async fn list_documents(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        filter: &DocumentFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Document>> {
        let state = self.state();
        let mut found: Vec<Document> = live_documents(&state, tenant, kind)
            .filter(|d| {
                filter.status.is_none_or(|s| d.status == s)
                    && filter
                        .contact_id
                        .as_ref()
                        .is_none_or(|c| d.contact_id == *c)
            })
            .cloned()
            .collect();
        sort_newest_first(&mut found);
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
        let mut found = of_tenant(&self.state().payments, tenant, |p| {
            document_ids.contains(&p.document_id)
        });
        sort_oldest_first(&mut found);
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
        let mut found = live_where(&self.state().accounts, tenant, |a| a.is_system);
        found.sort_by(|a, b| a.code.cmp(&b.code));
        Ok(found)
    }
}

impl Contacts for MemoryStore {
    async fn get_contact(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Contact>> {
        let state = self.state();
        Ok(live_contacts(&state, tenant).find(|c| c.id == id).cloned())
    }

    async fn contacts_by_ids(&self, tenant: &Tenant, ids: &[String]) -> StoreResult<Vec<Contact>> {
        let state = self.state();
        Ok(live_contacts(&state, tenant)
            .filter(|c| ids.contains(&c.id))
            .cloned()
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
        let mut found: Vec<Contact> = live_contacts(&state, tenant)
            .filter(|c| {
                let f = &c.fields;
                filter.contact_type.is_none_or(|t| c.contact_type == t)
                    && filter.enabled.is_none_or(|e| f.enabled == e)
                    && needle.as_deref().is_none_or(|n| {
                        contains(Some(&f.name), n)
                            || contains(f.email.as_deref(), n)
                            || contains(f.reference.as_deref(), n)
                    })
            })
            .cloned()
            .collect();
        sort_oldest_first(&mut found);
        Ok(page_of(found, Some(page)))
    }

    async fn contact_with_reference(
        &self,
        tenant: &Tenant,
        reference: &str,
    ) -> StoreResult<Option<String>> {
        let state = self.state();
        Ok(live_contacts(&state, tenant)
            .find(|c| c.fields.reference.as_deref() == Some(reference))
            .map(|c| c.id.clone()))
    }
}
