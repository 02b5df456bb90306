//! Reads that cost credits and batched reads for interfaces that resolve many objects at
//! once (GraphQL). Prices come from the cost table ([`super::price`]): REST reports are
//! free, GraphQL report fields cost five credits each.

use std::collections::HashMap;

use crate::accounts::Account;
use crate::accounts::Totals;
use crate::error::DomainResult;
use crate::ids::{IdKind, new_id};
use crate::ports::{HistoryRow, Store};

use super::pipeline::{Channel, Operation, price};
use super::{Access, Ledger};

impl<S: Store> Ledger<S> {
    /// Takes the price of a read that succeeded (live pool, or a test-mode usage row);
    /// free reads take nothing.
    ///
    /// # Errors
    /// `insufficient_credits` with the required and available credits; nothing is taken.
    pub(super) async fn charge_read(
        &self,
        access: &Access,
        operation: Operation,
        channel: Channel,
    ) -> DomainResult<()> {
        let credits = price(operation, channel);
        if credits == 0 {
            return Ok(());
        }
        let charge = self.charge(access, credits);
        // The usage row's id only needs to be unique in the pool; a request id is.
        let usage_id = new_id(IdKind::Request);
        Ok(self
            .store
            .spend_credits(charge, &usage_id, self.now())
            .await?)
    }

    /// The first `limit` history rows of each of `accounts` (of the access's tenant),
    /// each with the running balance after it in the account's normal direction, in one
    /// store query: what `GET .../accounts/{id}/transactions?limit=` answers, for many
    /// accounts at once.
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn first_history_of_accounts(
        &self,
        access: &Access,
        accounts: &[Account],
        limit: i64,
    ) -> DomainResult<HashMap<String, Vec<(HistoryRow, i64)>>> {
        let ids: Vec<String> = accounts.iter().map(|a| a.id.clone()).collect();
        let rows = self
            .store
            .first_history_of_accounts(&access.tenant, &ids, limit)
            .await?;
        let mut out: HashMap<String, Vec<(HistoryRow, i64)>> =
            ids.iter().map(|id| (id.clone(), Vec::new())).collect();
        let mut running: HashMap<String, Totals> = HashMap::new();
        for (account_id, row) in rows {
            let Some(account) = accounts.iter().find(|a| a.id == account_id) else {
                continue;
            };
            let totals = running.entry(account_id.clone()).or_default();
            totals.debit += row.debit;
            totals.credit += row.credit;
            let balance = account.account_type.net(totals.debit, totals.credit);
            out.entry(account_id).or_default().push((row, balance));
        }
        Ok(out)
    }

    /// Posted totals of many accounts of the tenant in one store query; accounts without
    /// entries (or not in the tenant) get zero totals.
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn totals_of_accounts(
        &self,
        access: &Access,
        ids: &[String],
    ) -> DomainResult<HashMap<String, Totals>> {
        let found: HashMap<String, Totals> = self
            .store
            .totals_of_accounts(&access.tenant, ids)
            .await?
            .into_iter()
            .collect();
        Ok(ids
            .iter()
            .map(|id| (id.clone(), found.get(id).copied().unwrap_or_default()))
            .collect())
    }
}
