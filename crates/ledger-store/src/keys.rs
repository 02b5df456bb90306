//! API keys: lookup by hash (authentication) and management of a tenant's keys.
//!
//! A deleted key (`deleted_at` set) is invisible to every method here: it no longer
//! authenticates, lists or changes, and only the purge touches it again.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::events::{Deletion, Event};
use ledger_domain::organizations::{ApiKey, Organization};
use ledger_domain::ports::{ApiKeys, Page, PageRequest, StoreResult, Tenant};

use crate::db::{Db, page_from};
use crate::rows::{ApiKeyRow, DeletionRow, EventRow, OrganizationRow};
use crate::schema::{api_keys, events, organizations};

fn key_not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::ApiKey, id)
}

impl ApiKeys for Db {
    async fn find_principal_by_hash(
        &self,
        hash: &str,
    ) -> StoreResult<Option<(ApiKey, Organization)>> {
        let row: Option<(ApiKeyRow, OrganizationRow)> = db_read!(self, |conn| {
            Ok(api_keys::table
                .inner_join(organizations::table)
                .filter(
                    api_keys::key_hash
                        .eq(hash)
                        .or(api_keys::previous_hash.eq(hash)),
                )
                .filter(api_keys::deleted_at.is_null())
                .select((ApiKeyRow::as_select(), OrganizationRow::as_select()))
                .first(conn)
                .await
                .optional()?)
        })?;
        row.map(|(key, organization)| Ok((ApiKey::try_from(key)?, organization.into_domain()?)))
            .transpose()
    }

    async fn insert_key(&self, key: ApiKey, event: Event) -> StoreResult<ApiKey> {
        let row = ApiKeyRow::from(&key);
        let event_row = EventRow::from(&event);
        db_write!(self, |conn| {
            diesel::insert_into(api_keys::table)
                .values(&row)
                .execute(conn)
                .await?;
            diesel::insert_into(events::table)
                .values(&event_row)
                .execute(conn)
                .await?;
            Ok(())
        })?;
        Ok(key)
    }

    async fn get_key(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<ApiKey>> {
        live_record!(self, api_keys, tenant, id, ApiKeyRow)
    }

    async fn list_keys(&self, tenant: &Tenant, page: PageRequest) -> StoreResult<Page<ApiKey>> {
        let rows = db_read!(self, |conn| {
            let of_tenant = || {
                api_keys::table
                    .filter(tenant_of!(api_keys, tenant))
                    .filter(api_keys::deleted_at.is_null())
            };
            let order = (api_keys::created_at.desc(), api_keys::id.desc());
            Ok(load_page!(conn, of_tenant, order, page, ApiKeyRow))
        })?;
        page_from(rows, ApiKey::try_from)
    }

    async fn update_key(&self, key: ApiKey, event: Event) -> StoreResult<ApiKey> {
        let row = ApiKeyRow::from(&key);
        let event_row = EventRow::from(&event);
        db_write!(self, |conn| {
            let changed = diesel::update(api_keys::table)
                .filter(tenant_of!(api_keys, row))
                .filter(api_keys::id.eq(&row.id))
                .filter(api_keys::deleted_at.is_null())
                .set((
                    api_keys::name.eq(&row.name),
                    api_keys::disabled.eq(row.disabled),
                    api_keys::key_hash.eq(&row.key_hash),
                    api_keys::last4.eq(&row.last4),
                    api_keys::previous_hash.eq(&row.previous_hash),
                    api_keys::previous_expires_at.eq(row.previous_expires_at),
                ))
                .execute(conn)
                .await?;
            if changed == 0 {
                return Err(key_not_found(&row.id).into());
            }
            diesel::insert_into(events::table)
                .values(&event_row)
                .execute(conn)
                .await?;
            Ok(())
        })?;
        Ok(key)
    }

    async fn delete_key(&self, key_id: &str, deletion: Deletion, event: Event) -> StoreResult<()> {
        let key_id = key_id.to_owned();
        let deletion_row = DeletionRow::from(&deletion);
        let event_row = EventRow::from(&event);
        db_write!(self, |conn| {
            let live = api_keys::table
                .filter(tenant_of!(api_keys, deletion_row))
                .filter(api_keys::id.eq(&key_id))
                .filter(api_keys::deleted_at.is_null());
            soft_delete!(
                conn,
                api_keys,
                live,
                &deletion_row,
                key_not_found(&key_id).into()
            );
            diesel::insert_into(events::table)
                .values(&event_row)
                .execute(conn)
                .await?;
            Ok(())
        })?;
        Ok(())
    }
}
