//! A model of the final PostgreSQL schema, replayed from the text of
//! `migrations/postgres/*/up.sql` in order: tables, columns, primary keys, unique indexes
//! and constraints, foreign keys and indexes. It understands the DDL the migrations use
//! (CREATE TABLE, ALTER TABLE ... ADD/DROP, CREATE/DROP INDEX) and refuses any other
//! schema statement, so nothing is skipped silently; a test on PostgreSQL checks that the
//! model equals the catalog of a migrated database.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Clone)]
pub(crate) struct Table {
    pub(crate) columns: Vec<String>,
    pub(crate) primary_key: Option<Vec<String>>,
    /// Unique constraints and unique indexes: (name, columns).
    pub(crate) unique: Vec<(String, Vec<String>)>,
    pub(crate) foreign_keys: Vec<ForeignKey>,
    /// Non-unique indexes: (name, columns).
    pub(crate) indexes: Vec<(String, Vec<String>)>,
}

#[derive(Debug, Clone)]
pub(crate) struct ForeignKey {
    pub(crate) name: String,
    pub(crate) columns: Vec<String>,
    pub(crate) target: String,
    pub(crate) target_columns: Vec<String>,
}

#[derive(Debug, Default)]
pub(crate) struct Schema {
    pub(crate) tables: BTreeMap<String, Table>,
    /// Index name -> table.
    pub(crate) index_table: BTreeMap<String, String>,
}

pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives in the workspace")
        .to_path_buf()
}

/// The text without `--` comments and dollar-quoted bodies (function definitions).
fn strip(sql: &str) -> String {
    let without_comments: String = sql
        .lines()
        .map(|line| line.split("--").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = without_comments.as_str();
    while let Some(start) = rest.find("$$") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("$$")
            .unwrap_or_else(|| panic!("unterminated $$ body in a migration"));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Splits at commas outside parentheses.
fn split_top(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(current.trim().to_owned());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_owned());
    }
    parts
}

/// The text inside the first balanced parentheses at or after `from`, and the rest.
fn parenthesized(text: &str) -> (String, String) {
    let open = text
        .find('(')
        .unwrap_or_else(|| panic!("expected '(' in: {text}"));
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return (
                        text[open + 1..open + i].to_owned(),
                        text[open + i + 1..].to_owned(),
                    );
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses in: {text}")
}

fn names(list: &str) -> Vec<String> {
    list.split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect()
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect()
}

/// `REFERENCES t (a, b)` within `text`: the target table and columns.
fn references(text: &str) -> Option<(String, Vec<String>)> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find("references ")?;
    let after = &text[at + "references ".len()..];
    let target = after
        .split(|c: char| c == '(' || c.is_whitespace())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let (cols, _) = parenthesized(after);
    Some((target, names(&cols)))
}

impl Schema {
    fn table(&mut self, name: &str, statement: &str) -> &mut Table {
        self.tables
            .get_mut(name)
            .unwrap_or_else(|| panic!("migration names unknown table {name}: {statement}"))
    }

    /// A table element of CREATE TABLE or ALTER TABLE ... ADD: a column or a constraint.
    fn add_element(&mut self, table: &str, element: &str, statement: &str) {
        let w = words(element);
        let mut element = element.to_owned();
        let mut constraint_name = None;
        if w[0] == "constraint" {
            constraint_name = Some(w[1].clone());
            element = element
                .splitn(3, char::is_whitespace)
                .nth(2)
                .unwrap_or("")
                .to_owned();
        }
        let w = words(&element);
        let t = self.table(table, statement);
        match w[0].as_str() {
            "primary" => {
                let (cols, _) = parenthesized(&element);
                t.primary_key = Some(names(&cols));
            }
            "unique" => {
                let (cols, _) = parenthesized(&element);
                let cols = names(&cols);
                let name =
                    constraint_name.unwrap_or_else(|| format!("{table}_{}_key", cols.join("_")));
                t.unique.push((name, cols));
            }
            "foreign" => {
                let (cols, rest) = parenthesized(&element);
                let cols = names(&cols);
                let (target, target_columns) = references(&rest)
                    .unwrap_or_else(|| panic!("FOREIGN KEY without REFERENCES: {statement}"));
                let name =
                    constraint_name.unwrap_or_else(|| format!("{table}_{}_fkey", cols.join("_")));
                t.foreign_keys.push(ForeignKey {
                    name,
                    columns: cols,
                    target,
                    target_columns,
                });
            }
            "check" => {}
            _ => {
                // A column: name, type, then inline constraints.
                let column = w[0].clone();
                t.columns.push(column.clone());
                let rest = w[1..].join(" ");
                if rest.contains("primary key") {
                    t.primary_key = Some(vec![column.clone()]);
                }
                if rest.split_whitespace().any(|x| x == "unique") {
                    t.unique
                        .push((format!("{table}_{column}_key"), vec![column.clone()]));
                }
                if let Some((target, target_columns)) = references(&element) {
                    t.foreign_keys.push(ForeignKey {
                        name: format!("{table}_{column}_fkey"),
                        columns: vec![column],
                        target,
                        target_columns,
                    });
                }
            }
        }
    }

    pub(crate) fn apply(&mut self, statement: &str, file: &str) {
        let w = words(statement);
        let head: Vec<&str> = w.iter().take(3).map(String::as_str).collect();
        match head.as_slice() {
            ["create", "table", name, ..] => {
                let name = name.trim_end_matches('(').to_owned();
                self.tables.insert(name.clone(), Table::default());
                let (body, _) = parenthesized(statement);
                for element in split_top(&body) {
                    self.add_element(&name, &element, statement);
                }
            }
            ["create", "index", _] | ["create", "unique", "index"] => {
                let unique = head[1] == "unique";
                let name = w[if unique { 3 } else { 2 }].clone();
                let on = w
                    .iter()
                    .position(|x| x == "on")
                    .unwrap_or_else(|| panic!("{file}: CREATE INDEX without ON: {statement}"));
                let table = w[on + 1].trim_end_matches('(').to_owned();
                let (cols, _) = parenthesized(statement);
                // An operator class after a column (`path text_pattern_ops`) is not part of
                // what the index covers; an expression (`lower(email)`) is kept whole.
                let cols: Vec<String> = names(&cols)
                    .into_iter()
                    .map(|c| match c.split_once(' ') {
                        Some((column, _)) if !c.contains('(') => column.to_owned(),
                        _ => c,
                    })
                    .collect();
                self.index_table.insert(name.clone(), table.clone());
                let t = self.table(&table, statement);
                if unique {
                    t.unique.push((name, cols));
                } else {
                    t.indexes.push((name, cols));
                }
            }
            ["drop", "index", name] => {
                let name = name.to_string();
                let table = self
                    .index_table
                    .remove(&name)
                    .unwrap_or_else(|| panic!("{file}: drops unknown index {name}"));
                let t = self.table(&table, statement);
                t.indexes.retain(|(n, _)| *n != name);
                t.unique.retain(|(n, _)| *n != name);
            }
            ["alter", "table", table] => {
                let table = table.to_string();
                let action = statement
                    .splitn(4, char::is_whitespace)
                    .nth(3)
                    .unwrap_or("")
                    .trim()
                    .to_owned();
                let a = words(&action);
                match (a[0].as_str(), a.get(1).map(String::as_str)) {
                    ("add", Some("column")) => {
                        let element = action.splitn(3, char::is_whitespace).nth(2).unwrap_or("");
                        self.add_element(&table, element, statement);
                    }
                    ("add", _) => {
                        let element = action.split_once(char::is_whitespace).map_or("", |x| x.1);
                        self.add_element(&table, element, statement);
                    }
                    ("drop", Some("column")) => {
                        let column = a[2].clone();
                        let t = self.table(&table, statement);
                        t.columns.retain(|c| *c != column);
                        // PostgreSQL drops what depends on the column with it.
                        t.unique.retain(|(_, cols)| !cols.contains(&column));
                        t.indexes.retain(|(_, cols)| !cols.contains(&column));
                        t.foreign_keys.retain(|fk| !fk.columns.contains(&column));
                    }
                    ("drop", Some("constraint")) => {
                        let name = a[2].clone();
                        let t = self.table(&table, statement);
                        let before = (t.unique.len(), t.foreign_keys.len());
                        t.unique.retain(|(n, _)| *n != name);
                        t.foreign_keys.retain(|fk| fk.name != name);
                        if name == format!("{table}_pkey") {
                            t.primary_key = None;
                        } else if name.ends_with("_check") {
                            // A CHECK constraint (PostgreSQL's `{table}_{column}_check`)
                            // is no key; the model does not track it.
                        } else if before == (t.unique.len(), t.foreign_keys.len()) {
                            panic!("{file}: drops unknown constraint {name} of {table}");
                        }
                    }
                    // Defaults and NOT NULL do not change keys.
                    ("alter", Some("column")) => {}
                    _ => panic!(
                        "{file}: the Citus schema test does not understand this ALTER TABLE; \
                         teach it (tests/tests/deploy/schema_model.rs): {statement}"
                    ),
                }
            }
            // Data changes and trigger plumbing do not change the schema's keys.
            ["insert", ..] | ["update", ..] | ["delete", ..] => {}
            ["create", "function", _] | ["create", "or", "replace"] | ["create", "trigger", _] => {}
            _ => panic!(
                "{file}: the Citus schema test does not understand this statement; teach it \
                 (tests/tests/deploy/schema_model.rs): {statement}"
            ),
        }
    }
}

/// The final PostgreSQL schema, replayed from migrations/postgres/*/up.sql in order.
pub(crate) fn schema() -> Schema {
    let dir = repo_root().join("migrations/postgres");
    let mut migrations: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path().join("up.sql"))
        .collect();
    migrations.sort();
    assert!(!migrations.is_empty(), "no migrations in {}", dir.display());
    let mut schema = Schema::default();
    for path in &migrations {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let file = path
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for statement in strip(&text).split(';') {
            let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
            if !statement.is_empty() {
                schema.apply(&statement, &file);
            }
        }
    }
    schema
}

/// The model's keys, constraints and indexes as comparable lines.
fn model_lines(schema: &Schema) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    for (name, table) in &schema.tables {
        let mut columns = table.columns.clone();
        columns.sort();
        lines.insert(format!("{name} columns {}", columns.join(",")));
        if let Some(pk) = &table.primary_key {
            lines.insert(format!("{name} primary key {}", pk.join(",")));
        }
        for (_, cols) in &table.unique {
            lines.insert(format!("{name} unique {}", cols.join(",")));
        }
        for (index, cols) in &table.indexes {
            lines.insert(format!("{name} index {index} {}", cols.join(",")));
        }
        for fk in &table.foreign_keys {
            lines.insert(format!(
                "{name} foreign key {} -> {} {}",
                fk.columns.join(","),
                fk.target,
                fk.target_columns.join(",")
            ));
        }
    }
    lines
}

/// The same lines read from PostgreSQL's catalog.
const CATALOG: &str = "
SELECT table_name || ' columns ' || string_agg(column_name, ',' ORDER BY column_name)
  FROM information_schema.columns
  WHERE table_schema = 'public' AND table_name <> '__diesel_schema_migrations'
  GROUP BY table_name
UNION ALL
SELECT c.conrelid::regclass::text || CASE c.contype WHEN 'p' THEN ' primary key '
         WHEN 'u' THEN ' unique ' ELSE ' foreign key ' END
       || (SELECT string_agg(a.attname, ',' ORDER BY k.ord)
           FROM unnest(c.conkey) WITH ORDINALITY AS k(num, ord)
           JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.num)
       || CASE WHEN c.contype = 'f' THEN ' -> ' || c.confrelid::regclass::text || ' '
            || (SELECT string_agg(a.attname, ',' ORDER BY k.ord)
                FROM unnest(c.confkey) WITH ORDINALITY AS k(num, ord)
                JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.num)
          ELSE '' END
  FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
  WHERE n.nspname = 'public' AND c.contype IN ('p', 'u', 'f')
    AND c.conrelid::regclass::text <> '__diesel_schema_migrations'
UNION ALL
SELECT i.indrelid::regclass::text
       || CASE WHEN i.indisunique THEN ' unique ' ELSE ' index ' || ci.relname || ' ' END
       || (SELECT string_agg(pg_get_indexdef(i.indexrelid, k.ord, true), ',' ORDER BY k.ord)
           FROM generate_series(1, i.indnkeyatts::int) AS k(ord))
  FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid
  JOIN pg_namespace n ON n.oid = ci.relnamespace
  WHERE n.nspname = 'public' AND NOT i.indisprimary
    AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype = 'u')
    AND i.indrelid::regclass::text <> '__diesel_schema_migrations'
";

/// The model the rules are checked on is the schema PostgreSQL builds from the same
/// migrations: tables, columns, primary keys, unique keys, foreign keys and indexes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schema_model_matches_a_migrated_postgres_database() {
    let Some(db) = ledger_store::testing::TestDb::postgres().await else {
        eprintln!("LEDGER_TEST_PG_URL is not set: skipping the PostgreSQL run");
        return;
    };
    let output = std::process::Command::new("psql")
        .args([db.url.as_str(), "-v", "ON_ERROR_STOP=1", "-Atc", CATALOG])
        .output()
        .unwrap_or_else(|e| panic!("psql is needed (apt-get install postgresql-client-15): {e}"));
    assert!(
        output.status.success(),
        "psql: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let catalog: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let model = model_lines(&schema());
    let missing: Vec<_> = catalog.difference(&model).collect();
    let extra: Vec<_> = model.difference(&catalog).collect();
    db.cleanup().await;
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the migrations' model differs from PostgreSQL's catalog.\n in the database only: \
         {missing:#?}\n in the model only: {extra:#?}"
    );
}
