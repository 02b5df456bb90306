-- Journal lines no longer carry a foreign key to their transaction (docs/decisions.md,
-- "No foreign key from entries to their transaction"): entries are only ever written in
-- the same database transaction as their transaction row, and purged with it. The check
-- cost an index probe and a row lock per entry, and PostgreSQL's cached plan for it
-- could pick transactions_date (leading with organization_id only) when the table was
-- planned while small, scanning a tenant's whole history for every entry written.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_organization_id_transaction_id_fkey;
