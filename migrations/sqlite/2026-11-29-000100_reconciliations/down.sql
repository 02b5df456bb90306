DROP TABLE statement_lines;
DROP TABLE reconciliation_matches;
DROP TABLE reconciliations;
