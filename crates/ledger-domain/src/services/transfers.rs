//! Account-to-account transfers (DECISIONS 10, [`crate::transfers`]): validated here into
//! a transaction written by `transfer`, then queued, posted and reversed like any other.

use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::accounts::{Account, AccountStatus, AccountType};
use crate::error::{DomainError, DomainResult, Resource};
use crate::ids::{IdKind, new_id};
use crate::jobs::Job;
use crate::money::{Currency, parse_positive_units};
use crate::ports::{AccountFilter, Audit, Page, PageRequest, Store, Tenant, Written};
use crate::transactions::{Transaction, TransactionStatus};
use crate::transfers::{SOURCE, exchange_account_code, exchange_account_name, lines};

use super::accounts::{check_postable, not_found};
use super::{Access, EntryInput, Ledger, NewTransactionInput, WriteOptions};

/// A transfer as a client sent it (DECISIONS 10); amounts are decimal texts.
#[derive(Debug, Clone, Default)]
pub struct TransferInput {
    pub from_account_id: String,
    pub to_account_id: String,
    pub amount: String,
    /// What the destination receives, in its currency (accounts of two currencies).
    pub to_amount: Option<String>,
    pub date: Option<OffsetDateTime>,
    pub description: Option<String>,
    pub reference: Option<String>,
    pub metadata: Option<Value>,
    /// Post at once instead of creating it pending.
    pub auto_post: bool,
}

fn units(field: &str, text: &str, currency: &str) -> DomainResult<i64> {
    let decimals = Currency::from_code(currency).map_or(2, |c| c.decimals());
    // The account's currency decides the places (400 past them, as for a transaction's
    // lines).
    parse_positive_units(text, decimals).map_err(|e| e.refusal(field, currency))
}

impl<S: Store> Ledger<S> {
    /// Validates a transfer into a create of its transaction; `now` decides and writes it
    /// at once (a caller that waits), else it is queued.
    ///
    /// # Errors
    /// Validation errors (`from_account_id`, `to_account_id`, `amount`, `to_amount`),
    /// `account_inactive`, `period_locked` (posted at once in a closed period),
    /// `insufficient_credits`.
    pub(crate) async fn create_transfer(
        &self,
        access: &Access,
        input: TransferInput,
        options: WriteOptions,
        now: bool,
    ) -> DomainResult<Written<Job>> {
        let transaction = self.transfer_transaction(access, input).await?;
        let auto_post = transaction.auto_post;
        let (command, draft, _) = self
            .create_command(access, transaction, Some(SOURCE))
            .await?;
        if now {
            self.apply_create_now(access, command, draft, auto_post, options)
                .await
        } else {
            self.enqueue(access, command, options).await
        }
    }

    /// The transaction a transfer writes.
    async fn transfer_transaction(
        &self,
        access: &Access,
        input: TransferInput,
    ) -> DomainResult<NewTransactionInput> {
        let from = self
            .transfer_account(access, "from_account_id", &input.from_account_id)
            .await?;
        let to = self
            .transfer_account(access, "to_account_id", &input.to_account_id)
            .await?;
        if from.id == to.id {
            return Err(DomainError::inconsistent(
                "to_account_id",
                "must differ from from_account_id",
            ));
        }
        let amount = units("amount", &input.amount, &from.currency)?;
        let to_amount = match input.to_amount.as_deref().map(str::trim) {
            Some(text) if !text.is_empty() => units("to_amount", text, &to.currency)?,
            _ if from.currency == to.currency => amount,
            _ => {
                return Err(DomainError::inconsistent(
                    "to_amount",
                    format!(
                        "is required: {} is in {} and {} in {}",
                        from.code, from.currency, to.code, to.currency
                    ),
                ));
            }
        };
        if from.currency == to.currency && to_amount != amount {
            return Err(DomainError::inconsistent(
                "to_amount",
                "must equal amount between accounts of one currency",
            ));
        }
        let exchange = if from.currency == to.currency {
            None
        } else {
            Some((
                self.exchange_account(access, &from.currency).await?,
                self.exchange_account(access, &to.currency).await?,
            ))
        };
        let legs = lines(
            &from.id,
            &to.id,
            amount,
            to_amount,
            exchange
                .as_ref()
                .map(|(a, b)| (a.id.as_str(), b.id.as_str())),
        );
        let entries = legs
            .into_iter()
            .map(|(account_id, side, units)| EntryInput {
                account_id,
                entry_type: side.as_str().to_owned(),
                // Exact at the stored scale; each line is checked against its account's
                // currency again when the transaction is validated.
                amount: crate::money::format_units(units, crate::money::SCALE),
                description: None,
            })
            .collect();
        let description = input
            .description
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| format!("Transfer from {} to {}", from.name, to.name));
        Ok(NewTransactionInput {
            description,
            date: Some(input.date.unwrap_or_else(|| self.now())),
            currency: Some(from.currency.clone()),
            reference: input.reference,
            entries,
            metadata: input.metadata,
            auto_post: input.auto_post,
            contact_id: None,
            category_id: None,
        })
    }

    /// A live, postable account of the tenant named by a transfer field.
    async fn transfer_account(
        &self,
        access: &Access,
        field: &str,
        id: &str,
    ) -> DomainResult<Account> {
        if id.trim().is_empty() {
            return Err(DomainError::missing_field(field));
        }
        let parsed = crate::ids::parse_reference(IdKind::Account, Resource::Account, field, id)?;
        let account = self
            .store
            .get_account(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| DomainError::reference_not_found(field, Resource::Account, &parsed))?;
        check_postable(&account, &account.currency, "transfer")?;
        Ok(account)
    }

    /// The tenant's exchange account of `currency`, created on first use (a system
    /// equity account, free of charge: it is part of the transfer that needs it).
    pub(super) async fn exchange_account(
        &self,
        access: &Access,
        currency: &str,
    ) -> DomainResult<Account> {
        let iso = Currency::from_code(currency).ok_or_else(|| {
            DomainError::Internal(format!("account currency '{currency}' is not ISO 4217"))
        })?;
        self.ensure_system_account(
            access,
            SystemAccountSpec {
                code: exchange_account_code(&iso),
                name: exchange_account_name(currency),
                account_type: AccountType::Equity,
                subtype: crate::transfers::EXCHANGE_SUBTYPE,
                currency: currency.to_owned(),
                description: format!("Holds the {currency} side of exchanges between currencies"),
            },
        )
        .await
    }

    /// The tenant's system account with `spec.code`, created from `spec` on first use
    /// (free: it is part of the write that needs it; an `account.created` event). An
    /// account of the client holding the code in another currency, or inactive, refuses
    /// the write rather than taking the posting.
    pub(super) async fn ensure_system_account(
        &self,
        access: &Access,
        spec: SystemAccountSpec,
    ) -> DomainResult<Account> {
        if let Some(found) = self.account_with_code(&access.tenant, &spec.code).await? {
            return usable_or_refuse(found, &spec);
        }
        let now = self.now();
        let account = Account {
            id: new_id(IdKind::Account),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            code: spec.code.clone(),
            name: spec.name.clone(),
            account_type: spec.account_type,
            subtype: Some(spec.subtype.to_owned()),
            currency: spec.currency.clone(),
            description: Some(spec.description.clone()),
            status: AccountStatus::Active,
            parent_id: None,
            is_system: true,
            metadata: json!({}),
            created_at: now,
            updated_at: now,
        };
        let event = self.event(
            access,
            "account.created",
            "account",
            &account.id,
            None,
            Some(crate::views::account(&account, None)),
        );
        match self.store.insert_account(account, Audit::of(event)).await {
            Ok(Written::Done(account)) => Ok(account),
            // A concurrent write created it first: read that one.
            Ok(Written::Replay(_)) | Err(_) => {
                match self.account_with_code(&access.tenant, &spec.code).await? {
                    Some(found) => usable_or_refuse(found, &spec),
                    None => Err(DomainError::Internal(format!(
                        "the system account {} could not be created",
                        spec.code
                    ))),
                }
            }
        }
    }

    /// The tenant's live account holding `code`, system or not.
    pub(super) async fn account_with_code(
        &self,
        tenant: &Tenant,
        code: &str,
    ) -> DomainResult<Option<Account>> {
        let filter = AccountFilter {
            code: Some(code.to_owned()),
            ..AccountFilter::default()
        };
        Ok(self
            .store
            .list_accounts(tenant, &filter, None)
            .await?
            .items
            .into_iter()
            .next())
    }

    /// A transfer of the tenant, as its transfer view.
    ///
    /// # Errors
    /// `resource_not_found` when no transaction of the tenant with this id is a transfer.
    pub async fn get_transfer(&self, access: &Access, id: &str) -> DomainResult<Transaction> {
        let txn = self
            .get_transaction(access, id)
            .await
            .map_err(|_| not_found("transfer", id))?;
        if txn.source.as_deref() != Some(SOURCE) {
            return Err(not_found("transfer", id));
        }
        Ok(txn)
    }

    /// The tenant's transfers, newest first, in `status` when given.
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn list_transfers(
        &self,
        access: &Access,
        status: Option<TransactionStatus>,
        page: PageRequest,
    ) -> DomainResult<Page<Transaction>> {
        Ok(self
            .store
            .list_transactions_from(&access.tenant, SOURCE, status, page)
            .await?)
    }
}

/// A system account a write creates on first use.
pub(super) struct SystemAccountSpec {
    pub code: String,
    pub name: String,
    pub account_type: AccountType,
    pub subtype: &'static str,
    pub currency: String,
    pub description: String,
}

/// The account holding a system code, refused when it is not usable as that system
/// account (a client's own account took the code).
fn usable_or_refuse(account: Account, spec: &SystemAccountSpec) -> DomainResult<Account> {
    if account.currency != spec.currency || !account.status.accepts_postings() {
        return Err(DomainError::rule(
            crate::error::ErrorCode::CurrencyMismatch,
            format!(
                "account {} ({}) holds the code of the system account '{}' but is not an active {} account",
                account.code, account.name, spec.name, spec.currency
            ),
        ));
    }
    Ok(account)
}
