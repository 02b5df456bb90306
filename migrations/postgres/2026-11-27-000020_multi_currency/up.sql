-- Multi-currency journals (issue 17): a line in another currency than its transaction's
-- names that currency (its account's); NULL means the transaction's currency, so
-- single-currency journals store nothing more.
ALTER TABLE ledger_entries ADD COLUMN currency TEXT;
-- What wrote a transaction when it was not a plain journal entry ('transfer', 'invoice',
-- 'bill'), so transfers list by an index instead of a scan of the metadata.
ALTER TABLE transactions ADD COLUMN source TEXT;
UPDATE transactions SET source = 'invoice' WHERE metadata LIKE '%"source":"invoice"%';
UPDATE transactions SET source = 'bill' WHERE metadata LIKE '%"source":"bill"%';
CREATE INDEX transactions_source
    ON transactions (organization_id, livemode, source, date)
    WHERE source IS NOT NULL;
