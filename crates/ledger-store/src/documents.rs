//! Invoices and bills: reads. Writes are job effects applied in `apply`.

use diesel::dsl::max;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::accounts::Account;
use ledger_domain::documents::{Document, DocumentKind, Payment, StatusChange};
use ledger_domain::ports::{DocumentFilter, Documents, Page, PageRequest, StoreResult, Tenant};

use crate::db::Db;
use crate::rows::{AccountRow, DocumentRow, PaymentRow, StatusChangeRow};
use crate::schema::{accounts, document_history, document_payments, documents};

impl Documents for Db {
    async fn get_document(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        id: &str,
    ) -> StoreResult<Option<Document>> {
        let row: Option<DocumentRow> = db_read!(self, |conn| {
            let live = documents::table
                .filter(tenant_of!(documents, tenant))
                .filter(documents::kind.eq(kind.as_str()))
                .filter(documents::id.eq(id))
                .filter(documents::deleted_at.is_null());
            Ok(first_row!(conn, live, DocumentRow))
        })?;
        row.map(Document::try_from).transpose()
    }

    async fn list_documents(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        filter: &DocumentFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Document>> {
        let status = filter.status.map(|s| s.as_str());
        let contact = filter.contact_id.clone();
        read_page!(
            self,
            DocumentRow,
            Document::try_from,
            page,
            (documents::created_at.desc(), documents::id.desc()),
            || {
                let mut query = documents::table
                    .filter(tenant_of!(documents, tenant))
                    .filter(documents::kind.eq(kind.as_str()))
                    .filter(documents::deleted_at.is_null())
                    .into_boxed();
                if let Some(status) = status {
                    query = query.filter(documents::status.eq(status));
                }
                if let Some(contact) = &contact {
                    query = query.filter(documents::contact_id.eq(contact.clone()));
                }
                query
            }
        )
    }

    async fn next_document_sequence(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
    ) -> StoreResult<i64> {
        let highest: Option<i64> = db_read!(self, |conn| {
            Ok(documents::table
                .filter(tenant_of!(documents, tenant))
                .filter(documents::kind.eq(kind.as_str()))
                .select(max(documents::sequence))
                .first(conn)
                .await?)
        })?;
        Ok(highest.unwrap_or(0) + 1)
    }

    async fn list_payments(
        &self,
        tenant: &Tenant,
        document_ids: &[String],
    ) -> StoreResult<Vec<Payment>> {
        if document_ids.is_empty() {
            return Ok(Vec::new());
        }
        read_all!(
            self,
            PaymentRow,
            Payment::try_from,
            document_payments::table
                .filter(tenant_of!(document_payments, tenant))
                .filter(document_payments::document_id.eq_any(document_ids))
                .order((
                    document_payments::created_at.asc(),
                    document_payments::id.asc(),
                ))
        )
    }

    async fn document_history(
        &self,
        tenant: &Tenant,
        document_id: &str,
    ) -> StoreResult<Vec<StatusChange>> {
        read_all!(
            self,
            StatusChangeRow,
            StatusChange::try_from,
            document_history::table
                .filter(document_history::organization_id.eq(&tenant.organization_id))
                .filter(document_history::document_id.eq(document_id))
                .order((
                    document_history::changed_at.asc(),
                    document_history::id.asc(),
                ))
        )
    }

    async fn system_accounts(&self, tenant: &Tenant) -> StoreResult<Vec<Account>> {
        read_all!(
            self,
            AccountRow,
            Account::try_from,
            accounts::table
                .filter(tenant_of!(accounts, tenant))
                .filter(accounts::is_system.eq(true))
                .filter(accounts::deleted_at.is_null())
                .order(accounts::code.asc())
        )
    }
}
