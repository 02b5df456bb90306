//! Port traits: what the domain needs from storage and the outside world.
//!
//! Each method is one atomic use of storage; transactions are the adapter's business.
//! Every tenant method takes a [`Tenant`] and must filter on both its organization and
//! its mode: a row of another organization or of the other mode does not exist for it.

use std::future::Future;

use time::OffsetDateTime;

use crate::accounts::{Account, AccountStatus, AccountType, Totals};
use crate::categories::{Category, CategoryType};
use crate::contacts::{Contact, ContactFilter};
use crate::documents::{Document, DocumentKind, DocumentStatus, Payment, StatusChange};
use crate::error::DomainError;
use crate::events::{Deletion, Event};
use crate::jobs::Job;
use crate::organizations::{ApiKey, Organization, User};
use crate::tax::{Tax, TaxType};
use crate::transactions::{Transaction, TransactionStatus};

/// Result of a port call.
pub type StoreResult<T> = Result<T, DomainError>;

/// The organization and mode (live or test) a request works in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tenant {
    pub organization_id: String,
    pub livemode: bool,
}

/// A page of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Rows matching the filter, all pages together.
    pub total_count: i64,
}

/// Limit and offset, already validated (limit 1..=[`MAX_PAGE_SIZE`], offset >= 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: i64,
    pub offset: i64,
}

/// The largest page any list answers (spec 8).
pub const MAX_PAGE_SIZE: i64 = 100;

impl PageRequest {
    /// A page as a client asked for it: `limit` (else `default`) within
    /// 1..=[`MAX_PAGE_SIZE`], `offset` (else 0) not negative. Every interface pages
    /// through this one rule.
    ///
    /// # Errors
    /// `invalid_field` on `limit` or `offset`.
    pub fn bounded(
        limit: Option<i64>,
        offset: Option<i64>,
        default: i64,
    ) -> Result<Self, DomainError> {
        let limit = limit.unwrap_or(default);
        if !(1..=MAX_PAGE_SIZE).contains(&limit) {
            return Err(DomainError::invalid_field(
                "limit",
                format!("must be between 1 and {MAX_PAGE_SIZE}"),
            ));
        }
        let offset = offset.unwrap_or(0);
        if offset < 0 {
            return Err(DomainError::invalid_field("offset", "must not be negative"));
        }
        Ok(Self { limit, offset })
    }
}

/// The time source; injected so tests can replay.
pub trait Clock: Send + Sync + 'static {
    /// The current UTC time.
    fn now(&self) -> OffsetDateTime;
}

/// A boxed future, for the object-safe [`Runtime`] port.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The async runtime the services run on: background tasks, timers and the queue
/// workers' wake-up (tokio in production, injected like the clock).
pub trait Runtime: Send + Sync + 'static {
    /// Runs `task` on its own, so dropping the caller never cancels it. The returned
    /// future completes when the task has ended; dropping it leaves the task running.
    fn spawn(&self, task: BoxFuture<'static, ()>) -> BoxFuture<'static, ()>;

    /// Completes after `duration`.
    fn sleep(&self, duration: std::time::Duration) -> BoxFuture<'static, ()>;

    /// Awaits `future` for at most `duration`; `true` when it completed in time.
    fn timeout<'a>(
        &self,
        duration: std::time::Duration,
        future: BoxFuture<'a, ()>,
    ) -> BoxFuture<'a, bool>;

    /// Wakes a queue worker: new work is queued.
    fn wake_workers(&self);
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

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

/// A record of an `Idempotency-Key` use, stored in the same transaction as the write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    pub organization_id: String,
    pub livemode: bool,
    pub key: String,
    /// SHA-256 hex of method, path and body.
    pub request_hash: String,
    /// The job the request created (queued writes).
    pub job_id: Option<String>,
    /// The rendered result of a synchronous write (its view), replayed as it was.
    pub result: Option<serde_json::Value>,
    pub created_at: OffsetDateTime,
}

/// How long an `Idempotency-Key` answers with its first outcome (DECISIONS 4: 24 hours).
/// After it, the key is free again: a new request with it is a new write.
pub const IDEMPOTENCY_WINDOW: time::Duration = time::Duration::hours(24);

impl IdempotencyRecord {
    /// Records of the same key made at or before this instant have left the window: the
    /// store replaces them instead of replaying them.
    pub fn stale_before(&self) -> OffsetDateTime {
        self.created_at - IDEMPOTENCY_WINDOW
    }

    /// Whether `earlier`, a stored record of the same key, is still answered instead of
    /// this one (it is within the window).
    pub fn replays(&self, earlier: &IdempotencyRecord) -> bool {
        earlier.created_at > self.stale_before()
    }
}

/// A write that carries an idempotency record either happened, or the key was already
/// used and the first record is returned instead (nothing was written).
#[derive(Debug, Clone, PartialEq)]
pub enum Written<T> {
    Done(T),
    Replay(IdempotencyRecord),
}

impl<T> Written<T> {
    /// The written value turned by `f`; a replay stays the replay.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Written<U> {
        match self {
            Self::Done(value) => Written::Done(f(value)),
            Self::Replay(first) => Written::Replay(first),
        }
    }
}

/// Credits to take for a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditCharge {
    /// The organization whose pool pays (the root of the caller's organization).
    pub pool_id: String,
    pub livemode: bool,
    pub credits: i64,
}

/// Filters of the account list.
#[derive(Debug, Clone, Default)]
pub struct AccountFilter {
    pub account_type: Option<AccountType>,
    pub status: Option<AccountStatus>,
}

/// One row of an account's history, in date order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRow {
    pub transaction_id: String,
    pub date: OffsetDateTime,
    pub description: String,
    pub debit: i64,
    pub credit: i64,
}

/// A page of an account's history.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPage {
    pub rows: Vec<HistoryRow>,
    pub total_count: i64,
    /// Totals of every counted entry of the account ordered before the page's first row
    /// (earlier dates, or earlier rows skipped by the offset), to seed the running balance.
    pub before: Totals,
}

/// A write that is decided and applied at once (`Prefer: wait`): a job recorded already
/// `completed`, with the new transaction it created, its events, its credits and its
/// idempotency record.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedWrite {
    pub job: Job,
    pub charge: Option<CreditCharge>,
    pub idempotency: Option<IdempotencyRecord>,
    pub transaction: Transaction,
    pub events: Vec<Event>,
}

/// A decided change to the journal, applied by [`Jobs::apply_job`] with its precondition.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Insert a new transaction (pending or posted) with its entries.
    InsertTransaction(Transaction),
    /// Replace description, date, metadata and entries. Precondition: still `pending`.
    ReplaceTransaction(Transaction),
    /// Set `posted` and `posted_at`. Precondition: still `pending`.
    PostTransaction {
        transaction_id: String,
        posted_at: OffsetDateTime,
    },
    /// Mark `reversed` with `reversed_by` and the reason, and insert the posted mirror.
    /// Precondition: still `posted`.
    ReverseTransaction {
        transaction_id: String,
        reason: String,
        mirror: Transaction,
    },
    /// Soft-delete. Precondition: still `pending`.
    DeleteTransaction {
        transaction_id: String,
        deletion: Deletion,
    },
    /// Soft-delete. Precondition: no ledger entry references the account.
    DeleteAccount {
        account_id: String,
        deletion: Deletion,
    },
    /// Insert a new contact. A live contact of the tenant with the same reference fails
    /// it with `duplicate_value` on `reference`.
    InsertContact(Contact),
    /// Replace a contact's editable fields. Precondition: still live; the reference stays
    /// unique (`duplicate_value`).
    ReplaceContact(Contact),
    /// Soft-delete. Precondition: still live and no live transaction references it
    /// (`resource_in_use`).
    DeleteContact {
        contact_id: String,
        deletion: Deletion,
    },
    /// A change to an invoice or a bill.
    Document(DocumentEffect),
}

/// A decided change to an invoice or a bill (see [`Effect::Document`]).
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentEffect {
    /// Insert a new draft with its first history row. A sequence number taken meanwhile
    /// fails it with `concurrent_update` (the job is then decided again).
    Insert {
        document: Document,
        history: StatusChange,
    },
    /// Replace a draft's contact, dates, currency, items, taxes, totals and notes.
    /// Precondition: still a live draft (`concurrent_update` otherwise).
    Replace(Document),
    /// Soft-delete. Precondition: still a live draft (`concurrent_update` otherwise).
    Delete {
        document_id: String,
        deletion: Deletion,
    },
    /// A status change with its accounting effect (see [`DocumentTransition`]).
    Transition(Box<DocumentTransition>),
}

/// Move to `document.status` with `document.amount_paid` and `posting_id`.
/// Precondition: the stored status and amount paid are still `expected_status` and
/// `expected_paid` (`concurrent_update` otherwise). With it, in the same database
/// transaction: the posted transaction (accounts checked under lock like any posting),
/// the reversal of the original posting, the payment, the history row.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentTransition {
    pub document: Document,
    pub expected_status: DocumentStatus,
    pub expected_paid: i64,
    pub posting: Option<Transaction>,
    pub reversal: Option<Reversal>,
    pub payment: Option<Payment>,
    pub history: StatusChange,
}

/// The reversal of a posted transaction by its mirror.
#[derive(Debug, Clone, PartialEq)]
pub struct Reversal {
    pub transaction_id: String,
    pub reason: String,
    pub mirror: Transaction,
}

/// Filters of a document list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentFilter {
    pub status: Option<DocumentStatus>,
    pub contact_id: Option<String>,
}

/// Invoices and bills. Writes go through [`Jobs::apply_job`] effects.
pub trait Documents: Send + Sync + 'static {
    /// A live document of the tenant and kind.
    fn get_document(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Document>>> + Send;

    /// Live documents of the tenant and kind, newest first.
    fn list_documents(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        filter: &DocumentFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Document>>> + Send;

    /// One more than the highest sequence number of the kind (deleted documents keep
    /// theirs), so numbers have no gaps.
    fn next_document_sequence(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
    ) -> impl Future<Output = StoreResult<i64>> + Send;

    /// The payments of the documents, oldest first.
    fn list_payments(
        &self,
        tenant: &Tenant,
        document_ids: &[String],
    ) -> impl Future<Output = StoreResult<Vec<Payment>>> + Send;

    /// The status history of a document, oldest first.
    fn document_history(
        &self,
        tenant: &Tenant,
        document_id: &str,
    ) -> impl Future<Output = StoreResult<Vec<StatusChange>>> + Send;

    /// The live system accounts of the tenant (the default chart).
    fn system_accounts(
        &self,
        tenant: &Tenant,
    ) -> impl Future<Output = StoreResult<Vec<Account>>> + Send;
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

    /// A user by id.
    fn get_user(&self, id: &str) -> impl Future<Output = StoreResult<Option<User>>> + Send;

    /// Takes the credits of `charge` on their own (a paid read, such as a GraphQL report):
    /// a conditional decrement of a live pool, or a test-mode usage row with id `usage_id`.
    ///
    /// # Errors
    /// `InsufficientCredits` when a live pool has fewer than the charge; nothing is taken.
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
    /// `resource_not_found` when the key is not in the tenant or was deleted meanwhile.
    fn update_key(
        &self,
        key: ApiKey,
        event: Event,
    ) -> impl Future<Output = StoreResult<ApiKey>> + Send;

    /// Soft-deletes a key (it stops authenticating at once), writing the deletion record
    /// and the event.
    ///
    /// # Errors
    /// `resource_not_found` when the key is not in the deletion's tenant or is already
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

/// Filters of the tax list.
#[derive(Debug, Clone, Default)]
pub struct TaxFilter {
    pub tax_type: Option<TaxType>,
    pub is_active: Option<bool>,
}

/// Taxes (spec 2.7): synchronous writes, each with its event and credits.
pub trait Taxes: Send + Sync + 'static {
    /// Inserts a tax and its event, taking the credits of `charge` in the same
    /// transaction.
    ///
    /// # Errors
    /// `InsufficientCredits` when a live pool is short; nothing is written then.
    /// `Written::Replay` when the idempotency key was used already.
    fn insert_tax(
        &self,
        tax: Tax,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<Tax>>> + Send;

    /// Saves the mutable fields of a tax (name, description, rate, tax_type, is_compound,
    /// is_active, updated_at) and its event, taking the credits of `charge`; an `idempotency` key of the tenant
    /// already used within the window is replayed instead (nothing is written).
    ///
    /// # Errors
    /// `resource_not_found` when the tax is not live in its tenant;
    /// `InsufficientCredits` when a live pool is short. Nothing is written then.
    fn update_tax(
        &self,
        tax: Tax,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<Tax>>> + Send;

    /// A tax of the tenant that is not deleted.
    fn get_tax(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Tax>>> + Send;

    /// The tenant's taxes that are not deleted, matching `filter`, by name then id.
    fn list_taxes(
        &self,
        tenant: &Tenant,
        filter: &TaxFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Tax>>> + Send;

    /// Soft-deletes a tax with its deletion record and event, taking the credits; an
    /// `idempotency` key already used is replayed instead.
    ///
    /// # Errors
    /// `resource_not_found` when the tax is not live in the deletion's tenant;
    /// `InsufficientCredits` when a live pool is short. Nothing is written then.
    fn delete_tax(
        &self,
        tax_id: &str,
        deletion: Deletion,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;
}

/// Filters of the category list.
#[derive(Debug, Clone, Default)]
pub struct CategoryFilter {
    pub category_type: Option<CategoryType>,
    pub is_active: Option<bool>,
    pub parent_id: Option<String>,
}

/// Categories (spec 2.6): synchronous writes, each with its event and credits.
pub trait Categories: Send + Sync + 'static {
    /// Inserts a category and its event, taking the credits of `charge`; an `idempotency` key of the tenant
    /// already used within the window is replayed instead (nothing is written).
    ///
    /// # Errors
    /// `InsufficientCredits` when a live pool is short; nothing is written then.
    /// `Written::Replay` when the idempotency key was used already.
    fn insert_category(
        &self,
        category: Category,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<Category>>> + Send;

    /// Saves the mutable fields of a category (name, description, color, is_active,
    /// parent_id, updated_at) and its event, taking the credits of `charge`; an `idempotency` key of the tenant
    /// already used within the window is replayed instead (nothing is written).
    ///
    /// # Errors
    /// `resource_not_found` when the category is not live in its tenant;
    /// `InsufficientCredits` when a live pool is short. Nothing is written then.
    fn update_category(
        &self,
        category: Category,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<Category>>> + Send;

    /// A category of the tenant that is not deleted.
    fn get_category(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Category>>> + Send;

    /// The tenant's categories that are not deleted, matching `filter`, by name then id;
    /// every match when `page` is `None`.
    fn list_categories(
        &self,
        tenant: &Tenant,
        filter: &CategoryFilter,
        page: Option<PageRequest>,
    ) -> impl Future<Output = StoreResult<Page<Category>>> + Send;

    /// Soft-deletes a category with its deletion record and event, taking the credits;
    /// an `idempotency` key already used is replayed instead.
    ///
    /// # Errors
    /// `resource_not_found` when the category is not live in the deletion's tenant;
    /// `resource_in_use` when a live transaction or a live subcategory references it;
    /// `InsufficientCredits` when a live pool is short. Nothing is written then.
    fn delete_category(
        &self,
        category_id: &str,
        deletion: Deletion,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;
}

/// What a purge removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PurgeReport {
    pub accounts: u64,
    pub transactions: u64,
    pub entries: u64,
    pub api_keys: u64,
    pub taxes: u64,
    pub categories: u64,
    pub contacts: u64,
    pub documents: u64,
    pub deletions: u64,
    pub idempotency_records: u64,
}

/// The soft-delete audit trail and its purge (spec 3.6).
pub trait Deletions: Send + Sync + 'static {
    /// The first kind of reference, in the order of
    /// [`crate::references::used_by`], that keeps `resource` `id` of the tenant from
    /// being deleted; `None` when nothing references it. (Deletes check again, under
    /// lock, when they are applied.)
    fn first_reference(
        &self,
        tenant: &Tenant,
        resource: crate::error::Resource,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<crate::error::UsedBy>>> + Send;

    /// The tenant's deletion records, newest first.
    fn list_deletions(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Deletion>>> + Send;

    /// The deletion records made by key `key_id` in mode `livemode`, in the organizations
    /// whose path starts with `path_prefix` (the key's reach), newest first.
    fn list_deletions_by_key(
        &self,
        key_id: &str,
        livemode: bool,
        path_prefix: &str,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Deletion>>> + Send;

    /// Service-wide maintenance, in one transaction: hard-deletes the soft-deleted
    /// accounts, transactions (with their entries), API keys, taxes, categories and contacts whose
    /// `recoverable_until` is at or before `now`, the deletion records past it, and the
    /// idempotency records created before `idempotency_before`. An account that ledger
    /// entries still reference is kept (it can never have been deleted legitimately).
    ///
    /// # Errors
    /// `Internal` on storage failure; nothing is removed then.
    fn purge_expired(
        &self,
        now: OffsetDateTime,
        idempotency_before: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<PurgeReport>> + Send;
}

/// Event figures of an organization tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventStats {
    pub total_events: i64,
    pub events_since: i64,
    /// Event type and count, by type name.
    pub events_by_type: Vec<(String, i64)>,
    /// The newest events, newest first.
    pub recent_events: Vec<Event>,
}

/// Queue figures, service-wide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobStats {
    pub queued: i64,
    pub completed_since: i64,
    pub failed_since: i64,
}

/// Connection pool figures, summed over the store's pools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Connections the pools may open.
    pub max_size: u64,
    /// Connections checked out now.
    pub in_use: u64,
    /// Callers waiting for a connection.
    pub waiting: u64,
}

/// Figures for `/system` (spec 2.12).
pub trait Monitoring: Send + Sync + 'static {
    /// Events of mode `livemode` in the organizations whose path starts with
    /// `path_prefix`: totals, those created at or after `since`, counts by type and the
    /// `recent` newest.
    fn event_stats(
        &self,
        path_prefix: &str,
        livemode: bool,
        since: OffsetDateTime,
        recent: i64,
    ) -> impl Future<Output = StoreResult<EventStats>> + Send;

    /// Jobs queued now, and completed / failed at or after `since`, across all tenants.
    fn job_stats(
        &self,
        since: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<JobStats>> + Send;

    /// The connection pools' state now.
    fn pool_stats(&self) -> PoolStats;
}

/// The chart of accounts.
pub trait Accounts: Send + Sync + 'static {
    /// Inserts an account and its event, taking the credits of `charge` in the same
    /// transaction.
    ///
    /// # Errors
    /// `duplicate_value` on `code` when a live account of the tenant has the same code;
    /// `InsufficientCredits` when a live pool is short. Nothing is written then.
    fn insert_account(
        &self,
        account: Account,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<Account>>> + Send;

    /// Saves changed fields of an account (name, description, status, parent, metadata,
    /// updated_at) and its event, taking the credits of `charge` in the same transaction;
    /// an `idempotency` key already used is replayed instead.
    ///
    /// # Errors
    /// `resource_not_found` when the account is not live in its tenant;
    /// `InsufficientCredits` when a live pool is short. Nothing is written then.
    fn update_account(
        &self,
        account: Account,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> impl Future<Output = StoreResult<Written<Account>>> + Send;

    /// An account that is not deleted.
    fn get_account(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Account>>> + Send;

    /// The accounts among `ids` that exist and are not deleted.
    fn get_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
    ) -> impl Future<Output = StoreResult<Vec<Account>>> + Send;

    /// Accounts sorted by code.
    fn list_accounts(
        &self,
        tenant: &Tenant,
        filter: &AccountFilter,
        page: Option<PageRequest>,
    ) -> impl Future<Output = StoreResult<Page<Account>>> + Send;

    /// Debit and credit totals per account of the counted entries (of posted and reversed
    /// transactions) dated in `[from, until)`; either bound may be open. Accounts without
    /// entries may be missing from the answer.
    fn account_totals(
        &self,
        tenant: &Tenant,
        account_id: Option<&str>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> impl Future<Output = StoreResult<Vec<(String, Totals)>>> + Send;

    /// Debit and credit totals of the counted entries of each account among `ids`, in
    /// one query whatever the number of ids (batched loading of balances). Accounts
    /// without entries may be missing from the answer.
    fn totals_of_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
    ) -> impl Future<Output = StoreResult<Vec<(String, Totals)>>> + Send;

    /// The first `limit` counted entries of each account among `ids`, ordered as
    /// [`Accounts::account_history`] orders them, in one query whatever the number of
    /// ids; each row names its account.
    fn first_history_of_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<(String, HistoryRow)>>> + Send;

    /// The counted entries of one account dated in `[from, until)`, by date then
    /// transaction id, one page.
    fn account_history(
        &self,
        tenant: &Tenant,
        account_id: &str,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<HistoryPage>> + Send;
}

/// The journal.
pub trait Journal: Send + Sync + 'static {
    /// A transaction that is not deleted, with its entries.
    fn get_transaction(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Transaction>>> + Send;

    /// Transactions dated in `[from, until)`, newest date first, with their entries.
    fn list_transactions(
        &self,
        tenant: &Tenant,
        status: Option<TransactionStatus>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Transaction>>> + Send;
}

/// Contacts (spec 2.5). Writes go through [`Jobs::apply_job`] effects.
pub trait Contacts: Send + Sync + 'static {
    /// A contact of the tenant that is not deleted.
    fn get_contact(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Contact>>> + Send;

    /// The contacts of the tenant that are not deleted among `ids` (any order; unknown
    /// ids are skipped), in one query.
    fn contacts_by_ids(
        &self,
        tenant: &Tenant,
        ids: &[String],
    ) -> impl Future<Output = StoreResult<Vec<Contact>>> + Send;

    /// Contacts of the tenant that are not deleted, matching `filter`, oldest first.
    fn list_contacts(
        &self,
        tenant: &Tenant,
        filter: &ContactFilter,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<Contact>>> + Send;

    /// The id of the live contact of the tenant whose reference is `reference`, if any.
    fn contact_with_reference(
        &self,
        tenant: &Tenant,
        reference: &str,
    ) -> impl Future<Output = StoreResult<Option<String>>> + Send;
}

/// The queue of writes.
pub trait Jobs: Send + Sync + 'static {
    /// Takes the credits (refusing when a live pool is short), inserts the job and the
    /// idempotency record, all in one transaction.
    ///
    /// # Errors
    /// `InsufficientCredits` when a live pool has fewer than the charge; nothing is written.
    fn enqueue(
        &self,
        job: Job,
        charge: Option<CreditCharge>,
        idempotency: Option<IdempotencyRecord>,
    ) -> impl Future<Output = StoreResult<Written<Job>>> + Send;

    /// Records a write decided and applied at once, in one database transaction: the
    /// idempotency record, the credits, the completed job, the transaction with its
    /// entries and the events. The adapter may commit several concurrent calls together
    /// (group commit); each call still succeeds or fails on its own.
    ///
    /// # Errors
    /// `InsufficientCredits` when a live pool is short; `account_inactive` or
    /// `resource_in_use` when an account of the transaction is no longer active or live.
    /// Nothing of a refused write is stored. `Written::Replay` when the key was used.
    fn record_applied(
        &self,
        write: AppliedWrite,
    ) -> impl Future<Output = StoreResult<Written<Job>>> + Send;

    /// A job of the tenant.
    fn get_job(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Job>>> + Send;

    /// Claims up to `limit` runnable jobs (queued with `run_at <= now`, or processing with
    /// an expired lease): status `processing`, attempts + 1, `locked_until = now + lease`.
    /// Concurrent callers never claim the same job (SKIP LOCKED on PostgreSQL).
    fn claim_jobs(
        &self,
        limit: i64,
        now: OffsetDateTime,
        lease: time::Duration,
    ) -> impl Future<Output = StoreResult<Vec<Job>>> + Send;

    /// Claims one job by id, as [`Jobs::claim_jobs`] would, if it is runnable now.
    fn claim_job(
        &self,
        id: &str,
        now: OffsetDateTime,
        lease: time::Duration,
    ) -> impl Future<Output = StoreResult<Option<Job>>> + Send;

    /// In one transaction: marks the claimed job completed with `result` (only if it is
    /// still `processing` with the same `attempts`), applies the effect after checking its
    /// precondition, and inserts the events.
    ///
    /// # Errors
    /// `transaction_not_pending` / `transaction_not_posted` / `resource_in_use` when the
    /// effect's precondition fails, `job_lost` (business rule) when the claim was lost;
    /// nothing is written then.
    fn apply_job(
        &self,
        job: &Job,
        effect: Effect,
        events: Vec<Event>,
        result: serde_json::Value,
        now: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;

    /// Ends a claimed job `failed` with `error`, refunding its credits to the live pool.
    fn fail_job(
        &self,
        job: &Job,
        error: serde_json::Value,
        now: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;

    /// Puts a claimed job back in the queue to run again at `run_at`.
    fn retry_job(
        &self,
        job: &Job,
        error: serde_json::Value,
        run_at: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<()>> + Send;
}

/// Idempotency records.
pub trait IdempotencyRecords: Send + Sync + 'static {
    /// The record of `key` in the tenant, if one was made after `since`.
    fn find_idempotency(
        &self,
        tenant: &Tenant,
        key: &str,
        since: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<Option<IdempotencyRecord>>> + Send;
}

/// The audit trail.
pub trait Events: Send + Sync + 'static {
    /// Events of one entity in the tenant, oldest first.
    fn list_events(
        &self,
        tenant: &Tenant,
        entity_type: &str,
        entity_id: &str,
    ) -> impl Future<Output = StoreResult<Vec<Event>>> + Send;
}

/// Liveness of the storage.
pub trait Health: Send + Sync + 'static {
    /// Whether the database answers a trivial query.
    fn ping(&self) -> impl Future<Output = bool> + Send;
}

/// Everything the services need from one store.
pub trait Store:
    Organizations
    + ApiKeys
    + Accounts
    + Journal
    + Jobs
    + IdempotencyRecords
    + Events
    + Health
    + Settings
    + Deletions
    + Taxes
    + Categories
    + Monitoring
    + Contacts
    + Documents
    + Clone
{
}

impl<T> Store for T where
    T: Organizations
        + ApiKeys
        + Accounts
        + Journal
        + Jobs
        + IdempotencyRecords
        + Events
        + Health
        + Settings
        + Deletions
        + Taxes
        + Categories
        + Monitoring
        + Contacts
        + Documents
        + Clone
{
}
