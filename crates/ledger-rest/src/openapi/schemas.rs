//! Documentation types of the REST answers: each mirrors one renderer of
//! `ledger_domain::views` (or a handler's own `json!`), field for field, so the OpenAPI
//! document describes what the handlers send. They are never built: the handlers render
//! JSON values, and the schema test of the document checks these shapes against real
//! answers (schemathesis in CI).

#![expect(dead_code, reason = "documentation types: described, never built")]

use serde_json::Value;
use utoipa::ToSchema;

/// The error envelope of every REST refusal (DECISIONS 6).
#[derive(ToSchema)]
#[schema(example = json!({"error": {
    "type": "validation_error",
    "code": "missing_field",
    "message": "name is required",
    "status": 400,
    "request_id": "req_01JD0000000000000000000000",
    "details": {"field": "name"}
}}))]
pub(crate) struct ErrorEnvelope {
    error: ErrorBody,
}

/// The body of an error.
#[derive(ToSchema)]
pub(crate) struct ErrorBody {
    /// The family of the error; it decides the status.
    #[schema(rename = "type")]
    kind: ErrorType,
    code: super::ErrorCodeSchema,
    /// A human-readable explanation, safe to show.
    message: String,
    /// The HTTP status, repeated.
    status: u16,
    /// The id of the request, as in the `X-Request-Id` header.
    request_id: String,
    /// More about the error (the field at fault, a limit, the current state).
    details: Option<Value>,
    /// Seconds until a rate-limited request may be retried (429 only).
    retry_after: Option<u64>,
}

/// Error families (DECISIONS 6).
#[expect(
    clippy::enum_variant_names,
    reason = "the variants are the wire names (`validation_error`, ...), which all end in `_error`"
)]
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
pub(crate) enum ErrorType {
    ValidationError,
    InvalidRequestError,
    AuthenticationError,
    AuthorizationError,
    NotFoundError,
    IdempotencyError,
    BusinessRuleError,
    CreditLimitError,
    PaymentError,
    RateLimitError,
    ApiError,
}

/// The envelope of a queued write (spec 4.2, DECISIONS 4): answered with 202 while the
/// job runs; `status_url` (also the `Location` header) answers its progress.
#[derive(ToSchema)]
#[schema(example = json!({
    "request_id": "req_01JD0000000000000000000000",
    "object": "request",
    "success": true,
    "data": {
        "status": "queued",
        "operation": "create_account",
        "resource_type": "account",
        "resource_id": null,
        "status_url": "/organizations/org_01JD0000000000000000000000/requests/req_01JD0000000000000000000000",
        "estimated_completion": "2026-11-25T12:00:01Z",
        "attempts": 0
    },
    "error": null,
    "duration_ms": 0,
    "credit_cost": 1,
    "created_at": "2026-11-25T12:00:00Z"
}))]
pub(crate) struct QueuedRequest {
    request_id: String,
    #[schema(example = "request")]
    object: String,
    /// False once the job failed.
    success: bool,
    data: QueuedRequestData,
    /// The refusal of a failed job, in the error body's shape; null otherwise.
    error: Option<Value>,
    duration_ms: i64,
    credit_cost: Option<i64>,
    #[schema(format = DateTime)]
    created_at: String,
}

/// Where a queued write stands.
#[derive(ToSchema)]
pub(crate) struct QueuedRequestData {
    /// `queued`, `processing`, `completed` or `failed`.
    status: String,
    operation: String,
    resource_type: Option<String>,
    resource_id: Option<String>,
    status_url: String,
    #[schema(format = DateTime)]
    estimated_completion: String,
    attempts: i64,
    /// The resource, once the job completed.
    result: Option<Value>,
}

/// The answer to a soft delete.
#[derive(ToSchema)]
pub(crate) struct Deleted {
    id: String,
    object: String,
    deleted: bool,
    /// Until when it can be restored (not for API keys, which are revoked for good).
    recoverable_until: Option<String>,
}

/// `{debit, credit, net}` of an account, decimal strings in its currency.
#[derive(ToSchema)]
pub(crate) struct Balance {
    #[schema(example = "150.00")]
    debit: String,
    #[schema(example = "25.00")]
    credit: String,
    /// The balance in the account's normal direction.
    #[schema(example = "125.00")]
    net: String,
}

/// An account of the chart of accounts.
#[derive(ToSchema)]
#[schema(example = json!({
    "id": "acc_01JD0000000000000000000000",
    "object": "account",
    "organization_id": "org_01JD0000000000000000000000",
    "livemode": false,
    "name": "Cash",
    "code": "1000",
    "type": "asset",
    "subtype": "cash",
    "currency": "USD",
    "description": null,
    "is_active": true,
    "status": "active",
    "parent_id": null,
    "is_system": false,
    "metadata": {},
    "created_at": "2026-11-25T12:00:00Z",
    "updated_at": "2026-11-25T12:00:00Z",
    "balance": {"debit": "0.00", "credit": "0.00", "net": "0.00"}
}))]
pub(crate) struct Account {
    id: String,
    #[schema(example = "account")]
    object: String,
    organization_id: String,
    livemode: bool,
    name: String,
    code: String,
    /// `asset`, `liability`, `equity`, `revenue` or `expense`.
    #[schema(rename = "type")]
    account_type: String,
    subtype: Option<String>,
    currency: String,
    description: Option<String>,
    is_active: bool,
    status: String,
    parent_id: Option<String>,
    is_system: bool,
    metadata: Option<Value>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// Present on a single account.
    balance: Option<Balance>,
    /// The ids of the direct children on this page (`include_hierarchy=true`).
    children: Option<Vec<String>>,
}

/// An account's balance at a date, optionally converted.
#[derive(ToSchema)]
pub(crate) struct AccountBalance {
    account_id: String,
    #[schema(example = "account_balance")]
    object: String,
    #[schema(format = DateTime)]
    as_of: String,
    balance: Balance,
    currency: String,
    /// With `?currency=`: the balance at that day's rate, with `currency`, `rate` and
    /// `rate_date`.
    converted: Option<Value>,
}

/// One row of an account's history.
#[derive(ToSchema)]
pub(crate) struct AccountHistoryRow {
    transaction_id: String,
    #[schema(format = DateTime)]
    date: String,
    description: Option<String>,
    debit: String,
    credit: String,
    /// The running balance after this row.
    balance: String,
}

/// An account's history: its postings with a running balance.
#[derive(ToSchema)]
pub(crate) struct AccountHistory {
    account_id: String,
    transactions: Vec<AccountHistoryRow>,
    has_more: bool,
    total_count: i64,
}

/// One journal entry line.
#[derive(ToSchema)]
pub(crate) struct Entry {
    id: String,
    account_id: String,
    /// `debit` or `credit`.
    entry_type: String,
    amount: String,
    currency: String,
    description: Option<String>,
}

/// A journal transaction with its entries.
#[derive(ToSchema)]
#[schema(example = json!({
    "id": "txn_01JD0000000000000000000000",
    "object": "transaction",
    "organization_id": "org_01JD0000000000000000000000",
    "livemode": false,
    "description": "Office supplies",
    "date": "2026-11-25T00:00:00Z",
    "status": "posted",
    "amount": "42.00",
    "currency": "USD",
    "exchange_rates": {},
    "reference": null,
    "reversal_of": null,
    "reversed_by": null,
    "reversal_reason": null,
    "contact_id": null,
    "category_id": null,
    "entries": [
        {"id": "ent_01JD0000000000000000000001", "account_id": "acc_01JD0000000000000000000001", "entry_type": "debit", "amount": "42.00", "currency": "USD", "description": null},
        {"id": "ent_01JD0000000000000000000002", "account_id": "acc_01JD0000000000000000000002", "entry_type": "credit", "amount": "42.00", "currency": "USD", "description": null}
    ],
    "metadata": {},
    "posted_at": "2026-11-25T12:00:00Z",
    "created_at": "2026-11-25T12:00:00Z",
    "updated_at": "2026-11-25T12:00:00Z"
}))]
pub(crate) struct Transaction {
    id: String,
    #[schema(example = "transaction")]
    object: String,
    organization_id: String,
    livemode: bool,
    description: Option<String>,
    #[schema(format = DateTime)]
    date: String,
    /// `draft`, `posted`, `reversed` or `void`.
    status: String,
    amount: String,
    currency: String,
    /// The implied rate of each foreign currency of the entries.
    exchange_rates: Option<Value>,
    reference: Option<String>,
    reversal_of: Option<String>,
    reversed_by: Option<String>,
    reversal_reason: Option<String>,
    contact_id: Option<String>,
    category_id: Option<String>,
    entries: Vec<Entry>,
    metadata: Option<Value>,
    posted_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// Transactions written together.
#[derive(ToSchema)]
pub(crate) struct TransactionBatch {
    id: String,
    #[schema(example = "transaction_batch")]
    object: String,
    count: i64,
    transactions: Vec<Transaction>,
}

/// A transfer between two accounts (a two-entry transaction).
#[derive(ToSchema)]
pub(crate) struct Transfer {
    id: String,
    #[schema(example = "transfer")]
    object: String,
    organization_id: String,
    livemode: bool,
    from_account_id: String,
    to_account_id: String,
    amount: String,
    currency: String,
    to_amount: String,
    to_currency: String,
    exchange_rate: Option<String>,
    #[schema(format = DateTime)]
    date: String,
    description: Option<String>,
    reference: Option<String>,
    status: String,
    transaction_id: String,
    reversed_by: Option<String>,
    reversal_reason: Option<String>,
    metadata: Option<Value>,
    posted_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A customer or vendor.
#[derive(ToSchema)]
pub(crate) struct Contact {
    id: String,
    object: Option<String>,
    organization_id: Option<String>,
    livemode: Option<bool>,
    /// `customer`, `vendor` or `both`.
    contact_type: String,
    name: String,
    email: Option<String>,
    phone: Option<String>,
    website: Option<String>,
    tax_number: Option<String>,
    reference: Option<String>,
    address: Option<String>,
    city: Option<String>,
    state: Option<String>,
    zip_code: Option<String>,
    country: Option<String>,
    currency_id: Option<String>,
    enabled: bool,
    created_by: Option<String>,
    metadata: Option<Value>,
    #[schema(format = DateTime)]
    created_at: String,
    updated_at: Option<String>,
}

/// A contact as the list shows it.
#[derive(ToSchema)]
pub(crate) struct ContactSummary {
    id: String,
    contact_type: String,
    name: String,
    email: Option<String>,
    phone: Option<String>,
    reference: Option<String>,
    enabled: bool,
    #[schema(format = DateTime)]
    created_at: String,
}

/// An organization (tenant).
#[derive(ToSchema)]
pub(crate) struct Organization {
    id: String,
    #[schema(example = "organization")]
    object: String,
    name: String,
    base_currency: String,
    is_root: bool,
    parent_organization_id: Option<String>,
    relationship_type: Option<String>,
    credits_remaining: Option<i64>,
    metadata: Option<Value>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// An API key; `key` (the secret) only in the answer that made or rotated it.
#[derive(ToSchema)]
pub(crate) struct ApiKey {
    id: String,
    #[schema(example = "api_key")]
    object: String,
    organization_id: String,
    name: Option<String>,
    /// `test` or `live`.
    mode: String,
    livemode: bool,
    permissions: Vec<String>,
    last4: String,
    expires_at: Option<String>,
    disabled: bool,
    previous_key_expires_at: Option<String>,
    last_used_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    /// The secret, shown once.
    key: Option<String>,
}

/// An audit event.
#[derive(ToSchema)]
pub(crate) struct Event {
    id: String,
    #[schema(example = "event")]
    object: String,
    event_type: String,
    entity_type: String,
    entity_id: String,
    #[schema(format = DateTime)]
    timestamp: String,
    api_key_id: Option<String>,
    before_state: Option<Value>,
    after_state: Option<Value>,
}

/// A setting of a tenant.
#[derive(ToSchema)]
pub(crate) struct Setting {
    #[schema(example = "setting")]
    object: String,
    key: String,
    value: Option<String>,
    livemode: bool,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// The billing record of a tenant (spec 2.2).
#[derive(ToSchema)]
pub(crate) struct Billing {
    #[schema(example = "billing")]
    object: String,
    organization_id: String,
    credits_remaining: i64,
    credits_total: i64,
    auto_recharge_enabled: bool,
    billing_email: Option<String>,
    test_credits_used: i64,
}

/// A row of the soft-delete audit trail.
#[derive(ToSchema)]
pub(crate) struct Deletion {
    resource_type: String,
    resource_id: String,
    name: Option<String>,
    organization_id: String,
    #[schema(format = DateTime)]
    deleted_at: String,
    deleted_by: Option<String>,
    #[schema(format = DateTime)]
    recoverable_until: String,
}

/// The system information record (spec 2.12).
#[derive(ToSchema)]
pub(crate) struct SystemInfo {
    #[schema(example = "system")]
    object: String,
    version: String,
    status: String,
    uptime: String,
    uptime_seconds: u64,
    #[schema(format = DateTime)]
    timestamp: String,
    event_stats: Value,
    database: Value,
    workers: Value,
    cache: Value,
}

/// Readiness: the database and the job queue.
#[derive(ToSchema)]
pub(crate) struct Readiness {
    /// `ready` or `not_ready`.
    status: String,
    /// `up` or `down`.
    database: String,
    /// `readable` or `unavailable`.
    queue: String,
    queued_jobs: Option<i64>,
    workers: i64,
}

/// A tax rate.
#[derive(ToSchema)]
pub(crate) struct Tax {
    id: String,
    #[schema(example = "tax")]
    object: String,
    organization_id: String,
    livemode: bool,
    name: String,
    description: Option<String>,
    /// A percentage with four decimals (`"8.2500"`).
    rate: String,
    tax_type: String,
    is_compound: bool,
    is_active: bool,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A category of income or expense.
#[derive(ToSchema)]
pub(crate) struct Category {
    id: String,
    #[schema(example = "category")]
    object: String,
    organization_id: String,
    livemode: bool,
    name: String,
    description: Option<String>,
    category_type: String,
    color: Option<String>,
    is_active: bool,
    parent_id: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// The direct children, on a single category.
    subcategories: Option<Vec<Value>>,
}

/// A tax as a list shows it (the list renders fewer members than the tax's own get).
#[derive(ToSchema)]
pub(crate) struct TaxSummary {
    id: String,
    #[schema(example = "tax")]
    object: String,
    name: String,
    /// A percentage with four decimals (`"8.2500"`).
    rate: String,
    tax_type: String,
    is_compound: bool,
    is_active: bool,
}

/// A category as a list shows it.
#[derive(ToSchema)]
pub(crate) struct CategorySummary {
    id: String,
    #[schema(example = "category")]
    object: String,
    name: String,
    category_type: String,
    color: Option<String>,
    is_active: bool,
    parent_id: Option<String>,
}

/// One line of an invoice or bill.
#[derive(ToSchema)]
pub(crate) struct DocumentLine {
    description: Option<String>,
    quantity: String,
    unit_price: String,
    item_id: Option<String>,
    account_id: Option<String>,
    tax_ids: Vec<String>,
    category_id: Option<String>,
    amount: String,
    tax_amount: String,
    line_total: String,
}

/// A tax applied to a document.
#[derive(ToSchema)]
pub(crate) struct DocumentTax {
    tax_id: String,
    name: String,
    rate: String,
    amount: String,
}

/// An invoice or a bill (`object` says which; `invoice_number`/`invoice_date` or
/// `bill_number`/`bill_date` accordingly).
#[derive(ToSchema)]
pub(crate) struct Document {
    id: String,
    /// `invoice` or `bill`.
    object: String,
    organization_id: String,
    livemode: bool,
    contact_id: String,
    invoice_number: Option<String>,
    invoice_date: Option<String>,
    bill_number: Option<String>,
    bill_date: Option<String>,
    #[schema(format = Date)]
    due_date: String,
    currency: String,
    status: String,
    items: Vec<DocumentLine>,
    taxes: Vec<DocumentTax>,
    subtotal: String,
    tax_amount: String,
    total: String,
    amount_paid: String,
    balance_due: String,
    notes: Option<String>,
    posting_transaction_id: Option<String>,
    payments: Vec<Payment>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A payment of an invoice or a bill.
#[derive(ToSchema)]
pub(crate) struct Payment {
    id: String,
    #[schema(example = "payment")]
    object: String,
    amount: String,
    currency: String,
    #[schema(format = Date)]
    payment_date: String,
    payment_method: Option<String>,
    reference: Option<String>,
    notes: Option<String>,
    account_id: Option<String>,
    transaction_id: Option<String>,
    invoice_id: Option<String>,
    bill_id: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
}

/// A status change of a document.
#[derive(ToSchema)]
pub(crate) struct StatusChange {
    status: String,
    #[schema(format = DateTime)]
    changed_at: String,
    api_key_id: Option<String>,
    note: Option<String>,
}

/// A currency (ISO 4217 reference data).
#[derive(ToSchema)]
pub(crate) struct Currency {
    id: String,
    #[schema(example = "currency")]
    object: String,
    #[schema(example = "USD")]
    code: String,
    name: String,
    symbol: String,
    decimals: u32,
}

/// An exchange rate of a tenant.
#[derive(ToSchema)]
pub(crate) struct ExchangeRate {
    id: String,
    #[schema(example = "exchange_rate")]
    object: String,
    from_currency: String,
    to_currency: String,
    from_currency_id: String,
    to_currency_id: String,
    rate: String,
    #[schema(format = Date)]
    effective_date: String,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// An amount converted between currencies.
#[derive(ToSchema)]
pub(crate) struct Conversion {
    from_currency: String,
    to_currency: String,
    amount: String,
    converted_amount: String,
    rate: String,
    effective_date: String,
}

/// A transfer of an organization to another user.
#[derive(ToSchema)]
pub(crate) struct OrganizationTransfer {
    id: String,
    #[schema(example = "organization_transfer")]
    object: String,
    organization_id: String,
    organization_name: Option<String>,
    from_user_id: Option<String>,
    to_user_id: Option<String>,
    to_email: Option<String>,
    status: String,
    relationship_on_accept: Option<String>,
    to_organization_id: Option<String>,
    initiated_at: Option<String>,
    responded_at: Option<String>,
    expires_at: Option<String>,
}

/// What an organization transfer would move.
#[derive(ToSchema)]
pub(crate) struct TransferStats {
    object: String,
    transfer_id: String,
    organization_id: String,
    livemode: bool,
}

/// A file attached to a transaction, invoice or bill.
#[derive(ToSchema)]
pub(crate) struct Attachment {
    id: String,
    #[schema(example = "attachment")]
    object: String,
    owner_type: String,
    owner_id: String,
    file_name: String,
    content_type: String,
    size: i64,
    download_url: String,
    created_by: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    livemode: bool,
}

/// A bank reconciliation of one account over a period.
#[derive(ToSchema)]
pub(crate) struct Reconciliation {
    id: String,
    #[schema(example = "reconciliation")]
    object: String,
    organization_id: String,
    account_id: String,
    currency: String,
    start_date: String,
    end_date: String,
    opening_balance: String,
    closing_balance: String,
    cleared_balance: String,
    difference: String,
    status: String,
    matched_count: i64,
    matches: Vec<Value>,
    completed_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    livemode: bool,
}

/// A line of an imported bank statement, with its match proposal.
#[derive(ToSchema)]
pub(crate) struct StatementLine {
    id: String,
    #[schema(example = "statement_line")]
    object: String,
    reconciliation_id: String,
    line_number: i64,
    date: String,
    amount: String,
    description: Option<String>,
    reference: Option<String>,
    status: String,
    matched_entry_id: Option<String>,
    matched_transaction_id: Option<String>,
    proposal: Option<Value>,
}

/// A recurring schedule that makes invoices or bills.
#[derive(ToSchema)]
pub(crate) struct RecurringSchedule {
    id: String,
    #[schema(example = "recurring_schedule")]
    object: String,
    organization_id: String,
    name: Option<String>,
    recurable_type: String,
    recurable_id: Option<String>,
    template: Option<Value>,
    frequency: String,
    interval: i64,
    start_date: String,
    end_date: Option<String>,
    count: Option<i64>,
    auto_send: bool,
    status: String,
    next_run_date: Option<String>,
    occurrences: i64,
    last_run_date: Option<String>,
    created_by: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    livemode: bool,
}

/// One run of a recurring schedule.
#[derive(ToSchema)]
pub(crate) struct RecurringRun {
    id: String,
    #[schema(example = "recurring_run")]
    object: String,
    schedule_id: String,
    occurrence_date: String,
    trigger: String,
    status: String,
    document_type: String,
    document_id: Option<String>,
    request_id: Option<String>,
    error: Option<Value>,
    #[schema(format = DateTime)]
    created_at: String,
    livemode: bool,
}

/// A webhook endpoint; `secret` only in the answer that made or rotated it.
#[derive(ToSchema)]
pub(crate) struct WebhookEndpoint {
    id: String,
    #[schema(example = "webhook_endpoint")]
    object: String,
    url: String,
    secret: Option<String>,
}

/// One delivery attempt series of an event to an endpoint.
#[derive(ToSchema)]
pub(crate) struct WebhookDelivery {
    id: String,
    #[schema(example = "webhook_delivery")]
    object: String,
}

/// A financial report (trial balance, balance sheet or income statement).
#[derive(ToSchema)]
pub(crate) struct Report {
    /// `trial_balance`, `balance_sheet` or `income_statement`.
    object: Option<String>,
    currency: Option<String>,
}

/// The answer to a sign-up: the organization and its first keys, secrets shown once
/// (a sub-organization gets one key, and no `live_api_key`).
#[derive(ToSchema)]
pub(crate) struct Signup {
    organization: Organization,
    /// The test-mode key.
    api_key: Option<ApiKey>,
    /// The live-mode key (root sign-up only).
    live_api_key: Option<ApiKey>,
}

/// The answer to a statement import.
#[derive(ToSchema)]
pub(crate) struct StatementImport {
    #[schema(example = "statement_import")]
    object: String,
}

macro_rules! list_of {
    ($($name:ident => $item:ty),* $(,)?) => {$(
        /// One page of a list: `data`, whether more follow, and the total.
        #[derive(ToSchema)]
        pub(crate) struct $name {
            #[schema(example = "list")]
            object: String,
            data: Vec<$item>,
            has_more: bool,
            total_count: i64,
        }
    )*};
}
pub(crate) use list_of;

list_of! {
    AccountList => Account,
    TransactionList => Transaction,
    TransferList => Transfer,
    OrganizationList => Organization,
    ApiKeyList => ApiKey,
    DeletionList => Deletion,
    TaxList => TaxSummary,
    CategoryList => CategorySummary,
    DocumentList => Document,
    PaymentList => Payment,
    StatusChangeList => StatusChange,
    CurrencyList => Currency,
    ExchangeRateList => ExchangeRate,
    OrganizationTransferList => OrganizationTransfer,
    AttachmentList => Attachment,
    ReconciliationList => Reconciliation,
    StatementLineList => StatementLine,
    RecurringScheduleList => RecurringSchedule,
    RecurringRunList => RecurringRun,
    WebhookEndpointList => WebhookEndpoint,
    WebhookDeliveryList => WebhookDelivery,
}

/// A file upload: one multipart part carrying the file and its name; any other part is
/// refused (400 `invalid_field`), so the object is closed.
#[derive(ToSchema)]
pub(crate) struct FileUpload {
    /// The file's bytes.
    #[schema(content_media_type = "application/octet-stream")]
    file: String,
}
