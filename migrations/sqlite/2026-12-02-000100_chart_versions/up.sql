-- Reports keep each tenant's chart (its accounts' ids, codes, names, types and
-- currencies) in memory while it stays the same (docs/decisions.md, "Session 16: a
-- report's chart read once per change"). This counter tells a kept chart from a stale
-- one: any change of what a report shows of an account (added, deleted, recoded,
-- renamed, retyped, another currency, soft-deleted or restored) bumps it in the
-- writer's own transaction, whoever the writer is (another process on the same file, a
-- purge). One row per organization, both modes; none until its first account.
CREATE TABLE chart_versions (
    organization_id TEXT PRIMARY KEY NOT NULL,
    version BIGINT NOT NULL
);

CREATE TRIGGER accounts_chart_version_insert AFTER INSERT ON accounts
BEGIN
    INSERT INTO chart_versions (organization_id, version)
    SELECT NEW.organization_id, 1 WHERE 1
    ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER accounts_chart_version_delete AFTER DELETE ON accounts
BEGIN
    INSERT INTO chart_versions (organization_id, version)
    SELECT OLD.organization_id, 1 WHERE 1
    ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER accounts_chart_version_update AFTER UPDATE ON accounts
WHEN OLD.organization_id IS NOT NEW.organization_id
    OR OLD.livemode IS NOT NEW.livemode
    OR OLD.id IS NOT NEW.id
    OR OLD.code IS NOT NEW.code
    OR OLD.name IS NOT NEW.name
    OR OLD.account_type IS NOT NEW.account_type
    OR OLD.currency IS NOT NEW.currency
    OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)
BEGIN
    -- Moved to another organization (nothing does, but the old one's chart changed too).
    INSERT INTO chart_versions (organization_id, version)
    SELECT OLD.organization_id, 1 WHERE OLD.organization_id IS NOT NEW.organization_id
    ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
    INSERT INTO chart_versions (organization_id, version)
    SELECT NEW.organization_id, 1 WHERE 1
    ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;
