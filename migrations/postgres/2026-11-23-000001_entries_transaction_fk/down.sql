ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_organization_id_transaction_id_fkey
    FOREIGN KEY (organization_id, transaction_id) REFERENCES transactions (organization_id, id);
