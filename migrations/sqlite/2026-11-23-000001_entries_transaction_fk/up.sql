-- Journal lines no longer carry a foreign key to their transaction (as on PostgreSQL;
-- docs/decisions.md, "No foreign key from entries to their transaction"). SQLite cannot
-- drop a constraint, so the table is rebuilt with the same columns and indexes.
CREATE TABLE ledger_entries_new (
    organization_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    id TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    line_no INTEGER NOT NULL,
    account_id TEXT NOT NULL,
    entry_type TEXT NOT NULL,
    amount BIGINT NOT NULL,
    description TEXT,
    date TIMESTAMP NOT NULL,
    counted BOOLEAN NOT NULL,
    PRIMARY KEY (organization_id, id),
    FOREIGN KEY (organization_id, account_id) REFERENCES accounts (organization_id, id)
);
INSERT INTO ledger_entries_new
    SELECT organization_id, livemode, id, transaction_id, line_no, account_id, entry_type,
           amount, description, date, counted
    FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_new RENAME TO ledger_entries;
CREATE INDEX ledger_entries_balances
    ON ledger_entries (organization_id, livemode, account_id, counted, date);
CREATE INDEX ledger_entries_transaction ON ledger_entries (organization_id, transaction_id);
