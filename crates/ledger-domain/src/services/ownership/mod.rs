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
//!
//! The reads are in [`reads`], the acts of either side in [`acts`], and what becomes
//! of transfers the world moved past (expired, superseded, or answered by a concurrent
//! act) in [`expiry`].

mod acts;
mod expiry;
mod reads;

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::events::Event;
use crate::ids::{IdKind, new_id};
use crate::organizations::{Organization, User};
use crate::ownership::{OrganizationTransfer, TransferChange, TransferStatus};
use crate::ports::{PageRequest, Store, StoreError};

use super::accounts::{find_by_id, not_found};
use super::{Access, Ledger};

/// Whom a transfer goes to: exactly one of the two, naming one registered user.
#[derive(Debug, Clone, Default)]
pub struct OrganizationTransferInput {
    pub to_provider_username: Option<String>,
    pub to_email: Option<String>,
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

fn transfer_not_found(id: &str) -> DomainError {
    not_found("organization_transfer", id)
}

impl<S: Store> Ledger<S> {
    /// How many organizations lie below the one at `path` (a transfer moves them too).
    async fn descendant_count(&self, path: &str) -> DomainResult<i64> {
        let one = PageRequest {
            limit: 1,
            offset: 0,
        };
        Ok(self.store.list_descendants(path, one).await?.total_count)
    }

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

    /// The transfer `id`, the sides the caller is on, and the caller's organization read
    /// fresh; `resource_not_found` when it is on neither side.
    async fn visible_transfer(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<(OrganizationTransfer, Sides, Organization)> {
        let org = self.current_organization(access).await?;
        let authorized = &access.organization;
        let transfer = find_by_id(
            IdKind::OrganizationTransfer,
            "organization_transfer",
            id,
            |parsed| async move { self.store.get_transfer(&parsed).await },
        )
        .await?;
        // The sender's side by the organization as it stands, or as the request was
        // authorized: a cancel racing an accept that moved the organization meanwhile
        // then answers `transfer_not_pending`, not "no such transfer".
        let sides = Sides {
            sender: transfer.from_path.starts_with(&org.path)
                || transfer.from_path.starts_with(&authorized.path),
            recipient: org.is_root() && org.owner_user_id == transfer.to_user_id,
        };
        if sides.sender || sides.recipient {
            Ok((transfer, sides, org))
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
