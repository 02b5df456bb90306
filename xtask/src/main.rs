//! `cargo xtask`: project chores (`test`, `migrate`, `bench`, `chaos`, `soak`), in Rust so they run the
//! same on every machine.

mod bench;
mod chaos;
#[cfg(test)]
mod tidy;

use std::process::{Command, ExitCode};

use anyhow::{Context, bail};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  test       run every test (SQLite always; PostgreSQL too when LEDGER_TEST_PG_URL is set)
  migrate    apply database migrations to DATABASE_URL (default: the embedded SQLite file)
  graphql-schema
             write the GraphQL schema (SDL) to docs/schema.graphql
  openapi    write the REST API's OpenAPI document to docs/openapi.json
  bench      load the release server over HTTP on SQLite and PostgreSQL against a plain-SQL
             baseline (`cargo xtask bench --help` for options)
  chaos      idempotent writes while the server is killed and its database connections
             cut or stalled; fails on any lost, duplicated or half-applied write
             (`cargo xtask chaos --help`; `--short` is the CI length)
  soak       steady mixed load for some minutes (`--minutes N`), failing when the
             server's memory or open file descriptors grow (`cargo xtask chaos --soak`)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("chaos") => chaos::run(&args[1..], false),
        Some("soak") => chaos::run(&args[1..], true),
        Some("graphql-schema") => graphql_schema(),
        Some("openapi") => openapi(),
        Some("migrate") => cargo(&[
            "run",
            "--quiet",
            "-p",
            "server",
            "--bin",
            "ledger-server",
            "--",
            "migrate",
        ]),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the SDL of the GraphQL schema to `docs/schema.graphql` (a test fails when the
/// committed file differs from the schema).
fn graphql_schema() -> anyhow::Result<()> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schema.graphql");
    let sdl = ledger_graphql::sdl::<ledger_store::Db>();
    std::fs::write(&path, &sdl).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("xtask: wrote {} ({} bytes)", path.display(), sdl.len());
    Ok(())
}

/// Writes the OpenAPI document to `docs/openapi.json`, pretty-printed with a final newline
/// (a test fails when the committed file differs from what the server serves), so that a
/// change to the REST contract shows in review and client generators can read a file.
fn openapi() -> anyhow::Result<()> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json");
    let text = ledger_rest::openapi_text();
    std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("xtask: wrote {} ({} bytes)", path.display(), text.len());
    Ok(())
}

fn cargo(args: &[&str]) -> anyhow::Result<()> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .status()
        .with_context(|| format!("running cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}

fn has_nextest() -> bool {
    Command::new("cargo-nextest")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn test(extra: &[String]) -> anyhow::Result<()> {
    match std::env::var("LEDGER_TEST_PG_URL") {
        Ok(url) if !url.is_empty() => eprintln!("xtask: PostgreSQL runs included ({url})"),
        _ => eprintln!("xtask: LEDGER_TEST_PG_URL is not set; PostgreSQL runs are skipped"),
    }
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    if has_nextest() {
        // nextest does not run doc tests; run them first so nextest's summary closes the run.
        cargo(&["test", "--workspace", "--all-features", "--doc", "--quiet"])?;
        let mut args = vec![
            "nextest",
            "run",
            "--workspace",
            "--all-features",
            "--no-fail-fast",
        ];
        args.extend(&extra);
        cargo(&args)
    } else {
        let mut args = vec!["test", "--workspace", "--all-features", "--no-fail-fast"];
        args.extend(&extra);
        cargo(&args)
    }
}
