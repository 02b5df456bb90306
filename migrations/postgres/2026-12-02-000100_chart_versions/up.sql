-- Reports keep each tenant's chart (its accounts' ids, codes, names, types and
-- currencies) in memory while it stays the same (docs/decisions.md, "Session 16: a
-- report's chart read once per change"). This counter tells a kept chart from a stale
-- one: any change of what a report shows of an account (added, deleted, recoded,
-- renamed, retyped, another currency, soft-deleted or restored) bumps it in the
-- writer's own transaction, whoever the writer is (another server, a worker process, a
-- purge). One row per organization, both modes; none until its first account.
CREATE TABLE chart_versions (
    organization_id TEXT PRIMARY KEY,
    version BIGINT NOT NULL
);

CREATE FUNCTION chart_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- An account moved to another organization (nothing does) changes both charts.
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO chart_versions (organization_id, version) VALUES (OLD.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = chart_versions.version + 1;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.organization_id <> OLD.organization_id) THEN
        INSERT INTO chart_versions (organization_id, version) VALUES (NEW.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = chart_versions.version + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER accounts_chart_version_rows AFTER INSERT OR DELETE ON accounts
FOR EACH ROW EXECUTE FUNCTION chart_versions_bump();

CREATE TRIGGER accounts_chart_version_change AFTER UPDATE ON accounts
FOR EACH ROW WHEN (
    OLD.organization_id IS DISTINCT FROM NEW.organization_id
    OR OLD.livemode IS DISTINCT FROM NEW.livemode
    OR OLD.id IS DISTINCT FROM NEW.id
    OR OLD.code IS DISTINCT FROM NEW.code
    OR OLD.name IS DISTINCT FROM NEW.name
    OR OLD.account_type IS DISTINCT FROM NEW.account_type
    OR OLD.currency IS DISTINCT FROM NEW.currency
    OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)
)
EXECUTE FUNCTION chart_versions_bump();
