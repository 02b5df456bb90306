-- Key deletion joins the soft-delete lifecycle (who deleted it, until when it can be
-- recovered, then the daily purge), and settings become per tenant: organization and
-- mode, like every other tenant row, so a test key never changes live behaviour.
ALTER TABLE api_keys ADD COLUMN deleted_by TEXT;
ALTER TABLE api_keys ADD COLUMN recoverable_until TIMESTAMP;

ALTER TABLE settings ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT TRUE;
-- A setting made before modes existed applies to both modes.
INSERT INTO settings (organization_id, livemode, key, value, updated_at)
    SELECT organization_id, FALSE, key, value, updated_at FROM settings;
ALTER TABLE settings ALTER COLUMN livemode DROP DEFAULT;
ALTER TABLE settings DROP CONSTRAINT settings_pkey;
ALTER TABLE settings ADD PRIMARY KEY (organization_id, livemode, key);

-- The purge and the cross-organization "deleted by this key" list.
CREATE INDEX resource_deletions_tenant
    ON resource_deletions (organization_id, livemode, deleted_at);
CREATE INDEX resource_deletions_by_key ON resource_deletions (deleted_by, deleted_at);
CREATE INDEX events_created ON events (organization_id, livemode, created_at);
