-- Exchange rates of a tenant (spec 2.9), soft-deleted like taxes. A rate is the exact,
-- normalized decimal text of units of to_currency per unit of from_currency (at most 12
-- decimals, below 10^12): text, never a float, on both backends.
CREATE TABLE exchange_rates (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    from_currency TEXT NOT NULL,
    to_currency TEXT NOT NULL,
    rate TEXT NOT NULL,
    effective_date DATE NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id),
    CHECK (from_currency <> to_currency)
);
-- One live rate per pair and date, and the index of the "latest on or before" lookup
-- and of the list's currency filters.
CREATE UNIQUE INDEX exchange_rates_pair_date
    ON exchange_rates (organization_id, livemode, from_currency, to_currency, effective_date)
    WHERE deleted_at IS NULL;
