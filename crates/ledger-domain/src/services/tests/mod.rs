//! Fast unit tests of the services on the in-memory store ([`crate::memory`]): the write
//! pipeline, the job runner and the ledger's invariants, with a clock tests move by hand.

mod attachments;
mod batch;
mod credits;
mod exchange_rates;
mod oauth;
mod period_locks;
mod pipeline;
mod properties;
mod reconciliations;
mod recurring;
mod runner;
mod store;
mod webhooks;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use time::macros::datetime;

use crate::jobs::Job;
use crate::memory::runtime::TestRuntime;
use crate::memory::{ManualClock, MemoryStore};
use crate::ports::Tenant;

use crate::documents::DocumentKind;

use super::{
    Access, Channel, DocumentInput, DocumentItemInput, EntryInput, IssuedKey, Ledger, LedgerConfig,
    MasterSignup, NewAccountInput, NewTransactionInput, Outcome, Submission, Submitted, Write,
};

/// A ledger on a fresh memory store with one signed-up organization.
pub(super) struct World {
    pub ledger: Ledger<MemoryStore>,
    pub clock: ManualClock,
    /// The live-mode and test-mode access of the organization's default keys.
    pub live: Access,
    pub test: Access,
}

/// The ledger's settings in these tests: jobs run only when a test runs them, and
/// nothing is cached, so every read sees the store.
pub(super) fn config(signup_credits: i64) -> LedgerConfig {
    LedgerConfig {
        signup_credits,
        run_inline: false,
        account_cache_ttl: Duration::ZERO,
        key_cache_ttl: Duration::ZERO,
        ..LedgerConfig::default()
    }
}

impl World {
    pub async fn new() -> Self {
        Self::with(config(500)).await
    }

    pub async fn with(config: LedgerConfig) -> Self {
        let clock = ManualClock::new(datetime!(2026-01-15 12:00 UTC));
        let ledger = Ledger::new(
            MemoryStore::new(),
            Arc::new(clock.clone()),
            Arc::new(TestRuntime),
            config,
        );
        let signup = ledger
            .sign_up_master(MasterSignup {
                name: "Acme".into(),
                user_provider_id: "github|1".into(),
                user_email: "owner@example.com".into(),
                provider_username: None,
                base_currency: Some("USD".into()),
                test_key: IssuedKey {
                    secret: "ha_test_secret".into(),
                    hash: "test-hash".into(),
                },
                live_key: IssuedKey {
                    secret: "ha_live_secret".into(),
                    hash: "live-hash".into(),
                },
            })
            .await
            .expect("sign-up");
        let access = |livemode: bool| {
            let (key, _) = signup
                .keys
                .iter()
                .find(|(k, _)| k.livemode == livemode)
                .expect("a key of the mode");
            Access {
                tenant: Tenant {
                    organization_id: signup.organization.id.clone(),
                    livemode,
                },
                organization: signup.organization.clone(),
                key_id: key.id.clone(),
                permissions: key.permissions.clone(),
            }
        };
        Self {
            live: access(true),
            test: access(false),
            ledger,
            clock,
        }
    }

    pub fn store(&self) -> &MemoryStore {
        self.ledger.store()
    }

    /// Live credits left in the organization's pool.
    pub fn credits(&self) -> i64 {
        self.store()
            .credits_remaining(&self.live.organization.id)
            .expect("the pool exists")
    }

    /// The id of the tenant's account with `code` (the default chart has 1000, 1100,
    /// 2000, 2100, 3000, 4000, 5000).
    pub async fn account(&self, access: &Access, code: &str) -> String {
        let page = self
            .ledger
            .list_accounts(access, None, None, None)
            .await
            .expect("accounts");
        page.items
            .into_iter()
            .find(|a| a.code == code)
            .map(|a| a.id)
            .expect("an account with the code")
    }

    /// The ids of the tenant's cash (1000) and sales (4000) accounts.
    pub async fn cash_and_sales(&self, access: &Access) -> (String, String) {
        (
            self.account(access, "1000").await,
            self.account(access, "4000").await,
        )
    }

    /// The ids of the default chart by code.
    pub async fn chart(&self, access: &Access) -> HashMap<String, String> {
        let mut chart = HashMap::new();
        for code in ["1000", "1100", "2000", "2100", "3000", "4000", "5000"] {
            chart.insert(code.to_owned(), self.account(access, code).await);
        }
        chart
    }

    /// Submits through REST without waiting.
    pub async fn submit(&self, access: &Access, write: Write) -> crate::DomainResult<Submitted> {
        self.ledger
            .submit(
                access,
                write,
                Submission::new(Channel::Rest, Duration::ZERO),
            )
            .await
    }

    /// Submits through REST without waiting; the job of the accepted write.
    pub async fn queue(&self, access: &Access, write: Write) -> Job {
        queued(
            &self
                .submit(access, write)
                .await
                .expect("the write is accepted"),
        )
    }

    /// Runs every runnable job now.
    pub async fn run_jobs(&self) -> usize {
        self.ledger.run_batch(100).await.expect("run jobs")
    }
}

/// The job of a queued outcome.
pub(super) fn queued(submitted: &Submitted) -> Job {
    match &submitted.outcome {
        Outcome::Queued(job) => (**job).clone(),
        Outcome::Done(view) => panic!("expected a queued write, got {view}"),
    }
}

/// An entry of `amount` (decimal text) on `account`.
pub(super) fn entry(account: &str, side: &str, amount: &str) -> EntryInput {
    EntryInput {
        account_id: account.to_owned(),
        entry_type: side.to_owned(),
        amount: amount.to_owned(),
        description: None,
    }
}

/// A transaction moving `amount` from `credit` to `debit`.
pub(super) fn transfer(debit: &str, credit: &str, amount: &str, auto_post: bool) -> Write {
    Write::CreateTransaction(NewTransactionInput {
        description: "Transfer".into(),
        date: Some(datetime!(2026-01-10 09:00 UTC)),
        currency: None,
        reference: None,
        entries: vec![
            entry(debit, "debit", amount),
            entry(credit, "credit", amount),
        ],
        metadata: None,
        auto_post,
        contact_id: None,
        category_id: None,
    })
}

/// A new invoice to `contact_id` of one 100.00 consulting line on `account_id`, issued
/// on `issue_date` (today when `None`).
pub(super) fn consulting_invoice(
    contact_id: &str,
    account_id: &str,
    issue_date: Option<time::Date>,
) -> Write {
    Write::CreateDocument {
        kind: DocumentKind::Invoice,
        input: DocumentInput {
            contact_id: Some(contact_id.to_owned()),
            issue_date,
            items: Some(vec![DocumentItemInput {
                description: Some("Consulting".into()),
                quantity: Some("1".into()),
                unit_price: Some("100.00".into()),
                account_id: Some(account_id.to_owned()),
                ..DocumentItemInput::default()
            }]),
            ..DocumentInput::default()
        },
    }
}

/// A new asset account with `code`.
pub(super) fn new_account(code: &str) -> Write {
    Write::CreateAccount(NewAccountInput {
        code: code.to_owned(),
        name: format!("Account {code}"),
        account_type: "asset".into(),
        subtype: None,
        currency: None,
        description: None,
        parent_id: None,
        metadata: None,
    })
}
