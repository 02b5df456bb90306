//! Organizations and who reaches them: users, organizations and their API keys,
//! settings, ownership transfers, and the OAuth clients, grants and secrets.

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
    settings (organization_id, livemode, key) {
        organization_id -> Text,
        livemode -> Bool,
        key -> Text,
        value -> Text,
        updated_at -> Timestamp,
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
