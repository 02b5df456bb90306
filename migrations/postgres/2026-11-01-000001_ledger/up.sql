-- The Ledger schema. The PostgreSQL and SQLite migrations define the same tables and
-- columns with types both backends share (TEXT, BIGINT, INTEGER, BOOLEAN, TIMESTAMP).
-- Money is BIGINT in units of 1/10000 (ledger_domain::money), never NUMERIC.
-- Timestamps are UTC. JSON documents are stored as TEXT.
-- Tenant tables carry organization_id and livemode; their keys, foreign keys and indexes
-- lead with organization_id so they can be distributed by it (Citus, DECISIONS 1).
-- users, organizations and api_keys are looked up across tenants (sign-in, key hash):
-- on Citus they are reference tables.

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL,
    email TEXT NOT NULL,
    provider_username TEXT,
    created_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX users_provider_id ON users (provider_id);

CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    parent_id TEXT REFERENCES organizations (id),
    path TEXT NOT NULL,
    relationship TEXT,
    owner_user_id TEXT NOT NULL REFERENCES users (id),
    base_currency TEXT NOT NULL,
    credits_remaining BIGINT NOT NULL,
    credits_total BIGINT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX organizations_parent ON organizations (parent_id);
CREATE INDEX organizations_path ON organizations (path);

CREATE TABLE api_keys (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    permissions TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    last4 TEXT NOT NULL,
    expires_at TIMESTAMP,
    disabled BOOLEAN NOT NULL,
    previous_hash TEXT,
    previous_expires_at TIMESTAMP,
    last_used_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    PRIMARY KEY (organization_id, id)
);
CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash);
CREATE INDEX api_keys_previous_hash ON api_keys (previous_hash);

CREATE TABLE accounts (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    code TEXT NOT NULL,
    name TEXT NOT NULL,
    account_type TEXT NOT NULL,
    subtype TEXT,
    currency TEXT NOT NULL,
    description TEXT,
    status TEXT NOT NULL,
    parent_id TEXT,
    is_system BOOLEAN NOT NULL,
    metadata TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id),
    FOREIGN KEY (organization_id, parent_id) REFERENCES accounts (organization_id, id)
);
-- Codes are unique among the live (not deleted) accounts of a tenant.
CREATE UNIQUE INDEX accounts_code ON accounts (organization_id, livemode, code)
    WHERE deleted_at IS NULL;

CREATE TABLE transactions (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    description TEXT NOT NULL,
    date TIMESTAMP NOT NULL,
    status TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount BIGINT NOT NULL,
    reference TEXT,
    reversal_of TEXT,
    reversed_by TEXT,
    reversal_reason TEXT,
    metadata TEXT NOT NULL,
    posted_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX transactions_date ON transactions (organization_id, livemode, date);

-- Journal lines. `date` copies the transaction date and `counted` is true while the
-- transaction is posted or reversed, so balances aggregate entries without a join.
CREATE TABLE ledger_entries (
    organization_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    line_no INTEGER NOT NULL,
    account_id TEXT NOT NULL,
    entry_type TEXT NOT NULL,
    amount BIGINT NOT NULL,
    description TEXT,
    date TIMESTAMP NOT NULL,
    counted BOOLEAN NOT NULL,
    PRIMARY KEY (organization_id, id),
    FOREIGN KEY (organization_id, transaction_id) REFERENCES transactions (organization_id, id),
    FOREIGN KEY (organization_id, account_id) REFERENCES accounts (organization_id, id)
);
CREATE INDEX ledger_entries_balances
    ON ledger_entries (organization_id, livemode, account_id, counted, date);
CREATE INDEX ledger_entries_transaction ON ledger_entries (organization_id, transaction_id);

CREATE TABLE jobs (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    api_key_id TEXT NOT NULL,
    command_name TEXT NOT NULL,
    command TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    credit_cost BIGINT NOT NULL,
    credit_pool_id TEXT NOT NULL,
    result TEXT,
    error TEXT,
    run_at TIMESTAMP NOT NULL,
    locked_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    completed_at TIMESTAMP,
    PRIMARY KEY (organization_id, id)
);
-- Workers claim across tenants: queued jobs by run_at, processing ones by lease expiry.
CREATE INDEX jobs_claim ON jobs (status, run_at);
CREATE INDEX jobs_lease ON jobs (status, locked_until);
-- Workers address a claimed job by id alone (ids are globally unique ULIDs).
CREATE INDEX jobs_id ON jobs (id);
CREATE INDEX jobs_resource ON jobs (organization_id, livemode, resource_type, resource_id);

CREATE TABLE idempotency_keys (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    job_id TEXT,
    response_status INTEGER,
    response_body TEXT,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, livemode, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Append-only test-mode credit use of a pool (organization_id is the pool). Test writes
-- never update the organization row; a refund is a negative row.
CREATE TABLE credit_usage (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    credits BIGINT NOT NULL,
    job_id TEXT,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX credit_usage_pool ON credit_usage (organization_id, livemode);

CREATE TABLE events (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    api_key_id TEXT,
    before_state TEXT,
    after_state TEXT,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX events_entity
    ON events (organization_id, livemode, entity_type, entity_id, created_at);

CREATE TABLE resource_deletions (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    name TEXT NOT NULL,
    deleted_at TIMESTAMP NOT NULL,
    deleted_by TEXT NOT NULL,
    recoverable_until TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX resource_deletions_purge ON resource_deletions (recoverable_until);

CREATE TABLE settings (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, key)
);
