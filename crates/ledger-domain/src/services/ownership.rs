//! Ownership transfers of organizations (spec 3.1, 4.4; DECISIONS 3, 5, 10): initiate,
//! list (outgoing and incoming), stats, accept, reject, cancel, and the expiry job.
//!
//! Who may do what is decided here, once, for every interface:
//! - the *sender's side* is a key of the transferred organization or of one of its
//!   ancestors at the time of initiation (the transfer's `from_path` lies at or below the
//!   key's organization): it initiates, lists outgoing and cancels;
//! - the *recipient's side* is a key of a root organization owned by the designated
//!   recipient: it lists incoming, accepts (the subtree moves under that root) and
//!   rejects;
//! - either side reads the stats; anyone else gets `resource_not_found`.
//!
//! Every act needs `admin` (DECISIONS 3) and goes through [`Ledger::submit`]; each costs
//! one credit from the actor's pool. State changes are compare-and-set in the store, so
//! of a concurrent accept and cancel exactly one wins and the other answers
//! `transfer_not_pending`.

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::events::Event;
use crate::ids::{IdKind, new_id, parse_id};
use crate::organizations::{Organization, Relationship, User};
use crate::ownership::{
    Acceptance, OrganizationTransfer, SubtreeStats, TransferChange, TransferStatus,
};
use crate::ports::{Page, PageRequest, Store, StoreError, Taken, TransferFilter, Written};

use super::{Access, Ledger, WriteOptions, with_result};

/// Whom a transfer goes to: exactly one of the two, naming one registered user.
#[derive(Debug, Clone, Default)]
pub struct OrganizationTransferInput {
    pub to_provider_username: Option<String>,
    pub to_email: Option<String>,
}

/// How many expired transfers one run of the expiry job stores at most (the next run
/// takes the rest).
const EXPIRY_BATCH: i64 = 500;

fn transfer_not_found(id: &str) -> DomainError {
    DomainError::NotFound {
        resource: "organization_transfer",
        id: id.to_owned(),
    }
}

fn not_pending(t: &OrganizationTransfer, status: TransferStatus) -> DomainError {
    DomainError::Reported {
        code: ErrorCode::TransferNotPending,
        message: format!(
            "organization transfer {} is {}; only a pending transfer can be accepted, rejected or cancelled",
            t.id,
            status.as_str()
        ),
        details: Some(serde_json::json!({ "status": status.as_str() })),
    }
}

/// The text of an optional field, trimmed; blank counts as absent.
fn given(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
}

/// Which sides of a transfer a caller is on.
#[derive(Debug, Clone, Copy)]
struct Sides {
    sender: bool,
    recipient: bool,
}

/// Whether the store found the transfer no longer pending, or its organization moved:
/// the act lost a race and the transfer is read again.
fn lost_race(fact: &StoreError) -> bool {
    matches!(
        fact,
        StoreError::StatusChanged { .. } | StoreError::Changed { .. }
    )
}

impl<S: Store> Ledger<S> {
    /// How long a new transfer waits for its recipient.
    fn transfer_expiry(&self) -> time::Duration {
        self.config.transfer_expiry
    }

    /// The one registered user `input` names.
    async fn recipient(&self, input: OrganizationTransferInput) -> DomainResult<User> {
        let (found, what) = match (given(input.to_provider_username), given(input.to_email)) {
            (Some(_), Some(_)) => {
                return Err(DomainError::invalid_field(
                    "to_email",
                    "give exactly one of to_provider_username or to_email",
                ));
            }
            (None, None) => {
                return Err(DomainError::validation(
                    ErrorCode::MissingField,
                    Some("to_provider_username".into()),
                    "one of to_provider_username or to_email is required",
                ));
            }
            (Some(username), None) => (
                self.store.find_users_by_username(&username).await?,
                format!("provider username '{username}'"),
            ),
            (None, Some(email)) => (
                self.store.find_users_by_email(&email).await?,
                format!("e-mail '{email}'"),
            ),
        };
        match found.len() {
            1 => found
                .into_iter()
                .next()
                .ok_or_else(|| DomainError::Internal("a recipient vanished".into())),
            0 => Err(DomainError::rule(
                ErrorCode::RecipientNotFound,
                format!("no registered user has the {what}"),
            )),
            n => Err(DomainError::rule(
                ErrorCode::AmbiguousRecipient,
                format!(
                    "{n} registered users have the {what} (accounts of different sign-in providers stay separate); name the recipient by to_provider_username instead"
                ),
            )),
        }
    }

    /// The transfer `id` and the sides the caller (whose organization, read fresh, is
    /// `org`, and was `authorized` when the request was cleared) is on;
    /// `resource_not_found` when it is on neither.
    async fn visible_transfer(
        &self,
        authorized: &Organization,
        org: &Organization,
        id: &str,
    ) -> DomainResult<(OrganizationTransfer, Sides)> {
        let Some(parsed) = parse_id(IdKind::OrganizationTransfer, id) else {
            return Err(transfer_not_found(id));
        };
        let transfer = self
            .store
            .get_transfer(&parsed)
            .await?
            .ok_or_else(|| transfer_not_found(id))?;
        // The sender's side by the organization as it stands, or as the request was
        // authorized: a cancel racing an accept that moved the organization meanwhile
        // then answers `transfer_not_pending`, not "no such transfer".
        let sides = Sides {
            sender: transfer.from_path.starts_with(&org.path)
                || transfer.from_path.starts_with(&authorized.path),
            recipient: org.is_root() && org.owner_user_id == transfer.to_user_id,
        };
        if sides.sender || sides.recipient {
            Ok((transfer, sides))
        } else {
            Err(transfer_not_found(id))
        }
    }

    /// The view of transfers, with their users read once each.
    async fn transfer_views(&self, transfers: &[OrganizationTransfer]) -> DomainResult<Vec<Value>> {
        let mut users: HashMap<String, Option<User>> = HashMap::new();
        let now = self.now();
        let mut views = Vec::with_capacity(transfers.len());
        for t in transfers {
            for id in [&t.from_user_id, &t.to_user_id] {
                if !users.contains_key(id) {
                    let user = self.store.get_user(id).await?;
                    users.insert(id.clone(), user);
                }
            }
            let user = |id: &String| users.get(id).and_then(Option::as_ref);
            views.push(crate::views::organization_transfer(
                t,
                user(&t.from_user_id),
                user(&t.to_user_id),
                now,
            ));
        }
        Ok(views)
    }

    async fn transfer_view(&self, transfer: &OrganizationTransfer) -> DomainResult<Value> {
        let mut views = self.transfer_views(std::slice::from_ref(transfer)).await?;
        views
            .pop()
            .ok_or_else(|| DomainError::Internal("no transfer view".into()))
    }

    /// The events of a change of `transfer` (now `after`): one in each mode of the
    /// transferred organization, and of `also` (the recipient's root on an accept), so
    /// each side reads it through `/events`. Organizations span both modes, so their
    /// transfers do too.
    fn transfer_events(
        &self,
        transfer: &OrganizationTransfer,
        event_type: &str,
        before: Option<Value>,
        after: &Value,
        key_id: Option<&str>,
        also: Option<&str>,
    ) -> Vec<Event> {
        let now = self.now();
        std::iter::once(transfer.organization_id.as_str())
            .chain(also)
            .flat_map(|org| {
                [true, false].map(|livemode| Event {
                    id: new_id(IdKind::Event),
                    organization_id: org.to_owned(),
                    livemode,
                    event_type: event_type.to_owned(),
                    entity_type: "organization_transfer".into(),
                    entity_id: transfer.id.clone(),
                    api_key_id: key_id.map(str::to_owned),
                    before_state: before.clone(),
                    after_state: Some(after.clone()),
                    created_at: now,
                })
            })
            .collect()
    }

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
        let found = self
            .store
            .list_transfers(&TransferFilter::SentFrom(org.path), page)
            .await?;
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
        let found = self
            .store
            .list_transfers(&TransferFilter::ToUser(org.owner_user_id), page)
            .await?;
        Ok(Page {
            items: self.transfer_views(&found.items).await?,
            total_count: found.total_count,
        })
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
        let org = self.current_organization(access).await?;
        let (transfer, _) = self
            .visible_transfer(&access.organization, &org, id)
            .await?;
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
        let org = self.current_organization(access).await?;
        let (transfer, _) = self
            .visible_transfer(&access.organization, &org, id)
            .await?;
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
        let descendants = self
            .store
            .list_descendants(
                &org.path,
                PageRequest {
                    limit: 1,
                    offset: 0,
                },
            )
            .await?
            .total_count;
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
        let root = self.current_organization(access).await?;
        let (transfer, sides) = self
            .visible_transfer(&access.organization, &root, id)
            .await?;
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
        let descendants = self
            .store
            .list_descendants(
                &moved.path,
                PageRequest {
                    limit: 1,
                    offset: 0,
                },
            )
            .await?
            .total_count;
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
        let org = self.current_organization(access).await?;
        let (transfer, sides) = self
            .visible_transfer(&access.organization, &org, id)
            .await?;
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

    /// The refusal of an act that lost its race: the transfer as it stands now.
    async fn lost_race(&self, before: &OrganizationTransfer) -> DomainError {
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
    async fn superseded(&self, transfer: OrganizationTransfer) -> DomainError {
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

/// `before` with `change` applied (what the store will hold).
fn changed(before: &OrganizationTransfer, change: &TransferChange) -> OrganizationTransfer {
    let mut after = before.clone();
    after.status = change.status;
    after.responded_at = Some(change.responded_at);
    after.responded_by = change.responded_by.clone();
    if let Some(accept) = &change.accept {
        after.relationship_on_accept = Some(accept.relationship);
        after.to_organization_id = Some(accept.root_id.clone());
        after.descendant_org_count = accept.descendant_org_count;
    }
    after
}
