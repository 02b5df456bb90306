//! Reading transfers: outgoing and incoming lists, one transfer, and the figures of the
//! transferred subtree, each to the side that may see it.

use serde_json::Value;

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ownership::SubtreeStats;
use crate::ports::{Page, PageRequest, Store, TransferFilter};

use crate::services::{Access, Ledger};

impl<S: Store> Ledger<S> {
    /// Outgoing transfers: those of `{org}` and of organizations below it, as they were
    /// placed when initiated, newest first.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn list_outgoing_transfers(
        &self,
        access: &Access,
        page: PageRequest,
    ) -> DomainResult<Page<Value>> {
        let org = self.current_organization(access).await?;
        self.transfer_page(&TransferFilter::SentFrom(org.path), page)
            .await
    }

    /// A page of the transfers `filter` selects, as views.
    async fn transfer_page(
        &self,
        filter: &TransferFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Value>> {
        let found = self.store.list_transfers(filter, page).await?;
        Ok(Page {
            items: self.transfer_views(&found.items).await?,
            total_count: found.total_count,
        })
    }

    /// Incoming transfers: those designated to the owner of `{org}`, which must be a
    /// root organization (the recipient acts with a root key), newest first.
    ///
    /// # Errors
    /// `not_transfer_recipient` when `{org}` is not a root organization.
    pub async fn list_incoming_transfers(
        &self,
        access: &Access,
        page: PageRequest,
    ) -> DomainResult<Page<Value>> {
        let org = self.current_organization(access).await?;
        if !org.is_root() {
            return Err(DomainError::rule(
                ErrorCode::NotTransferRecipient,
                "incoming transfers are listed with a key of a root organization of the recipient",
            ));
        }
        self.transfer_page(&TransferFilter::ToUser(org.owner_user_id), page)
            .await
    }

    /// One transfer, to either side.
    ///
    /// # Errors
    /// `resource_not_found` when the caller is on neither side.
    pub async fn get_organization_transfer(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<Value> {
        let (transfer, ..) = self.visible_transfer(access, id).await?;
        self.transfer_view(&transfer).await
    }

    /// The figures of the transferred organization's subtree as it stands, in the
    /// caller's mode, to either side.
    ///
    /// # Errors
    /// `resource_not_found` when the caller is on neither side.
    pub async fn organization_transfer_stats(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<Value> {
        let (transfer, ..) = self.visible_transfer(access, id).await?;
        let moved = self
            .store
            .get_organization(&transfer.organization_id)
            .await?
            .ok_or_else(|| DomainError::OrganizationNotFound(transfer.organization_id.clone()))?;
        let stats: SubtreeStats = self
            .store
            .subtree_stats(&moved.path, access.tenant.livemode)
            .await?;
        Ok(crate::views::transfer_stats(
            &transfer,
            &stats,
            access.tenant.livemode,
        ))
    }
}
