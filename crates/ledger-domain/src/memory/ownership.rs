//! Ownership transfers in memory, checked in the SQL adapter's order (the key's replay,
//! the credits, then the compare-and-set on the status), and the subtree move of an
//! accept. The one-pending-transfer-per-organization rule is the SQL adapter's partial
//! unique index.

use crate::ports::{State as StoreState, StoreError, Taken};
use time::OffsetDateTime;

use crate::documents::DocumentKind;
use crate::error::Resource;
use crate::events::Event;
use crate::organizations::User;
use crate::ownership::{OrganizationTransfer, SubtreeStats, TransferChange, TransferStatus};
use crate::ports::{
    CreditCharge, IdempotencyRecord, OrganizationTransfers, Page, PageRequest, StoreResult,
    TransferFilter, Written,
};

use super::{MemoryStore, page_of};

impl MemoryStore {
    /// Copies of the users `keep` accepts, in the table's order.
    fn users_where(&self, keep: impl Fn(&User) -> bool) -> Vec<User> {
        let state = self.state();
        state.users.iter().filter(|u| keep(u)).cloned().collect()
    }
}

impl OrganizationTransfers for MemoryStore {
    async fn find_users_by_email(&self, email: &str) -> StoreResult<Vec<User>> {
        Ok(self.users_where(|u| u.email.eq_ignore_ascii_case(email)))
    }

    async fn find_users_by_username(&self, username: &str) -> StoreResult<Vec<User>> {
        Ok(self.users_where(|u| {
            u.provider_username
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(username))
        }))
    }

    async fn insert_transfer(
        &self,
        transfer: OrganizationTransfer,
        events: Vec<Event>,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> StoreResult<Written<OrganizationTransfer>> {
        self.state()
            .audited_events(idempotency, charge, events, |state| {
                if state.transfers.iter().any(|t| {
                    t.organization_id == transfer.organization_id
                        && t.status == TransferStatus::Pending
                }) {
                    return Err(StoreError::Taken(Taken::PendingTransfer {
                        organization_id: transfer.organization_id,
                    }));
                }
                state.transfers.push(transfer.clone());
                Ok(transfer)
            })
    }

    async fn get_transfer(&self, id: &str) -> StoreResult<Option<OrganizationTransfer>> {
        Ok(self.state().transfers.iter().find(|t| t.id == id).cloned())
    }

    async fn list_transfers(
        &self,
        filter: &TransferFilter,
        page: PageRequest,
    ) -> StoreResult<Page<OrganizationTransfer>> {
        let state = self.state();
        let mut found: Vec<OrganizationTransfer> = state
            .transfers
            .iter()
            .filter(|t| match filter {
                TransferFilter::SentFrom(path) => t.from_path.starts_with(path.as_str()),
                TransferFilter::ToUser(user) => &t.to_user_id == user,
            })
            .cloned()
            .collect();
        found.sort_by(|a, b| (b.initiated_at, &b.id).cmp(&(a.initiated_at, &a.id)));
        Ok(page_of(found, Some(page)))
    }

    async fn change_transfer(
        &self,
        change: TransferChange,
        events: Vec<Event>,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> StoreResult<Written<OrganizationTransfer>> {
        self.state()
            .audited_events(idempotency, charge, events, |state| {
                let at = change.responded_at;
                let Some(index) = state.transfers.iter().position(|t| {
                    t.id == change.transfer_id
                        && t.status == TransferStatus::Pending
                        && if change.status == TransferStatus::Expired {
                            t.expires_at <= at
                        } else {
                            t.expires_at > at
                        }
                }) else {
                    return Err(StoreError::status_changed(
                        Resource::OrganizationTransfer,
                        &change.transfer_id,
                        StoreState::Pending,
                    ));
                };
                let organization_id = state.transfers[index].organization_id.clone();
                if let Some(accept) = &change.accept {
                    let here = state
                        .organizations
                        .get(&organization_id)
                        .is_some_and(|o| o.path == accept.from_path);
                    if !here {
                        return Err(StoreError::changed(organization_id));
                    }
                    let new_path = format!("{}{organization_id}/", accept.root_path);
                    for org in state.organizations.values_mut() {
                        if let Some(rest) = org.path.strip_prefix(accept.from_path.as_str()) {
                            org.path = format!("{new_path}{rest}");
                            org.owner_user_id = accept.owner_user_id.clone();
                            org.updated_at = at;
                            if org.id == organization_id {
                                org.parent_id = Some(accept.root_id.clone());
                                org.relationship = Some(accept.relationship);
                            }
                        }
                    }
                }
                let transfer = &mut state.transfers[index];
                transfer.status = change.status;
                transfer.responded_at = Some(at);
                transfer.responded_by = change.responded_by.clone();
                if let Some(accept) = &change.accept {
                    transfer.relationship_on_accept = Some(accept.relationship);
                    transfer.to_organization_id = Some(accept.root_id.clone());
                    transfer.descendant_org_count = accept.descendant_org_count;
                }
                Ok(transfer.clone())
            })
    }

    async fn expirable_transfers(
        &self,
        now: OffsetDateTime,
        limit: i64,
    ) -> StoreResult<Vec<OrganizationTransfer>> {
        let state = self.state();
        let mut due: Vec<OrganizationTransfer> = state
            .transfers
            .iter()
            .filter(|t| t.status == TransferStatus::Pending && t.expires_at <= now)
            .cloned()
            .collect();
        due.sort_by(|a, b| (a.expires_at, &a.id).cmp(&(b.expires_at, &b.id)));
        due.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(due)
    }

    async fn subtree_stats(&self, path: &str, livemode: bool) -> StoreResult<SubtreeStats> {
        let state = self.state();
        let orgs: Vec<&String> = state
            .organizations
            .values()
            .filter(|o| o.path.starts_with(path))
            .map(|o| &o.id)
            .collect();
        let inside = |org: &str, mode: bool| mode == livemode && orgs.iter().any(|o| *o == org);
        let documents = |kind: DocumentKind| {
            state
                .documents
                .iter()
                .filter(|d| {
                    d.is_live()
                        && d.value.kind == kind
                        && inside(&d.value.organization_id, d.value.livemode)
                })
                .count() as i64
        };
        Ok(SubtreeStats {
            organizations: orgs.len() as i64,
            accounts: state
                .accounts
                .iter()
                .filter(|r| r.is_live() && inside(&r.value.organization_id, r.value.livemode))
                .count() as i64,
            transactions: state
                .transactions
                .iter()
                .filter(|r| r.is_live() && inside(&r.value.organization_id, r.value.livemode))
                .count() as i64,
            invoices: documents(DocumentKind::Invoice),
            bills: documents(DocumentKind::Bill),
            contacts: state
                .contacts
                .iter()
                .filter(|r| r.is_live() && inside(&r.value.organization_id, r.value.livemode))
                .count() as i64,
            categories: state
                .categories
                .iter()
                .filter(|r| r.is_live() && inside(&r.value.organization_id, r.value.livemode))
                .count() as i64,
            items: state
                .documents
                .iter()
                .filter(|d| d.is_live() && inside(&d.value.organization_id, d.value.livemode))
                .map(|d| d.value.items.len() as i64)
                .sum(),
            api_keys: state
                .keys
                .iter()
                .filter(|r| r.is_live() && inside(&r.value.organization_id, r.value.livemode))
                .count() as i64,
        })
    }
}
