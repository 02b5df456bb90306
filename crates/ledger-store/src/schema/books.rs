//! The books: accounts, transactions and their entries, the maintained totals per
//! account and per account and day, exchange rates, chart versions, and
//! reconciliations with their matches and statement lines.

diesel::table! {
    accounts (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        code -> Text,
        name -> Text,
        account_type -> Text,
        subtype -> Nullable<Text>,
        currency -> Text,
        description -> Nullable<Text>,
        status -> Text,
        parent_id -> Nullable<Text>,
        is_system -> Bool,
        metadata -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    transactions (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        description -> Text,
        date -> Timestamp,
        status -> Text,
        currency -> Text,
        amount -> BigInt,
        reference -> Nullable<Text>,
        reversal_of -> Nullable<Text>,
        reversed_by -> Nullable<Text>,
        reversal_reason -> Nullable<Text>,
        metadata -> Text,
        posted_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
        contact_id -> Nullable<Text>,
        category_id -> Nullable<Text>,
        source -> Nullable<Text>,
    }
}

diesel::table! {
    ledger_entries (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        transaction_id -> Text,
        line_no -> Integer,
        account_id -> Text,
        entry_type -> Text,
        amount -> BigInt,
        description -> Nullable<Text>,
        date -> Timestamp,
        counted -> Bool,
        currency -> Nullable<Text>,
    }
}

diesel::table! {
    reconciliations (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        account_id -> Text,
        account_type -> Text,
        currency -> Text,
        start_date -> Date,
        end_date -> Date,
        opening_balance -> BigInt,
        closing_balance -> BigInt,
        status -> Text,
        completed_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    reconciliation_matches (organization_id, entry_id) {
        organization_id -> Text,
        livemode -> Bool,
        entry_id -> Text,
        reconciliation_id -> Text,
        transaction_id -> Text,
        date -> Date,
        amount -> BigInt,
        description -> Text,
        statement_line_id -> Nullable<Text>,
        matched_at -> Timestamp,
    }
}

diesel::table! {
    statement_lines (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        reconciliation_id -> Text,
        line_number -> Integer,
        date -> Date,
        amount -> BigInt,
        description -> Text,
        reference -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    account_totals (organization_id, account_id) {
        organization_id -> Text,
        livemode -> Bool,
        account_id -> Text,
        debit -> BigInt,
        credit -> BigInt,
        entries -> BigInt,
    }
}

diesel::table! {
    account_daily_totals (organization_id, account_id, day) {
        organization_id -> Text,
        livemode -> Bool,
        account_id -> Text,
        day -> Integer,
        debit -> BigInt,
        credit -> BigInt,
        entries -> BigInt,
    }
}

diesel::table! {
    exchange_rates (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        from_currency -> Text,
        to_currency -> Text,
        rate -> Text,
        effective_date -> Date,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    chart_versions (organization_id) {
        organization_id -> Text,
        version -> BigInt,
    }
}
