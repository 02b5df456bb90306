//! Architecture invariants as tests (in the style of rust-analyzer's `xtask/src/tidy.rs`):
//! each reads the source tree and fails, naming the file and line, when a rule of
//! ARCHITECTURE.md is broken.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace root (this crate sits one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The code of a line: what comes before a `//` comment (doc comments included).
fn code_of(line: &str) -> &str {
    line.find("//").map_or(line, |at| &line[..at])
}

/// Whether `word` occurs in `code` as a whole identifier.
fn names(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

/// The lines of the files under `dirs` whose code names one of `words`.
fn offending(dirs: &[&str], words: &[&str]) -> Vec<String> {
    let root = root();
    let mut found = Vec::new();
    for dir in dirs {
        for file in rust_files(&root.join(dir)) {
            let text = std::fs::read_to_string(&file).expect("a readable source file");
            for (n, line) in text.lines().enumerate() {
                let code = code_of(line);
                for word in words {
                    if names(code, word) {
                        let shown = file.strip_prefix(&root).unwrap_or(&file).display();
                        found.push(format!("{shown}:{}: names {word}", n + 1));
                    }
                }
            }
        }
    }
    found
}

/// A store reports facts (`StoreError`); the domain decides and words every refusal
/// (`ledger-domain/src/ports/facts.rs`). Neither store names an error code or builds a
/// `DomainError`.
#[test]
fn stores_report_facts() {
    let found = offending(
        &["crates/ledger-store/src", "crates/ledger-domain/src/memory"],
        &["ErrorCode", "DomainError", "DomainResult"],
    );
    assert!(
        found.is_empty(),
        "a store must return StoreError facts, never a refusal:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_look_for() {
    assert!(names("Err(DomainError::Internal(x))", "DomainError"));
    assert!(!names("Err(StoreError::Internal(x))", "DomainError"));
    assert!(!names("MyDomainErrorish", "DomainError"));
    assert_eq!(code_of("let a = 1; // DomainError"), "let a = 1; ");
    let files = rust_files(&root().join("crates/ledger-store/src"));
    assert!(files.len() > 10, "the store's sources were not found");
}

/// The top-level modules of the crate at `src` (a directory under the workspace root),
/// each with the top-level modules its code names (`crate::x`, `crate::{x, y}`). Tests
/// (a `tests` module or directory) are left out: they may reach anything.
fn module_graph(src: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join(src);
    let is_module =
        |name: &str| src.join(format!("{name}.rs")).is_file() || src.join(name).is_dir();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).expect("under src");
        let parts: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
            .collect();
        if parts.iter().any(|p| p == "tests") || parts[0] == "lib" || parts[0] == "main" {
            continue;
        }
        let module = parts[0].clone();
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        let mut code = String::new();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            // An inline test module ends what is read; a `mod tests;` declaration (the
            // tests in a file of their own, left out above) does not.
            if line.trim() == "#[cfg(test)]"
                && lines.peek().is_some_and(|next| {
                    let next = next.trim();
                    next.starts_with("mod tests") && next.ends_with('{')
                })
            {
                break;
            }
            code.push_str(code_of(line));
            code.push('\n');
        }
        let named = graph.entry(module.clone()).or_default();
        for name in crate_paths(&code) {
            if name != module && is_module(&name) {
                named.insert(name);
            }
        }
    }
    graph
}

/// The first segments of the `crate::` paths in `code`.
fn crate_paths(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push(ident(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            found.push(ident(item.trim()));
        } else {
            found.push(ident(rest));
        }
    }
    found.retain(|name| !name.is_empty());
    found
}

/// A circle of `graph`, as the modules on it, if it has one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        graph: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == at) {
            let mut found = path[start..].to_vec();
            found.push(at.to_owned());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_owned());
        for next in graph.get(at).into_iter().flatten() {
            if let Some(found) = visit(graph, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| visit(graph, module, &mut Vec::new(), &mut done))
}

/// `ledger-domain`'s layers, lowest first (ARCHITECTURE.md): a module names modules of
/// its own layer or of a lower one, never of a higher one.
const DOMAIN_LAYERS: &[(&str, &[&str])] = &[
    (
        "values",
        &[
            "dates",
            "error",
            "ids",
            "money",
            "references",
            "urls",
            "wire",
        ],
    ),
    (
        "rules and state machines",
        &[
            "accounts",
            "attachments",
            "categories",
            "contacts",
            "credits",
            "documents",
            "events",
            "exchange",
            "jobs",
            "oauth",
            "organizations",
            "ownership",
            "reconciliation",
            "recurring",
            "reports",
            "tax",
            "transactions",
            "transfers",
            "webhooks",
            "x402",
        ],
    ),
    ("ports", &["ports"]),
    ("views", &["views"]),
    ("services and the memory store", &["memory", "services"]),
];

/// `ledger-domain` and `ledger-store` have no module circle: a reader can tell which
/// module sits below which.
#[test]
fn no_module_circles() {
    for src in ["crates/ledger-domain/src", "crates/ledger-store/src"] {
        let graph = module_graph(src);
        assert!(graph.len() > 10, "{src}: the modules were not found");
        if let Some(found) = circle(&graph) {
            panic!(
                "{src}: modules import each other in a circle: {}",
                found.join(" -> ")
            );
        }
    }
}

/// Every `ledger-domain` module has its layer, and names nothing above it.
#[test]
fn domain_modules_point_down() {
    let layer_of = |module: &str| {
        DOMAIN_LAYERS
            .iter()
            .position(|(_, modules)| modules.contains(&module))
    };
    let mut found = Vec::new();
    for (module, named) in module_graph("crates/ledger-domain/src") {
        let Some(layer) = layer_of(&module) else {
            found.push(format!(
                "{module}: in no layer of DOMAIN_LAYERS (xtask/src/tidy.rs)"
            ));
            continue;
        };
        for other in named {
            match layer_of(&other) {
                Some(other_layer) if other_layer > layer => found.push(format!(
                    "{module} ({}) names {other} ({}), a higher layer",
                    DOMAIN_LAYERS[layer].0, DOMAIN_LAYERS[other_layer].0
                )),
                _ => {}
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn circles_and_paths_are_found() {
    assert_eq!(
        crate_paths("use crate::a::b; use crate::{c::d, e}; x = crate::f(); $crate::g"),
        ["a", "c", "e", "f"]
    );
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]
    .into();
    assert_eq!(
        circle(&graph),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    let line: BTreeMap<String, BTreeSet<String>> =
        [("a".to_owned(), BTreeSet::from(["b".to_owned()]))].into();
    assert_eq!(circle(&line), None);
}

/// The most lines a source file may have (STYLE.md 6: a file that passes it is asking to
/// be split along a seam). Black-box suites (`tests/`, `crates/*/tests`) are scenarios,
/// not modules, and are not held to it.
const MAX_FILE_LINES: usize = 600;

/// No source file of a crate or of xtask is over [`MAX_FILE_LINES`].
#[test]
fn source_files_stay_small() {
    let root = root();
    let mut dirs = vec![root.join("xtask/src")];
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let src = entry.expect("a crate").path().join("src");
        if src.is_dir() {
            dirs.push(src);
        }
    }
    let mut found = Vec::new();
    for dir in &dirs {
        for file in rust_files(dir) {
            let lines = std::fs::read_to_string(&file)
                .expect("a readable source file")
                .lines()
                .count();
            if lines > MAX_FILE_LINES {
                let shown = file.strip_prefix(&root).unwrap_or(&file).display();
                found.push(format!("{shown}: {lines} lines"));
            }
        }
    }
    assert!(dirs.len() > 10, "the crates were not found");
    assert!(
        found.is_empty(),
        "over {MAX_FILE_LINES} lines; split along a seam:\n{}",
        found.join("\n")
    );
}
