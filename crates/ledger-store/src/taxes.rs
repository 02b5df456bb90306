//! Taxes: inserts, updates, reads and soft deletes, each write with its event and credits.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::ports::{Page, PageRequest, StoreResult, TaxFilter, Taxes, Tenant};
use ledger_domain::tax::{Tax, TaxType};
use time::PrimitiveDateTime;

use crate::db::Db;
use crate::rows::{from_db, parsed, to_db};
use crate::schema::taxes;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = taxes, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
// An update (`AsChangeset`) sets every column but the key and the `skip_update` ones.
#[diesel(primary_key(organization_id, livemode, id), treat_none_as_null = true)]
struct TaxRow {
    organization_id: String,
    livemode: bool,
    id: String,
    name: String,
    description: Option<String>,
    rate: i64,
    tax_type: String,
    is_compound: bool,
    is_active: bool,
    #[diesel(skip_update)]
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

impl From<&Tax> for TaxRow {
    fn from(t: &Tax) -> Self {
        Self {
            organization_id: t.organization_id.clone(),
            livemode: t.livemode,
            id: t.id.clone(),
            name: t.name.clone(),
            description: t.description.clone(),
            rate: t.rate,
            tax_type: t.tax_type.as_str().to_owned(),
            is_compound: t.is_compound,
            is_active: t.is_active,
            created_at: to_db(t.created_at),
            updated_at: to_db(t.updated_at),
        }
    }
}

impl TryFrom<TaxRow> for Tax {
    type Error = StoreError;
    fn try_from(r: TaxRow) -> Result<Self, StoreError> {
        Ok(Self {
            tax_type: parsed(TaxType::parse, "tax type", &r.tax_type)?,
            organization_id: r.organization_id,
            livemode: r.livemode,
            id: r.id,
            name: r.name,
            description: r.description,
            rate: r.rate,
            is_compound: r.is_compound,
            is_active: r.is_active,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}

impl Taxes for Db {
    resource_methods!(
        Tax, TaxRow, taxes, Resource::Tax;
        insert: insert_tax,
        update: update_tax,
        get: get_tax,
        delete_unused: delete_tax,
    );

    async fn list_taxes(
        &self,
        tenant: &Tenant,
        filter: &TaxFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Tax>> {
        let tax_type = filter.tax_type.map(TaxType::as_str);
        let is_active = filter.is_active;
        // Built twice (count and page): boxed queries are not Clone.
        read_page!(
            self,
            TaxRow,
            Tax::try_from,
            page,
            (taxes::name.asc(), taxes::id.asc()),
            || live_filtered!(taxes, tenant, tax_type = tax_type, is_active = is_active)
        )
    }
}
