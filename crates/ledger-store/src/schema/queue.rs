//! The write queue and what goes with it: jobs, idempotency keys, the audit trail
//! (events, resource deletions), credits (usage, pools, ledger, purchases) and used x402
//! authorizations.

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
