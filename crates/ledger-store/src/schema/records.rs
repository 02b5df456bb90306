//! The business records around the books: contacts, taxes, categories, invoices and
//! bills with their payments, history and references, attachments, and recurring
//! schedules with their runs.

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
    document_references (organization_id, document_id, target_type, target_id) {
        organization_id -> Text,
        livemode -> Bool,
        document_id -> Text,
        target_type -> Text,
        target_id -> Text,
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
