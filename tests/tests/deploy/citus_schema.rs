//! The PostgreSQL schema keeps the rules that let Citus distribute it by `organization_id`
//! (deploy/citus.md): the migrations' text is replayed into a model of the final schema
//! (tables, columns, primary keys, unique indexes and constraints, foreign keys, indexes),
//! and every table is checked against its class. A rule broken by a new migration fails
//! with the table and the rule; the few documented exceptions are listed below with their
//! reasons, and the guide's `create_distributed_table` / `create_reference_table` lists
//! must name exactly the tables the schema has.

use std::collections::BTreeSet;

use crate::schema_model::{Schema, repo_root, schema};

/// The distribution column.
const TENANT: &str = "organization_id";

/// Tables replicated to every node (Citus reference tables), each with why. They may hold
/// `organization_id` (then their unique keys need not lead with it) and are the only
/// tables other than distributed ones that distributed tables may reference.
const REFERENCE_TABLES: &[(&str, &str)] = &[
    (
        "users",
        "global: a user (sign-in identity) owns organizations of any tenant; no organization_id",
    ),
    (
        "organizations",
        "the tenants themselves: `id` is the tenant, `parent_id` links tenants, and \
         descendant lookups by `path` cross tenants; every tenant table references it",
    ),
    (
        "api_keys",
        "authentication finds a key by the hash of its secret before the tenant is known \
         (unique key_hash, indexed previous_hash)",
    ),
    (
        "organization_transfers",
        "a transfer joins two tenants' trees (the sender's and the recipient's root) and is \
         listed by the recipient user across tenants; rare writes, references organizations \
         and users only",
    ),
    (
        "oauth_clients",
        "the authorization server finds a client by its client_id before any tenant is known",
    ),
    (
        "oauth_grants",
        "an access token's grant is read by the hash of the token before the tenant is known; \
         references clients, users and organizations only",
    ),
    (
        "oauth_secrets",
        "codes, tokens, sessions and sign-in links are found by the hash of the secret \
         before any tenant is known",
    ),
    (
        "x402_authorizations",
        "an x402 payment authorization is single-use across every tenant: its key is \
         (network, asset, payer, nonce), without organization_id; references organizations \
         only; one write per x402 purchase",
    ),
];

/// Indexes of distributed tables that do not lead with `organization_id`: they serve
/// queries across tenants, which run on every shard (deploy/citus.md, "Queries across
/// tenants"). A new one must be added here and to the guide, with its query.
const CROSS_TENANT_INDEXES: &[(&str, &str)] = &[
    (
        "jobs_claim",
        "workers claim queued jobs of any tenant by run_at",
    ),
    (
        "jobs_lease",
        "workers take over expired leases of any tenant",
    ),
    ("jobs_id", "a claimed job is addressed by its id alone"),
    (
        "idempotency_keys_created",
        "the purge removes expired idempotency keys of every tenant",
    ),
    (
        "resource_deletions_purge",
        "the daily purge of soft-deleted resources of every tenant",
    ),
    (
        "resource_deletions_by_key",
        "\"deleted by this key\" across the organizations the key reaches",
    ),
    (
        "recurring_schedules_due",
        "the recurring scheduler reads due schedules of every tenant",
    ),
    (
        "webhook_deliveries_due",
        "webhook workers claim due deliveries of any tenant",
    ),
    (
        "credit_pools_period",
        "the monthly credit reset finds the pools of any tenant not yet reset",
    ),
];

/// Every rule broken by the schema, as "table: rule" lines.
fn violations(schema: &Schema) -> Vec<String> {
    let reference: BTreeSet<&str> = REFERENCE_TABLES.iter().map(|(t, _)| *t).collect();
    let cross_tenant: BTreeSet<&str> = CROSS_TENANT_INDEXES.iter().map(|(i, _)| *i).collect();
    let mut broken = Vec::new();
    for (name, table) in &schema.tables {
        let distributed = !reference.contains(name.as_str());
        if !distributed {
            for fk in &table.foreign_keys {
                if !reference.contains(fk.target.as_str()) {
                    broken.push(format!(
                        "{name}: reference table has foreign key {} to the distributed table {} \
                         (Citus allows foreign keys from reference tables to reference tables only)",
                        fk.name, fk.target
                    ));
                }
            }
            continue;
        }
        if !table.columns.iter().any(|c| c == TENANT) {
            broken.push(format!(
                "{name}: has no {TENANT} column, so it cannot be distributed; add the column, or \
                 make it a reference table in deploy/citus.md and REFERENCE_TABLES with a reason"
            ));
            continue;
        }
        match &table.primary_key {
            Some(pk) if pk.first().map(String::as_str) == Some(TENANT) => {}
            Some(pk) => broken.push(format!(
                "{name}: primary key ({}) does not lead with {TENANT}",
                pk.join(", ")
            )),
            None => broken.push(format!("{name}: has no primary key")),
        }
        for (index, cols) in &table.unique {
            if cols.first().map(String::as_str) != Some(TENANT) {
                broken.push(format!(
                    "{name}: unique index or constraint {index} ({}) does not lead with {TENANT} \
                     (Citus enforces uniqueness only within a shard)",
                    cols.join(", ")
                ));
            }
        }
        for fk in &table.foreign_keys {
            if reference.contains(fk.target.as_str()) {
                continue;
            }
            let paired = fk
                .columns
                .iter()
                .zip(&fk.target_columns)
                .any(|(from, to)| from == TENANT && to == TENANT);
            if !paired {
                broken.push(format!(
                    "{name}: foreign key {} ({}) -> {} ({}) between distributed tables does not \
                     pair {TENANT} with {TENANT}",
                    fk.name,
                    fk.columns.join(", "),
                    fk.target,
                    fk.target_columns.join(", ")
                ));
            }
        }
        for (index, cols) in &table.indexes {
            if cols.first().map(String::as_str) != Some(TENANT)
                && !cross_tenant.contains(index.as_str())
            {
                broken.push(format!(
                    "{name}: index {index} ({}) does not lead with {TENANT}: a query across \
                     tenants runs on every shard; lead with {TENANT}, or list it in \
                     CROSS_TENANT_INDEXES and deploy/citus.md with its query",
                    cols.join(", ")
                ));
            }
        }
    }
    for (index, _) in CROSS_TENANT_INDEXES {
        if !schema.index_table.contains_key(*index) {
            broken.push(format!(
                "CROSS_TENANT_INDEXES names {index}, which the schema no longer has: remove it \
                 here and from deploy/citus.md"
            ));
        }
    }
    for (table, _) in REFERENCE_TABLES {
        if !schema.tables.contains_key(*table) {
            broken.push(format!(
                "REFERENCE_TABLES names {table}, which the schema no longer has"
            ));
        }
    }
    broken
}

/// The tables a Citus call in deploy/citus.md names, e.g. `create_reference_table('users')`.
fn guide_calls(guide: &str, function: &str) -> BTreeSet<String> {
    let pattern = format!("{function}('");
    guide
        .match_indices(&pattern)
        .filter_map(|(at, _)| {
            let rest = &guide[at + pattern.len()..];
            rest.split('\'').next().map(str::to_owned)
        })
        .collect()
}

#[test]
fn the_postgres_schema_can_be_distributed_by_organization_id() {
    let schema = schema();
    let reference: BTreeSet<&str> = REFERENCE_TABLES.iter().map(|(t, _)| *t).collect();
    println!("tables found in migrations/postgres:");
    for (name, table) in &schema.tables {
        let class = if reference.contains(name.as_str()) {
            "reference"
        } else if table.columns.iter().any(|c| c == TENANT) {
            "distributed by organization_id"
        } else {
            "unclassified (no organization_id)"
        };
        println!(
            "  {name}: {class}; primary key ({}); unique {:?}; foreign keys {:?}",
            table.primary_key.clone().unwrap_or_default().join(", "),
            table.unique.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            table
                .foreign_keys
                .iter()
                .map(|fk| format!("{} -> {}", fk.name, fk.target))
                .collect::<Vec<_>>(),
        );
    }
    let broken = violations(&schema);
    assert!(
        broken.is_empty(),
        "the schema breaks the Citus rules of deploy/citus.md:\n  {}",
        broken.join("\n  ")
    );
}

#[test]
fn the_citus_guide_classifies_every_table() {
    let schema = schema();
    let path = repo_root().join("deploy/citus.md");
    let guide = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let reference: BTreeSet<String> = REFERENCE_TABLES
        .iter()
        .map(|(t, _)| (*t).to_owned())
        .collect();
    let distributed: BTreeSet<String> = schema
        .tables
        .keys()
        .filter(|t| !reference.contains(*t))
        .cloned()
        .collect();
    for (function, expected) in [
        ("create_reference_table", &reference),
        ("create_distributed_table", &distributed),
    ] {
        let named = guide_calls(&guide, function);
        let missing: Vec<_> = expected.difference(&named).collect();
        let unknown: Vec<_> = named.difference(expected).collect();
        assert!(
            missing.is_empty() && unknown.is_empty(),
            "deploy/citus.md's {function} calls must name exactly the {} tables: add {missing:?}, \
             remove {unknown:?}",
            if function == "create_reference_table" {
                "reference"
            } else {
                "distributed"
            }
        );
    }
    for (index, _) in CROSS_TENANT_INDEXES {
        assert!(
            guide.contains(&format!("`{index}`")),
            "deploy/citus.md must explain the cross-tenant index `{index}`"
        );
    }
}

/// The checker itself: a schema that breaks each rule is refused with the table named.
#[test]
fn each_rule_names_the_table_that_breaks_it() {
    let mut schema = Schema::default();
    for statement in [
        "CREATE TABLE organizations (id TEXT PRIMARY KEY)",
        "CREATE TABLE users (id TEXT PRIMARY KEY)",
        "CREATE TABLE api_keys (organization_id TEXT NOT NULL, id TEXT NOT NULL, \
         PRIMARY KEY (organization_id, id))",
        "CREATE TABLE a (organization_id TEXT NOT NULL REFERENCES organizations (id), \
         id TEXT NOT NULL, code TEXT, PRIMARY KEY (id, organization_id))",
        "CREATE UNIQUE INDEX a_code ON a (code, organization_id)",
        "CREATE TABLE b (organization_id TEXT NOT NULL, id TEXT NOT NULL, a_id TEXT, \
         PRIMARY KEY (organization_id, id), FOREIGN KEY (a_id) REFERENCES a (id))",
        "CREATE INDEX b_a ON b (a_id)",
        "CREATE TABLE c (id TEXT PRIMARY KEY)",
        "CREATE TABLE d (organization_id TEXT NOT NULL, id TEXT NOT NULL, \
         PRIMARY KEY (organization_id, id))",
        "ALTER TABLE d ADD COLUMN e TEXT UNIQUE",
    ] {
        schema.apply(statement, "example");
    }
    let broken = violations(&schema);
    let expect = [
        "a: primary key (id, organization_id) does not lead with organization_id",
        "a: unique index or constraint a_code",
        "b: foreign key b_a_id_fkey (a_id) -> a (id)",
        "b: index b_a (a_id) does not lead",
        "c: has no organization_id column",
        "d: unique index or constraint d_e_key (e)",
    ];
    for line in expect {
        assert!(
            broken.iter().any(|b| b.starts_with(line)),
            "expected a violation starting {line:?} in {broken:#?}"
        );
    }
}
