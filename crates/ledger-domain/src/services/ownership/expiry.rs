//! Transfers the world moved past: the periodic expiry of pending transfers past their
//! time, a pending transfer whose organization moved (superseded, so cancelled), and
//! the refusal of an act that lost its race to another.

use serde_json::Value;

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ownership::{OrganizationTransfer, TransferChange, TransferStatus};
use crate::ports::Store;

use crate::services::Ledger;

use super::{changed, lost_race, not_pending, transfer_not_found};

/// How many expired transfers one run of the expiry job stores at most (the next run
/// takes the rest).
const EXPIRY_BATCH: i64 = 500;

impl<S: Store> Ledger<S> {
    /// The refusal of an act that lost its race: the transfer as it stands now.
    pub(super) async fn lost_race(&self, before: &OrganizationTransfer) -> DomainError {
        match self.store.get_transfer(&before.id).await {
            Ok(Some(now)) => match now.status_at(self.now()) {
                TransferStatus::Pending => self.superseded(now).await,
                status => not_pending(&now, status),
            },
            Ok(None) => transfer_not_found(&before.id),
            Err(e) => e.into(),
        }
    }

    /// A pending transfer whose organization has moved since it was initiated (an
    /// ancestor's transfer was accepted) can never be accepted: it is cancelled, with its
    /// event, and the act answers `transfer_not_pending`.
    pub(super) async fn superseded(&self, transfer: OrganizationTransfer) -> DomainError {
        let change = TransferChange {
            transfer_id: transfer.id.clone(),
            status: TransferStatus::Cancelled,
            responded_at: self.now(),
            responded_by: None,
            accept: None,
        };
        let after = changed(&transfer, &change);
        let views = match self
            .transfer_views(&[transfer.clone(), after.clone()])
            .await
        {
            Ok(views) => views,
            Err(e) => return e,
        };
        let [before_view, view] = match <[Value; 2]>::try_from(views) {
            Ok(pair) => pair,
            Err(_) => return DomainError::Internal("transfer views".into()),
        };
        let events = self.transfer_events(
            &after,
            TransferStatus::Cancelled.event_type(),
            Some(before_view),
            &view,
            None,
            None,
        );
        match self.store.change_transfer(change, events, None, None).await {
            Ok(_) => DomainError::Reported {
                code: ErrorCode::TransferNotPending,
                message: format!(
                    "organization {} has moved since transfer {} was initiated; the transfer is cancelled",
                    transfer.organization_id, transfer.id
                ),
                details: Some(serde_json::json!({ "status": "cancelled" })),
            },
            Err(e) if lost_race(&e) => match self.store.get_transfer(&transfer.id).await {
                Ok(Some(now)) => {
                    let status = now.status_at(self.now());
                    not_pending(&now, status)
                }
                Ok(None) => transfer_not_found(&transfer.id),
                Err(e) => e.into(),
            },
            Err(e) => e.into(),
        }
    }

    /// Stores `expired` on every pending transfer past its expiry, with its event (the
    /// periodic job). Each is a compare-and-set, so replicas running it at once store
    /// each expiry once; returns how many this call stored.
    ///
    /// # Errors
    /// Storage failures (what was stored before stays).
    pub async fn expire_organization_transfers(&self) -> DomainResult<usize> {
        let now = self.now();
        let due = self.store.expirable_transfers(now, EXPIRY_BATCH).await?;
        let mut expired = 0;
        for transfer in due {
            let change = TransferChange {
                transfer_id: transfer.id.clone(),
                status: TransferStatus::Expired,
                responded_at: now,
                responded_by: None,
                accept: None,
            };
            let after = changed(&transfer, &change);
            let before_view = self.transfer_view(&transfer).await?;
            let view = self.transfer_view(&after).await?;
            let events = self.transfer_events(
                &after,
                TransferStatus::Expired.event_type(),
                Some(before_view),
                &view,
                None,
                None,
            );
            match self.store.change_transfer(change, events, None, None).await {
                Ok(_) => expired += 1,
                // Another replica stored it first (or it was answered meanwhile).
                Err(e) if lost_race(&e) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if expired > 0 {
            tracing::info!(expired, "organization transfers expired");
        }
        Ok(expired)
    }
}
