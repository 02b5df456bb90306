-- Key deletion joins the soft-delete lifecycle (who deleted it, until when it can be
-- recovered, then the daily purge), and settings become per tenant: organization and
-- mode, like every other tenant row, so a test key never changes live behaviour.
ALTER TABLE api_keys ADD COLUMN deleted_by TEXT;
ALTER TABLE api_keys ADD COLUMN recoverable_until TIMESTAMP;

-- SQLite cannot change a primary key in place: the table is rebuilt.
CREATE TABLE settings_new (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, livemode, key)
);
-- A setting made before modes existed applies to both modes.
INSERT INTO settings_new (organization_id, livemode, key, value, updated_at)
    SELECT organization_id, 1, key, value, updated_at FROM settings;
INSERT INTO settings_new (organization_id, livemode, key, value, updated_at)
    SELECT organization_id, 0, key, value, updated_at FROM settings;
DROP TABLE settings;
ALTER TABLE settings_new RENAME TO settings;

-- The purge and the cross-organization "deleted by this key" list.
CREATE INDEX resource_deletions_tenant
    ON resource_deletions (organization_id, livemode, deleted_at);
CREATE INDEX resource_deletions_by_key ON resource_deletions (deleted_by, deleted_at);
CREATE INDEX events_created ON events (organization_id, livemode, created_at);
