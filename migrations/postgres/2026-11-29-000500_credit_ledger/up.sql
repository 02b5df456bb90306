-- Credits (issue 19): the live pool of each root organization keeps its balance in
-- organizations.credits_remaining (the per-write charge stays one conditional decrement).
-- credit_pools holds what the monthly reset needs: the purchased part of the balance as
-- of its last grant (charges draw on the free allowance first, so the purchased credits
-- left are LEAST(credits_purchased, credits_remaining)) and the period (YYYY-MM) of the
-- last reset.
CREATE TABLE credit_pools (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    credits_purchased BIGINT NOT NULL,
    period TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id),
    CHECK (credits_purchased >= 0)
);
-- The reset sweep: pools whose last reset is of an earlier period, any tenant.
CREATE INDEX credit_pools_period ON credit_pools (period);

-- Every change of a live balance, signed: opening, grant, charge, refund, reset,
-- purchase. The rows of a pool sum to its credits_remaining at every commit. The primary
-- key is the unique key of the exactly-once changes: reset_<YYYY-MM> (one reset per pool
-- and month), the purchase id (one credit per purchase), grant_signup.
CREATE TABLE credit_ledger (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    id TEXT NOT NULL,
    kind TEXT NOT NULL,
    credits BIGINT NOT NULL,
    reference TEXT,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, id),
    CHECK (kind IN ('opening', 'grant', 'charge', 'refund', 'reset', 'purchase'))
);
CREATE INDEX credit_ledger_created ON credit_ledger (organization_id, created_at);

-- Purchases of credit packages through a hosted checkout.
CREATE TABLE credit_purchases (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    pool_id TEXT NOT NULL,
    package_id TEXT NOT NULL,
    credits BIGINT NOT NULL,
    price_cents BIGINT NOT NULL,
    currency TEXT NOT NULL,
    provider TEXT NOT NULL,
    provider_session_id TEXT,
    checkout_url TEXT NOT NULL,
    status TEXT NOT NULL,
    success_url TEXT,
    cancel_url TEXT,
    api_key_id TEXT NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    completed_at TIMESTAMP,
    PRIMARY KEY (organization_id, id),
    CHECK (status IN ('pending', 'completed')),
    CHECK (credits > 0 AND price_cents > 0)
);
CREATE INDEX credit_purchases_list
    ON credit_purchases (organization_id, livemode, created_at);

-- Existing pools: the current month, nothing purchased, and an opening ledger row with
-- the balance they have.
INSERT INTO credit_pools (organization_id, credits_purchased, period, updated_at)
SELECT id, 0, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), now() AT TIME ZONE 'UTC'
FROM organizations WHERE parent_id IS NULL;
INSERT INTO credit_ledger (organization_id, id, kind, credits, reference, created_at)
SELECT id, 'opening', 'opening', credits_remaining, NULL, now() AT TIME ZONE 'UTC'
FROM organizations WHERE credits_remaining <> 0;
