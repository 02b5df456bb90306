DROP TRIGGER accounts_chart_version_change ON accounts;
DROP TRIGGER accounts_chart_version_rows ON accounts;
DROP FUNCTION chart_versions_bump();
DROP TABLE chart_versions;
