DROP INDEX ledger_entries_history;
CREATE INDEX ledger_entries_balances
    ON ledger_entries (organization_id, livemode, account_id, counted, date);
DROP TRIGGER ledger_entries_totals_insert ON ledger_entries;
DROP TRIGGER ledger_entries_totals_delete ON ledger_entries;
DROP TRIGGER ledger_entries_totals_update ON ledger_entries;
DROP FUNCTION account_totals_after_insert();
DROP FUNCTION account_totals_after_delete();
DROP FUNCTION account_totals_after_update();
DROP TABLE account_daily_totals;
DROP TABLE account_totals;
