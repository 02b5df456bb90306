//! Contract tests of the storage ports: every port method, each test body written once
//! and run on the in-memory store of `ledger-domain`, SQLite, and PostgreSQL when
//! `LEDGER_TEST_PG_URL` is set (see `harness`).

#[macro_use]
mod harness;

mod accounts;
mod attachments;
mod charts;
mod contacts;
mod credits;
mod exchange_rates;
mod group;
mod jobs;
mod journal;
mod keys;
mod lifecycle;
mod maintenance;
mod ownership;
mod paid_reads;
mod reconciliations;
mod taxes;
mod tenancy;
mod x402;

use ledger_domain::StoreResult;
use ledger_domain::accounts::{Account, AccountStatus, AccountType, DEFAULT_CHART, EntryType};
use ledger_domain::events::{Deletion, Event};
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::jobs::{Job, JobCommand, JobStatus};
use ledger_domain::organizations::{ApiKey, Organization, Permission, User};
use ledger_domain::ports::{Audit, CreditCharge, NewOrganization, PageRequest, Store, Tenant};
use ledger_domain::transactions::{EntryLine, StoredEntry, Transaction, TransactionStatus};
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;

pub const T0: OffsetDateTime = datetime!(2026-01-15 10:00 UTC);

/// A signed-up organization with its default chart in both modes.
pub struct Org {
    pub org: Organization,
    pub provider_id: String,
    pub live_key: ApiKey,
    pub test_key: ApiKey,
}

impl Org {
    pub fn tenant(&self, livemode: bool) -> Tenant {
        Tenant {
            organization_id: self.org.id.clone(),
            livemode,
        }
    }
}

pub fn account(org_id: &str, livemode: bool, code: &str, account_type: AccountType) -> Account {
    Account {
        id: new_id(IdKind::Account),
        organization_id: org_id.to_owned(),
        livemode,
        code: code.to_owned(),
        name: format!("Account {code}"),
        account_type,
        subtype: None,
        currency: "USD".to_owned(),
        description: None,
        status: AccountStatus::Active,
        parent_id: None,
        is_system: false,
        metadata: json!({}),
        created_at: T0,
        updated_at: T0,
    }
}

pub fn event(tenant: &Tenant, event_type: &str, entity_type: &str, entity_id: &str) -> Event {
    Event {
        id: new_id(IdKind::Event),
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        event_type: event_type.to_owned(),
        entity_type: entity_type.to_owned(),
        entity_id: entity_id.to_owned(),
        api_key_id: None,
        before_state: None,
        after_state: Some(json!({ "id": entity_id })),
        created_at: T0,
    }
}

/// `event` written `minutes` after `T0`: events of one entity list by time, then by id,
/// and ids made in the same millisecond are in no particular order.
pub fn at_minute(mut event: Event, minutes: i64) -> Event {
    event.created_at = T0 + time::Duration::minutes(minutes);
    event
}

fn key(org_id: &str, livemode: bool) -> ApiKey {
    ApiKey {
        id: new_id(IdKind::ApiKey),
        organization_id: org_id.to_owned(),
        name: "default".to_owned(),
        livemode,
        permissions: ["read", "write", "admin", "invoices:write"]
            .iter()
            .filter_map(|p| Permission::parse(p))
            .collect(),
        key_hash: format!("hash-{}", new_id(IdKind::ApiKey)),
        last4: "abcd".to_owned(),
        expires_at: None,
        disabled: false,
        previous_hash: Some(format!("old-{}", new_id(IdKind::ApiKey))),
        previous_expires_at: Some(T0),
        last_used_at: None,
        created_at: T0,
    }
}

/// Signs up a new organization (new user, 500 live credits, default chart, two keys).
pub async fn sign_up<S: Store>(db: &S, name: &str) -> Org {
    sign_up_as(db, name, &format!("github|{}", new_id(IdKind::User))).await
}

/// Signs up one new organization per name, in order.
pub async fn sign_up_each<S: Store, const N: usize>(db: &S, names: [&str; N]) -> [Org; N] {
    let mut orgs = Vec::with_capacity(N);
    for name in names {
        orgs.push(sign_up(db, name).await);
    }
    let Ok(orgs) = orgs.try_into() else {
        unreachable!("one organization a name")
    };
    orgs
}

/// Signs up a new organization for the user with `provider_id` (inserted if new).
pub async fn sign_up_as<S: Store>(db: &S, name: &str, provider_id: &str) -> Org {
    let user = User {
        id: new_id(IdKind::User),
        provider_id: provider_id.to_owned(),
        email: "owner@example.com".to_owned(),
        provider_username: Some("owner".to_owned()),
        created_at: T0,
    };
    let org_id = new_id(IdKind::Organization);
    let org = Organization {
        id: org_id.clone(),
        name: name.to_owned(),
        parent_id: None,
        path: format!("/{org_id}/"),
        relationship: None,
        owner_user_id: user.id.clone(),
        base_currency: "USD".to_owned(),
        credits_remaining: 500,
        credits_total: 500,
        metadata: json!({ "plan": "free" }),
        created_at: T0,
        updated_at: T0,
    };
    let mut accounts = Vec::new();
    for livemode in [true, false] {
        for entry in DEFAULT_CHART {
            let mut a = account(&org_id, livemode, entry.code, entry.account_type);
            a.name = entry.name.to_owned();
            a.subtype = Some(entry.subtype.to_owned());
            a.is_system = true;
            accounts.push(a);
        }
    }
    let live_key = key(&org_id, true);
    let test_key = key(&org_id, false);
    let tenant = Tenant {
        organization_id: org_id.clone(),
        livemode: false,
    };
    let new = NewOrganization {
        user: Some(user),
        organization: org,
        accounts,
        keys: vec![live_key.clone(), test_key.clone()],
        events: vec![event(
            &tenant,
            "organization.created",
            "organization",
            &org_id,
        )],
    };
    let org = db.create_organization(new).await.expect("sign-up");
    Org {
        org,
        provider_id: provider_id.to_owned(),
        live_key,
        test_key,
    }
}

/// The first page of 20 rows, the page most lists here read.
pub const PAGE: PageRequest = page(20, 0);

/// The page of `limit` rows from `offset`.
pub const fn page(limit: i64, offset: i64) -> PageRequest {
    PageRequest { limit, offset }
}

/// The credits the organization `org_id` has left in its pool.
pub async fn credits_left<S: Store>(db: &S, org_id: &str) -> i64 {
    db.get_organization(org_id)
        .await
        .expect("org")
        .expect("exists")
        .credits_remaining
}

/// An audit of `event` that charges `charge` (no idempotency key).
pub fn charged(event: Event, charge: CreditCharge) -> Audit {
    Audit {
        event,
        idempotency: None,
        charge: Some(charge),
    }
}

/// Asserts that a read found nothing: the row is gone, or is not the reader's.
#[track_caller]
pub fn absent<T: std::fmt::Debug>(found: StoreResult<Option<T>>, backend: &str) {
    let found = found.expect("get");
    assert!(found.is_none(), "{backend}: read {found:?}");
}

/// Asserts that `read` finds nothing for any of `tenants`: a row of another mode or
/// organization is invisible (or the row is gone).
pub async fn hidden_from<T: std::fmt::Debug>(
    tenants: &[Tenant],
    read: impl AsyncFn(&Tenant) -> StoreResult<Option<T>>,
    backend: &str,
) {
    for tenant in tenants {
        let found = read(tenant).await.expect("get");
        assert!(found.is_none(), "{backend}: {tenant:?} reads {found:?}");
    }
}

/// Signs up `name` and answers it with the tenant of `livemode` and the ids of its
/// accounts `codes` there.
pub async fn sign_up_with_accounts<S: Store, const N: usize>(
    db: &S,
    name: &str,
    livemode: bool,
    codes: [&str; N],
) -> (Org, Tenant, [String; N]) {
    let org = sign_up(db, name).await;
    let tenant = org.tenant(livemode);
    let mut ids = Vec::with_capacity(N);
    for code in codes {
        ids.push(account_id(db, &tenant, code).await);
    }
    let ids = ids.try_into().expect("one id a code");
    (org, tenant, ids)
}

/// The id of the tenant's account with `code`.
pub async fn account_id<S: Store>(db: &S, tenant: &Tenant, code: &str) -> String {
    use ledger_domain::ports::AccountFilter;
    let page = db
        .list_accounts(tenant, &AccountFilter::default(), None)
        .await
        .expect("list");
    page.items
        .into_iter()
        .find(|a| a.code == code)
        .map(|a| a.id)
        .unwrap_or_else(|| panic!("no account {code}"))
}

/// A balanced transaction: debit `debit_account`, credit `credit_account`.
pub fn transaction(
    tenant: &Tenant,
    date: OffsetDateTime,
    status: TransactionStatus,
    debit_account: &str,
    credit_account: &str,
    amount: i64,
) -> Transaction {
    let line = |account: &str, side| StoredEntry {
        id: new_id(IdKind::Entry),
        line: EntryLine {
            account_id: account.to_owned(),
            entry_type: side,
            amount,
            description: None,
            currency: None,
        },
    };
    Transaction {
        id: new_id(IdKind::Transaction),
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        description: format!("sale of {amount}"),
        date,
        status,
        currency: "USD".to_owned(),
        amount,
        reference: Some("INV-1".to_owned()),
        reversal_of: None,
        reversed_by: None,
        reversal_reason: None,
        contact_id: None,
        category_id: None,
        source: None,
        metadata: json!({ "n": 1 }),
        entries: vec![
            line(debit_account, EntryType::Debit),
            line(credit_account, EntryType::Credit),
        ],
        posted_at: (status == TransactionStatus::Posted).then_some(date),
        created_at: date,
        updated_at: date,
    }
}

/// A queued job of the tenant for `command`, charged `cost` to the org's own pool.
pub fn job(org: &Org, livemode: bool, command: JobCommand, cost: i64) -> Job {
    Job {
        id: new_id(IdKind::Request),
        organization_id: org.org.id.clone(),
        livemode,
        api_key_id: if livemode {
            org.live_key.id.clone()
        } else {
            org.test_key.id.clone()
        },
        command,
        status: JobStatus::Queued,
        attempts: 0,
        credit_cost: cost,
        credit_pool_id: org.org.id.clone(),
        result: None,
        error: None,
        run_at: T0,
        locked_until: None,
        created_at: T0,
        updated_at: T0,
        completed_at: None,
    }
}

pub fn post_command(transaction_id: &str) -> JobCommand {
    JobCommand::PostTransaction {
        transaction_id: transaction_id.to_owned(),
    }
}

/// Enqueues `job` (no charge) and claims it by id: the job as a worker holds it.
pub async fn enqueue_and_claim<S: Store>(db: &S, job: Job) -> Job {
    let id = job.id.clone();
    db.enqueue(job, None, None).await.expect("enqueue");
    db.claim_job(&id, T0, time::Duration::seconds(30))
        .await
        .expect("claim")
        .expect("claimable")
}

/// A charge of `credits` to the org's pool.
pub fn charge(org: &Org, livemode: bool, credits: i64) -> CreditCharge {
    CreditCharge {
        pool_id: org.org.id.clone(),
        livemode,
        credits,
    }
}

/// A deletion record of a resource, by the tenant's key.
pub fn deletion(tenant: &Tenant, resource_type: &str, resource_id: &str) -> Deletion {
    Deletion {
        id: new_id(IdKind::Deletion),
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        resource_type: resource_type.to_owned(),
        resource_id: resource_id.to_owned(),
        name: resource_id.to_owned(),
        deleted_at: T0,
        deleted_by: "key_x".to_owned(),
        recoverable_until: T0 + time::Duration::days(7),
    }
}
