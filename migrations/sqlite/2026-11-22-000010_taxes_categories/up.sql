-- Taxes (spec 2.7) and categories (spec 2.6), soft-deleted like accounts. A tax rate is
-- an exact percentage in units of 1/10 000 of a percent (8.25% = 82500).
CREATE TABLE taxes (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    rate BIGINT NOT NULL CHECK (rate BETWEEN 0 AND 1000000),
    tax_type TEXT NOT NULL,
    is_compound BOOLEAN NOT NULL,
    is_active BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX taxes_name ON taxes (organization_id, livemode, name);

CREATE TABLE categories (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    category_type TEXT NOT NULL,
    color TEXT NOT NULL,
    is_active BOOLEAN NOT NULL,
    parent_id TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id),
    FOREIGN KEY (organization_id, parent_id) REFERENCES categories (organization_id, id)
);
CREATE INDEX categories_name ON categories (organization_id, livemode, name);
CREATE INDEX categories_parent ON categories (organization_id, parent_id)
    WHERE parent_id IS NOT NULL;

-- The category of a transaction; checked by the category's delete ("in use").
ALTER TABLE transactions ADD COLUMN category_id TEXT;
CREATE INDEX transactions_category ON transactions (organization_id, category_id)
    WHERE category_id IS NOT NULL;
