DELETE FROM oauth_secrets WHERE kind = 'external_sign_in';
ALTER TABLE oauth_secrets DROP CONSTRAINT oauth_secrets_kind_check;
ALTER TABLE oauth_secrets ADD CONSTRAINT oauth_secrets_kind_check
    CHECK (kind IN ('code', 'access', 'refresh', 'session', 'sign_in'));
