DROP INDEX users_provider_username_lower;
DROP INDEX users_email_lower;
DROP TABLE organization_transfers;
