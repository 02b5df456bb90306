//! Credit pools, their ledger and purchases in memory.

use crate::error::Resource;
use crate::ports::StoreError;
use time::OffsetDateTime;

use crate::credits::{
    CreditPool, CreditPurchase, LedgerEntry, LedgerKind, PurchaseStatus, after_purchase,
    after_reset, purchased_left, reset_entry_id,
};
use crate::events::Event;
use crate::ports::{Credits, Page, PageRequest, StoreResult, Tenant};

use super::tenanted::{of_tenant, sort_newest_first};
use super::{MemoryStore, in_tenant, page_of};

impl Credits for MemoryStore {
    async fn credit_pool(&self, pool_id: &str) -> StoreResult<Option<CreditPool>> {
        let state = self.state();
        let Some(org) = state.organizations.get(pool_id) else {
            return Ok(None);
        };
        Ok(state
            .credit_pools
            .get(pool_id)
            .map(|(purchased, period)| CreditPool {
                organization_id: pool_id.to_owned(),
                credits_remaining: org.credits_remaining,
                credits_total: org.credits_total,
                purchased_remaining: purchased_left(*purchased, org.credits_remaining),
                period: period.clone(),
            }))
    }

    async fn reset_pool(
        &self,
        pool_id: &str,
        period: &str,
        allowance: i64,
        at: OffsetDateTime,
    ) -> StoreResult<Option<i64>> {
        let mut state = self.state();
        let Some((purchased, last)) = state.credit_pools.get(pool_id).cloned() else {
            return Ok(None);
        };
        let entry_id = reset_entry_id(period);
        if last.as_str() >= period
            || state
                .credit_ledger
                .iter()
                .any(|e| e.organization_id == pool_id && e.id == entry_id)
        {
            return Ok(None);
        }
        let Some(org) = state.organizations.get_mut(pool_id) else {
            return Ok(None);
        };
        let (remaining, kept) = after_reset(org.credits_remaining, purchased, allowance);
        let change = remaining - org.credits_remaining;
        org.credits_remaining = remaining;
        org.credits_total = remaining;
        state
            .credit_pools
            .insert(pool_id.to_owned(), (kept, period.to_owned()));
        state.credit_ledger.push(LedgerEntry {
            organization_id: pool_id.to_owned(),
            id: entry_id,
            kind: LedgerKind::Reset,
            credits: change,
            reference: Some(period.to_owned()),
            created_at: at,
        });
        Ok(Some(change))
    }

    async fn pools_due(&self, period: &str, limit: i64) -> StoreResult<Vec<String>> {
        let state = self.state();
        Ok(state
            .credit_pools
            .iter()
            .filter(|(_, (_, last))| last.as_str() < period)
            .map(|(id, _)| id.clone())
            .take(usize::try_from(limit).unwrap_or(0))
            .collect())
    }

    async fn credit_ledger(
        &self,
        pool_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<LedgerEntry>> {
        let state = self.state();
        let rows: Vec<LedgerEntry> = state
            .credit_ledger
            .iter()
            .rev()
            .filter(|e| e.organization_id == pool_id)
            .cloned()
            .collect();
        Ok(page_of(rows, Some(page)))
    }

    async fn credit_ledger_sum(&self, pool_id: &str) -> StoreResult<i64> {
        Ok(self
            .state()
            .credit_ledger
            .iter()
            .filter(|e| e.organization_id == pool_id)
            .map(|e| e.credits)
            .sum())
    }

    async fn insert_purchase(
        &self,
        purchase: CreditPurchase,
        event: Event,
    ) -> StoreResult<CreditPurchase> {
        let mut state = self.state();
        if state
            .purchases
            .iter()
            .any(|p| p.organization_id == purchase.organization_id && p.id == purchase.id)
        {
            return Err(StoreError::Internal(format!(
                "purchase {} exists already",
                purchase.id
            )));
        }
        state.purchases.push(purchase.clone());
        state.events.push(event);
        Ok(purchase)
    }

    async fn get_purchase(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<CreditPurchase>> {
        Ok(self
            .state()
            .purchases
            .iter()
            .find(|p| in_tenant(tenant, &p.organization_id, p.livemode) && p.id == id)
            .cloned())
    }

    async fn find_purchase(
        &self,
        organization_id: &str,
        id: &str,
    ) -> StoreResult<Option<CreditPurchase>> {
        Ok(self
            .state()
            .purchases
            .iter()
            .find(|p| p.organization_id == organization_id && p.id == id)
            .cloned())
    }

    async fn list_purchases(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> StoreResult<Page<CreditPurchase>> {
        let mut rows = of_tenant(&self.state().purchases, tenant, |_| true);
        sort_newest_first(&mut rows);
        Ok(page_of(rows, Some(page)))
    }

    async fn complete_purchase(
        &self,
        organization_id: &str,
        id: &str,
        provider_session_id: Option<String>,
        at: OffsetDateTime,
        event: Event,
    ) -> StoreResult<(CreditPurchase, bool)> {
        let mut state = self.state();
        let Some(index) = state
            .purchases
            .iter()
            .position(|p| p.organization_id == organization_id && p.id == id)
        else {
            return Err(StoreError::missing(Resource::CreditPurchase, id));
        };
        if state.purchases[index].status != PurchaseStatus::Pending {
            return Ok((state.purchases[index].clone(), false));
        }
        let purchase = {
            let p = &mut state.purchases[index];
            p.status = PurchaseStatus::Completed;
            p.completed_at = Some(at);
            if provider_session_id.is_some() {
                p.provider_session_id = provider_session_id;
            }
            p.clone()
        };
        if purchase.livemode {
            let (purchased, period) = state
                .credit_pools
                .get(&purchase.pool_id)
                .cloned()
                .unwrap_or_default();
            if let Some(org) = state.organizations.get_mut(&purchase.pool_id) {
                let (remaining, bought) =
                    after_purchase(org.credits_remaining, purchased, purchase.credits);
                org.credits_remaining = remaining;
                org.credits_total += purchase.credits;
                state
                    .credit_pools
                    .insert(purchase.pool_id.clone(), (bought, period));
                state.credit_ledger.push(LedgerEntry {
                    organization_id: purchase.pool_id.clone(),
                    id: purchase.id.clone(),
                    kind: LedgerKind::Purchase,
                    credits: purchase.credits,
                    reference: Some(purchase.id.clone()),
                    created_at: at,
                });
            }
        }
        state.events.push(event);
        Ok((purchase, true))
    }
}
