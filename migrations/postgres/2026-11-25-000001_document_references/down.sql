ALTER TABLE idempotency_keys ADD COLUMN response_status INTEGER;
ALTER TABLE documents ADD COLUMN tax_ids TEXT NOT NULL DEFAULT '';
UPDATE documents SET tax_ids = COALESCE((
    SELECT string_agg(r.target_id, ' ' ORDER BY r.target_id) FROM document_references r
    WHERE r.organization_id = documents.organization_id AND r.document_id = documents.id
      AND r.target_type = 'tax'), '');
DROP TABLE document_references;
