-- Sign-ins at external OpenID Connect providers in progress are kept by the hash of
-- their `state` beside the other one-time secrets.
ALTER TABLE oauth_secrets DROP CONSTRAINT oauth_secrets_kind_check;
ALTER TABLE oauth_secrets ADD CONSTRAINT oauth_secrets_kind_check
    CHECK (kind IN ('code', 'access', 'refresh', 'session', 'sign_in', 'external_sign_in'));
