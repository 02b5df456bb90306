//! Used x402 authorizations in memory.

use crate::credits::{CreditPurchase, PurchaseStatus};
use crate::events::Event;
use crate::ports::StoreError;
use crate::ports::{Credits, StoreResult, X402Authorization, X402Payments};

use super::MemoryStore;

impl X402Payments for MemoryStore {
    async fn x402_authorization_used(
        &self,
        network: &str,
        asset: &str,
        payer: &str,
        nonce: &str,
    ) -> StoreResult<bool> {
        let key = (
            network.to_owned(),
            asset.to_owned(),
            payer.to_owned(),
            nonce.to_owned(),
        );
        Ok(self.state().x402_authorizations.contains_key(&key))
    }

    async fn record_x402_purchase(
        &self,
        purchase: CreditPurchase,
        authorization: X402Authorization,
        events: Vec<Event>,
    ) -> StoreResult<bool> {
        let key = (
            authorization.network.clone(),
            authorization.asset.clone(),
            authorization.payer.clone(),
            authorization.nonce.clone(),
        );
        {
            // The key is taken under the lock first: of two racing calls one records.
            let mut state = self.state();
            if state.x402_authorizations.contains_key(&key) {
                return Ok(false);
            }
            state.x402_authorizations.insert(key, authorization);
        }
        let mut events = events.into_iter();
        let (Some(created), Some(completed)) = (events.next(), events.next()) else {
            return Err(StoreError::Internal(
                "an x402 purchase needs its two events".into(),
            ));
        };
        let at = purchase.completed_at.unwrap_or(purchase.created_at);
        let pending = CreditPurchase {
            status: PurchaseStatus::Pending,
            completed_at: None,
            ..purchase
        };
        let (organization_id, id, session) = (
            pending.organization_id.clone(),
            pending.id.clone(),
            pending.provider_session_id.clone(),
        );
        self.insert_purchase(pending, created).await?;
        self.complete_purchase(&organization_id, &id, session, at, completed)
            .await?;
        Ok(true)
    }
}
