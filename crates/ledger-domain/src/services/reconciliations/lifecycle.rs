//! The reconciliation itself: create one (its opening balance carried from the last
//! completed one), change its period, closing balance and matches while it is open,
//! complete it once its difference is zero, and delete it while it is open.

use serde_json::{Value, json};
use time::Date;

use crate::accounts::{Account, AccountType};
use crate::dates::check_day;
use crate::error::{DomainError, DomainResult, ErrorCode, Resource};
use crate::ids::{IdKind, new_id};
use crate::ports::{PageRequest, ReconciliationFilter, Store, Written};
use crate::reconciliation::{Reconciliation, ReconciliationStatus};
use crate::views;

use crate::services::deletions::Removal;
use crate::services::{Access, Ledger, WriteOptions};

use super::{
    NewReconciliationInput, ReconciliationChanges, check_balance, check_open, check_period,
};

impl<S: Store> Ledger<S> {
    /// Creates an open reconciliation (synchronous write, one credit). Its opening
    /// balance is the closing balance of the account's latest completed reconciliation.
    ///
    /// # Errors
    /// Validation errors (`account_id`: not an asset or liability account of the tenant;
    /// dates; `closing_balance`), `reconciliation_in_progress`, `insufficient_credits`.
    pub(crate) async fn create_reconciliation(
        &self,
        access: &Access,
        input: NewReconciliationInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let account = self.reconciled_account(access, &input.account_id).await?;
        let start_date = check_day(&input.start_date, "start_date")?;
        let end_date = check_day(&input.end_date, "end_date")?;
        check_period(start_date, end_date)?;
        let closing_balance = check_balance(&input.closing_balance, &account.currency)?;
        let previous = self
            .previous_reconciliation(access, &account, start_date)
            .await?;
        let now = self.now();
        let record = Reconciliation {
            id: new_id(IdKind::Reconciliation),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            account_id: account.id.clone(),
            account_type: account.account_type,
            currency: account.currency.clone(),
            start_date,
            end_date,
            opening_balance: previous.map_or(0, |p| p.closing_balance),
            closing_balance,
            status: ReconciliationStatus::Open,
            completed_at: None,
            created_at: now,
            updated_at: now,
            matches: Vec::new(),
        };
        let view = views::reconciliation(&record);
        let audit = self.created_audit(access, options, "reconciliation", &record.id, &view);
        let written = self.store.insert_reconciliation(record, audit).await?;
        Ok(written.map(|_| view))
    }

    /// The account `account_id` names, which must be an asset or liability account of
    /// the tenant (a bank, cash or card account).
    async fn reconciled_account(&self, access: &Access, account_id: &str) -> DomainResult<Account> {
        if account_id.trim().is_empty() {
            return Err(DomainError::missing_field("account_id"));
        }
        let account_id = crate::ids::parse_reference(
            IdKind::Account,
            Resource::Account,
            "account_id",
            account_id,
        )?;
        let account = self
            .store
            .get_account(&access.tenant, &account_id)
            .await?
            .ok_or_else(|| {
                DomainError::reference_not_found("account_id", Resource::Account, &account_id)
            })?;
        if !matches!(
            account.account_type,
            AccountType::Asset | AccountType::Liability
        ) {
            return Err(DomainError::reference_not_usable(
                "account_id",
                Resource::Account,
                &account.id,
                "must be an asset or liability account (a bank, cash or card account)",
            ));
        }
        Ok(account)
    }

    /// The account's latest completed reconciliation, if any; a new one must start after
    /// its end.
    async fn previous_reconciliation(
        &self,
        access: &Access,
        account: &Account,
        start_date: Date,
    ) -> DomainResult<Option<Reconciliation>> {
        let previous = self
            .store
            .list_reconciliations(
                &access.tenant,
                &ReconciliationFilter {
                    account_id: Some(account.id.clone()),
                    status: Some(ReconciliationStatus::Completed),
                },
                PageRequest {
                    limit: 1,
                    offset: 0,
                },
            )
            .await?
            .items
            .into_iter()
            .next();
        if let Some(previous) = &previous
            && start_date <= previous.end_date
        {
            return Err(DomainError::inconsistent(
                "start_date",
                format!(
                    "must be after {}, the end of the account's last completed reconciliation",
                    views::date(previous.end_date)
                ),
            ));
        }
        Ok(previous)
    }

    /// Changes an open reconciliation: its period, its closing balance, and which
    /// entries are matched (synchronous write, one credit).
    ///
    /// # Errors
    /// `resource_not_found`, `reconciliation_not_open`, validation errors (dates,
    /// `closing_balance`, `match_entry_ids[i]`, `unmatch_entry_ids[i]`),
    /// `entry_already_matched`, `insufficient_credits`.
    pub(crate) async fn update_reconciliation(
        &self,
        access: &Access,
        id: &str,
        changes: ReconciliationChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let mut record = before.clone();
        if let Some(d) = &changes.start_date {
            record.start_date = check_day(d, "start_date")?;
        }
        if let Some(d) = &changes.end_date {
            record.end_date = check_day(d, "end_date")?;
        }
        check_period(record.start_date, record.end_date)?;
        if let Some(b) = &changes.closing_balance {
            record.closing_balance = check_balance(b, &record.currency)?;
        }
        let mut remove = Vec::new();
        for (i, entry) in changes.unmatch_entry_ids.iter().enumerate() {
            let field = format!("unmatch_entry_ids[{i}]");
            let parsed =
                crate::ids::parse_reference(IdKind::Entry, Resource::Entry, &field, entry)?;
            if !before.matches.iter().any(|m| m.entry_id == parsed) {
                return Err(DomainError::reference_not_found_in(
                    field,
                    Resource::Entry,
                    &parsed,
                    format!("entry '{parsed}' is not matched in this reconciliation"),
                ));
            }
            remove.push(parsed);
        }
        let add = self
            .entries_to_match(
                access,
                &before,
                &changes.match_entry_ids,
                "match_entry_ids",
                None,
            )
            .await?;
        record.updated_at = self.now();
        self.save(
            access,
            before,
            record,
            add,
            remove,
            Vec::new(),
            "reconciliation.updated",
            options,
            None,
        )
        .await
    }

    /// Completes an open reconciliation whose difference is zero (synchronous write,
    /// one credit): it can no longer change, and its entries' transactions are locked.
    ///
    /// # Errors
    /// `resource_not_found`, `reconciliation_not_open`, `reconciliation_not_balanced`
    /// (details: `closing_balance`, `cleared_balance`, `difference`),
    /// `insufficient_credits`.
    pub(crate) async fn complete_reconciliation(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let difference = before.difference();
        if difference != 0 {
            let money = |units: i64| views::amount(units, &before.currency);
            return Err(DomainError::Reported {
                code: ErrorCode::ReconciliationNotBalanced,
                message: format!(
                    "the reconciliation is not balanced: closing balance {} minus cleared balance {} leaves a difference of {}; match or unmatch entries, or correct the closing balance",
                    money(before.closing_balance),
                    money(before.cleared_balance()),
                    money(difference)
                ),
                details: Some(json!({
                    "closing_balance": money(before.closing_balance),
                    "cleared_balance": money(before.cleared_balance()),
                    "difference": money(difference),
                })),
            });
        }
        let now = self.now();
        let mut record = before.clone();
        record.status = ReconciliationStatus::Completed;
        record.completed_at = Some(now);
        record.updated_at = now;
        self.save(
            access,
            before,
            record,
            Vec::new(),
            Vec::new(),
            Vec::new(),
            "reconciliation.completed",
            options,
            None,
        )
        .await
    }

    /// Soft-deletes an open reconciliation (synchronous write, one credit); its entries
    /// may be matched again.
    ///
    /// # Errors
    /// `resource_not_found`, `reconciliation_not_open`, `insufficient_credits`.
    pub(crate) async fn delete_reconciliation(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let record = self.get_reconciliation(access, id).await?;
        check_open(&record)?;
        let before = views::reconciliation(&record);
        let name = record.label();
        let removal = Removal::new("reconciliation", &record.id, &name, before);
        self.soft_delete(access, options, removal, |deletion, audit| {
            self.store
                .delete_reconciliation(&record.id, deletion, audit)
        })
        .await
    }
}
