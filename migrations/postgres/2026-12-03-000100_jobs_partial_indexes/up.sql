-- The job queue's cross-tenant indexes hold only the jobs a worker can claim
-- (docs/decisions.md, "Session 17: partial job indexes"). Nearly every job is written
-- already completed (a waited write, group-committed) and never claimed: indexing its
-- status cost two index entries per posting for rows no claim looks at. The claim and
-- the lease take-over test the status as a literal, so the planner can use them.
-- `jobs_resource` served no query.
DROP INDEX jobs_claim;
DROP INDEX jobs_lease;
DROP INDEX jobs_resource;
CREATE INDEX jobs_claim ON jobs (run_at, id) WHERE status = 'queued';
CREATE INDEX jobs_lease ON jobs (locked_until) WHERE status = 'processing';
