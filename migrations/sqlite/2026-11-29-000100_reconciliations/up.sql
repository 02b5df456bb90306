-- Bank reconciliations (issue 18): a statement period of one asset or liability account
-- with the bank's closing balance (BIGINT units of 1/10000, in the account type's normal
-- direction), soft-deleted like taxes. The difference is computed on read, never stored.
-- account_type and currency are the account's when the reconciliation was created.
CREATE TABLE reconciliations (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    account_type TEXT NOT NULL,
    currency TEXT NOT NULL,
    start_date DATE NOT NULL,
    end_date DATE NOT NULL,
    opening_balance BIGINT NOT NULL,
    closing_balance BIGINT NOT NULL,
    status TEXT NOT NULL,
    completed_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by TEXT,
    recoverable_until TIMESTAMP,
    PRIMARY KEY (organization_id, id),
    CHECK (status IN ('open', 'completed')),
    CHECK (end_date >= start_date)
);
-- At most one open reconciliation per account.
CREATE UNIQUE INDEX reconciliations_one_open
    ON reconciliations (organization_id, livemode, account_id)
    WHERE status = 'open' AND deleted_at IS NULL;
-- The list (latest end date first), by account.
CREATE INDEX reconciliations_account
    ON reconciliations (organization_id, livemode, account_id, end_date);

-- The journal entries a reconciliation matched (copies: posted entries never change).
-- One match per entry in the organization; a deleted reconciliation's matches are
-- removed at the delete. amount is debit-positive (the bank's sign).
CREATE TABLE reconciliation_matches (
    organization_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    entry_id TEXT NOT NULL,
    reconciliation_id TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    date DATE NOT NULL,
    amount BIGINT NOT NULL,
    description TEXT NOT NULL,
    statement_line_id TEXT,
    matched_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, entry_id),
    FOREIGN KEY (organization_id, reconciliation_id)
        REFERENCES reconciliations (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX reconciliation_matches_reconciliation
    ON reconciliation_matches (organization_id, reconciliation_id);
-- The lock check of a transaction's update, reversal or delete.
CREATE INDEX reconciliation_matches_transaction
    ON reconciliation_matches (organization_id, transaction_id);
-- A statement line is matched to at most one entry.
CREATE UNIQUE INDEX reconciliation_matches_line
    ON reconciliation_matches (organization_id, statement_line_id)
    WHERE statement_line_id IS NOT NULL;

-- Imported bank statement lines (amount: the bank's sign, positive is money in).
CREATE TABLE statement_lines (
    organization_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    reconciliation_id TEXT NOT NULL,
    line_number INTEGER NOT NULL,
    date DATE NOT NULL,
    amount BIGINT NOT NULL,
    description TEXT NOT NULL,
    reference TEXT,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (organization_id, id),
    FOREIGN KEY (organization_id, reconciliation_id)
        REFERENCES reconciliations (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX statement_lines_reconciliation
    ON statement_lines (organization_id, reconciliation_id, line_number);
