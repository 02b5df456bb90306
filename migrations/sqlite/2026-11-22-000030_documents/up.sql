-- Invoices and bills (spec 2.8, DECISIONS 5): one table for both kinds. `sequence` is the
-- gap-free number within the tenant and kind; items and per-tax totals are JSON (they are
-- read and written with their document only); `tax_ids` lists every tax the items name,
-- space-separated, for the tax's "in use" check.
CREATE TABLE documents (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    kind TEXT NOT NULL,
    sequence BIGINT NOT NULL,
    number TEXT NOT NULL,
    contact_id TEXT NOT NULL,
    issue_date DATE NOT NULL,
    due_date DATE NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    items TEXT NOT NULL,
    taxes TEXT NOT NULL,
    tax_ids TEXT NOT NULL,
    subtotal BIGINT NOT NULL,
    tax_amount BIGINT NOT NULL,
    total BIGINT NOT NULL,
    amount_paid BIGINT NOT NULL,
    notes TEXT,
    posting_id TEXT,
    created_by TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id)
);
CREATE UNIQUE INDEX documents_sequence ON documents (organization_id, livemode, kind, sequence);
CREATE INDEX documents_created ON documents (organization_id, livemode, kind, created_at);
CREATE INDEX documents_contact ON documents (organization_id, contact_id);

-- Payments recorded against a document, each with its posted transaction.
CREATE TABLE document_payments (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    amount BIGINT NOT NULL,
    currency TEXT NOT NULL,
    payment_date DATE NOT NULL,
    payment_method TEXT NOT NULL,
    reference TEXT,
    notes TEXT,
    account_id TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX document_payments_document ON document_payments (organization_id, document_id);

-- Every status change of a document: when, by which key, and why.
CREATE TABLE document_history (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    status TEXT NOT NULL,
    changed_at TIMESTAMP NOT NULL,
    api_key_id TEXT NOT NULL,
    note TEXT,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX document_history_document ON document_history (organization_id, document_id, changed_at);
