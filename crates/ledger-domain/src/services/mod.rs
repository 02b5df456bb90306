//! Use-case services: validate, compute with the domain rules, call the ports.
//!
//! [`Ledger`] is generic over the [`Store`] port; every interface (REST, GraphQL, MCP)
//! drives the same methods, so authentication, permissions, tenancy, credits and events
//! are the same everywhere.

mod access;
mod account_cache;
mod accounts;
mod attachments;
mod batch;
mod categories;
mod contacts;
mod credits;
mod deletions;
mod documents;
mod exchange_rates;
mod external_signin;
mod keys;
mod oauth;
mod ownership;
mod paid_reads;
mod period_lock;
mod pipeline;
mod reconciliations;
mod recurring;
mod reports;
mod revaluation;
mod runner;
mod settings;
mod signup;
mod system;
mod taxes;
#[cfg(test)]
mod tests;
mod transactions;
mod transfers;
mod ttl_cache;
mod webhooks;
mod x402;

use std::sync::Arc;

use time::OffsetDateTime;

pub use access::{Access, OAuthBearer, Principal};
pub use accounts::{AccountChanges, BalanceView, HistoryView, NewAccountInput};
pub use attachments::{NewAttachmentInput, attachment_too_large};
pub use batch::{MAX_BATCH, MAX_BATCH_ENTRIES};
pub use categories::{CategoryChanges, CategoryView, NewCategoryInput};
pub use contacts::NewContactInput;
pub use credits::{
    CreditBalance, PurchaseInput, balance_view, ledger_entry_view, package_view, purchase_view,
};
pub use documents::{
    DocumentInput, DocumentItemInput, DocumentView, MAX_ITEM_TAXES, MAX_ITEMS, PaymentInput,
    RECOVERABLE_TAX_SETTING,
};
pub use exchange_rates::{
    ConversionInput, ExchangeRateChanges, NewExchangeRateInput, find_currency,
};
pub use external_signin::{ExternalIdentity, ExternalSignInStart, PendingExternalSignIn};
pub use keys::{KeyChanges, NewKeyInput};
pub use oauth::{
    AuthorizationRequest, AuthorizeRefusal, ClientCredentials, OAuthError, OAuthErrorCode,
    TokenResponse, ValidatedRequest,
};
pub use ownership::OrganizationTransferInput;
pub(crate) use period_lock::Dated;
pub use period_lock::PERIOD_LOCK_SETTING;
pub use pipeline::{
    Channel, IdempotencyKey, MAX_WAIT, Operation, Outcome, Submission, Submitted, WRITE_CREDITS,
    Write, price,
};
pub use reconciliations::{
    NewReconciliationInput, ReconciliationChanges, StatementImportInput, StatementMappingInput,
    StatementTransactionInput,
};
pub use recurring::RecurringScheduleInput;
pub use revaluation::{REVALUATION_SOURCE, UNREALISED_GAINS_CODE};
pub use runner::RunOutcome;
pub use settings::Billing;
pub use signup::{IssuedKey, MasterSignup, SignupResult, SubSignup};
pub use system::{
    CacheLookups, EVENT_ENTITY_TYPES, ServiceFigures, SystemInfo, SystemStatus, system_auth_error,
};
pub use taxes::{NewTaxInput, TaxChanges};
pub use transactions::{EntryInput, NewTransactionInput, TransactionChanges};
pub(crate) use transactions::{WriteOptions, with_result};
pub use transfers::TransferInput;
pub use webhooks::{
    NewWebhookEndpointInput, WebhookEndpointChanges, attempt_view, delivery_view, endpoint_view,
};
pub use x402::{X402Outcome, X402PurchaseInput, payment_refusal};

use crate::ports::{
    Blobs, Clock, DevPayments, Mailer, NoBlobs, NoMailer, NoPayments, NoTokens, NoWebhookTransport,
    PaymentProvider, Runtime, Store, TokenSource, WebhookTransport,
};

/// Tunables of the services.
#[derive(Debug, Clone)]
pub struct LedgerConfig {
    /// Credits a new root organization starts with.
    pub signup_credits: i64,
    /// Soft-delete retention.
    pub retention_days: i64,
    /// How long a claimed job is leased before another worker may take it.
    pub job_lease: time::Duration,
    /// How long a rotated key's old secret keeps working.
    pub key_grace: time::Duration,
    /// Queue workers this process runs (reported by `/system`).
    pub workers: usize,
    /// When the service started (uptime in `/system`); monotonic, so clock changes
    /// never make it negative.
    pub started_at: std::time::Instant,
    /// How long a copy of an account read to validate new entries is reused (zero: never).
    pub account_cache_ttl: std::time::Duration,
    /// How long the key and organization behind a bearer secret are reused without
    /// reading them again (zero: never). Key changes in this process apply at once.
    pub key_cache_ttl: std::time::Duration,
    /// Whether a request starts the job it queued at once, in a task of its own (else
    /// only the queue workers run jobs, woken through [`Runtime::wake_workers`]).
    pub run_inline: bool,
    /// How long an ownership transfer waits for its recipient (DECISIONS 5: 7 days).
    pub transfer_expiry: time::Duration,
    /// The largest attachment upload, in bytes.
    pub max_attachment_bytes: usize,
    /// Webhook delivery: backoff, giving up, disabling, timeouts, the address rule.
    pub webhooks: crate::webhooks::WebhookPolicy,
    /// Free credits of a pool each month (the reset; no roll-over).
    pub monthly_credits: i64,
    /// The credit packages on sale.
    pub credit_packages: Vec<crate::credits::CreditPackage>,
    /// Where and in what x402 purchases are paid (`None`: x402 is off).
    pub x402: Option<crate::x402::X402Config>,
    /// Lifetimes of OAuth codes, tokens, sign-in links and console sessions.
    pub oauth_lifetimes: crate::oauth::OAuthLifetimes,
}

impl Default for LedgerConfig {
    fn default() -> Self {
        Self {
            signup_credits: 500,
            retention_days: crate::events::RETENTION_DAYS,
            job_lease: time::Duration::seconds(60),
            key_grace: time::Duration::hours(24),
            workers: 0,
            started_at: std::time::Instant::now(),
            account_cache_ttl: std::time::Duration::from_secs(2),
            key_cache_ttl: std::time::Duration::from_secs(2),
            run_inline: true,
            transfer_expiry: crate::ownership::DEFAULT_TRANSFER_EXPIRY,
            max_attachment_bytes: crate::attachments::DEFAULT_MAX_ATTACHMENT_BYTES,
            webhooks: crate::webhooks::WebhookPolicy::default(),
            monthly_credits: crate::credits::DEFAULT_MONTHLY_CREDITS,
            credit_packages: crate::credits::default_packages(),
            x402: None,
            oauth_lifetimes: crate::oauth::OAuthLifetimes::default(),
        }
    }
}

/// The service facade over one store. Interfaces reach storage only through its
/// methods: the store is private.
#[derive(Clone)]
pub struct Ledger<S> {
    store: S,
    clock: Arc<dyn Clock>,
    runtime: Arc<dyn Runtime>,
    /// Where attachment bytes live ([`NoBlobs`] until [`Ledger::with_blobs`]).
    blobs: Arc<dyn Blobs>,
    /// Random secrets and their hashes for the authorization server ([`NoTokens`] until
    /// [`Ledger::with_tokens`]).
    tokens: Arc<dyn TokenSource>,
    /// Where sign-in mail goes ([`NoMailer`] until [`Ledger::with_mailer`]).
    mailer: Arc<dyn Mailer>,
    /// Makes webhook secrets and sends deliveries ([`NoWebhookTransport`] until
    /// [`Ledger::with_webhook_transport`]).
    webhook_transport: Arc<dyn WebhookTransport>,
    /// The payment provider of live-mode purchases ([`NoPayments`] until
    /// [`Ledger::with_payments`]).
    payments: Arc<dyn PaymentProvider>,
    /// The development provider (test-mode purchases, and its checkout page).
    dev_payments: DevPayments,
    /// Verifies and settles x402 payments ([`crate::ports::LocalFacilitator`] until
    /// [`Ledger::with_facilitator`]).
    facilitator: Arc<dyn crate::ports::X402Facilitator>,
    pub config: LedgerConfig,
    account_cache: Arc<account_cache::AccountCache>,
    /// Principals by key hash (see `LedgerConfig::key_cache_ttl`).
    key_cache: Arc<ttl_cache::TtlCache<String, Principal>>,
    /// Copies of tenants' period locks for validating writes (see
    /// `Ledger::check_period_open`; same time to live as the account copies).
    lock_cache: Arc<ttl_cache::TtlCache<period_lock::LockKey, Option<time::Date>>>,
    /// What this process has done since it started, for `/metrics`.
    activity: Arc<system::Activity>,
}

impl<S: Store> Ledger<S> {
    /// A ledger over `store`, reading time from `clock` and running background work on
    /// `runtime`.
    pub fn new(
        store: S,
        clock: Arc<dyn Clock>,
        runtime: Arc<dyn Runtime>,
        config: LedgerConfig,
    ) -> Self {
        Self {
            store,
            clock,
            runtime,
            blobs: Arc::new(NoBlobs),
            tokens: Arc::new(NoTokens),
            mailer: Arc::new(NoMailer),
            webhook_transport: Arc::new(NoWebhookTransport),
            payments: Arc::new(NoPayments),
            dev_payments: DevPayments {
                base_url: String::new(),
            },
            facilitator: Arc::new(crate::ports::LocalFacilitator),
            account_cache: Arc::new(account_cache::AccountCache::new(config.account_cache_ttl)),
            key_cache: Arc::new(ttl_cache::TtlCache::new(config.key_cache_ttl)),
            lock_cache: Arc::new(ttl_cache::TtlCache::new(config.account_cache_ttl)),
            activity: Arc::default(),
            config,
        }
    }

    /// The same ledger keeping attachment bytes in `blobs`.
    #[must_use]
    pub fn with_blobs(mut self, blobs: Arc<dyn Blobs>) -> Self {
        self.blobs = blobs;
        self
    }

    /// The same ledger making its OAuth secrets with `tokens`.
    #[must_use]
    pub fn with_tokens(mut self, tokens: Arc<dyn TokenSource>) -> Self {
        self.tokens = tokens;
        self
    }

    /// The same ledger sending its mail through `mailer`.
    #[must_use]
    pub fn with_mailer(mut self, mailer: Arc<dyn Mailer>) -> Self {
        self.mailer = mailer;
        self
    }

    /// The same ledger signing and sending webhooks through `transport`.
    #[must_use]
    pub fn with_webhook_transport(mut self, transport: Arc<dyn WebhookTransport>) -> Self {
        self.webhook_transport = transport;
        self
    }

    /// The same ledger taking live payments through `payments`, and serving the
    /// development checkout under `dev`'s base URL.
    #[must_use]
    pub fn with_payments(mut self, payments: Arc<dyn PaymentProvider>, dev: DevPayments) -> Self {
        self.payments = payments;
        self.dev_payments = dev;
        self
    }

    /// The same ledger verifying and settling x402 payments through `facilitator`.
    #[must_use]
    pub fn with_facilitator(mut self, facilitator: Arc<dyn crate::ports::X402Facilitator>) -> Self {
        self.facilitator = facilitator;
        self
    }

    /// Now, from the injected clock.
    ///
    /// Truncated to the microsecond, the finest both databases store, so what a write
    /// answers is what a later read of it answers.
    pub fn now(&self) -> OffsetDateTime {
        let now = self.clock.now();
        now.replace_nanosecond(now.nanosecond() / 1_000 * 1_000)
            .unwrap_or(now)
    }

    /// Whether the database answers (the `/health` probe).
    pub async fn healthy(&self) -> bool {
        self.store.ping().await
    }

    /// The store, for tests that inspect what was written (query counts, rows).
    #[cfg(any(test, feature = "test-support"))]
    pub fn store(&self) -> &S {
        &self.store
    }
}
