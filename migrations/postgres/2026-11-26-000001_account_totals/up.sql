-- Maintained balances (docs/decisions.md, "Maintained balances"): per-account running
-- totals and per-account daily totals of the counted journal lines, kept by triggers on
-- ledger_entries in the same database transaction as the lines themselves, so every path
-- that writes, posts or removes lines (group commit, queued jobs, documents, purges) keeps
-- them exact. A balance reads one row; a report for a date or a period reads the daily
-- totals of the accounts and days asked about, never the journal's history.
CREATE TABLE account_totals (
    organization_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    account_id TEXT NOT NULL,
    debit BIGINT NOT NULL,
    credit BIGINT NOT NULL,
    -- Counted lines (a history's total_count without counting the history).
    entries BIGINT NOT NULL,
    PRIMARY KEY (organization_id, account_id),
    FOREIGN KEY (organization_id, account_id) REFERENCES accounts (organization_id, id)
        ON DELETE CASCADE
);
CREATE INDEX account_totals_tenant ON account_totals (organization_id, livemode);

CREATE TABLE account_daily_totals (
    organization_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    account_id TEXT NOT NULL,
    -- The line's UTC date as days since 1970-01-01 (the same number on both backends).
    day INTEGER NOT NULL,
    debit BIGINT NOT NULL,
    credit BIGINT NOT NULL,
    entries BIGINT NOT NULL,
    PRIMARY KEY (organization_id, account_id, day),
    FOREIGN KEY (organization_id, account_id) REFERENCES accounts (organization_id, id)
        ON DELETE CASCADE
);
CREATE INDEX account_daily_totals_tenant_day
    ON account_daily_totals (organization_id, livemode, day);

-- Statement-level triggers with transition tables: a group commit inserts a batch's lines
-- in one statement, so its totals take one upsert per touched account (and day) per
-- batch, in key order: concurrent batches lock shared rows in the same order, and a hot
-- account takes one row update per batch, not one per posting.

CREATE FUNCTION account_totals_after_insert() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO account_daily_totals AS t
        (organization_id, livemode, account_id, day, debit, credit, entries)
    SELECT organization_id, livemode, account_id, (CAST(date AS DATE) - DATE '1970-01-01'),
           SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END),
           SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), COUNT(*)
    FROM new_rows WHERE counted
    GROUP BY organization_id, livemode, account_id, (CAST(date AS DATE) - DATE '1970-01-01')
    ORDER BY organization_id, account_id, (CAST(date AS DATE) - DATE '1970-01-01')
    ON CONFLICT (organization_id, account_id, day)
    DO UPDATE SET debit = t.debit + EXCLUDED.debit, credit = t.credit + EXCLUDED.credit,
        entries = t.entries + EXCLUDED.entries;
    INSERT INTO account_totals AS t (organization_id, livemode, account_id, debit, credit, entries)
    SELECT organization_id, livemode, account_id,
           SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END),
           SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), COUNT(*)
    FROM new_rows WHERE counted
    GROUP BY organization_id, livemode, account_id
    ORDER BY organization_id, account_id
    ON CONFLICT (organization_id, account_id)
    DO UPDATE SET debit = t.debit + EXCLUDED.debit, credit = t.credit + EXCLUDED.credit,
        entries = t.entries + EXCLUDED.entries;
    RETURN NULL;
END $$;

CREATE FUNCTION account_totals_after_delete() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO account_daily_totals AS t
        (organization_id, livemode, account_id, day, debit, credit, entries)
    SELECT organization_id, livemode, account_id, (CAST(date AS DATE) - DATE '1970-01-01'),
           -SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END),
           -SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), -COUNT(*)
    FROM old_rows WHERE counted
    GROUP BY organization_id, livemode, account_id, (CAST(date AS DATE) - DATE '1970-01-01')
    ORDER BY organization_id, account_id, (CAST(date AS DATE) - DATE '1970-01-01')
    ON CONFLICT (organization_id, account_id, day)
    DO UPDATE SET debit = t.debit + EXCLUDED.debit, credit = t.credit + EXCLUDED.credit,
        entries = t.entries + EXCLUDED.entries;
    INSERT INTO account_totals AS t (organization_id, livemode, account_id, debit, credit, entries)
    SELECT organization_id, livemode, account_id,
           -SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END),
           -SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), -COUNT(*)
    FROM old_rows WHERE counted
    GROUP BY organization_id, livemode, account_id
    ORDER BY organization_id, account_id
    ON CONFLICT (organization_id, account_id)
    DO UPDATE SET debit = t.debit + EXCLUDED.debit, credit = t.credit + EXCLUDED.credit,
        entries = t.entries + EXCLUDED.entries;
    RETURN NULL;
END $$;

-- An update (a pending transaction posted: `counted` turns true) adds the new lines and
-- takes away the old ones, both as they count.
CREATE FUNCTION account_totals_after_update() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO account_daily_totals AS t
        (organization_id, livemode, account_id, day, debit, credit, entries)
    SELECT organization_id, livemode, account_id, day, SUM(debit), SUM(credit), SUM(entries)
    FROM (
        SELECT organization_id, livemode, account_id, (CAST(date AS DATE) - DATE '1970-01-01') AS day,
               CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END AS debit,
               CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END AS credit, 1 AS entries
        FROM new_rows WHERE counted
        UNION ALL
        SELECT organization_id, livemode, account_id, (CAST(date AS DATE) - DATE '1970-01-01'),
               CASE WHEN entry_type = 'debit' THEN -amount ELSE 0 END,
               CASE WHEN entry_type = 'credit' THEN -amount ELSE 0 END, -1
        FROM old_rows WHERE counted
    ) AS changes
    GROUP BY organization_id, livemode, account_id, day
    ORDER BY organization_id, account_id, day
    ON CONFLICT (organization_id, account_id, day)
    DO UPDATE SET debit = t.debit + EXCLUDED.debit, credit = t.credit + EXCLUDED.credit,
        entries = t.entries + EXCLUDED.entries;
    INSERT INTO account_totals AS t (organization_id, livemode, account_id, debit, credit, entries)
    SELECT organization_id, livemode, account_id, SUM(debit), SUM(credit), SUM(entries)
    FROM (
        SELECT organization_id, livemode, account_id,
               CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END AS debit,
               CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END AS credit, 1 AS entries
        FROM new_rows WHERE counted
        UNION ALL
        SELECT organization_id, livemode, account_id,
               CASE WHEN entry_type = 'debit' THEN -amount ELSE 0 END,
               CASE WHEN entry_type = 'credit' THEN -amount ELSE 0 END, -1
        FROM old_rows WHERE counted
    ) AS changes
    GROUP BY organization_id, livemode, account_id
    ORDER BY organization_id, account_id
    ON CONFLICT (organization_id, account_id)
    DO UPDATE SET debit = t.debit + EXCLUDED.debit, credit = t.credit + EXCLUDED.credit,
        entries = t.entries + EXCLUDED.entries;
    RETURN NULL;
END $$;

CREATE TRIGGER ledger_entries_totals_insert AFTER INSERT ON ledger_entries
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION account_totals_after_insert();
CREATE TRIGGER ledger_entries_totals_delete AFTER DELETE ON ledger_entries
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION account_totals_after_delete();
CREATE TRIGGER ledger_entries_totals_update AFTER UPDATE ON ledger_entries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION account_totals_after_update();

-- Back-fill from the journal as it stands.
INSERT INTO account_daily_totals (organization_id, livemode, account_id, day, debit, credit, entries)
SELECT organization_id, livemode, account_id, (CAST(date AS DATE) - DATE '1970-01-01'),
       SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END),
       SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), COUNT(*)
FROM ledger_entries WHERE counted
GROUP BY organization_id, livemode, account_id, (CAST(date AS DATE) - DATE '1970-01-01');
INSERT INTO account_totals (organization_id, livemode, account_id, debit, credit, entries)
SELECT organization_id, livemode, account_id,
       SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END),
       SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), COUNT(*)
FROM ledger_entries WHERE counted
GROUP BY organization_id, livemode, account_id;

-- History pages read an account's lines in (date, transaction, line) order: with the
-- order's tie-breakers in the index, a page is an index range with a limit instead of a
-- sort of the account's history (its lines on one date can be many). The index replaces
-- the balance index, whose columns it starts with.
DROP INDEX ledger_entries_balances;
CREATE INDEX ledger_entries_history
    ON ledger_entries (organization_id, livemode, account_id, counted, date, transaction_id, line_no);
