//! The Dockerfile, docker-compose.yml and Kubernetes manifests name only settings,
//! subcommands and routes the server has, and keep the structure the deployment relies
//! on. The checks live in `deploy/check.py` (PyYAML), which operators can run alone.

use std::path::Path;
use std::process::Command;

#[test]
fn deployment_files_match_the_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let script = root.join("deploy/check.py");
    let output = Command::new("python3")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| {
            panic!("python3 is needed to check the deployment files (apt-get install python3 python3-yaml): {e}")
        });
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}{stderr}");
    assert!(
        output.status.success(),
        "deploy/check.py failed (PyYAML missing? `apt-get install python3-yaml`):\n{stdout}{stderr}"
    );
}
