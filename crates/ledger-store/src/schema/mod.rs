//! Diesel table definitions shared by both backends.
//!
//! Only SQL types both PostgreSQL and SQLite map the same way are used: `Text`, `BigInt`
//! (money in 1/10000 units), `Integer`, `Bool` and `Timestamp` (UTC, no zone). JSON
//! documents are `Text`. The migrations in `migrations/postgres` and `migrations/sqlite`
//! create exactly these columns.
//!
//! The tables are declared in submodules by family and re-exported here, so every table
//! is `crate::schema::<table>`; the joins and the list of tables that may appear in one
//! query are declared here, where every table is in scope.

mod books;
mod queue;
mod records;
mod tenants;
mod webhooks;

pub use books::{
    account_daily_totals, account_totals, accounts, chart_versions, exchange_rates, ledger_entries,
    reconciliation_matches, reconciliations, statement_lines, transactions,
};
pub use queue::{
    credit_ledger, credit_pools, credit_purchases, credit_usage, events, idempotency_keys, jobs,
    resource_deletions, x402_authorizations,
};
pub use records::{
    attachments, categories, contacts, document_history, document_payments, document_references,
    documents, recurring_runs, recurring_schedules, taxes,
};
pub use tenants::{
    api_keys, oauth_clients, oauth_grants, oauth_secrets, organization_transfers, organizations,
    settings, users,
};
pub use webhooks::{webhook_attempts, webhook_deliveries, webhook_endpoints};

diesel::joinable!(api_keys -> organizations (organization_id));
diesel::joinable!(oauth_grants -> organizations (organization_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    organizations,
    api_keys,
    accounts,
    transactions,
    ledger_entries,
    jobs,
    idempotency_keys,
    credit_usage,
    events,
    resource_deletions,
    settings,
    taxes,
    categories,
    contacts,
    documents,
    document_payments,
    document_history,
    document_references,
    account_totals,
    account_daily_totals,
    exchange_rates,
    organization_transfers,
    attachments,
    oauth_clients,
    oauth_grants,
    oauth_secrets,
    recurring_schedules,
    recurring_runs,
    webhook_endpoints,
    webhook_deliveries,
    webhook_attempts,
    reconciliations,
    reconciliation_matches,
    statement_lines,
    credit_pools,
    credit_ledger,
    credit_purchases,
    x402_authorizations,
    chart_versions,
);
