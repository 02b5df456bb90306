DROP INDEX jobs_claim;
DROP INDEX jobs_lease;
CREATE INDEX jobs_claim ON jobs (status, run_at);
CREATE INDEX jobs_lease ON jobs (status, locked_until);
CREATE INDEX jobs_resource ON jobs (organization_id, livemode, resource_type, resource_id);
