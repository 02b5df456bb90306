//! Checks of the deployment material in `deploy/`: the Citus rules over the migrations,
//! the container and Kubernetes files against the server's configuration, and the backup
//! and restore runbook on a real PostgreSQL.

mod backup;
mod citus_schema;
mod files;
mod schema_model;
