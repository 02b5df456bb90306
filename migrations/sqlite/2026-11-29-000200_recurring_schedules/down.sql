DROP INDEX recurring_runs_occurrence;
DROP TABLE recurring_runs;
DROP INDEX recurring_schedules_due;
DROP TABLE recurring_schedules;
