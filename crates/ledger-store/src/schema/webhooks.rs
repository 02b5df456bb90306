//! Webhook endpoints, their deliveries and each delivery's attempts.

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
