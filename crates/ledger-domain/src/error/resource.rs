//! The resources a refusal can be about, and what keeps a resource in use: the names and
//! words [`super::DomainError`] uses for them, defined once.

/// A resource a refusal can be about (the singular names of DECISIONS 10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resource {
    Account,
    Transaction,
    Contact,
    Category,
    Tax,
    Invoice,
    Bill,
    ApiKey,
    Request,
    Organization,
    /// A line of a posted transaction (`ent_...`).
    Entry,
    /// A reconciliation's imported statement line (`stl_...`).
    StatementLine,
    /// A credit package of the server's configuration (`credits_1000`).
    CreditPackage,
    CreditPurchase,
    Attachment,
    ExchangeRate,
    OrganizationTransfer,
    Reconciliation,
    RecurringSchedule,
    WebhookEndpoint,
    WebhookDelivery,
}

impl Resource {
    /// The singular snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Account => "account",
            Self::Transaction => "transaction",
            Self::Contact => "contact",
            Self::Category => "category",
            Self::Tax => "tax",
            Self::Invoice => "invoice",
            Self::Bill => "bill",
            Self::ApiKey => "api_key",
            Self::Request => "request",
            Self::Organization => "organization",
            Self::Entry => "entry",
            Self::StatementLine => "statement_line",
            Self::CreditPackage => "credit_package",
            Self::CreditPurchase => "credit_purchase",
            Self::Attachment => "attachment",
            Self::ExchangeRate => "exchange_rate",
            Self::OrganizationTransfer => "organization_transfer",
            Self::Reconciliation => "reconciliation",
            Self::RecurringSchedule => "recurring_schedule",
            Self::WebhookEndpoint => "webhook_endpoint",
            Self::WebhookDelivery => "webhook_delivery",
        }
    }
}

/// What keeps a resource from being deleted (the "in use" rules of DECISIONS 10, one
/// per kind of reference; the store checks each by ids, and [`crate::references`] says
/// which apply to which resource).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UsedBy {
    /// Ledger entries post to the account (counted or not, of live or deleted
    /// transactions: the journal never loses an account).
    LedgerEntries,
    /// A live transaction names it (`contact_id`, `category_id`).
    Transactions,
    /// A live invoice or bill names it (its contact, or an item's tax or category).
    Documents,
    /// A live subcategory has it as parent.
    Subcategories,
}

impl UsedBy {
    /// How the reference reads in a message.
    pub const fn describe(self) -> &'static str {
        match self {
            Self::LedgerEntries => "has ledger entries",
            Self::Transactions => "is used by transactions",
            Self::Documents => "is used by invoices or bills",
            Self::Subcategories => "has subcategories",
        }
    }
}

/// What a client may do instead of deleting a resource that is in use.
pub(super) fn advice(resource: Resource) -> &'static str {
    match resource {
        Resource::Account => "set it inactive instead of deleting it",
        Resource::Contact => "disable it instead",
        Resource::Tax => "deactivate it instead",
        Resource::Category => "set it inactive, or delete or move what uses it first",
        _ => "remove what uses it first",
    }
}
