-- Sign-ins at external OpenID Connect providers in progress are kept by the hash of
-- their `state` beside the other one-time secrets. SQLite cannot change a CHECK
-- constraint in place, so the table is rebuilt (it has no indexes besides its key).
CREATE TABLE oauth_secrets_new (
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
    CHECK (kind IN ('code', 'access', 'refresh', 'session', 'sign_in', 'external_sign_in'))
);
INSERT INTO oauth_secrets_new (hash, kind, grant_id, client_id, user_id, data, expires_at, used_at, revoked_at, created_at)
    SELECT hash, kind, grant_id, client_id, user_id, data, expires_at, used_at, revoked_at, created_at
    FROM oauth_secrets;
DROP TABLE oauth_secrets;
ALTER TABLE oauth_secrets_new RENAME TO oauth_secrets;
