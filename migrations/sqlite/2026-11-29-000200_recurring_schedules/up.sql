-- Recurring schedules (issue 18): a template (the create body of an invoice, bill or
-- transaction, JSON text) generated on every occurrence of a calendar rule. interval_count
-- is the API's `interval` (a reserved word in PostgreSQL). Soft-deleted like taxes.
CREATE TABLE recurring_schedules (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    name TEXT,
    recurable_type TEXT NOT NULL,
    recurable_id TEXT,
    template TEXT NOT NULL,
    frequency TEXT NOT NULL,
    interval_count BIGINT NOT NULL,
    start_date DATE NOT NULL,
    end_date DATE,
    max_occurrences BIGINT,
    auto_send BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    next_index BIGINT NOT NULL,
    next_run_date DATE,
    occurrences BIGINT NOT NULL,
    last_run_date DATE,
    created_by TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id),
    CHECK (recurable_type IN ('invoice', 'bill', 'transaction')),
    CHECK (frequency IN ('daily', 'weekly', 'monthly', 'quarterly', 'yearly')),
    CHECK (status IN ('active', 'paused', 'completed')),
    CHECK (interval_count >= 1)
);
-- The scheduler's read: live, active schedules by their next occurrence (all tenants).
CREATE INDEX recurring_schedules_due
    ON recurring_schedules (next_run_date)
    WHERE deleted_at IS NULL AND status = 'active';
-- The runs of a schedule. occurrence_key is the occurrence date of a scheduled run or
-- `manual:<id>` of a manual one: one row per occurrence, whoever generated it.
CREATE TABLE recurring_runs (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    schedule_id TEXT NOT NULL,
    occurrence_key TEXT NOT NULL,
    occurrence_date DATE NOT NULL,
    run_trigger TEXT NOT NULL,
    status TEXT NOT NULL,
    document_type TEXT NOT NULL,
    document_id TEXT,
    job_id TEXT,
    error TEXT,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, id),
    FOREIGN KEY (organization_id, schedule_id) REFERENCES recurring_schedules (organization_id, id),
    CHECK (run_trigger IN ('scheduled', 'manual')),
    CHECK (status IN ('succeeded', 'failed'))
);
CREATE UNIQUE INDEX recurring_runs_occurrence
    ON recurring_runs (organization_id, schedule_id, occurrence_key);
