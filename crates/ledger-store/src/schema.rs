//! Diesel table definitions shared by both backends.
//!
//! Only SQL types both PostgreSQL and SQLite map the same way are used: `Text`, `BigInt`
//! (money in 1/10000 units), `Integer`, `Bool` and `Timestamp` (UTC, no zone). JSON
//! documents are `Text`. The migrations in `migrations/postgres` and `migrations/sqlite`
//! create exactly these columns.

diesel::table! {
    users (id) {
        id -> Text,
        provider_id -> Text,
        email -> Text,
        provider_username -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    organizations (id) {
        id -> Text,
        name -> Text,
        parent_id -> Nullable<Text>,
        path -> Text,
        relationship -> Nullable<Text>,
        owner_user_id -> Text,
        base_currency -> Text,
        credits_remaining -> BigInt,
        credits_total -> BigInt,
        metadata -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    api_keys (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        name -> Text,
        permissions -> Text,
        key_hash -> Text,
        last4 -> Text,
        expires_at -> Nullable<Timestamp>,
        disabled -> Bool,
        previous_hash -> Nullable<Text>,
        previous_expires_at -> Nullable<Timestamp>,
        last_used_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

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
    jobs (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        api_key_id -> Text,
        command_name -> Text,
        command -> Text,
        resource_type -> Text,
        resource_id -> Text,
        status -> Text,
        attempts -> Integer,
        credit_cost -> BigInt,
        credit_pool_id -> Text,
        result -> Nullable<Text>,
        error -> Nullable<Text>,
        run_at -> Timestamp,
        locked_until -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        completed_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    idempotency_keys (organization_id, livemode, key) {
        organization_id -> Text,
        livemode -> Bool,
        key -> Text,
        request_hash -> Text,
        job_id -> Nullable<Text>,
        response_body -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    credit_usage (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        credits -> BigInt,
        job_id -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    events (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        event_type -> Text,
        entity_type -> Text,
        entity_id -> Text,
        api_key_id -> Nullable<Text>,
        before_state -> Nullable<Text>,
        after_state -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    resource_deletions (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        resource_type -> Text,
        resource_id -> Text,
        name -> Text,
        deleted_at -> Timestamp,
        deleted_by -> Text,
        recoverable_until -> Timestamp,
    }
}

diesel::table! {
    settings (organization_id, livemode, key) {
        organization_id -> Text,
        livemode -> Bool,
        key -> Text,
        value -> Text,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    contacts (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        contact_type -> Text,
        name -> Text,
        email -> Nullable<Text>,
        phone -> Nullable<Text>,
        website -> Nullable<Text>,
        tax_number -> Nullable<Text>,
        reference -> Nullable<Text>,
        address -> Nullable<Text>,
        city -> Nullable<Text>,
        state -> Nullable<Text>,
        zip_code -> Nullable<Text>,
        country -> Nullable<Text>,
        currency_id -> Text,
        enabled -> Bool,
        metadata -> Text,
        created_by -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    taxes (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        name -> Text,
        description -> Nullable<Text>,
        rate -> BigInt,
        tax_type -> Text,
        is_compound -> Bool,
        is_active -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    categories (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        name -> Text,
        description -> Nullable<Text>,
        category_type -> Text,
        color -> Text,
        is_active -> Bool,
        parent_id -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    documents (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        kind -> Text,
        sequence -> BigInt,
        number -> Text,
        contact_id -> Text,
        issue_date -> Date,
        due_date -> Date,
        currency -> Text,
        status -> Text,
        items -> Text,
        taxes -> Text,
        subtotal -> BigInt,
        tax_amount -> BigInt,
        total -> BigInt,
        amount_paid -> BigInt,
        notes -> Nullable<Text>,
        posting_id -> Nullable<Text>,
        created_by -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    document_payments (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        document_id -> Text,
        kind -> Text,
        amount -> BigInt,
        currency -> Text,
        payment_date -> Date,
        payment_method -> Text,
        reference -> Nullable<Text>,
        notes -> Nullable<Text>,
        account_id -> Text,
        transaction_id -> Text,
        created_by -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    document_history (organization_id, id) {
        organization_id -> Text,
        id -> Text,
        document_id -> Text,
        status -> Text,
        changed_at -> Timestamp,
        api_key_id -> Text,
        note -> Nullable<Text>,
    }
}

diesel::table! {
    recurring_schedules (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        name -> Nullable<Text>,
        recurable_type -> Text,
        recurable_id -> Nullable<Text>,
        template -> Text,
        frequency -> Text,
        interval_count -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        max_occurrences -> Nullable<BigInt>,
        auto_send -> Bool,
        status -> Text,
        next_index -> BigInt,
        next_run_date -> Nullable<Date>,
        occurrences -> BigInt,
        last_run_date -> Nullable<Date>,
        created_by -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    recurring_runs (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        schedule_id -> Text,
        occurrence_key -> Text,
        occurrence_date -> Date,
        run_trigger -> Text,
        status -> Text,
        document_type -> Text,
        document_id -> Nullable<Text>,
        job_id -> Nullable<Text>,
        error -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    webhook_endpoints (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        url -> Text,
        description -> Nullable<Text>,
        event_types -> Text,
        enabled -> Bool,
        disabled_reason -> Nullable<Text>,
        secret -> Text,
        failure_streak -> BigInt,
        fanned_out_until -> Timestamp,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    webhook_deliveries (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        endpoint_id -> Text,
        event_id -> Text,
        event_type -> Text,
        entity_type -> Text,
        entity_id -> Text,
        event_created_at -> Timestamp,
        payload -> Text,
        status -> Text,
        attempts -> BigInt,
        next_attempt_at -> Timestamp,
        locked_until -> Nullable<Timestamp>,
        last_status_code -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
        delivered_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    webhook_attempts (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        delivery_id -> Text,
        attempt -> BigInt,
        started_at -> Timestamp,
        duration_ms -> BigInt,
        status_code -> Nullable<BigInt>,
        error -> Nullable<Text>,
        response_snippet -> Nullable<Text>,
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

diesel::joinable!(api_keys -> organizations (organization_id));

diesel::table! {
    document_references (organization_id, document_id, target_type, target_id) {
        organization_id -> Text,
        livemode -> Bool,
        document_id -> Text,
        target_type -> Text,
        target_id -> Text,
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
    organization_transfers (id) {
        id -> Text,
        organization_id -> Text,
        organization_name -> Text,
        from_path -> Text,
        from_user_id -> Text,
        to_user_id -> Text,
        status -> Text,
        relationship_on_accept -> Nullable<Text>,
        to_organization_id -> Nullable<Text>,
        initiated_at -> Timestamp,
        responded_at -> Nullable<Timestamp>,
        expires_at -> Timestamp,
        descendant_org_count -> BigInt,
        initiated_by -> Text,
        responded_by -> Nullable<Text>,
    }
}

diesel::table! {
    attachments (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        owner_type -> Text,
        owner_id -> Text,
        file_name -> Text,
        content_type -> Text,
        size_bytes -> BigInt,
        sha256 -> Text,
        storage_key -> Text,
        created_by -> Text,
        created_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<Text>,
        recoverable_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    oauth_clients (id) {
        id -> Text,
        name -> Nullable<Text>,
        redirect_uris -> Text,
        grant_types -> Text,
        auth_method -> Text,
        secret_hash -> Nullable<Text>,
        scope -> Nullable<Text>,
        metadata -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    oauth_grants (id) {
        id -> Text,
        client_id -> Text,
        user_id -> Text,
        organization_id -> Text,
        livemode -> Bool,
        scopes -> Text,
        resource -> Text,
        created_at -> Timestamp,
        revoked_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    oauth_secrets (hash) {
        hash -> Text,
        kind -> Text,
        grant_id -> Nullable<Text>,
        client_id -> Nullable<Text>,
        user_id -> Nullable<Text>,
        data -> Text,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
        revoked_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::joinable!(oauth_grants -> organizations (organization_id));

diesel::table! {
    credit_pools (organization_id) {
        organization_id -> Text,
        credits_purchased -> BigInt,
        period -> Text,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    credit_ledger (organization_id, id) {
        organization_id -> Text,
        id -> Text,
        kind -> Text,
        credits -> BigInt,
        reference -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    credit_purchases (organization_id, id) {
        organization_id -> Text,
        livemode -> Bool,
        id -> Text,
        pool_id -> Text,
        package_id -> Text,
        credits -> BigInt,
        price_cents -> BigInt,
        currency -> Text,
        provider -> Text,
        provider_session_id -> Nullable<Text>,
        checkout_url -> Text,
        status -> Text,
        success_url -> Nullable<Text>,
        cancel_url -> Nullable<Text>,
        api_key_id -> Text,
        expires_at -> Timestamp,
        created_at -> Timestamp,
        completed_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    x402_authorizations (network, asset, payer, nonce) {
        network -> Text,
        asset -> Text,
        payer -> Text,
        nonce -> Text,
        organization_id -> Text,
        livemode -> Bool,
        purchase_id -> Text,
        settlement_transaction -> Text,
        amount -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    chart_versions (organization_id) {
        organization_id -> Text,
        version -> BigInt,
    }
}

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
