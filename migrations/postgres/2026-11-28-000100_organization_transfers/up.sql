-- Ownership transfers of organizations (spec 2.10, 3.1). A transfer concerns an
-- organization in both modes and two owners, so it carries organization_id but no
-- livemode, and is read by id, by the sender's path or by the recipient's user.
CREATE TABLE organization_transfers (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    organization_name TEXT NOT NULL,
    -- The organization's materialised path when the transfer was initiated.
    from_path TEXT NOT NULL,
    from_user_id TEXT NOT NULL REFERENCES users (id),
    to_user_id TEXT NOT NULL REFERENCES users (id),
    status TEXT NOT NULL,
    relationship_on_accept TEXT,
    to_organization_id TEXT REFERENCES organizations (id),
    initiated_at TIMESTAMP NOT NULL,
    responded_at TIMESTAMP,
    expires_at TIMESTAMP NOT NULL,
    descendant_org_count BIGINT NOT NULL,
    initiated_by TEXT NOT NULL,
    responded_by TEXT,
    CHECK (status IN ('pending', 'accepted', 'rejected', 'cancelled', 'expired')),
    CHECK (relationship_on_accept IS NULL OR relationship_on_accept IN ('owned', 'linked'))
);
-- At most one pending transfer per organization: of two concurrent initiations one wins.
CREATE UNIQUE INDEX organization_transfers_one_pending
    ON organization_transfers (organization_id) WHERE status = 'pending';
-- The sender's list (a prefix of the path), the recipient's list, the expiry job.
CREATE INDEX organization_transfers_from_path ON organization_transfers (from_path text_pattern_ops);
CREATE INDEX organization_transfers_to_user ON organization_transfers (to_user_id, initiated_at);
CREATE INDEX organization_transfers_expiry
    ON organization_transfers (expires_at) WHERE status = 'pending';
-- Recipients are named by e-mail or provider username, without regard to case.
CREATE INDEX users_email_lower ON users (lower(email));
CREATE INDEX users_provider_username_lower ON users (lower(provider_username));
