//! Reports over posted balances (DECISIONS 8).

use std::collections::HashMap;

use time::OffsetDateTime;

use crate::accounts::Totals;
use crate::error::DomainResult;
use crate::ports::{Store, Tenant};
use crate::reports::{
    AccountRef, AccountTotals, BalanceSheet, IncomeStatement, TrialBalance, balance_sheet,
    income_statement, trial_balance,
};

use super::pipeline::{Channel, Operation};
use super::{Access, Ledger};

impl<S: Store> Ledger<S> {
    async fn totals_by_account(
        &self,
        tenant: &Tenant,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> DomainResult<Vec<AccountTotals>> {
        let accounts = self
            .store
            .list_accounts(tenant, &Default::default(), None)
            .await?;
        let totals: HashMap<String, Totals> = self
            .store
            .account_totals(tenant, None, from, until)
            .await?
            .into_iter()
            .collect();
        Ok(accounts
            .items
            .into_iter()
            .map(|a| AccountTotals {
                totals: totals.get(&a.id).copied().unwrap_or_default(),
                account: AccountRef {
                    id: a.id,
                    code: a.code,
                    name: a.name,
                    account_type: a.account_type,
                },
            })
            .collect())
    }

    /// The trial balance of entries dated before `until`.
    ///
    /// # Errors
    /// Storage failures; `insufficient_credits` where the channel charges for reports
    /// (taken only after the report was computed).
    pub async fn trial_balance(
        &self,
        access: &Access,
        until: Option<OffsetDateTime>,
        channel: Channel,
    ) -> DomainResult<TrialBalance> {
        let report = trial_balance(self.totals_by_account(&access.tenant, None, until).await?);
        self.charge_read(access, Operation::Report, channel).await?;
        Ok(report)
    }

    /// The balance sheet of entries dated before `until`.
    ///
    /// # Errors
    /// Storage failures; `insufficient_credits` where the channel charges for reports
    /// (taken only after the report was computed).
    pub async fn balance_sheet(
        &self,
        access: &Access,
        until: Option<OffsetDateTime>,
        channel: Channel,
    ) -> DomainResult<BalanceSheet> {
        let report = balance_sheet(self.totals_by_account(&access.tenant, None, until).await?);
        self.charge_read(access, Operation::Report, channel).await?;
        Ok(report)
    }

    /// The income statement of entries dated in `[from, until)`.
    ///
    /// # Errors
    /// Storage failures; `insufficient_credits` where the channel charges for reports
    /// (taken only after the report was computed).
    pub async fn income_statement(
        &self,
        access: &Access,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        channel: Channel,
    ) -> DomainResult<IncomeStatement> {
        let report = income_statement(self.totals_by_account(&access.tenant, from, until).await?);
        self.charge_read(access, Operation::Report, channel).await?;
        Ok(report)
    }
}
