DROP TRIGGER ledger_entries_totals_insert;
DROP TRIGGER ledger_entries_totals_delete;
DROP TRIGGER ledger_entries_totals_update;
DROP TABLE account_daily_totals;
DROP TABLE account_totals;
