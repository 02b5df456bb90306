//! "In use" checks (DECISIONS 10): one query per kind of reference, by ids. Which kinds
//! keep which resource from being deleted is the domain's
//! ([`ledger_domain::references::used_by`]); the store only answers whether a reference
//! of one kind exists, on either backend, inside the caller's transaction.

use std::future::Future;

use diesel::dsl::exists;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use ledger_domain::{Resource, StoreError, UsedBy};

use crate::db::SqliteConn;
use crate::rows::{CATEGORY_TARGET, TAX_TARGET};
use crate::schema::{categories, document_references, documents, ledger_entries, transactions};

/// Whether a reference of one kind to a resource exists.
pub(crate) trait References: Send {
    fn reference_exists<'a>(
        &'a mut self,
        organization_id: &'a str,
        livemode: bool,
        resource: Resource,
        by: UsedBy,
        id: &'a str,
    ) -> impl Future<Output = QueryResult<bool>> + Send + 'a;
}

macro_rules! reference_exists_body {
    () => {
        async fn reference_exists<'a>(
            &'a mut self,
            org: &'a str,
            livemode: bool,
            resource: Resource,
            by: UsedBy,
            id: &'a str,
        ) -> QueryResult<bool> {
            let live_documents = documents::table
                .filter(tenant_of!(documents, org, livemode))
                .filter(documents::deleted_at.is_null());
            let named_by_documents = |target: &'static str| {
                document_references::table
                    .filter(tenant_of!(document_references, org, livemode))
                    .filter(document_references::target_type.eq(target))
                    .filter(document_references::target_id.eq(id))
                    .filter(
                        document_references::document_id
                            .eq_any(live_documents.select(documents::id)),
                    )
            };
            let live_transactions = transactions::table
                .filter(tenant_of!(transactions, org, livemode))
                .filter(transactions::deleted_at.is_null());
            let query = match (resource, by) {
                (Resource::Account, UsedBy::LedgerEntries) => {
                    diesel::select(exists(
                        ledger_entries::table
                            .filter(ledger_entries::organization_id.eq(org))
                            .filter(ledger_entries::account_id.eq(id)),
                    ))
                    .get_result(self)
                    .await
                }
                (Resource::Contact, UsedBy::Transactions) => {
                    diesel::select(exists(
                        live_transactions.filter(transactions::contact_id.eq(id)),
                    ))
                    .get_result(self)
                    .await
                }
                (Resource::Category, UsedBy::Transactions) => {
                    diesel::select(exists(
                        live_transactions.filter(transactions::category_id.eq(id)),
                    ))
                    .get_result(self)
                    .await
                }
                (Resource::Contact, UsedBy::Documents) => {
                    diesel::select(exists(live_documents.filter(documents::contact_id.eq(id))))
                        .get_result(self)
                        .await
                }
                (Resource::Tax, UsedBy::Documents) => {
                    diesel::select(exists(named_by_documents(TAX_TARGET)))
                        .get_result(self)
                        .await
                }
                (Resource::Category, UsedBy::Documents) => {
                    diesel::select(exists(named_by_documents(CATEGORY_TARGET)))
                        .get_result(self)
                        .await
                }
                (Resource::Category, UsedBy::Subcategories) => {
                    diesel::select(exists(
                        categories::table
                            .filter(tenant_of!(categories, org, livemode))
                            .filter(categories::parent_id.eq(id))
                            .filter(categories::deleted_at.is_null()),
                    ))
                    .get_result(self)
                    .await
                }
                // No such reference exists between these kinds.
                _ => Ok(false),
            };
            query
        }
    };
}

impl References for AsyncPgConnection {
    reference_exists_body!();
}

impl References for SqliteConn {
    reference_exists_body!();
}

/// The first reference (in the domain's order) that keeps `resource` `id` from being
/// deleted, as the refusal to return; `None` when nothing references it. Call it after
/// locking the resource, so no new reference appears before the delete commits.
pub(crate) async fn in_use<C: References>(
    conn: &mut C,
    organization_id: &str,
    livemode: bool,
    resource: Resource,
    id: &str,
) -> QueryResult<Option<StoreError>> {
    for by in ledger_domain::references::used_by(resource) {
        if conn
            .reference_exists(organization_id, livemode, resource, *by, id)
            .await?
        {
            return Ok(Some(StoreError::InUse {
                resource,
                id: id.to_owned(),
                by: *by,
            }));
        }
    }
    Ok(None)
}
