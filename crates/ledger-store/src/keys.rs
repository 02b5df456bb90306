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

use crate::db::Db;
use crate::rows::{ApiKeyRow, DeletionRow, OrganizationRow};
use crate::schema::{api_keys, organizations};

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
        with_event!(self, event, |conn| {
            diesel::insert_into(api_keys::table)
                .values(&row)
                .execute(conn)
                .await?;
        })?;
        Ok(key)
    }

    async fn get_key(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<ApiKey>> {
        live_record!(self, api_keys, tenant, id, ApiKeyRow)
    }

    async fn list_keys(&self, tenant: &Tenant, page: PageRequest) -> StoreResult<Page<ApiKey>> {
        read_page!(
            self,
            ApiKeyRow,
            ApiKey::try_from,
            page,
            (api_keys::created_at.desc(), api_keys::id.desc()),
            || {
                api_keys::table
                    .filter(tenant_of!(api_keys, tenant))
                    .filter(api_keys::deleted_at.is_null())
            }
        )
    }

    async fn update_key(&self, key: ApiKey, event: Event) -> StoreResult<ApiKey> {
        let row = ApiKeyRow::from(&key);
        with_event!(self, event, |conn| {
            update_live!(
                conn,
                api_keys,
                row,
                &row.id,
                Resource::ApiKey,
                (
                    api_keys::name.eq(&row.name),
                    api_keys::disabled.eq(row.disabled),
                    api_keys::key_hash.eq(&row.key_hash),
                    api_keys::last4.eq(&row.last4),
                    api_keys::previous_hash.eq(&row.previous_hash),
                    api_keys::previous_expires_at.eq(row.previous_expires_at),
                ),
            );
        })?;
        Ok(key)
    }

    async fn delete_key(&self, key_id: &str, deletion: Deletion, event: Event) -> StoreResult<()> {
        let key_id = key_id.to_owned();
        let deletion_row = DeletionRow::from(&deletion);
        with_event!(self, event, |conn| {
            let live = api_keys::table
                .filter(tenant_of!(api_keys, deletion_row))
                .filter(api_keys::id.eq(&key_id))
                .filter(api_keys::deleted_at.is_null());
            let refusal = StoreError::missing(Resource::ApiKey, &key_id).into();
            soft_delete!(conn, api_keys, live, &deletion_row, refusal);
        })
    }
}
