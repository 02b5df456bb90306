DROP INDEX events_created;
DROP INDEX resource_deletions_by_key;
DROP INDEX resource_deletions_tenant;
DELETE FROM settings WHERE NOT livemode;
ALTER TABLE settings DROP CONSTRAINT settings_pkey;
ALTER TABLE settings DROP COLUMN livemode;
ALTER TABLE settings ADD PRIMARY KEY (organization_id, key);
ALTER TABLE api_keys DROP COLUMN recoverable_until;
ALTER TABLE api_keys DROP COLUMN deleted_by;
