//! Categories (spec 2.6, 4.8): create, read with subcategories, list, update, soft delete.
//!
//! Writes are synchronous and cost one credit, taken in the write's own database
//! transaction. A category's parent is a live category of the same tenant and type, and
//! the parent chain never loops.

use crate::categories::{Category, CategoryType, default_color, parse_color};
use serde_json::Value;

use crate::error::{DomainError, DomainResult, Resource};
use crate::ids::{IdKind, new_id, parse_id};
use crate::ports::{CategoryFilter, Page, PageRequest, Store, Written};

use super::accounts::tenant_reads;
use super::deletions::Removal;
use super::signup::rename;
use super::{Access, Ledger, WriteOptions};

/// Deepest parent chain walked when checking for loops; deeper trees are refused.
pub const MAX_CATEGORY_DEPTH: usize = 32;

/// Fields of a new category.
#[derive(Debug, Clone, Default)]
pub struct NewCategoryInput {
    pub name: String,
    pub category_type: String,
    pub description: Option<String>,
    pub color: Option<String>,
    pub parent_id: Option<String>,
    pub is_active: Option<bool>,
}

/// Fields an update may change; `None` keeps the value (`parent_id: Some(None)` makes it
/// top-level).
#[derive(Debug, Clone, Default)]
pub struct CategoryChanges {
    pub name: Option<String>,
    pub description: Option<String>,
    pub color: Option<String>,
    pub is_active: Option<bool>,
    pub parent_id: Option<Option<String>>,
}

/// A category with its direct children.
#[derive(Debug, Clone)]
pub struct CategoryView {
    pub category: Category,
    pub subcategories: Vec<Category>,
}

fn check_category_type(text: &str) -> DomainResult<CategoryType> {
    CategoryType::parse(text).ok_or_else(|| {
        DomainError::invalid_field("category_type", "must be one of income, expense, other")
    })
}

fn check_color(text: &str) -> DomainResult<String> {
    parse_color(text)
        .ok_or_else(|| DomainError::invalid_field("color", "must be a hex colour like #1F77B4"))
}

impl<S: Store> Ledger<S> {
    tenant_reads! {
        /// Reads a category of the tenant.
        ///
        /// # Errors
        /// `resource_not_found` when it does not exist in the tenant or is deleted.
        pub fn get_category(id) -> Category: Category, "category", get_category;
    }

    /// The category a transaction names: a live, active category of the tenant.
    ///
    /// # Errors
    /// `invalid_field` on `category_id` otherwise.
    pub(super) async fn check_category_ref(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<String> {
        self.check_category_in(&access.tenant, "category_id", id)
            .await
    }

    /// [`Ledger::check_category_ref`] for any field of a tenant's write (an item's
    /// `category_id`).
    pub(super) async fn check_category_in(
        &self,
        tenant: &crate::ports::Tenant,
        field: &str,
        id: &str,
    ) -> DomainResult<String> {
        let parsed = crate::ids::parse_reference(IdKind::Category, Resource::Category, field, id)?;
        match self.store.get_category(tenant, &parsed).await? {
            Some(c) if c.is_active => Ok(c.id),
            Some(c) => Err(DomainError::reference_not_usable(
                field,
                Resource::Category,
                &c.id,
                format!("category '{}' is inactive", c.id),
            )),
            None => Err(DomainError::reference_not_found(
                field,
                Resource::Category,
                parsed,
            )),
        }
    }

    /// Reads a category with its direct subcategories (active or not), by name.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn category_view(&self, access: &Access, id: &str) -> DomainResult<CategoryView> {
        let category = self.get_category(access, id).await?;
        self.with_children(access, category).await
    }

    async fn with_children(
        &self,
        access: &Access,
        category: Category,
    ) -> DomainResult<CategoryView> {
        let filter = CategoryFilter {
            parent_id: Some(category.id.clone()),
            ..CategoryFilter::default()
        };
        let children = self
            .store
            .list_categories(&access.tenant, &filter, None)
            .await?;
        Ok(CategoryView {
            category,
            subcategories: children.items,
        })
    }

    /// The parent named by a client: a live category of the tenant and of `category_type`,
    /// and (for an existing category `own_id`) not itself or one of its descendants.
    async fn check_category_parent(
        &self,
        access: &Access,
        parent: Option<&str>,
        category_type: CategoryType,
        own_id: Option<&str>,
    ) -> DomainResult<Option<String>> {
        let Some(parent) = parent.map(str::trim).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let parsed =
            crate::ids::parse_reference(IdKind::Category, Resource::Category, "parent_id", parent)?;
        let parent = self
            .store
            .get_category(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| {
                DomainError::reference_not_found("parent_id", Resource::Category, &parsed)
            })?;
        if parent.category_type != category_type {
            return Err(DomainError::reference_not_usable(
                "parent_id",
                Resource::Category,
                &parent.id,
                format!(
                    "the parent is an {} category; a subcategory has its parent's type",
                    parent.category_type.as_str()
                ),
            ));
        }
        // Walk up from the parent: meeting the category itself would close a loop.
        let mut cursor = Some(parent.clone());
        let mut depth = 0;
        while let Some(current) = cursor {
            if own_id == Some(current.id.as_str()) {
                return Err(DomainError::inconsistent(
                    "parent_id",
                    "a category cannot be its own parent or an ancestor of its parent",
                ));
            }
            depth += 1;
            if depth > MAX_CATEGORY_DEPTH {
                return Err(DomainError::reference_not_usable(
                    "parent_id",
                    Resource::Category,
                    &parent.id,
                    format!("categories nest at most {MAX_CATEGORY_DEPTH} levels deep"),
                ));
            }
            cursor = match current.parent_id {
                Some(up) => self.store.get_category(&access.tenant, &up).await?,
                None => None,
            };
        }
        Ok(Some(parent.id))
    }

    /// Creates a category (synchronous write, one credit). Without a colour, one is
    /// derived from the name ([`default_color`]).
    ///
    /// # Errors
    /// Validation errors (`name`, `category_type`, `color`, `parent_id`);
    /// `insufficient_credits`.
    pub(crate) async fn create_category(
        &self,
        access: &Access,
        input: NewCategoryInput,
        options: super::WriteOptions,
    ) -> DomainResult<Written<Category>> {
        let name = super::signup::check_name(&input.name)?;
        let category_type = check_category_type(&input.category_type)?;
        let color = match input.color.as_deref() {
            Some(text) => check_color(text)?,
            None => default_color(&name),
        };
        let parent_id = self
            .check_category_parent(access, input.parent_id.as_deref(), category_type, None)
            .await?;
        let now = self.now();
        let category = Category {
            id: new_id(IdKind::Category),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            name,
            description: input.description,
            category_type,
            color,
            is_active: input.is_active.unwrap_or(true),
            parent_id,
            created_at: now,
            updated_at: now,
        };
        // A new category has no children yet.
        let view = crate::views::category(&category, Some(&[]));
        let event = self.event(
            access,
            "category.created",
            "category",
            &category.id,
            None,
            Some(crate::views::category(&category, None)),
        );
        Ok(self
            .store
            .insert_category(category, self.audit(access, options, event, &view))
            .await?)
    }

    /// Updates name, description, colour, active flag or parent (synchronous write, one
    /// credit).
    ///
    /// # Errors
    /// `resource_not_found`, validation errors, `insufficient_credits`.
    pub(crate) async fn update_category(
        &self,
        access: &Access,
        id: &str,
        changes: CategoryChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_category(access, id).await?;
        let mut category = before.clone();
        rename(
            &mut category.name,
            &mut category.description,
            changes.name,
            changes.description,
        )?;
        if let Some(color) = changes.color {
            category.color = check_color(&color)?;
        }
        if let Some(active) = changes.is_active {
            category.is_active = active;
        }
        if let Some(parent) = changes.parent_id {
            category.parent_id = self
                .check_category_parent(
                    access,
                    parent.as_deref(),
                    category.category_type,
                    Some(&category.id),
                )
                .await?;
        }
        category.updated_at = self.now();
        let event = self.event(
            access,
            "category.updated",
            "category",
            &category.id,
            Some(crate::views::category(&before, None)),
            Some(crate::views::category(&category, None)),
        );
        // The update moves this category, never its subcategories: the answer is known
        // before the write.
        let after = self.with_children(access, category).await?;
        let view = crate::views::category(&after.category, Some(&after.subcategories));
        let written = self
            .store
            .update_category(after.category, self.audit(access, options, event, &view))
            .await?;
        Ok(written.map(|_| view))
    }

    /// Lists categories by name; `is_active` defaults to true.
    ///
    /// # Errors
    /// `invalid_field` on `category_type` or `parent_id`.
    pub async fn list_categories(
        &self,
        access: &Access,
        category_type: Option<&str>,
        is_active: Option<bool>,
        parent_id: Option<&str>,
        page: PageRequest,
    ) -> DomainResult<Page<Category>> {
        let parent_id = parent_id
            .map(|p| {
                parse_id(IdKind::Category, p).ok_or_else(|| {
                    DomainError::invalid_field("parent_id", "must be a category id (cat_...)")
                })
            })
            .transpose()?;
        let filter = CategoryFilter {
            category_type: category_type.map(check_category_type).transpose()?,
            is_active: Some(is_active.unwrap_or(true)),
            parent_id,
        };
        Ok(self
            .store
            .list_categories(&access.tenant, &filter, Some(page))
            .await?)
    }

    /// Soft-deletes a category (synchronous write, one credit). Returns its id.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_in_use` when a transaction or a subcategory
    /// references it; `insufficient_credits`.
    pub(crate) async fn delete_category(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let category = self.get_category(access, id).await?;
        let before = crate::views::category(&category, None);
        let removal = Removal::new("category", &category.id, &category.name, before);
        self.soft_delete(access, options, removal, |deletion, audit| {
            self.store.delete_category(&category.id, deletion, audit)
        })
        .await
    }
}
