-- OAuth 2.1 authorization server (issue 15). Looked up across tenants (by client id,
-- by the hash of a secret) before any tenant is known: on Citus they are reference
-- tables, like users and api_keys.
CREATE TABLE oauth_clients (
    id TEXT PRIMARY KEY,
    name TEXT,
    -- JSON arrays of strings.
    redirect_uris TEXT NOT NULL,
    grant_types TEXT NOT NULL,
    auth_method TEXT NOT NULL,
    -- SHA-256 hex of the secret of a confidential client.
    secret_hash TEXT,
    scope TEXT,
    -- The registration as answered (JSON).
    metadata TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

-- What a user approved for a client: one organization, a mode, scopes and the audience.
-- Revoking it revokes every token of it (the refresh-token family).
CREATE TABLE oauth_grants (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES oauth_clients (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    -- Space-separated scopes.
    scopes TEXT NOT NULL,
    resource TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    revoked_at TIMESTAMP
);

-- Codes, access and refresh tokens, console sessions and e-mailed sign-in links, by the
-- SHA-256 hex of the secret (the secret itself is never stored). grant_id of a code
-- names the grant its redemption creates, so it is not a foreign key.
CREATE TABLE oauth_secrets (
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    grant_id TEXT,
    client_id TEXT,
    user_id TEXT,
    data TEXT NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at TIMESTAMP,
    revoked_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    CHECK (kind IN ('code', 'access', 'refresh', 'session', 'sign_in'))
);
