//! Taxes: inserts, updates, reads and soft deletes, each write with its event and credits.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::events::Deletion;
use ledger_domain::ports::{
    Audit, Page, PageRequest, StoreResult, TaxFilter, Taxes, Tenant, Written,
};
use ledger_domain::tax::{Tax, TaxType};
use time::PrimitiveDateTime;

use crate::db::Db;
use crate::rows::{corrupt, from_db, to_db};
use crate::schema::taxes;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = taxes, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
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
            tax_type: TaxType::parse(&r.tax_type)
                .ok_or_else(|| corrupt("tax type", &r.tax_type))?,
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

fn tax_not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::Tax, id)
}

impl Taxes for Db {
    async fn insert_tax(&self, tax: Tax, audit: Audit) -> StoreResult<Written<Tax>> {
        let row = TaxRow::from(&tax);
        audited!(self, audit, |conn| {
            diesel::insert_into(taxes::table)
                .values(&row)
                .execute(conn)
                .await?;
            tax
        })
    }

    async fn update_tax(&self, tax: Tax, audit: Audit) -> StoreResult<Written<Tax>> {
        let row = TaxRow::from(&tax);
        audited!(self, audit, |conn| {
            let changed = diesel::update(taxes::table)
                .filter(tenant_of!(taxes, row))
                .filter(taxes::id.eq(&row.id))
                .filter(taxes::deleted_at.is_null())
                .set((
                    taxes::name.eq(&row.name),
                    taxes::description.eq(&row.description),
                    taxes::rate.eq(row.rate),
                    taxes::tax_type.eq(&row.tax_type),
                    taxes::is_compound.eq(row.is_compound),
                    taxes::is_active.eq(row.is_active),
                    taxes::updated_at.eq(row.updated_at),
                ))
                .execute(conn)
                .await?;
            if changed == 0 {
                return Err(tax_not_found(&row.id).into());
            }
            tax
        })
    }

    async fn get_tax(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Tax>> {
        live_record!(self, taxes, tenant, id, TaxRow)
    }

    async fn list_taxes(
        &self,
        tenant: &Tenant,
        filter: &TaxFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Tax>> {
        let tax_type = filter.tax_type.map(TaxType::as_str);
        let is_active = filter.is_active;
        let (rows, total_count): (Vec<TaxRow>, i64) = db_read!(self, |conn| {
            // The filter is built twice (count and page): boxed queries are not Clone.
            let filtered = || {
                let mut query = taxes::table
                    .filter(tenant_of!(taxes, tenant))
                    .filter(taxes::deleted_at.is_null())
                    .into_boxed();
                if let Some(t) = tax_type {
                    query = query.filter(taxes::tax_type.eq(t));
                }
                if let Some(active) = is_active {
                    query = query.filter(taxes::is_active.eq(active));
                }
                query
            };
            let total: i64 = filtered().count().get_result(conn).await?;
            let rows = filtered()
                .order((taxes::name.asc(), taxes::id.asc()))
                .select(TaxRow::as_select())
                .limit(page.limit)
                .offset(page.offset)
                .load(conn)
                .await?;
            Ok((rows, total))
        })?;
        Ok(Page {
            items: rows
                .into_iter()
                .map(Tax::try_from)
                .collect::<Result<_, _>>()?,
            total_count,
        })
    }

    async fn delete_tax(
        &self,
        tax_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        audited_soft_delete!(
            self,
            taxes,
            Resource::Tax,
            tax_id,
            deletion,
            audit,
            refuse_in_use
        )
    }
}
