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

-- SQLite has no statement-level triggers: each line adds to its rows as it is written.
-- SQLite runs one writer at a time, so there is no lock order to keep.
CREATE TRIGGER ledger_entries_totals_insert AFTER INSERT ON ledger_entries
WHEN NEW.counted
BEGIN
    INSERT INTO account_daily_totals (organization_id, livemode, account_id, day, debit, credit, entries)
    SELECT NEW.organization_id, NEW.livemode, NEW.account_id,
           CAST(julianday(date(NEW.date)) - 2440587.5 AS INTEGER), CASE WHEN NEW.entry_type = 'debit' THEN NEW.amount ELSE 0 END, CASE WHEN NEW.entry_type = 'credit' THEN NEW.amount ELSE 0 END, 1
    WHERE NEW.counted
    ON CONFLICT (organization_id, account_id, day)
    DO UPDATE SET debit = debit + excluded.debit, credit = credit + excluded.credit,
        entries = entries + excluded.entries;
    INSERT INTO account_totals (organization_id, livemode, account_id, debit, credit, entries)
    SELECT NEW.organization_id, NEW.livemode, NEW.account_id, CASE WHEN NEW.entry_type = 'debit' THEN NEW.amount ELSE 0 END, CASE WHEN NEW.entry_type = 'credit' THEN NEW.amount ELSE 0 END, 1
    WHERE NEW.counted
    ON CONFLICT (organization_id, account_id)
    DO UPDATE SET debit = debit + excluded.debit, credit = credit + excluded.credit,
        entries = entries + excluded.entries;
END;

CREATE TRIGGER ledger_entries_totals_delete AFTER DELETE ON ledger_entries
WHEN OLD.counted
BEGIN
    INSERT INTO account_daily_totals (organization_id, livemode, account_id, day, debit, credit, entries)
    SELECT OLD.organization_id, OLD.livemode, OLD.account_id,
           CAST(julianday(date(OLD.date)) - 2440587.5 AS INTEGER), CASE WHEN OLD.entry_type = 'debit' THEN -OLD.amount ELSE 0 END, CASE WHEN OLD.entry_type = 'credit' THEN -OLD.amount ELSE 0 END, -1
    WHERE OLD.counted
    ON CONFLICT (organization_id, account_id, day)
    DO UPDATE SET debit = debit + excluded.debit, credit = credit + excluded.credit,
        entries = entries + excluded.entries;
    INSERT INTO account_totals (organization_id, livemode, account_id, debit, credit, entries)
    SELECT OLD.organization_id, OLD.livemode, OLD.account_id, CASE WHEN OLD.entry_type = 'debit' THEN -OLD.amount ELSE 0 END, CASE WHEN OLD.entry_type = 'credit' THEN -OLD.amount ELSE 0 END, -1
    WHERE OLD.counted
    ON CONFLICT (organization_id, account_id)
    DO UPDATE SET debit = debit + excluded.debit, credit = credit + excluded.credit,
        entries = entries + excluded.entries;
END;

-- An update (a pending transaction posted: `counted` turns true) takes away the old line
-- and adds the new one, each as it counts.
CREATE TRIGGER ledger_entries_totals_update AFTER UPDATE ON ledger_entries
WHEN OLD.counted OR NEW.counted
BEGIN
    INSERT INTO account_daily_totals (organization_id, livemode, account_id, day, debit, credit, entries)
    SELECT OLD.organization_id, OLD.livemode, OLD.account_id,
           CAST(julianday(date(OLD.date)) - 2440587.5 AS INTEGER), CASE WHEN OLD.entry_type = 'debit' THEN -OLD.amount ELSE 0 END, CASE WHEN OLD.entry_type = 'credit' THEN -OLD.amount ELSE 0 END, -1
    WHERE OLD.counted
    ON CONFLICT (organization_id, account_id, day)
    DO UPDATE SET debit = debit + excluded.debit, credit = credit + excluded.credit,
        entries = entries + excluded.entries;
    INSERT INTO account_totals (organization_id, livemode, account_id, debit, credit, entries)
    SELECT OLD.organization_id, OLD.livemode, OLD.account_id, CASE WHEN OLD.entry_type = 'debit' THEN -OLD.amount ELSE 0 END, CASE WHEN OLD.entry_type = 'credit' THEN -OLD.amount ELSE 0 END, -1
    WHERE OLD.counted
    ON CONFLICT (organization_id, account_id)
    DO UPDATE SET debit = debit + excluded.debit, credit = credit + excluded.credit,
        entries = entries + excluded.entries;
    INSERT INTO account_daily_totals (organization_id, livemode, account_id, day, debit, credit, entries)
    SELECT NEW.organization_id, NEW.livemode, NEW.account_id,
           CAST(julianday(date(NEW.date)) - 2440587.5 AS INTEGER), CASE WHEN NEW.entry_type = 'debit' THEN NEW.amount ELSE 0 END, CASE WHEN NEW.entry_type = 'credit' THEN NEW.amount ELSE 0 END, 1
    WHERE NEW.counted
    ON CONFLICT (organization_id, account_id, day)
    DO UPDATE SET debit = debit + excluded.debit, credit = credit + excluded.credit,
        entries = entries + excluded.entries;
    INSERT INTO account_totals (organization_id, livemode, account_id, debit, credit, entries)
    SELECT NEW.organization_id, NEW.livemode, NEW.account_id, CASE WHEN NEW.entry_type = 'debit' THEN NEW.amount ELSE 0 END, CASE WHEN NEW.entry_type = 'credit' THEN NEW.amount ELSE 0 END, 1
    WHERE NEW.counted
    ON CONFLICT (organization_id, account_id)
    DO UPDATE SET debit = debit + excluded.debit, credit = credit + excluded.credit,
        entries = entries + excluded.entries;
END;

-- Back-fill from the journal as it stands.
INSERT INTO account_daily_totals (organization_id, livemode, account_id, day, debit, credit, entries)
SELECT organization_id, livemode, account_id, CAST(julianday(date(date)) - 2440587.5 AS INTEGER),
       SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END),
       SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), COUNT(*)
FROM ledger_entries WHERE counted
GROUP BY organization_id, livemode, account_id, CAST(julianday(date(date)) - 2440587.5 AS INTEGER);
INSERT INTO account_totals (organization_id, livemode, account_id, debit, credit, entries)
SELECT organization_id, livemode, account_id,
       SUM(CASE WHEN entry_type = 'debit' THEN amount ELSE 0 END),
       SUM(CASE WHEN entry_type = 'credit' THEN amount ELSE 0 END), COUNT(*)
FROM ledger_entries WHERE counted
GROUP BY organization_id, livemode, account_id;

-- History pages read an account's lines in (date, transaction, line) order: with the
-- order's tie-breakers in the index, a page is an index range with a limit instead of a
-- sort of the account's history. The index replaces the balance index it starts with.
DROP INDEX ledger_entries_balances;
CREATE INDEX ledger_entries_history
    ON ledger_entries (organization_id, livemode, account_id, counted, date, transaction_id, line_no);
