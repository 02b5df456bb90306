DROP INDEX ledger_entries_history;
CREATE INDEX ledger_entries_balances
    ON ledger_entries (organization_id, livemode, account_id, counted, date);
DROP TRIGGER ledger_entries_totals_insert;
DROP TRIGGER ledger_entries_totals_delete;
DROP TRIGGER ledger_entries_totals_update;
DROP TABLE account_daily_totals;
DROP TABLE account_totals;
