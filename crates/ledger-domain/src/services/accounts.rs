//! The chart of accounts: create, update, read, balances, history, delete.

use crate::error::{ErrorCode, Resource};
use serde_json::json;
use time::OffsetDateTime;

use crate::accounts::{Account, AccountStatus, AccountType, Totals, validate_code};
use serde_json::Value;

use crate::error::{DomainError, DomainResult};
use crate::events::Event;
use crate::ids::{IdKind, new_id, parse_id};
use crate::jobs::{Job, JobCommand};
use crate::money::Currency;
use crate::ports::{AccountFilter, Page, PageRequest, Store, Tenant, Written};

use super::access::Author;
use super::signup::rename;
use super::{Access, Ledger, WriteOptions};

/// Fields of a new account.
#[derive(Debug, Clone, Default)]
pub struct NewAccountInput {
    pub code: String,
    pub name: String,
    pub account_type: String,
    pub subtype: Option<String>,
    pub currency: Option<String>,
    pub description: Option<String>,
    pub parent_id: Option<String>,
    pub metadata: Option<serde_json::Value>,
}

/// Fields an update may change; `None` keeps the value.
#[derive(Debug, Clone, Default)]
pub struct AccountChanges {
    pub name: Option<String>,
    pub description: Option<String>,
    pub is_active: Option<bool>,
    pub status: Option<String>,
    pub parent_id: Option<Option<String>>,
    pub metadata: Option<serde_json::Value>,
}

/// An account's balance at a time.
#[derive(Debug, Clone)]
pub struct BalanceView {
    pub account: Account,
    pub as_of: Option<OffsetDateTime>,
    pub totals: Totals,
}

pub use crate::ports::HistoryView;

pub(super) fn not_found(resource: &'static str, id: &str) -> DomainError {
    DomainError::NotFound {
        resource,
        id: id.to_owned(),
    }
}

/// The record `id` names, read by `read` with the id in its canonical form: text that is
/// no id of `kind`, and an id that names nothing, are `resource_not_found` of `resource`.
pub(super) async fn find_by_id<T, E, F>(
    kind: IdKind,
    resource: &'static str,
    id: &str,
    read: impl FnOnce(String) -> F,
) -> DomainResult<T>
where
    F: Future<Output = Result<Option<T>, E>>,
    DomainError: From<E>,
{
    let Some(parsed) = parse_id(kind, id) else {
        return Err(not_found(resource, id));
    };
    read(parsed).await?.ok_or_else(|| not_found(resource, id))
}

/// `Ledger` methods that only read the caller's tenant, each with its doc comment:
/// `vis fn name(id) -> Record: IdKind, "resource", store_read;` reads a record by id
/// ([`find_by_id`]), `vis fn name(page) -> Record: store_read;` a page of records.
macro_rules! tenant_reads {
    () => {};
    (
        $(#[$doc:meta])*
        $vis:vis fn $name:ident(id) -> $record:ty: $kind:ident, $resource:literal, $read:ident;
        $($rest:tt)*
    ) => {
        $(#[$doc])*
        $vis async fn $name(
            &self,
            access: &$crate::services::Access,
            id: &str,
        ) -> $crate::error::DomainResult<$record> {
            let kind = $crate::ids::IdKind::$kind;
            $crate::services::accounts::find_by_id(kind, $resource, id, |parsed| async move {
                self.store.$read(&access.tenant, &parsed).await
            })
            .await
        }
        tenant_reads! { $($rest)* }
    };
    (
        $(#[$doc:meta])*
        $vis:vis fn $name:ident(page) -> $record:ty: $read:ident;
        $($rest:tt)*
    ) => {
        $(#[$doc])*
        $vis async fn $name(
            &self,
            access: &$crate::services::Access,
            page: $crate::ports::PageRequest,
        ) -> $crate::error::DomainResult<$crate::ports::Page<$record>> {
            Ok(self.store.$read(&access.tenant, page).await?)
        }
        tenant_reads! { $($rest)* }
    };
}
pub(super) use tenant_reads;

/// Refuses an account that cannot take a posting of `what` (`transaction`, `document`)
/// in `currency`: `account_inactive` unless it accepts postings, `currency_mismatch`
/// unless it is in that currency.
pub(super) fn check_postable(account: &Account, currency: &str, what: &str) -> DomainResult<()> {
    if !account.status.accepts_postings() {
        let label = format!("{} ({})", account.code, account.name);
        return Err(DomainError::account_inactive(
            &label,
            account.status.as_str(),
        ));
    }
    if account.currency != currency {
        return Err(DomainError::rule(
            ErrorCode::CurrencyMismatch,
            format!(
                "account {} is in {} but the {what} is in {currency}",
                account.code, account.currency
            ),
        ));
    }
    Ok(())
}

/// The account id a path names, in its canonical form; text that is no account id names
/// nothing (404).
fn account_path_id(id: &str) -> DomainResult<String> {
    parse_id(IdKind::Account, id).ok_or_else(|| not_found("account", id))
}

impl<S: Store> Ledger<S> {
    /// An audit event of the author's tenant and key (a request's or its job's), stamped
    /// now.
    pub(super) fn event(
        &self,
        by: &impl Author,
        event_type: &str,
        entity_type: &str,
        entity_id: &str,
        before: Option<serde_json::Value>,
        after: Option<serde_json::Value>,
    ) -> Event {
        let Tenant {
            organization_id,
            livemode,
        } = by.tenant();
        Event {
            id: new_id(IdKind::Event),
            organization_id,
            livemode,
            event_type: event_type.to_owned(),
            entity_type: entity_type.to_owned(),
            entity_id: entity_id.to_owned(),
            api_key_id: Some(by.key_id().to_owned()),
            before_state: before,
            after_state: after,
            created_at: self.now(),
        }
    }

    /// Reads an account of the tenant.
    ///
    /// # Errors
    /// `resource_not_found` when it does not exist in the tenant or is deleted.
    pub async fn get_account(&self, access: &Access, id: &str) -> DomainResult<Account> {
        let parsed = account_path_id(id)?;
        self.store
            .get_account(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| not_found("account", id))
    }

    async fn check_parent(
        &self,
        access: &Access,
        parent: Option<&str>,
        own_id: Option<&str>,
    ) -> DomainResult<Option<String>> {
        let Some(parent) = parent.map(str::trim).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let parsed = crate::ids::parse_reference(
            IdKind::Account,
            Resource::Account,
            "parent_account_id",
            parent,
        )?;
        let parent_account = self
            .store
            .get_account(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| {
                DomainError::reference_not_found("parent_account_id", Resource::Account, &parsed)
            })?;
        if own_id == Some(parent_account.id.as_str()) {
            return Err(DomainError::inconsistent(
                "parent_account_id",
                "an account cannot be its own parent",
            ));
        }
        Ok(Some(parent_account.id))
    }

    /// Creates an account (synchronous write).
    ///
    /// # Errors
    /// Validation errors (`code`, `name`, `account_type`, `currency_id`, `parent_account_id`),
    /// `duplicate_value` on `code`.
    pub(crate) async fn create_account(
        &self,
        access: &Access,
        input: NewAccountInput,
        options: super::WriteOptions,
    ) -> DomainResult<Written<Account>> {
        let code = input.code.trim().to_owned();
        validate_code(&code)?;
        let name = super::signup::check_name(&input.name)?;
        let account_type = AccountType::parse(&input.account_type).ok_or_else(|| {
            DomainError::invalid_field(
                "account_type",
                "must be one of asset, liability, equity, revenue, expense",
            )
        })?;
        let currency = match input
            .currency
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            None => access.organization.base_currency.clone(),
            Some(code) => Currency::from_code(code).map(|c| c.code()).ok_or_else(|| {
                DomainError::invalid_field("currency_id", "must be an ISO 4217 currency code")
            })?,
        };
        let parent_id = self
            .check_parent(access, input.parent_id.as_deref(), None)
            .await?;
        let now = self.now();
        let account = Account {
            id: new_id(IdKind::Account),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            code,
            name,
            account_type,
            subtype: input
                .subtype
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
            currency,
            description: input.description,
            status: AccountStatus::Active,
            parent_id,
            is_system: false,
            metadata: input.metadata.unwrap_or_else(|| json!({})),
            created_at: now,
            updated_at: now,
        };
        let after = crate::views::account(&account, None);
        let event = self.event(
            access,
            "account.created",
            "account",
            &account.id,
            None,
            Some(after),
        );
        // The answer is known before the write, so a replay can return it verbatim.
        let view = crate::views::account(&account, Some(Totals::default()));
        Ok(self
            .store
            .insert_account(account, self.audit(access, options, event, &view))
            .await?)
    }

    /// Updates name, description, status, parent or metadata (synchronous write).
    ///
    /// # Errors
    /// `resource_not_found`, validation errors; `insufficient_permissions` when a key
    /// without `admin` suspends the account or lifts its suspension.
    pub(crate) async fn update_account(
        &self,
        access: &Access,
        id: &str,
        changes: AccountChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let balance = self.account_balance(access, id, None).await?;
        let before = balance.account;
        let mut account = before.clone();
        rename(
            &mut account.name,
            &mut account.description,
            changes.name,
            changes.description,
        )?;
        if let Some(status) = changes.status {
            account.status = AccountStatus::parse(&status).ok_or_else(|| {
                DomainError::invalid_field("status", "must be active, inactive or suspended")
            })?;
        }
        if let Some(active) = changes.is_active {
            account.status = if active {
                AccountStatus::Active
            } else {
                AccountStatus::Inactive
            };
        }
        // DECISIONS 10: suspending an account, or lifting a suspension, is an admin act.
        if (account.status == AccountStatus::Suspended)
            != (before.status == AccountStatus::Suspended)
        {
            access.require(crate::organizations::Scope::Admin, "accounts")?;
        }
        if let Some(parent) = changes.parent_id {
            account.parent_id = self
                .check_parent(access, parent.as_deref(), Some(&account.id))
                .await?;
        }
        if let Some(metadata) = changes.metadata {
            account.metadata = metadata;
        }
        account.updated_at = self.now();
        let event = self.event(
            access,
            "account.updated",
            "account",
            &account.id,
            Some(crate::views::account(&before, None)),
            Some(crate::views::account(&account, None)),
        );
        // An update leaves the balance as it is, so the answer is known before the write.
        let view = crate::views::account(&account, Some(balance.totals));
        let updated = self
            .store
            .update_account(account, self.audit(access, options, event, &view))
            .await;
        self.forget_account(&access.tenant, id);
        Ok(updated?.map(|_| view))
    }

    /// Forgets the cached copy of an account that changed (an update, or a deletion job).
    pub(super) fn forget_account(&self, tenant: &crate::ports::Tenant, id: &str) {
        self.account_cache.forget(tenant, id);
    }

    /// Lists accounts sorted by code.
    ///
    /// # Errors
    /// Validation errors on the filters.
    pub async fn list_accounts(
        &self,
        access: &Access,
        account_type: Option<&str>,
        status: Option<&str>,
        page: Option<PageRequest>,
    ) -> DomainResult<Page<Account>> {
        let filter = AccountFilter {
            account_type: account_type
                .map(|t| {
                    AccountType::parse(t).ok_or_else(|| {
                        DomainError::invalid_field(
                            "account_type",
                            "must be one of asset, liability, equity, revenue, expense",
                        )
                    })
                })
                .transpose()?,
            status: status
                .map(|s| {
                    AccountStatus::parse(s).ok_or_else(|| {
                        DomainError::invalid_field(
                            "status",
                            "must be active, inactive or suspended",
                        )
                    })
                })
                .transpose()?,
            code: None,
        };
        Ok(self
            .store
            .list_accounts(&access.tenant, &filter, page)
            .await?)
    }

    /// The balance of an account from posted entries dated before `until` (all when `None`).
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn account_balance(
        &self,
        access: &Access,
        id: &str,
        until: Option<OffsetDateTime>,
    ) -> DomainResult<BalanceView> {
        if until.is_none() {
            // The common case, the balance now: the account and its running totals in
            // one read.
            let parsed = account_path_id(id)?;
            let (account, totals) = self
                .store
                .account_with_totals(&access.tenant, &parsed)
                .await?
                .ok_or_else(|| not_found("account", id))?;
            return Ok(BalanceView {
                account,
                as_of: None,
                totals,
            });
        }
        let account = self.get_account(access, id).await?;
        let totals = self
            .store
            .account_totals(&access.tenant, Some(&account.id), None, until)
            .await?;
        let totals = totals
            .into_iter()
            .find(|(a, _)| *a == account.id)
            .map(|(_, t)| t)
            .unwrap_or_default();
        Ok(BalanceView {
            account,
            as_of: until,
            totals,
        })
    }

    /// A page of an account's history with the running balance after each row.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn account_history(
        &self,
        access: &Access,
        id: &str,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> DomainResult<HistoryView> {
        let account = self.get_account(access, id).await?;
        let history = self
            .store
            .account_history(&access.tenant, &account.id, from, until, page)
            .await?;
        let mut running = history.before;
        let rows = history
            .rows
            .into_iter()
            .map(|row| {
                running.debit += row.debit;
                running.credit += row.credit;
                let balance = account.account_type.net(running.debit, running.credit);
                (row, balance)
            })
            .collect::<Vec<_>>();
        let has_more = page.offset + (rows.len() as i64) < history.total_count;
        Ok(HistoryView {
            account,
            rows,
            total_count: history.total_count,
            has_more,
        })
    }

    /// Queues the soft delete of an account without entries.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_in_use` for system accounts and accounts with
    /// entries (of any transaction, pending ones included).
    pub(crate) async fn delete_account(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let account = self.get_account(access, id).await?;
        if account.is_system {
            return Err(DomainError::rule(
                ErrorCode::ResourceInUse,
                "system accounts cannot be deleted; set them inactive instead",
            ));
        }
        self.check_not_in_use(access, Resource::Account, &account.id)
            .await?;
        // A posting accepted meanwhile is caught when the delete is applied, under lock.
        self.enqueue(
            access,
            JobCommand::DeleteAccount {
                account_id: account.id,
            },
            options,
        )
        .await
    }
}
