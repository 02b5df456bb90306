-- The tables every posting writes (jobs, transactions, events, idempotency keys, credit
-- usage and the credit ledger) no longer re-check their organization_id against
-- organizations (docs/decisions.md, "Session 15: no organization check on the hot
-- tables"). The server writes these rows only for the organization of the key that
-- authenticated the request, and organizations are never deleted, so the check could
-- never fail; each one cost a look-up and a KEY SHARE lock on the tenant's one
-- organizations row per inserted row (four per posting), and two commit lanes sharing
-- that lock made PostgreSQL create a MultiXact for it in every batch. The journal keeps
-- its checks: ledger_entries and the totals still reference accounts.
ALTER TABLE jobs DROP CONSTRAINT jobs_organization_id_fkey;
ALTER TABLE transactions DROP CONSTRAINT transactions_organization_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_organization_id_fkey;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_organization_id_fkey;
ALTER TABLE credit_usage DROP CONSTRAINT credit_usage_organization_id_fkey;
ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_organization_id_fkey;
