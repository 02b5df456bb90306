//! Taxes (spec 2.7, 4.9): create, read, list, update and soft delete.
//!
//! Writes are synchronous and cost [`super::transactions::WRITE_CREDITS`], taken in the
//! write's own database transaction. The arithmetic lives in [`crate::tax`].

use serde_json::Value;

use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, new_id};
use crate::ports::{Page, PageRequest, Store, TaxFilter, Written};
use crate::tax::{RateError, Tax, TaxType, parse_rate};

use super::accounts::tenant_reads;
use super::deletions::Removal;
use super::signup::rename;
use super::{Access, Ledger, WriteOptions};

/// Fields of a new tax; `rate` is the exact decimal text of a percentage.
#[derive(Debug, Clone, Default)]
pub struct NewTaxInput {
    pub name: String,
    pub rate: String,
    pub tax_type: String,
    pub description: Option<String>,
    pub is_compound: Option<bool>,
    pub is_active: Option<bool>,
}

/// Fields an update may change; `None` keeps the value.
#[derive(Debug, Clone, Default)]
pub struct TaxChanges {
    pub name: Option<String>,
    pub description: Option<String>,
    pub rate: Option<String>,
    pub is_active: Option<bool>,
}

fn check_rate(text: &str) -> DomainResult<i64> {
    parse_rate(text).map_err(|e| {
        let why = match e {
            RateError::NotANumber => "must be a decimal percentage such as 8.25",
            RateError::TooManyDecimals => "must have at most 4 decimal places",
            RateError::OutOfRange => "must be between 0 and 100",
        };
        DomainError::invalid_field("rate", why)
    })
}

fn check_tax_type(text: &str) -> DomainResult<TaxType> {
    TaxType::parse(text).ok_or_else(|| {
        DomainError::invalid_field("tax_type", "must be one of sales_tax, vat, excise, other")
    })
}

impl<S: Store> Ledger<S> {
    tenant_reads! {
        /// Reads a tax of the tenant.
        ///
        /// # Errors
        /// `resource_not_found` when it does not exist in the tenant or is deleted.
        pub fn get_tax(id) -> Tax: Tax, "tax", get_tax;
    }

    /// Creates a tax (synchronous write, one credit).
    ///
    /// # Errors
    /// Validation errors (`name`, `rate`, `tax_type`); `insufficient_credits`.
    pub(crate) async fn create_tax(
        &self,
        access: &Access,
        input: NewTaxInput,
        options: super::WriteOptions,
    ) -> DomainResult<Written<Tax>> {
        let name = super::signup::check_name(&input.name)?;
        let rate = check_rate(&input.rate)?;
        let tax_type = check_tax_type(&input.tax_type)?;
        let now = self.now();
        let tax = Tax {
            id: new_id(IdKind::Tax),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            name,
            description: input.description,
            rate,
            tax_type,
            is_compound: input.is_compound.unwrap_or(false),
            is_active: input.is_active.unwrap_or(true),
            created_at: now,
            updated_at: now,
        };
        let view = crate::views::tax(&tax);
        let audit = self.created_audit(access, options, "tax", &tax.id, &view);
        Ok(self.store.insert_tax(tax, audit).await?)
    }

    /// Updates name, description, rate or the active flag (synchronous write, one credit).
    ///
    /// # Errors
    /// `resource_not_found`, validation errors, `insufficient_credits`.
    pub(crate) async fn update_tax(
        &self,
        access: &Access,
        id: &str,
        changes: TaxChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_tax(access, id).await?;
        let mut tax = before.clone();
        rename(
            &mut tax.name,
            &mut tax.description,
            changes.name,
            changes.description,
        )?;
        if let Some(rate) = changes.rate {
            tax.rate = check_rate(&rate)?;
        }
        if let Some(active) = changes.is_active {
            tax.is_active = active;
        }
        tax.updated_at = self.now();
        let view = crate::views::tax(&tax);
        let before = crate::views::tax(&before);
        let audit = self.updated_audit(access, options, "tax", &tax.id, before, &view);
        let written = self.store.update_tax(tax, audit).await?;
        Ok(written.map(|_| view))
    }

    /// Lists taxes by name; `is_active` defaults to true.
    ///
    /// # Errors
    /// `invalid_field` on `tax_type`.
    pub async fn list_taxes(
        &self,
        access: &Access,
        tax_type: Option<&str>,
        is_active: Option<bool>,
        page: PageRequest,
    ) -> DomainResult<Page<Tax>> {
        let filter = TaxFilter {
            tax_type: tax_type.map(check_tax_type).transpose()?,
            is_active: Some(is_active.unwrap_or(true)),
        };
        Ok(self.store.list_taxes(&access.tenant, &filter, page).await?)
    }

    /// Soft-deletes a tax (synchronous write, one credit). Returns its id.
    ///
    /// Nothing references a tax yet (invoice and bill items come later), so no delete is
    /// refused as in use today; the check joins the store's `delete_tax` with them.
    ///
    /// # Errors
    /// `resource_not_found`, `insufficient_credits`.
    pub(crate) async fn delete_tax(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let tax = self.get_tax(access, id).await?;
        let before = crate::views::tax(&tax);
        let removal = Removal::new("tax", &tax.id, &tax.name, before);
        self.soft_delete(access, options, removal, |deletion, audit| {
            self.store.delete_tax(&tax.id, deletion, audit)
        })
        .await
    }
}
