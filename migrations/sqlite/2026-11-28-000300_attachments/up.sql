-- Attachments (issue 18): files kept beside a transaction, invoice or bill. The bytes are
-- in the blob store under storage_key (made up by the service, never client input);
-- content_type is sniffed from the bytes; sha256 is the lowercase hex checksum.
-- Soft-deleted like taxes (the bytes are removed at the delete itself).
CREATE TABLE attachments (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    owner_type TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    file_name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    storage_key TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id),
    CHECK (owner_type IN ('transaction', 'invoice', 'bill')),
    CHECK (size_bytes >= 0)
);
-- The list of one owner's live attachments.
CREATE INDEX attachments_owner
    ON attachments (organization_id, livemode, owner_type, owner_id, created_at)
    WHERE deleted_at IS NULL;
