DROP INDEX events_created;
DROP INDEX resource_deletions_by_key;
DROP INDEX resource_deletions_tenant;
CREATE TABLE settings_old (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, key)
);
INSERT INTO settings_old (organization_id, key, value, updated_at)
    SELECT organization_id, key, value, updated_at FROM settings WHERE livemode;
DROP TABLE settings;
ALTER TABLE settings_old RENAME TO settings;
ALTER TABLE api_keys DROP COLUMN recoverable_until;
ALTER TABLE api_keys DROP COLUMN deleted_by;
