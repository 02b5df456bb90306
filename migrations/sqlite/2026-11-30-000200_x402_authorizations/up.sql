-- x402 credit purchases (issue 19 item 3): every EIP-3009 authorization that paid for a
-- purchase. An authorization is single-use on its token (the contract refuses a nonce
-- twice); without a chain (the local facilitator) this primary key is what refuses a
-- replayed or concurrently retried payment, across every organization. A global table:
-- a Citus reference table (deploy/citus.md).
CREATE TABLE x402_authorizations (
    network TEXT NOT NULL,
    asset TEXT NOT NULL,
    payer TEXT NOT NULL,
    nonce TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    livemode BOOLEAN NOT NULL,
    purchase_id TEXT NOT NULL,
    settlement_transaction TEXT NOT NULL,
    amount TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (network, asset, payer, nonce)
);
CREATE INDEX x402_authorizations_purchase ON x402_authorizations (organization_id, purchase_id);
