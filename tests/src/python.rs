//! The outside Python checkers the Rust suites drive (the official MCP SDK, the reference
//! x402 client, graphql-core, standardwebhooks, Playwright): one way to find the
//! workspace, check that python3 can import what a checker needs, run a script and read
//! what it printed.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::Command;

/// The workspace's root directory (the scripts live under its `tests/`).
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// `Ok` when `python3 -c "<imports>"` runs; otherwise why not (python3 missing, or the
/// import's error).
pub fn python_imports(imports: &str) -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", imports])
        .output()
        .map_err(|e| format!("python3 is not installed or not on PATH ({e})"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "python3 cannot run `{imports}`: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Panics, saying how to install them (`install`), unless python3 can run `imports`.
pub fn require_python(imports: &str, install: &str) {
    if let Err(why) = python_imports(imports) {
        panic!("{why}\nThis test needs: {install}");
    }
}

/// What a script printed and how it ended.
#[derive(Debug)]
pub struct ScriptOutput {
    /// The exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl ScriptOutput {
    /// Panics with both outputs unless the script exited 0 and printed every one of
    /// `labels`; `what` names the check in the message.
    pub fn assert_ok(&self, what: &str, labels: &[&str]) {
        let (stdout, stderr) = (&self.stdout, &self.stderr);
        assert!(
            self.code == Some(0),
            "{what} failed ({:?})\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            self.code
        );
        for label in labels {
            assert!(
                stdout.contains(label),
                "{what}: `{label}` was not printed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
            );
        }
    }
}

/// Runs `python3 <script> <args>` in the workspace with `env` added, on a blocking thread
/// (so the test's runtime keeps serving the server the script talks to). Panics only when
/// python3 cannot be started.
pub async fn run_python<K, V>(
    script: PathBuf,
    args: Vec<OsString>,
    env: impl IntoIterator<Item = (K, V)>,
) -> ScriptOutput
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    let env: Vec<(OsString, OsString)> = env
        .into_iter()
        .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
        .collect();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .arg(&script)
            .args(args)
            .current_dir(workspace())
            .envs(env)
            .output()
            .unwrap_or_else(|e| panic!("python3 cannot run {} ({e})", script.display()))
    })
    .await
    .expect("python task");
    ScriptOutput {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
