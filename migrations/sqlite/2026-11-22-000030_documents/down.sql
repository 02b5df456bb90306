DROP TABLE document_history;
DROP TABLE document_payments;
DROP TABLE documents;
