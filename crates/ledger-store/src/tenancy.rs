//! Tenant scoping: the one way a query names its tenant.
//!
//! Every tenant row carries `organization_id` and `livemode`, and a row of another
//! organization or of the other mode does not exist for a request (see
//! `ledger_domain::ports`). [`tenant_of!`] writes that condition once, as a boolean
//! expression a query filters on:
//!
//! ```ignore
//! accounts::table.filter(tenant_of!(accounts, tenant))          // a Tenant, a row, a record
//! ledger_entries::table.filter(tenant_of!(ledger_entries, org, livemode))
//! ```
//!
//! A macro rather than a generic function: each table's columns are distinct types, and
//! the expression must stay a plain diesel expression for both backends.

/// `$table.organization_id = .. AND $table.livemode = ..` for a tenant: either anything
/// with `organization_id` and `livemode` fields (a `Tenant`, a row, a record), or the
/// organization id and mode given apart.
macro_rules! tenant_of {
    ($table:ident, $tenant:expr) => {
        ::diesel::BoolExpressionMethods::and(
            ::diesel::ExpressionMethods::eq($table::organization_id, &$tenant.organization_id),
            ::diesel::ExpressionMethods::eq($table::livemode, $tenant.livemode),
        )
    };
    ($table:ident, $organization_id:expr, $livemode:expr) => {
        ::diesel::BoolExpressionMethods::and(
            ::diesel::ExpressionMethods::eq($table::organization_id, $organization_id),
            ::diesel::ExpressionMethods::eq($table::livemode, $livemode),
        )
    };
}
