DROP TABLE x402_authorizations;
