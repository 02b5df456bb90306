-- What an invoice or bill names besides its contact (an item's tax or category), one row
-- per document and target, so "in use" is a lookup by id (DECISIONS 10) instead of a text
-- match on the space-separated `documents.tax_ids`, which goes. Rows are rewritten with
-- their document and purged with it.
CREATE TABLE document_references (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    document_id TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    PRIMARY KEY (organization_id, document_id, target_type, target_id)
);
CREATE INDEX document_references_target
    ON document_references (organization_id, livemode, target_type, target_id);
-- Split the space-separated list with a recursive CTE (SQLite has no string_to_array).
WITH RECURSIVE split (organization_id, livemode, document_id, tax_id, rest) AS (
    SELECT organization_id, livemode, id, '', tax_ids || ' ' FROM documents WHERE tax_ids <> ''
    UNION ALL
    SELECT organization_id, livemode, document_id,
           substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1)
    FROM split WHERE rest <> ''
)
INSERT OR IGNORE INTO document_references (organization_id, livemode, document_id, target_type, target_id)
    SELECT organization_id, livemode, document_id, 'tax', tax_id FROM split WHERE tax_id <> '';
ALTER TABLE documents DROP COLUMN tax_ids;

-- An idempotency record keeps the rendered result of a synchronous write
-- (`response_body`); the HTTP status is the interface's business, not the record's.
ALTER TABLE idempotency_keys DROP COLUMN response_status;
