DROP TABLE oauth_secrets;
DROP TABLE oauth_grants;
DROP TABLE oauth_clients;
