DROP INDEX exchange_rates_pair_date;
DROP TABLE exchange_rates;
