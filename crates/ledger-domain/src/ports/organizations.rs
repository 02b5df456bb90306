//! Organizations, users, API keys and settings.

use std::future::Future;

use time::OffsetDateTime;

use crate::accounts::Account;
use crate::events::{Deletion, Event};
use crate::organizations::{ApiKey, Organization, User};
use crate::ownership::{OrganizationTransfer, SubtreeStats, TransferChange};

use super::{CreditCharge, IdempotencyRecord, Page, PageRequest, StoreResult, Tenant, Written};

/// Everything a sign-up creates, written in one transaction.
#[derive(Debug, Clone)]
pub struct NewOrganization {
    /// A new owner to insert first (`None` when `organization.owner_user_id` names an
    /// existing user, as for sub-organizations and returning users).
    pub user: Option<User>,
    pub organization: Organization,
    /// The default chart, in both modes.
    pub accounts: Vec<Account>,
    pub keys: Vec<ApiKey>,
    pub events: Vec<Event>,
}

/// Organizations and users.
pub trait Organizations: Send + Sync + 'static {
    /// Writes a sign-up: the user if new, the organization, its accounts, keys and events.
    ///
    /// # Errors
    /// `Internal` on storage failure.
    fn create_organization(
        &self,
        new: NewOrganization,
    ) -> impl Future<Output = StoreResult<Organization>> + Send;

    /// The user with this sign-in provider id.
    fn find_user(
        &self,
        provider_id: &str,
    ) -> impl Future<Output = StoreResult<Option<User>>> + Send;

    /// Credits the test-mode writes of the pool `pool_id` used (the sum of its usage rows;
    /// reporting only, it grows with the pool's history).
    fn test_credits_used(&self, pool_id: &str) -> impl Future<Output = StoreResult<i64>> + Send;

    /// An organization by id (any tenant; the caller checks reach).
    fn get_organization(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Organization>>> + Send;

    /// The organizations below the one at `path` (its descendants at any depth, not
    /// itself), in path order (a parent before its children).
    fn list_descendants(
        &self,
        path: &str,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Organization>>> + Send;

    /// A user by id.
    fn get_user(&self, id: &str) -> impl Future<Output = StoreResult<Option<User>>> + Send;

    /// Takes the credits of `charge` on their own (a paid read, such as a GraphQL report):
    /// a conditional decrement of a live pool, or a test-mode usage row with id `usage_id`.
    ///
    /// # Errors
    /// `CreditsShort` when a live pool has fewer than the charge; nothing is taken.
    fn spend_credits(
        &self,
        charge: CreditCharge,
        usage_id: &str,
        at: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;
}

/// API keys.
pub trait ApiKeys: Send + Sync + 'static {
    /// The key whose current or previous (rotated) hash is `hash`, unless deleted, with
    /// its organization, in one query (the per-request authentication step).
    fn find_principal_by_hash(
        &self,
        hash: &str,
    ) -> impl Future<Output = StoreResult<Option<(ApiKey, crate::organizations::Organization)>>> + Send;

    /// [`ApiKeys::find_principal_by_hash`] without the organization.
    fn find_key_by_hash(
        &self,
        hash: &str,
    ) -> impl Future<Output = StoreResult<Option<ApiKey>>> + Send {
        async move { Ok(self.find_principal_by_hash(hash).await?.map(|(key, _)| key)) }
    }

    /// Inserts a key (of the tenant named by its `organization_id` and `livemode`) and
    /// its event.
    ///
    /// # Errors
    /// `Internal` on storage failure (a hash collision included).
    fn insert_key(
        &self,
        key: ApiKey,
        event: Event,
    ) -> impl Future<Output = StoreResult<ApiKey>> + Send;

    /// A key of the tenant that is not deleted.
    fn get_key(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<ApiKey>>> + Send;

    /// The tenant's keys that are not deleted, newest first.
    fn list_keys(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<ApiKey>>> + Send;

    /// Saves the mutable fields of a key (name, disabled, key_hash, last4,
    /// previous_hash, previous_expires_at) and its event.
    ///
    /// # Errors
    /// `Missing` when the key is not in the tenant or was deleted meanwhile.
    fn update_key(
        &self,
        key: ApiKey,
        event: Event,
    ) -> impl Future<Output = StoreResult<ApiKey>> + Send;

    /// Soft-deletes a key (it stops authenticating at once), writing the deletion record
    /// and the event.
    ///
    /// # Errors
    /// `Missing` when the key is not in the deletion's tenant or is already
    /// deleted.
    fn delete_key(
        &self,
        key_id: &str,
        deletion: Deletion,
        event: Event,
    ) -> impl Future<Output = StoreResult<()>> + Send;
}

/// A setting of a tenant (`default_currency`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub organization_id: String,
    pub livemode: bool,
    pub key: String,
    pub value: String,
    pub updated_at: OffsetDateTime,
}

/// Organization settings, one value per tenant and key.
pub trait Settings: Send + Sync + 'static {
    /// The setting `key` of the tenant.
    fn get_setting(
        &self,
        tenant: &Tenant,
        key: &str,
    ) -> impl Future<Output = StoreResult<Option<Setting>>> + Send;

    /// Inserts or replaces the setting of its tenant, with its event.
    ///
    /// # Errors
    /// `Internal` on storage failure.
    fn put_setting(
        &self,
        setting: Setting,
        event: Event,
    ) -> impl Future<Output = StoreResult<Setting>> + Send;
}

/// Which transfers a list shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransferFilter {
    /// The sender's side: transfers of organizations that were, when initiated, the one
    /// at this path or below it.
    SentFrom(String),
    /// The recipient's side: transfers designated to this user.
    ToUser(String),
}

/// Ownership transfers of organizations (spec 3.1) and what they read and move.
pub trait OrganizationTransfers: Send + Sync + 'static {
    /// The users whose e-mail is `email`, compared without regard to ASCII case (accounts
    /// of different sign-in providers stay separate, so there may be several).
    fn find_users_by_email(
        &self,
        email: &str,
    ) -> impl Future<Output = StoreResult<Vec<User>>> + Send;

    /// The users whose provider username is `username`, compared without regard to
    /// ASCII case.
    fn find_users_by_username(
        &self,
        username: &str,
    ) -> impl Future<Output = StoreResult<Vec<User>>> + Send;

    /// Inserts a pending transfer with its events, credits and idempotency record.
    ///
    /// # Errors
    /// `Taken(PendingTransfer)` when the organization has a pending transfer (a
    /// unique index, so of two concurrent initiations one wins); nothing is written then.
    fn insert_transfer(
        &self,
        transfer: OrganizationTransfer,
        events: Vec<Event>,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<OrganizationTransfer>>> + Send;

    /// A transfer by id (any organization; the caller checks who may see it).
    fn get_transfer(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<OrganizationTransfer>>> + Send;

    /// Transfers of one side, newest first.
    fn list_transfers(
        &self,
        filter: &TransferFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<OrganizationTransfer>>> + Send;

    /// Applies `change` to a pending transfer, in one database transaction with its
    /// events, credits and idempotency record: the status moves only if it is still
    /// `pending` and, at `change.responded_at`, not past `expires_at` (or, for an
    /// expiry, past it). An accept also re-parents the organization under
    /// `accept.root_id` with the chosen relationship, rewrites the path of every
    /// organization of its subtree below the root's and makes `accept.owner_user_id`
    /// their owner; ids and keys stay as they are. Returns the transfer as changed.
    ///
    /// # Errors
    /// `StatusChanged` / `Changed` when the transfer is not pending any more (another act won),
    /// or, for an accept, when the organization is no longer at `accept.from_path`;
    /// nothing is written then.
    fn change_transfer(
        &self,
        change: TransferChange,
        events: Vec<Event>,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<OrganizationTransfer>>> + Send;

    /// Up to `limit` transfers still stored `pending` whose `expires_at` is at or before
    /// `now`, oldest expiry first.
    fn expirable_transfers(
        &self,
        now: OffsetDateTime,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<OrganizationTransfer>>> + Send;

    /// Live (not deleted) figures of mode `livemode` over the organization at `path` and
    /// its descendants.
    fn subtree_stats(
        &self,
        path: &str,
        livemode: bool,
    ) -> impl Future<Output = StoreResult<SubtreeStats>> + Send;
}
