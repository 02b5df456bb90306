-- Webhooks (issue 19, item 4; DECISIONS 9). The events table is the outbox: a fan-out
-- step turns each event into one delivery per endpoint that wants it (unique per endpoint
-- and event, so a repeated fan-out adds nothing), and workers claim due deliveries.
-- event_types is a JSON array of kinds ('[]' = every kind). The secret is kept as given
-- (HMAC signing needs it); it is shown only at creation and rotation.
CREATE TABLE webhook_endpoints (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    url TEXT NOT NULL,
    description TEXT,
    event_types TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    disabled_reason TEXT,
    secret TEXT NOT NULL,
    failure_streak BIGINT NOT NULL,
    fanned_out_until TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id),
    CHECK (failure_streak >= 0)
);
CREATE INDEX webhook_endpoints_tenant
    ON webhook_endpoints (organization_id, livemode, created_at)
    WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
    organization_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    event_created_at TIMESTAMP NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    next_attempt_at TIMESTAMP NOT NULL,
    locked_until TIMESTAMP,
    last_status_code BIGINT,
    last_error TEXT,
    delivered_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, id),
    UNIQUE (organization_id, endpoint_id, event_id),
    FOREIGN KEY (organization_id, endpoint_id) REFERENCES webhook_endpoints (organization_id, id),
    CHECK (status IN ('pending', 'delivered', 'failed'))
);
-- The claim: due pending deliveries.
CREATE INDEX webhook_deliveries_due
    ON webhook_deliveries (next_attempt_at)
    WHERE status = 'pending';
-- Per-entity ordering: an earlier pending delivery of the same entity to the endpoint.
CREATE INDEX webhook_deliveries_entity
    ON webhook_deliveries (organization_id, endpoint_id, entity_type, entity_id, event_created_at)
    WHERE status = 'pending';
-- The delivery log of an endpoint, newest first.
CREATE INDEX webhook_deliveries_endpoint
    ON webhook_deliveries (organization_id, endpoint_id, event_created_at);

CREATE TABLE webhook_attempts (
    organization_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    attempt BIGINT NOT NULL,
    started_at TIMESTAMP NOT NULL,
    duration_ms BIGINT NOT NULL,
    status_code BIGINT,
    error TEXT,
    response_snippet TEXT,
    PRIMARY KEY (organization_id, id),
    FOREIGN KEY (organization_id, delivery_id) REFERENCES webhook_deliveries (organization_id, id)
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (organization_id, delivery_id, attempt);
