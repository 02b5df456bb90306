//! Taxes and categories: the tenant's catalog, written synchronously.

use std::future::Future;

use crate::categories::{Category, CategoryType};
use crate::events::Deletion;
use crate::tax::{Tax, TaxType};

use super::{Audit, Page, PageRequest, StoreResult, Tenant, Written};

/// Filters of the tax list.
#[derive(Debug, Clone, Default)]
pub struct TaxFilter {
    pub tax_type: Option<TaxType>,
    pub is_active: Option<bool>,
}

/// Taxes (spec 2.7): synchronous writes, each with its event and credits.
pub trait Taxes: Send + Sync + 'static {
    /// Inserts a tax and its event, taking the credits of `charge` in the same
    /// transaction.
    ///
    /// # Errors
    /// `CreditsShort` when a live pool is short; nothing is written then.
    /// `Written::Replay` when the idempotency key was used already.
    fn insert_tax(
        &self,
        tax: Tax,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Tax>>> + Send;

    /// Saves the mutable fields of a tax (name, description, rate, tax_type, is_compound,
    /// is_active, updated_at) and its event, taking the credits of `charge`; an `idempotency` key of the tenant
    /// already used within the window is replayed instead (nothing is written).
    ///
    /// # Errors
    /// `Missing` when the tax is not live in its tenant;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn update_tax(
        &self,
        tax: Tax,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Tax>>> + Send;

    /// A tax of the tenant that is not deleted.
    fn get_tax(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Tax>>> + Send;

    /// The tenant's taxes that are not deleted, matching `filter`, by name then id.
    fn list_taxes(
        &self,
        tenant: &Tenant,
        filter: &TaxFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Tax>>> + Send;

    /// Soft-deletes a tax with its deletion record and event, taking the credits; an
    /// `idempotency` key already used is replayed instead.
    ///
    /// # Errors
    /// `Missing` when the tax is not live in the deletion's tenant;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn delete_tax(
        &self,
        tax_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;
}

/// Filters of the category list.
#[derive(Debug, Clone, Default)]
pub struct CategoryFilter {
    pub category_type: Option<CategoryType>,
    pub is_active: Option<bool>,
    pub parent_id: Option<String>,
}

/// Categories (spec 2.6): synchronous writes, each with its event and credits.
pub trait Categories: Send + Sync + 'static {
    /// Inserts a category and its event, taking the credits of `charge`; an `idempotency` key of the tenant
    /// already used within the window is replayed instead (nothing is written).
    ///
    /// # Errors
    /// `CreditsShort` when a live pool is short; nothing is written then.
    /// `Written::Replay` when the idempotency key was used already.
    fn insert_category(
        &self,
        category: Category,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Category>>> + Send;

    /// Saves the mutable fields of a category (name, description, color, is_active,
    /// parent_id, updated_at) and its event, taking the credits of `charge`; an `idempotency` key of the tenant
    /// already used within the window is replayed instead (nothing is written).
    ///
    /// # Errors
    /// `Missing` when the category is not live in its tenant;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn update_category(
        &self,
        category: Category,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Category>>> + Send;

    /// A category of the tenant that is not deleted.
    fn get_category(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Category>>> + Send;

    /// The tenant's categories that are not deleted, matching `filter`, by name then id;
    /// every match when `page` is `None`.
    fn list_categories(
        &self,
        tenant: &Tenant,
        filter: &CategoryFilter,
        page: Option<PageRequest>,
    ) -> impl Future<Output = StoreResult<Page<Category>>> + Send;

    /// Soft-deletes a category with its deletion record and event, taking the credits;
    /// an `idempotency` key already used is replayed instead.
    ///
    /// # Errors
    /// `Missing` when the category is not live in the deletion's tenant;
    /// `InUse` when a live transaction or a live subcategory references it;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn delete_category(
        &self,
        category_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;
}
