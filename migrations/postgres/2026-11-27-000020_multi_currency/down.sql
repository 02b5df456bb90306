DROP INDEX transactions_source;
ALTER TABLE transactions DROP COLUMN source;
ALTER TABLE ledger_entries DROP COLUMN currency;
