//! The one error vocabulary of the service.
//!
//! Every refusal the domain can make carries an [`ErrorCode`]: the closed set of stable
//! snake_case codes (DECISIONS 6) with the family ([`ErrorKind`]) each belongs to, defined
//! once in the table below. Interfaces render a [`DomainError`] their own way in exactly
//! one mapping function each (REST: status and type; GraphQL: `extensions.code`; MCP:
//! the REST envelope as a tool result) and never invent codes of their own. A refusal
//! stored on a failed job is read back with [`DomainError::from_stored`] and keeps its
//! code, and so its kind.
//!
//! The resources a refusal names and what keeps one in use are in `resource`; how an
//! error reads outside the domain (details, public message, stored form) in `render`.

mod render;
mod resource;

use serde_json::Value;

use resource::advice;

pub use resource::{Resource, UsedBy};

/// How an interface should classify an error (maps to an HTTP status family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    Validation,
    /// A request the transport refuses before it reaches a use case (method, media type,
    /// size, scheme).
    Request,
    Authentication,
    Authorization,
    NotFound,
    OrganizationNotFound,
    Conflict,
    BusinessRule,
    CreditLimit,
    /// An x402 payment is required or was refused (HTTP 402 with `PAYMENT-REQUIRED`).
    Payment,
    RateLimit,
    Unavailable,
    Internal,
}

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = $text:literal => $kind:ident, )*) => {
        /// Every stable error code of the service, each with its [`ErrorKind`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorCode {
            /// Every code, in table order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The snake_case code clients see.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( ErrorCode::$variant => $text, )*
                }
            }

            /// The family the code belongs to.
            pub const fn kind(self) -> ErrorKind {
                match self {
                    $( ErrorCode::$variant => ErrorKind::$kind, )*
                }
            }

            /// The code named `text`, if it is one.
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $( $text => Some(ErrorCode::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

error_codes! {
    /// The body is not JSON.
    InvalidJson = "invalid_json" => Validation,
    MissingField = "missing_field" => Validation,
    InvalidField = "invalid_field" => Validation,
    UnknownField = "unknown_field" => Validation,
    /// A value that must be unique in the organization is taken.
    DuplicateValue = "duplicate_value" => Validation,
    PayloadTooLarge = "payload_too_large" => Request,
    UnsupportedMediaType = "unsupported_media_type" => Request,
    MethodNotAllowed = "method_not_allowed" => Request,
    RouteNotFound = "route_not_found" => Request,
    /// `Accept` admits no representation the endpoint has.
    NotAcceptable = "not_acceptable" => Request,
    /// A browser origin the MCP endpoint does not accept.
    OriginNotAllowed = "origin_not_allowed" => Request,
    /// Production mode refuses plain HTTP.
    HttpsRequired = "https_required" => Request,
    MissingApiKey = "missing_api_key" => Authentication,
    InvalidApiKey = "invalid_api_key" => Authentication,
    ExpiredApiKey = "expired_api_key" => Authentication,
    DisabledApiKey = "disabled_api_key" => Authentication,
    /// `/system` without the `system` permission's token.
    Unauthorized = "unauthorized" => Authentication,
    InsufficientPermissions = "insufficient_permissions" => Authorization,
    ResourceNotFound = "resource_not_found" => NotFound,
    OrganizationNotFound = "organization_not_found" => OrganizationNotFound,
    IdempotencyKeyReused = "idempotency_key_reused" => Conflict,
    UnbalancedTransaction = "unbalanced_transaction" => BusinessRule,
    TransactionNotPending = "transaction_not_pending" => BusinessRule,
    TransactionNotPosted = "transaction_not_posted" => BusinessRule,
    /// Something else still references the resource, or a resource a write names was
    /// deleted meanwhile.
    ResourceInUse = "resource_in_use" => BusinessRule,
    InvoiceNotDraft = "invoice_not_draft" => BusinessRule,
    InvalidStateTransition = "invalid_state_transition" => BusinessRule,
    AccountInactive = "account_inactive" => BusinessRule,
    CurrencyMismatch = "currency_mismatch" => BusinessRule,
    Overpayment = "overpayment" => BusinessRule,
    /// The write would post, change or reverse something dated on or before the tenant's
    /// `period_lock_date` (details: `lock_date`).
    PeriodLocked = "period_locked" => BusinessRule,
    /// A member of the request names a record that does not exist in this organization
    /// (or was deleted): the request is well formed, the record is not there (details:
    /// `field`, `resource`, `id`). An id in the path that names nothing is 404
    /// `resource_not_found` instead.
    ReferenceNotFound = "reference_not_found" => BusinessRule,
    /// A member of the request names a record of the organization that cannot serve here:
    /// a disabled contact, an inactive category or tax, an account of another type
    /// (details: `field`, `resource`, `id`). An inactive account is `account_inactive`.
    ReferenceNotUsable = "reference_not_usable" => BusinessRule,
    /// A member of the request contradicts another one, the resource it changes or the
    /// present (a pair of one currency, an account as its own parent, an expiry in the
    /// past; details: `field`). An end before its start and more decimals than the
    /// currency allows are invalid input instead (`invalid_field`, DECISIONS 2).
    InconsistentFields = "inconsistent_fields" => BusinessRule,
    /// The state a job's decision read changed before it was applied; the runner decides
    /// the job again (never shown to clients as such).
    ConcurrentUpdate = "concurrent_update" => BusinessRule,
    /// A worker's claim on a job was taken over (its lease expired); nothing was written.
    JobLost = "job_lost" => Internal,
    InsufficientCredits = "insufficient_credits" => CreditLimit,
    RateLimitExceeded = "rate_limit_exceeded" => RateLimit,
    /// The service cannot take the request now (shutting down, storage unreachable).
    ServiceUnavailable = "service_unavailable" => Unavailable,
    InternalError = "internal_error" => Internal,
    /// No exchange rate of the organization converts the pair on the date (neither the
    /// pair nor its inverse has a rate effective on or before it).
    ExchangeRateNotFound = "exchange_rate_not_found" => BusinessRule,
    /// An ownership transfer was accepted, rejected or cancelled when it is no longer
    /// pending (accepted, rejected, cancelled or expired; details: `status`).
    TransferNotPending = "transfer_not_pending" => BusinessRule,
    /// Only the designated recipient, with a key of one of its root organizations,
    /// accepts or rejects a transfer.
    NotTransferRecipient = "not_transfer_recipient" => Authorization,
    /// Only the sender's side (a key of the transferred organization or of an ancestor)
    /// cancels a transfer.
    NotTransferSender = "not_transfer_sender" => Authorization,
    /// A root organization cannot be transferred (spec 2.2).
    RootOrganizationNotTransferable = "root_organization_not_transferable" => BusinessRule,
    /// `to_email` or `to_provider_username` names more than one registered user.
    AmbiguousRecipient = "ambiguous_recipient" => BusinessRule,
    /// `to_email` or `to_provider_username` names no registered user.
    RecipientNotFound = "recipient_not_found" => BusinessRule,
    /// The organization already has a pending transfer; cancel it first.
    TransferAlreadyPending = "transfer_already_pending" => BusinessRule,
    /// An OAuth access token that is unknown, expired, revoked or issued for another
    /// resource (audience).
    InvalidToken = "invalid_token" => Authentication,
    /// A reconciliation completed while its difference (closing balance minus cleared
    /// balance) is not zero (details: `closing_balance`, `cleared_balance`, `difference`).
    ReconciliationNotBalanced = "reconciliation_not_balanced" => BusinessRule,
    /// A completed reconciliation cannot change (details: `status`).
    ReconciliationNotOpen = "reconciliation_not_open" => BusinessRule,
    /// The account already has an open reconciliation; complete or delete it first.
    ReconciliationInProgress = "reconciliation_in_progress" => BusinessRule,
    /// The journal entry is already matched in a reconciliation (details: `entry_id`).
    EntryAlreadyMatched = "entry_already_matched" => BusinessRule,
    /// The statement line is already matched to an entry.
    StatementLineAlreadyMatched = "statement_line_already_matched" => BusinessRule,
    /// The transaction has entries in a completed reconciliation: it can no longer be
    /// updated, reversed or deleted (details: `reconciliation_id`).
    TransactionReconciled = "transaction_reconciled" => BusinessRule,
    /// x402: the resource must be paid for; the 402 carries `PAYMENT-REQUIRED`.
    PaymentRequired = "payment_required" => Payment,
    /// x402: the payment is not base64 of an x402 v2 `exact` EVM payload, or its
    /// `accepted` requirements differ from the ones offered.
    PaymentInvalid = "payment_invalid" => Payment,
    /// x402: the signature does not recover to the authorization's `from` address.
    PaymentSignatureInvalid = "payment_signature_invalid" => Payment,
    /// x402: the authorization transfers another amount than the package's price.
    PaymentAmountMismatch = "payment_amount_mismatch" => Payment,
    /// x402: the authorization pays another address than the configured `payTo`.
    PaymentRecipientMismatch = "payment_recipient_mismatch" => Payment,
    /// x402: now is outside the authorization's `validAfter`..`validBefore` window.
    PaymentExpired = "payment_expired" => Payment,
    /// x402: the authorization (payer and nonce) was already used.
    PaymentReplayed = "payment_replayed" => Payment,
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A refusal or failure, with everything needed to render it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DomainError {
    #[error("{message}")]
    Validation {
        code: ErrorCode,
        field: Option<String>,
        message: String,
    },
    #[error("{message}")]
    Authentication { code: ErrorCode, message: String },
    #[error("this API key lacks the '{required}' permission")]
    InsufficientPermissions { required: String },
    #[error("no {resource} with id '{id}' exists in this organization")]
    NotFound { resource: &'static str, id: String },
    #[error("organization '{0}' does not exist or is not accessible with this key")]
    OrganizationNotFound(String),
    #[error("this Idempotency-Key was already used with a different request")]
    IdempotencyKeyReused,
    #[error(
        "transaction is not balanced in {currency}: debits {total_debits} != credits {total_credits} (difference {difference})"
    )]
    Unbalanced {
        currency: String,
        total_debits: String,
        total_credits: String,
        difference: String,
    },
    #[error("{message}")]
    BusinessRule { code: ErrorCode, message: String },
    /// `reference_not_found`: the member `field` names no `resource` of the organization
    /// (`message`: "no account 'act_...' in this organization", or where it was looked for).
    #[error("{field}: {message}")]
    ReferenceNotFound {
        field: String,
        resource: Resource,
        id: String,
        message: String,
    },
    /// `reference_not_usable`: the member `field` names a `resource` of the organization
    /// that cannot serve here, for the reason `message`.
    #[error("{field}: {message}")]
    ReferenceNotUsable {
        field: String,
        resource: Resource,
        id: String,
        message: String,
    },
    /// `inconsistent_fields`: the member `field` contradicts another member, the resource
    /// or the present.
    #[error("{field}: {message}")]
    Inconsistent { field: String, message: String },
    /// The books are closed up to and including `lock_date` (a `YYYY-MM-DD` date).
    #[error(
        "the period up to and including {lock_date} is locked; {what} is dated {date}, on or before the lock date"
    )]
    PeriodLocked {
        lock_date: String,
        /// What the write would touch ("the transaction", "the reversal", ...).
        what: &'static str,
        /// Its date, `YYYY-MM-DD`.
        date: String,
    },
    /// A fact the store reports: something still references the resource.
    #[error("{} {id} {}; {}", resource.as_str(), by.describe(), advice(*resource))]
    InUse {
        resource: Resource,
        id: String,
        by: UsedBy,
    },
    /// A fact the store reports: a resource the write names was deleted after the write
    /// was accepted.
    #[error("{} {id} was deleted; the write cannot name it", resource.as_str())]
    Vanished { resource: Resource, id: String },
    /// A fact the store reports: the worker's claim on the job was taken over.
    #[error("job {0} is no longer claimed by this worker")]
    ClaimLost(String),
    #[error("insufficient credits: {required} required, {available} available")]
    InsufficientCredits { required: i64, available: i64 },
    #[error("rate limit exceeded; retry after {retry_after} seconds")]
    RateLimited { retry_after: u64 },
    /// A refusal as it was stored (a failed job's error), read back with its code.
    #[error("{message}")]
    Reported {
        code: ErrorCode,
        message: String,
        details: Option<Value>,
    },
    /// The storage cannot be reached now; the request may be retried (`Retry-After`).
    /// The cause is logged, not shown.
    #[error("the database cannot be reached right now; retry shortly")]
    Unavailable(String),
    #[error("internal error")]
    Internal(String),
}

/// Seconds after which a request refused because the database could not be reached may
/// be sent again (`Retry-After`): a restart or a failover takes a few seconds.
pub const UNAVAILABLE_RETRY_AFTER: u64 = 2;

impl DomainError {
    /// Seconds after which the same request may be sent again (`Retry-After`): a rate
    /// limit's wait, or [`UNAVAILABLE_RETRY_AFTER`] while the database cannot be reached.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Self::RateLimited { retry_after } => Some(*retry_after),
            Self::Unavailable(_) => Some(UNAVAILABLE_RETRY_AFTER),
            _ => None,
        }
    }

    /// See [`ErrorCode::ConcurrentUpdate`].
    pub fn concurrent_update(message: impl Into<String>) -> Self {
        Self::BusinessRule {
            code: ErrorCode::ConcurrentUpdate,
            message: message.into(),
        }
    }

    /// A validation error about one field.
    pub fn invalid_field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let field = field.into();
        Self::Validation {
            code: ErrorCode::InvalidField,
            message: format!("{field}: {}", message.into()),
            field: Some(field),
        }
    }

    /// A missing required field.
    pub fn missing_field(field: impl Into<String>) -> Self {
        let field = field.into();
        Self::Validation {
            code: ErrorCode::MissingField,
            message: format!("{field} is required"),
            field: Some(field),
        }
    }

    /// A value that must be unique and is not.
    pub fn duplicate_value(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Validation {
            code: ErrorCode::DuplicateValue,
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// A validation error with a code of its own (`invalid_json`, `unknown_field`, ...).
    pub fn validation(code: ErrorCode, field: Option<String>, message: impl Into<String>) -> Self {
        Self::Validation {
            code,
            field,
            message: message.into(),
        }
    }

    /// A refusal of the transport (`route_not_found`, `payload_too_large`, ...).
    pub fn request(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::Validation {
            code,
            field: None,
            message: message.into(),
        }
    }

    /// An authentication failure.
    pub fn authentication(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::Authentication {
            code,
            message: message.into(),
        }
    }

    /// `account_inactive`: the account (`label`, its code or id) is `status` and takes no
    /// postings.
    pub fn account_inactive(label: &str, status: &str) -> Self {
        Self::rule(
            ErrorCode::AccountInactive,
            format!("account {label} is {status} and accepts no postings"),
        )
    }

    /// A business-rule refusal with a stable code.
    pub fn rule(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::BusinessRule {
            code,
            message: message.into(),
        }
    }

    /// `reference_not_found`: the member `field` names no `resource` `id` of the
    /// organization.
    pub fn reference_not_found(
        field: impl Into<String>,
        resource: Resource,
        id: impl Into<String>,
    ) -> Self {
        let id = id.into();
        let message = format!("no {} '{id}' in this organization", resource.as_str());
        Self::ReferenceNotFound {
            field: field.into(),
            resource,
            id,
            message,
        }
    }

    /// [`DomainError::reference_not_found`] saying where the record was looked for
    /// (`message`: "'ent_...' is no entry of a posted transaction on account act_...").
    pub fn reference_not_found_in(
        field: impl Into<String>,
        resource: Resource,
        id: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::ReferenceNotFound {
            field: field.into(),
            resource,
            id: id.into(),
            message: message.into(),
        }
    }

    /// `reference_not_usable`: the member `field` names `resource` `id`, which cannot
    /// serve here (`message` says why: "contact con_... is disabled").
    pub fn reference_not_usable(
        field: impl Into<String>,
        resource: Resource,
        id: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::ReferenceNotUsable {
            field: field.into(),
            resource,
            id: id.into(),
            message: message.into(),
        }
    }

    /// `inconsistent_fields`: the member `field` contradicts another member, the resource
    /// it changes or the present.
    pub fn inconsistent(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Inconsistent {
            field: field.into(),
            message: message.into(),
        }
    }

    /// `resource_not_found` for `resource` `id`.
    pub fn not_found(resource: Resource, id: impl Into<String>) -> Self {
        Self::NotFound {
            resource: resource.as_str(),
            id: id.into(),
        }
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Validation { code, .. }
            | Self::Authentication { code, .. }
            | Self::BusinessRule { code, .. }
            | Self::Reported { code, .. } => *code,
            Self::InsufficientPermissions { .. } => ErrorCode::InsufficientPermissions,
            Self::NotFound { .. } => ErrorCode::ResourceNotFound,
            Self::OrganizationNotFound(_) => ErrorCode::OrganizationNotFound,
            Self::IdempotencyKeyReused => ErrorCode::IdempotencyKeyReused,
            Self::Unbalanced { .. } => ErrorCode::UnbalancedTransaction,
            Self::PeriodLocked { .. } => ErrorCode::PeriodLocked,
            Self::ReferenceNotFound { .. } => ErrorCode::ReferenceNotFound,
            Self::ReferenceNotUsable { .. } => ErrorCode::ReferenceNotUsable,
            Self::Inconsistent { .. } => ErrorCode::InconsistentFields,
            Self::InUse { .. } | Self::Vanished { .. } => ErrorCode::ResourceInUse,
            Self::ClaimLost(_) => ErrorCode::JobLost,
            Self::InsufficientCredits { .. } => ErrorCode::InsufficientCredits,
            Self::RateLimited { .. } => ErrorCode::RateLimitExceeded,
            Self::Unavailable(_) => ErrorCode::ServiceUnavailable,
            Self::Internal(_) => ErrorCode::InternalError,
        }
    }

    /// The family the error belongs to (the code's, from the one table).
    pub fn kind(&self) -> ErrorKind {
        self.code().kind()
    }
}

/// Shorthand for results carrying a [`DomainError`].
pub type DomainResult<T> = Result<T, DomainError>;

#[cfg(test)]
mod tests;
