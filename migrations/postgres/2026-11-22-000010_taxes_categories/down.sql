DROP INDEX transactions_category;
ALTER TABLE transactions DROP COLUMN category_id;
DROP TABLE categories;
DROP TABLE taxes;
