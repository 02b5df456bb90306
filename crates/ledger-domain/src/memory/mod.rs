//! An in-memory implementation of every storage port ([`crate::ports::Store`]), for fast
//! tests of the services and as the first target of the store contract suite.
//!
//! [`MemoryStore`] is a cheap handle (`Arc<Mutex<State>>`): clones share the same data.
//! Every port method locks the state once, checks everything the SQL adapter
//! (`ledger-store`) checks, in the same order and with the same refusals, and only then
//! changes anything, so a refused write leaves no trace, as a rolled-back database
//! transaction would. The lock is never held across an `await`.
//!
//! Besides the ports, the store offers what tests need to provoke the rare paths: an
//! injected storage failure of the next job applications
//! ([`MemoryStore::fail_next_applies`]) and a hook that runs just before the next job
//! application ([`MemoryStore::before_next_apply`]), to change the state a job's decision
//! read; [`ManualClock`] is a clock tests move by hand.

mod accounts;
mod apply;
mod attachments;
mod credits;
mod documents;
mod exchange_rates;
mod jobs;
mod maintenance;
mod master_data;
mod oauth;
mod organizations;
mod ownership;
mod reconciliations;
mod recurring;
#[cfg(test)]
pub(crate) mod runtime;
mod tenanted;
mod webhooks;
mod x402;

use crate::ports::StoreError;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use time::OffsetDateTime;

use crate::accounts::Account;
use crate::attachments::Attachment;

use crate::categories::Category;
use crate::contacts::Contact;
use crate::documents::{Document, Payment, StatusChange};
use crate::error::{Resource, UsedBy};
use crate::events::{Deletion, Event};
use crate::exchange::ExchangeRate;
use crate::jobs::Job;
use crate::organizations::{ApiKey, Organization, User};
use crate::ports::{
    BoxFuture, Clock, CreditCharge, Events, Health, IdempotencyRecord, IdempotencyRecords, Page,
    PageRequest, Setting, Settings, StoreResult, Tenant,
};
use crate::tax::Tax;
use crate::transactions::Transaction;
pub use attachments::MemoryBlobs;
pub use webhooks::MemoryWebhookTransport;

/// A hook run before the next job application (see [`MemoryStore::before_next_apply`]).
pub type ApplyHook = Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>;

/// Every port of [`crate::ports::Store`] over data held in memory. Clones share the data.
#[derive(Clone, Default)]
pub struct MemoryStore {
    state: Arc<Mutex<State>>,
    hooks: Arc<Mutex<Hooks>>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore").finish_non_exhaustive()
    }
}

/// Test levers on job application.
#[derive(Default)]
struct Hooks {
    /// How many of the next `apply_job` calls fail with an injected storage error.
    failing_applies: u32,
    /// Run (and awaited) at the start of the next `apply_job`, before it reads anything.
    before_apply: Option<ApplyHook>,
}

impl MemoryStore {
    /// An empty store: no users, organizations or rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// The state, locked for one atomic use. A poisoned lock means a test already
    /// panicked while holding it.
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().expect("memory store lock poisoned")
    }

    fn hooks(&self) -> MutexGuard<'_, Hooks> {
        self.hooks.lock().expect("memory store hook lock poisoned")
    }

    /// Makes the next `count` calls of `Jobs::apply_job` fail with
    /// `StoreError::Internal` (a transient storage failure) without writing anything.
    pub fn fail_next_applies(&self, count: u32) {
        self.hooks().failing_applies = count;
    }

    /// Runs `hook` at the start of the next `Jobs::apply_job` call (after the job was
    /// decided, before it is applied), and awaits it: a test changes there the state the
    /// decision read, as a concurrent request would have.
    pub fn before_next_apply(&self, hook: ApplyHook) {
        self.hooks().before_apply = Some(hook);
    }

    /// Runs the injected failure or hook of the next job application, if any.
    async fn before_apply(&self) -> StoreResult<()> {
        let hook = self.hooks().before_apply.take();
        if let Some(hook) = hook {
            hook().await;
        }
        let mut hooks = self.hooks();
        if hooks.failing_applies > 0 {
            hooks.failing_applies -= 1;
            return Err(StoreError::Internal(
                "injected storage failure (memory store)".into(),
            ));
        }
        Ok(())
    }

    /// Every job in the store, oldest first (for tests that inspect the queue).
    pub fn jobs(&self) -> Vec<Job> {
        let state = self.state();
        let mut jobs: Vec<Job> = state.jobs.values().cloned().collect();
        tenanted::sort_oldest_first(&mut jobs);
        jobs
    }

    /// Every event in the store, in the order written.
    pub fn events(&self) -> Vec<Event> {
        self.state().events.clone()
    }

    /// The live credits left in the pool `pool_id` (`None` when no such organization).
    pub fn credits_remaining(&self, pool_id: &str) -> Option<i64> {
        self.state()
            .organizations
            .get(pool_id)
            .map(|o| o.credits_remaining)
    }
}

/// When and by which key a row was soft-deleted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Deleted {
    pub(crate) deleted_at: OffsetDateTime,
    pub(crate) deleted_by: String,
    pub(crate) recoverable_until: OffsetDateTime,
}

impl From<&Deletion> for Deleted {
    fn from(d: &Deletion) -> Self {
        Self {
            deleted_at: d.deleted_at,
            deleted_by: d.deleted_by.clone(),
            recoverable_until: d.recoverable_until,
        }
    }
}

/// Appends `value` as a new live row, refusing (as a primary key would) when a row that
/// is `same` exists already.
pub(crate) fn push_new<T>(
    rows: &mut Vec<Row<T>>,
    value: T,
    same: impl Fn(&T) -> bool,
    what: &str,
    id: &str,
) -> StoreResult<()> {
    if rows.iter().any(|r| same(&r.value)) {
        return Err(StoreError::Internal(format!("{what} {id} exists already")));
    }
    rows.push(Row::new(value));
    Ok(())
}

/// A stored row that can be soft-deleted.
#[derive(Debug, Clone)]
pub(crate) struct Row<T> {
    pub(crate) value: T,
    pub(crate) deleted: Option<Deleted>,
}

impl<T> Row<T> {
    pub(crate) fn new(value: T) -> Self {
        Self {
            value,
            deleted: None,
        }
    }

    pub(crate) fn is_live(&self) -> bool {
        self.deleted.is_none()
    }

    /// Whether the row was soft-deleted and its retention is over at `now`.
    pub(crate) fn expired(&self, now: OffsetDateTime) -> bool {
        self.deleted
            .as_ref()
            .is_some_and(|d| d.recoverable_until <= now)
    }
}

/// A test-mode credit usage row (append-only; a refund is a negative row).
#[derive(Debug, Clone)]
pub(crate) struct Usage {
    pub(crate) pool_id: String,
    pub(crate) credits: i64,
}

/// Everything the store holds. Soft-deletable tables are `Vec<Row<_>>` in insertion
/// order; every read filters and sorts as the SQL adapter's query does.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) users: Vec<User>,
    pub(crate) organizations: BTreeMap<String, Organization>,
    pub(crate) keys: Vec<Row<ApiKey>>,
    pub(crate) accounts: Vec<Row<Account>>,
    pub(crate) transactions: Vec<Row<Transaction>>,
    pub(crate) contacts: Vec<Row<Contact>>,
    pub(crate) taxes: Vec<Row<Tax>>,
    pub(crate) categories: Vec<Row<Category>>,
    pub(crate) documents: Vec<Row<Document>>,
    pub(crate) payments: Vec<Payment>,
    pub(crate) history: Vec<StatusChange>,
    pub(crate) deletions: Vec<Deletion>,
    pub(crate) events: Vec<Event>,
    pub(crate) jobs: BTreeMap<String, Job>,
    /// By (organization, livemode, key).
    pub(crate) idempotency: BTreeMap<(String, bool, String), IdempotencyRecord>,
    pub(crate) usage: Vec<Usage>,
    /// By (organization, livemode, key).
    pub(crate) settings: BTreeMap<(String, bool, String), Setting>,
    pub(crate) exchange_rates: Vec<Row<ExchangeRate>>,
    pub(crate) transfers: Vec<crate::ownership::OrganizationTransfer>,
    pub(crate) attachments: Vec<Row<Attachment>>,
    pub(crate) oauth_clients: Vec<crate::oauth::OAuthClient>,
    pub(crate) oauth_grants: Vec<crate::oauth::Grant>,
    /// By hash.
    pub(crate) oauth_secrets: BTreeMap<String, crate::oauth::StoredSecret>,
    pub(crate) recurring_schedules: Vec<Row<crate::recurring::RecurringSchedule>>,
    pub(crate) recurring_runs: Vec<crate::recurring::RecurringRun>,
    pub(crate) webhooks: webhooks::WebhookState,
    pub(crate) reconciliations: Vec<Row<crate::reconciliation::Reconciliation>>,
    pub(crate) statement_lines: Vec<crate::reconciliation::StatementLine>,
    /// The credit ledger of every live pool, in the order written.
    pub(crate) credit_ledger: Vec<crate::credits::LedgerEntry>,
    /// Per pool: (purchased credits as of the last grant, period of the last reset).
    pub(crate) credit_pools: BTreeMap<String, (i64, String)>,
    pub(crate) purchases: Vec<crate::credits::CreditPurchase>,
    /// Used x402 authorizations by (network, asset, payer, nonce).
    pub(crate) x402_authorizations:
        BTreeMap<(String, String, String, String), crate::ports::X402Authorization>,
}

/// Whether a row of `organization_id` and `livemode` belongs to `tenant`.
pub(crate) fn in_tenant(tenant: &Tenant, organization_id: &str, livemode: bool) -> bool {
    tenant.organization_id == organization_id && tenant.livemode == livemode
}

/// One page of `items` (already filtered and sorted), with the count of all of them.
pub(crate) fn page_of<T>(items: Vec<T>, page: Option<PageRequest>) -> Page<T> {
    let total_count = items.len() as i64;
    let items = match page {
        Some(page) => items
            .into_iter()
            .skip(usize::try_from(page.offset).unwrap_or(0))
            .take(usize::try_from(page.limit).unwrap_or(0))
            .collect(),
        None => items,
    };
    Page { items, total_count }
}

/// The tenant of a deletion record.
pub(crate) fn tenant_of_deletion(deletion: &Deletion) -> Tenant {
    Tenant {
        organization_id: deletion.organization_id.clone(),
        livemode: deletion.livemode,
    }
}

impl State {
    /// The stored record `record`'s key is replayed with: one of the tenant within the
    /// window (an older one is free again and is replaced when the write happens).
    pub(crate) fn replay_of(
        &self,
        record: Option<&IdempotencyRecord>,
    ) -> Option<IdempotencyRecord> {
        let record = record?;
        let stored = self.idempotency.get(&(
            record.organization_id.clone(),
            record.livemode,
            record.key.clone(),
        ))?;
        record.replays(stored).then(|| stored.clone())
    }

    /// Stores `record`, replacing a stale record of the same key.
    pub(crate) fn put_idempotency(&mut self, record: Option<IdempotencyRecord>) {
        if let Some(record) = record {
            self.idempotency.insert(
                (
                    record.organization_id.clone(),
                    record.livemode,
                    record.key.clone(),
                ),
                record,
            );
        }
    }

    /// Refuses `charge` when it draws on a live pool with fewer credits (nothing taken).
    pub(crate) fn check_charge(&self, charge: Option<&CreditCharge>) -> StoreResult<()> {
        match charge {
            Some(charge) if charge.livemode && charge.credits > 0 => {
                let available = self
                    .organizations
                    .get(&charge.pool_id)
                    .map_or(0, |o| o.credits_remaining);
                if available < charge.credits {
                    return Err(StoreError::CreditsShort {
                        required: charge.credits,
                        available,
                    });
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Takes a checked charge: decrements a live pool, or appends a test-mode usage row.
    pub(crate) fn take_charge(&mut self, charge: Option<&CreditCharge>) {
        let Some(charge) = charge.filter(|c| c.credits > 0) else {
            return;
        };
        if charge.livemode {
            if let Some(pool) = self.organizations.get_mut(&charge.pool_id) {
                pool.credits_remaining -= charge.credits;
                self.add_ledger_entry(
                    &charge.pool_id,
                    crate::credits::LedgerKind::Charge,
                    -charge.credits,
                    None,
                );
            }
        } else {
            self.usage.push(Usage {
                pool_id: charge.pool_id.clone(),
                credits: charge.credits,
            });
        }
    }

    /// Appends a row to the credit ledger of `pool_id` (ids are fresh; the memory store
    /// has no clock, so rows are stamped with the system time).
    pub(crate) fn add_ledger_entry(
        &mut self,
        pool_id: &str,
        kind: crate::credits::LedgerKind,
        credits: i64,
        id: Option<String>,
    ) {
        self.credit_ledger.push(crate::credits::LedgerEntry {
            organization_id: pool_id.to_owned(),
            id: id.unwrap_or_else(|| crate::ids::new_id(crate::ids::IdKind::Request)),
            kind,
            credits,
            reference: None,
            created_at: OffsetDateTime::now_utc(),
        });
    }

    /// Whether a reference of kind `by` to `resource` `id` exists in the tenant (the SQL
    /// adapter's `reference_exists`, by ids).
    fn reference_exists(&self, tenant: &Tenant, resource: Resource, by: UsedBy, id: &str) -> bool {
        let live_transactions = || tenanted::live_rows(&self.transactions, tenant);
        let live_documents = || tenanted::live_rows(&self.documents, tenant);
        match (resource, by) {
            // Any entry of the organization, of any transaction (deleted ones included).
            (Resource::Account, UsedBy::LedgerEntries) => self.transactions.iter().any(|t| {
                t.value.organization_id == tenant.organization_id
                    && t.value.entries.iter().any(|e| e.line.account_id == id)
            }),
            (Resource::Contact, UsedBy::Transactions) => {
                live_transactions().any(|t| t.contact_id.as_deref() == Some(id))
            }
            (Resource::Category, UsedBy::Transactions) => {
                live_transactions().any(|t| t.category_id.as_deref() == Some(id))
            }
            (Resource::Contact, UsedBy::Documents) => live_documents().any(|d| d.contact_id == id),
            (Resource::Tax, UsedBy::Documents) => {
                live_documents().any(|d| d.items.iter().any(|i| i.tax_ids.iter().any(|t| t == id)))
            }
            (Resource::Category, UsedBy::Documents) => live_documents()
                .any(|d| d.items.iter().any(|i| i.category_id.as_deref() == Some(id))),
            (Resource::Category, UsedBy::Subcategories) => {
                tenanted::live_rows(&self.categories, tenant)
                    .any(|c| c.parent_id.as_deref() == Some(id))
            }
            _ => false,
        }
    }

    /// The first reference (in the domain's order, [`crate::references::used_by`]) that
    /// keeps `resource` `id` from being deleted, as the refusal to return.
    pub(crate) fn in_use(
        &self,
        tenant: &Tenant,
        resource: Resource,
        id: &str,
    ) -> Option<StoreError> {
        crate::references::used_by(resource)
            .iter()
            .find(|by| self.reference_exists(tenant, resource, **by, id))
            .map(|by| StoreError::InUse {
                resource,
                id: id.to_owned(),
                by: *by,
            })
    }

    /// Inserts a deletion record.
    pub(crate) fn record_deletion(&mut self, deletion: Deletion) {
        self.deletions.push(deletion);
    }
}

/// A [`Clock`] that tests set and move by hand; clones share the time.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<Mutex<OffsetDateTime>>,
}

impl ManualClock {
    /// A clock standing at `now`.
    pub fn new(now: OffsetDateTime) -> Self {
        Self {
            now: Arc::new(Mutex::new(now)),
        }
    }

    /// Moves the clock by `by` (backwards when negative).
    pub fn advance(&self, by: time::Duration) {
        let mut now = self.now.lock().expect("clock lock poisoned");
        *now += by;
    }

    /// Sets the clock to `now`.
    pub fn set(&self, now: OffsetDateTime) {
        *self.now.lock().expect("clock lock poisoned") = now;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> OffsetDateTime {
        *self.now.lock().expect("clock lock poisoned")
    }
}

impl IdempotencyRecords for MemoryStore {
    async fn find_idempotency(
        &self,
        tenant: &Tenant,
        key: &str,
        since: OffsetDateTime,
    ) -> StoreResult<Option<IdempotencyRecord>> {
        let state = self.state();
        Ok(state
            .idempotency
            .get(&(
                tenant.organization_id.clone(),
                tenant.livemode,
                key.to_owned(),
            ))
            .filter(|r| r.created_at > since)
            .cloned())
    }
}

impl Events for MemoryStore {
    async fn list_events(
        &self,
        tenant: &Tenant,
        entity_type: &str,
        entity_id: &str,
    ) -> StoreResult<Vec<Event>> {
        let mut found = tenanted::of_tenant(&self.state().events, tenant, |e| {
            e.entity_type == entity_type && e.entity_id == entity_id
        });
        tenanted::sort_oldest_first(&mut found);
        Ok(found)
    }
}

impl Health for MemoryStore {
    async fn ping(&self) -> bool {
        // Memory always answers (a poisoned lock would mean a test already failed).
        self.state.lock().is_ok()
    }
}

impl Settings for MemoryStore {
    async fn get_setting(&self, tenant: &Tenant, key: &str) -> StoreResult<Option<Setting>> {
        let state = self.state();
        Ok(state
            .settings
            .get(&(
                tenant.organization_id.clone(),
                tenant.livemode,
                key.to_owned(),
            ))
            .cloned())
    }

    async fn put_setting(&self, setting: Setting, event: Event) -> StoreResult<Setting> {
        let mut state = self.state();
        state.settings.insert(
            (
                setting.organization_id.clone(),
                setting.livemode,
                setting.key.clone(),
            ),
            setting.clone(),
        );
        state.events.push(event);
        Ok(setting)
    }
}
