DROP TABLE credit_purchases;
DROP TABLE credit_ledger;
DROP TABLE credit_pools;
