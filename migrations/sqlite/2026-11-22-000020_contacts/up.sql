-- Contacts (spec 2.5): customers, vendors, employees and others of a tenant, soft-deleted
-- like accounts. A reference is unique among the tenant's live contacts.
CREATE TABLE contacts (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    contact_type TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT,
    phone TEXT,
    website TEXT,
    tax_number TEXT,
    reference TEXT,
    address TEXT,
    city TEXT,
    state TEXT,
    zip_code TEXT,
    country TEXT,
    currency_id TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    metadata TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX contacts_created ON contacts (organization_id, livemode, created_at);
CREATE UNIQUE INDEX contacts_reference ON contacts (organization_id, livemode, reference)
    WHERE deleted_at IS NULL AND reference IS NOT NULL;

-- The contact a transaction is with; checked by the contact's delete ("in use").
ALTER TABLE transactions ADD COLUMN contact_id TEXT;
CREATE INDEX transactions_contact ON transactions (organization_id, contact_id)
    WHERE contact_id IS NOT NULL;
