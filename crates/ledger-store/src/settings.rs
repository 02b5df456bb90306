//! Organization settings: one value per tenant (organization and mode) and key.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::events::Event;
use ledger_domain::ports::{Setting, Settings, StoreResult, Tenant};
use time::PrimitiveDateTime;

use crate::db::Db;
use crate::rows::{from_db, to_db};
use crate::schema::settings;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = settings, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
struct SettingRow {
    organization_id: String,
    livemode: bool,
    key: String,
    value: String,
    updated_at: PrimitiveDateTime,
}

impl From<SettingRow> for Setting {
    fn from(r: SettingRow) -> Self {
        Self {
            organization_id: r.organization_id,
            livemode: r.livemode,
            key: r.key,
            value: r.value,
            updated_at: from_db(r.updated_at),
        }
    }
}

impl Settings for Db {
    async fn get_setting(&self, tenant: &Tenant, key: &str) -> StoreResult<Option<Setting>> {
        read_first!(
            self,
            SettingRow,
            |row| Ok(Setting::from(row)),
            settings::table
                .filter(tenant_of!(settings, tenant))
                .filter(settings::key.eq(key))
        )
    }

    async fn put_setting(&self, setting: Setting, event: Event) -> StoreResult<Setting> {
        let row = SettingRow {
            organization_id: setting.organization_id.clone(),
            livemode: setting.livemode,
            key: setting.key.clone(),
            value: setting.value.clone(),
            updated_at: to_db(setting.updated_at),
        };
        with_event!(self, event, |conn| {
            // Both backends speak `INSERT ... ON CONFLICT DO UPDATE`.
            diesel::insert_into(settings::table)
                .values(&row)
                .on_conflict((settings::organization_id, settings::livemode, settings::key))
                .do_update()
                .set((
                    settings::value.eq(&row.value),
                    settings::updated_at.eq(row.updated_at),
                ))
                .execute(conn)
                .await?;
        })?;
        Ok(setting)
    }
}
