DROP INDEX attachments_owner;
DROP TABLE attachments;
