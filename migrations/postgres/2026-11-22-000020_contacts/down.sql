DROP INDEX transactions_contact;
ALTER TABLE transactions DROP COLUMN contact_id;
DROP TABLE contacts;
