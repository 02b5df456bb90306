//! The acts on a transfer: initiating it (the sender's side), accepting or rejecting it
//! (the recipient), cancelling it (the sender's side); each a compare-and-set with its
//! events, credits and idempotency record.

use serde_json::Value;

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::events::Event;
use crate::ids::{IdKind, new_id};
use crate::organizations::Relationship;
use crate::ownership::{Acceptance, OrganizationTransfer, TransferChange, TransferStatus};
use crate::ports::{Store, StoreError, Taken, Written};

use crate::services::{Access, Ledger, OrganizationTransferInput, WriteOptions, with_result};

use super::{changed, given, lost_race, not_pending};

impl<S: Store> Ledger<S> {
    /// Initiates the transfer of `{org}` (never a root) to the user `input` names.
    ///
    /// # Errors
    /// `root_organization_not_transferable`, `missing_field` / `invalid_field` (not
    /// exactly one recipient field), `recipient_not_found`, `ambiguous_recipient`,
    /// `transfer_already_pending`, `insufficient_credits`.
    pub(crate) async fn initiate_transfer(
        &self,
        access: &Access,
        input: OrganizationTransferInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let org = self.current_organization(access).await?;
        if org.is_root() {
            return Err(DomainError::rule(
                ErrorCode::RootOrganizationNotTransferable,
                format!(
                    "organization {} is a root organization; only sub-organizations can be transferred",
                    org.id
                ),
            ));
        }
        let recipient = self.recipient(input).await?;
        let descendants = self.descendant_count(&org.path).await?;
        let now = self.now();
        let transfer = OrganizationTransfer {
            id: new_id(IdKind::OrganizationTransfer),
            organization_id: org.id.clone(),
            organization_name: org.name.clone(),
            from_path: org.path.clone(),
            from_user_id: org.owner_user_id.clone(),
            to_user_id: recipient.id.clone(),
            status: TransferStatus::Pending,
            relationship_on_accept: None,
            to_organization_id: None,
            initiated_at: now,
            responded_at: None,
            expires_at: now + self.transfer_expiry(),
            descendant_org_count: descendants,
            initiated_by: access.key_id.clone(),
            responded_by: None,
        };
        let view = self.transfer_view(&transfer).await?;
        let events = self.transfer_events(
            &transfer,
            TransferStatus::Pending.event_type(),
            None,
            &view,
            Some(&access.key_id),
            None,
        );
        self.insert_transfer(access, transfer, events, view, options)
            .await
    }

    /// Stores a new transfer with its events, credits and idempotency record.
    async fn insert_transfer(
        &self,
        access: &Access,
        transfer: OrganizationTransfer,
        events: Vec<Event>,
        view: Value,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let mut retried = false;
        let written = loop {
            let attempt = self
                .store
                .insert_transfer(
                    transfer.clone(),
                    events.clone(),
                    with_result(options.idempotency.clone(), &view),
                    Some(self.charge(access, options.credits)),
                )
                .await;
            match attempt {
                // A pending transfer of the organization may only be past its expiry,
                // not yet stored as expired: store the expiries due and try once more.
                Err(e @ StoreError::Taken(Taken::PendingTransfer { .. })) if !retried => {
                    retried = true;
                    if self.expire_organization_transfers().await? == 0 {
                        return Err(e.into());
                    }
                }
                other => break other?,
            }
        };
        Ok(written.map(|_| view))
    }

    /// Checks that a transfer the caller acts on is still pending.
    fn still_pending(&self, transfer: &OrganizationTransfer) -> DomainResult<()> {
        match transfer.status_at(self.now()) {
            TransferStatus::Pending => Ok(()),
            other => Err(not_pending(transfer, other)),
        }
    }

    /// Accepts a transfer with a key of one of the recipient's root organizations: the
    /// organization and its subtree move under that root with `relationship`.
    ///
    /// # Errors
    /// `resource_not_found`, `not_transfer_recipient`, `invalid_field` / `missing_field`
    /// on `relationship`, `transfer_not_pending`, `insufficient_credits`.
    pub(crate) async fn accept_transfer(
        &self,
        access: &Access,
        id: &str,
        relationship: Option<String>,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let (transfer, sides, root) = self.visible_transfer(access, id).await?;
        if !sides.recipient {
            return Err(DomainError::rule(
                ErrorCode::NotTransferRecipient,
                format!(
                    "only the recipient of transfer {}, with a key of one of its root organizations, can accept it",
                    transfer.id
                ),
            ));
        }
        let relationship = match given(relationship) {
            None => return Err(DomainError::missing_field("relationship")),
            Some(text) => Relationship::parse(&text).ok_or_else(|| {
                DomainError::invalid_field("relationship", "must be 'owned' or 'linked'")
            })?,
        };
        self.still_pending(&transfer)?;
        let moved = self
            .store
            .get_organization(&transfer.organization_id)
            .await?
            .ok_or_else(|| DomainError::OrganizationNotFound(transfer.organization_id.clone()))?;
        if moved.path != transfer.from_path {
            return Err(self.superseded(transfer).await);
        }
        let descendants = self.descendant_count(&moved.path).await?;
        let now = self.now();
        let change = TransferChange {
            transfer_id: transfer.id.clone(),
            status: TransferStatus::Accepted,
            responded_at: now,
            responded_by: Some(access.key_id.clone()),
            accept: Some(Acceptance {
                relationship,
                root_id: root.id.clone(),
                root_path: root.path.clone(),
                owner_user_id: transfer.to_user_id.clone(),
                from_path: transfer.from_path.clone(),
                descendant_org_count: descendants,
            }),
        };
        let written = self
            .change(access, transfer, change, Some(&root.id), options)
            .await?;
        // The keys of the moved organizations now reach another tree: copies of their
        // organizations remembered in this process must not be used again.
        self.forget_keys();
        Ok(written)
    }

    /// Rejects a transfer (the recipient).
    ///
    /// # Errors
    /// `resource_not_found`, `not_transfer_recipient`, `transfer_not_pending`,
    /// `insufficient_credits`.
    pub(crate) async fn reject_transfer(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        self.answer_transfer(access, id, TransferStatus::Rejected, options)
            .await
    }

    /// Cancels a transfer (the sender's side).
    ///
    /// # Errors
    /// `resource_not_found`, `not_transfer_sender`, `transfer_not_pending`,
    /// `insufficient_credits`.
    pub(crate) async fn cancel_transfer(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        self.answer_transfer(access, id, TransferStatus::Cancelled, options)
            .await
    }

    /// Rejects (the recipient) or cancels (the sender) a pending transfer: no subtree
    /// moves, only the status changes.
    async fn answer_transfer(
        &self,
        access: &Access,
        id: &str,
        status: TransferStatus,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let (transfer, sides, _) = self.visible_transfer(access, id).await?;
        let refusal = match status {
            TransferStatus::Rejected if !sides.recipient => Some((
                ErrorCode::NotTransferRecipient,
                format!(
                    "only the recipient of transfer {}, with a key of one of its root organizations, can reject it",
                    transfer.id
                ),
            )),
            TransferStatus::Cancelled if !sides.sender => Some((
                ErrorCode::NotTransferSender,
                format!(
                    "only the sender of transfer {} (a key of the organization or an ancestor) can cancel it",
                    transfer.id
                ),
            )),
            _ => None,
        };
        if let Some((code, message)) = refusal {
            return Err(DomainError::rule(code, message));
        }
        self.still_pending(&transfer)?;
        let change = self.plain_change(access, &transfer, status);
        self.change(access, transfer, change, None, options).await
    }

    fn plain_change(
        &self,
        access: &Access,
        transfer: &OrganizationTransfer,
        status: TransferStatus,
    ) -> TransferChange {
        TransferChange {
            transfer_id: transfer.id.clone(),
            status,
            responded_at: self.now(),
            responded_by: Some(access.key_id.clone()),
            accept: None,
        }
    }

    /// Applies a decided change with its events, credits and idempotency record; a lost
    /// race answers `transfer_not_pending` as the transfer now stands.
    async fn change(
        &self,
        access: &Access,
        before: OrganizationTransfer,
        change: TransferChange,
        also: Option<&str>,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let after = changed(&before, &change);
        let before_view = self.transfer_view(&before).await?;
        let view = self.transfer_view(&after).await?;
        let events = self.transfer_events(
            &after,
            change.status.event_type(),
            Some(before_view),
            &view,
            Some(&access.key_id),
            also,
        );
        match self
            .store
            .change_transfer(
                change,
                events,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await
        {
            Ok(written) => Ok(written.map(|_| view)),
            Err(e) if lost_race(&e) => Err(self.lost_race(&before).await),
            Err(e) => Err(e.into()),
        }
    }
}
