//! Contacts: reads. Writes are job effects applied in `apply`.
//!
//! Search is portable SQL on both backends: `LOWER(column) LIKE LOWER(pattern) ESCAPE '\'`
//! with the client's `%`, `_` and `\` escaped, so they match literally.

use diesel::prelude::*;
use diesel::sql_types::{Nullable, Text};
use diesel_async::RunQueryDsl;
use ledger_domain::contacts::{Contact, ContactFilter};
use ledger_domain::ports::{Contacts, Page, PageRequest, StoreResult, Tenant};

use crate::db::{Db, prefix_pattern};
use crate::rows::ContactRow;
use crate::schema::contacts;

diesel::define_sql_function! {
    /// SQL `LOWER` of a nullable text (a `NULL` stays `NULL`).
    #[sql_name = "LOWER"]
    fn lower(x: Nullable<Text>) -> Nullable<Text>;
}

/// A `LIKE` pattern matching `text` anywhere (escape `\`).
pub(crate) fn contains_pattern(text: &str) -> String {
    format!("%{}", prefix_pattern(text))
}

impl Contacts for Db {
    async fn get_contact(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Contact>> {
        live_record!(self, contacts, tenant, id, ContactRow)
    }

    async fn contacts_by_ids(&self, tenant: &Tenant, ids: &[String]) -> StoreResult<Vec<Contact>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        read_all!(
            self,
            ContactRow,
            Contact::try_from,
            contacts::table
                .filter(tenant_of!(contacts, tenant))
                .filter(contacts::id.eq_any(ids))
                .filter(contacts::deleted_at.is_null())
        )
    }

    async fn list_contacts(
        &self,
        tenant: &Tenant,
        filter: &ContactFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Contact>> {
        let contact_type = filter.contact_type.map(|t| t.as_str());
        let enabled = filter.enabled;
        let pattern = filter
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(contains_pattern);
        // Built twice (count and page): boxed queries are not Clone.
        read_page!(
            self,
            ContactRow,
            Contact::try_from,
            page,
            (contacts::created_at.asc(), contacts::id.asc()),
            || {
                let mut query = live_filtered!(
                    contacts,
                    tenant,
                    contact_type = contact_type,
                    enabled = enabled,
                );
                if let Some(pattern) = &pattern {
                    let needle = || lower(Some(pattern.clone()));
                    query = query.filter(
                        lower(contacts::name.nullable())
                            .like(needle())
                            .escape('\\')
                            .or(lower(contacts::email).like(needle()).escape('\\'))
                            .or(lower(contacts::reference).like(needle()).escape('\\')),
                    );
                }
                query
            }
        )
    }

    async fn contact_with_reference(
        &self,
        tenant: &Tenant,
        reference: &str,
    ) -> StoreResult<Option<String>> {
        db_read!(self, |conn| {
            Ok(contacts::table
                .filter(tenant_of!(contacts, tenant))
                .filter(contacts::reference.eq(reference))
                .filter(contacts::deleted_at.is_null())
                .select(contacts::id)
                .first(conn)
                .await
                .optional()?)
        })
    }
}
