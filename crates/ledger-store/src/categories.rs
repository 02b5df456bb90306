//! Categories: inserts, updates, reads and soft deletes, each write with its event and
//! credits. A category referenced by a live transaction or subcategory is not deleted.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::categories::{Category, CategoryType};
use ledger_domain::events::Deletion;
use ledger_domain::ports::{
    Audit, Categories, CategoryFilter, Page, PageRequest, StoreResult, Tenant, Written,
};
use time::PrimitiveDateTime;

use crate::db::{Db, page_from};
use crate::locks::AccountLocks;
use crate::rows::{DeletionRow, from_db, parsed, to_db};
use crate::schema::categories;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = categories, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
// An update (`AsChangeset`) sets every column but the key and the `skip_update` ones.
#[diesel(primary_key(organization_id, livemode, id), treat_none_as_null = true)]
struct CategoryRow {
    organization_id: String,
    livemode: bool,
    id: String,
    name: String,
    description: Option<String>,
    #[diesel(skip_update)]
    category_type: String,
    color: String,
    is_active: bool,
    parent_id: Option<String>,
    #[diesel(skip_update)]
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

impl From<&Category> for CategoryRow {
    fn from(c: &Category) -> Self {
        Self {
            organization_id: c.organization_id.clone(),
            livemode: c.livemode,
            id: c.id.clone(),
            name: c.name.clone(),
            description: c.description.clone(),
            category_type: c.category_type.as_str().to_owned(),
            color: c.color.clone(),
            is_active: c.is_active,
            parent_id: c.parent_id.clone(),
            created_at: to_db(c.created_at),
            updated_at: to_db(c.updated_at),
        }
    }
}

impl TryFrom<CategoryRow> for Category {
    type Error = StoreError;
    fn try_from(r: CategoryRow) -> Result<Self, StoreError> {
        Ok(Self {
            category_type: parsed(CategoryType::parse, "category type", &r.category_type)?,
            organization_id: r.organization_id,
            livemode: r.livemode,
            id: r.id,
            name: r.name,
            description: r.description,
            color: r.color,
            is_active: r.is_active,
            parent_id: r.parent_id,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}

fn category_not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::Category, id)
}

impl Categories for Db {
    resource_methods!(
        Category, CategoryRow, categories, Resource::Category;
        insert: insert_category,
        update: update_category,
        get: get_category,
    );

    async fn list_categories(
        &self,
        tenant: &Tenant,
        filter: &CategoryFilter,
        page: Option<PageRequest>,
    ) -> StoreResult<Page<Category>> {
        let category_type = filter.category_type.map(CategoryType::as_str);
        let is_active = filter.is_active;
        let parent_id = filter.parent_id.as_deref();
        let rows = db_read!(self, |conn| {
            // Built twice (count and page): boxed queries are not Clone.
            let filtered = || {
                live_filtered!(
                    categories,
                    tenant,
                    category_type = category_type,
                    is_active = is_active,
                    parent_id = parent_id,
                )
            };
            let total: i64 = filtered().count().get_result(conn).await?;
            let mut query = filtered()
                .order((categories::name.asc(), categories::id.asc()))
                .select(CategoryRow::as_select());
            if let Some(page) = page {
                query = query.limit(page.limit).offset(page.offset);
            }
            Ok((query.load(conn).await?, total))
        })?;
        page_from(rows, Category::try_from)
    }

    async fn delete_category(
        &self,
        category_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        let category_id = category_id.to_owned();
        let deletion_row = DeletionRow::from(&deletion);
        audited!(self, audit, |conn| {
            let org = &deletion_row.organization_id;
            let livemode = deletion_row.livemode;
            // Exclusive lock first: postings naming the category finish before the
            // in-use check below looks for them (see `locks`).
            conn.lock_category(org, livemode, &category_id, true)
                .await?;
            if let Some(refusal) = crate::references::in_use(
                conn,
                org,
                livemode,
                ledger_domain::Resource::Category,
                &category_id,
            )
            .await?
            {
                return Err(refusal.into());
            }
            let live = categories::table
                .filter(tenant_of!(categories, org, livemode))
                .filter(categories::id.eq(&category_id))
                .filter(categories::deleted_at.is_null());
            let refusal = category_not_found(&category_id).into();
            soft_delete!(conn, categories, live, &deletion_row, refusal);
        })
    }
}
