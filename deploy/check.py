#!/usr/bin/env python3
"""Offline checks of the deployment files against the code they deploy.

Run from anywhere: `python3 deploy/check.py` (PyYAML needed). It checks that every YAML
file parses; that the Dockerfile, docker-compose.yml and the Kubernetes manifests only
name environment variables that `ledger-server` reads (crates/server/src/config.rs),
subcommands it has and routes it serves; and the structure the deployment relies on
(non-root, probes on /health, a migrate step before server and worker, the autoscaler,
disruption budget and Service pointing at the server pods). When `kubernetes-validate`
or `hadolint` is on PATH it runs them too (they are not required).
The Rust test `tests/tests/deploy_files.rs` runs this script.
"""

import pathlib
import re
import shutil
import subprocess
import sys

import yaml

DEPLOY = pathlib.Path(__file__).resolve().parent
ROOT = DEPLOY.parent
K8S = DEPLOY / "k8s"

failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")


def config_env_names():
    text = (ROOT / "crates/server/src/config.rs").read_text()
    names = set(re.findall(r'env\s*=\s*"([A-Z0-9_]+)"', text))
    if "DATABASE_URL" not in names:
        fail("config.rs", "no env names found (has the file moved?)")
    return names


def subcommands():
    text = (ROOT / "crates/server/src/config.rs").read_text()
    body = text.split("pub enum Command {", 1)[1].split("}", 1)[0]
    variants = re.findall(r"^\s*([A-Z][A-Za-z]*),", body, re.M)
    # clap's kebab-case names: VerifyBalances -> verify-balances.
    return {re.sub(r"(?<!^)([A-Z])", r"-\1", v).lower() for v in variants}


def served_paths():
    paths = set()
    for f in (ROOT / "crates").rglob("*.rs"):
        text = f.read_text()
        # `cfg.route("/x", ...)`, and the REST registrar's `at("/x")`.
        paths.update(re.findall(r'\.route\(\s*"(/[^"{]*)"', text))
        paths.update(re.findall(r'\bat\(\s*"(/[^"{]*)"', text))
    return paths


ENV = config_env_names()
COMMANDS = subcommands()
PATHS = served_paths()


def check_env(where, names):
    for name in names:
        if name not in ENV:
            fail(where, f"environment variable {name} is not read by ledger-server "
                        f"(config.rs knows {', '.join(sorted(ENV))})")


def check_args(where, args):
    if not args or args[0] not in COMMANDS:
        fail(where, f"command {args!r} is not a ledger-server subcommand {sorted(COMMANDS)}")


def load_all(path):
    try:
        return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    except yaml.YAMLError as e:
        fail(path.name, f"does not parse: {e}")
        return []


def check_dockerfile():
    where = "Dockerfile"
    text = (DEPLOY / "Dockerfile").read_text()
    channel = re.search(r'channel\s*=\s*"([^"]+)"', (ROOT / "rust-toolchain.toml").read_text())
    version = re.search(r"ARG RUST_VERSION=(\S+)", text)
    if not channel or not version or version.group(1) != channel.group(1):
        fail(where, "ARG RUST_VERSION must equal rust-toolchain.toml's channel")
    if "FROM rust:${RUST_VERSION}" not in text:
        fail(where, "the builder stage must be rust:${RUST_VERSION}")
    if "cargo build --release -p server --bin ledger-server --locked" not in text:
        fail(where, "the release build command is missing")
    stages = re.findall(r"^FROM\s+(\S+)", text, re.M)
    if len(stages) < 2:
        fail(where, "must be multi-stage")
    users = re.findall(r"^USER\s+(\S+)", text, re.M)
    if not users or users[-1].split(":")[0] in ("0", "root"):
        fail(where, "the runtime stage must run as a non-root USER")
    elif not users[-1].split(":")[0].isdigit():
        fail(where, "USER must be numeric so Kubernetes can verify runAsNonRoot")
    if not re.search(r"^EXPOSE 8080$", text, re.M):
        fail(where, "EXPOSE 8080 missing")
    if "ENV LEDGER_ADDR=0.0.0.0:8080" not in text:
        fail(where, "LEDGER_ADDR=0.0.0.0:8080 missing")
    health = re.search(r"^HEALTHCHECK.*?CMD (.*)$", text, re.M | re.S)
    if not health or "/health" not in health.group(1):
        fail(where, "HEALTHCHECK must poll /health")
    check_env(where, re.findall(r"^ENV\s+([A-Z0-9_]+)=", text, re.M))
    cmd = re.search(r"^CMD\s+(\[.*\])$", text, re.M)
    if cmd:
        check_args(where, yaml.safe_load(cmd.group(1)))
    dockerignore = ROOT / ".dockerignore"
    if not dockerignore.exists() or "target" not in dockerignore.read_text().split():
        fail(".dockerignore", "must exist at the build context root and exclude target")


def check_compose():
    where = "docker-compose.yml"
    docs = load_all(DEPLOY / "docker-compose.yml")
    if not docs:
        return
    services = docs[0].get("services", {})
    for name in ("postgres", "migrate", "server", "worker"):
        if name not in services:
            fail(where, f"service {name} missing")
    if failures:
        return
    pg = services["postgres"]
    if not str(pg.get("image", "")).startswith("postgres:15"):
        fail(where, "postgres must be postgres:15")
    if "healthcheck" not in pg:
        fail(where, "postgres needs a healthcheck")
    for name, command, after, condition in (
        ("migrate", "migrate", "postgres", "service_healthy"),
        ("server", "serve", "migrate", "service_completed_successfully"),
        ("worker", "worker", "migrate", "service_completed_successfully"),
    ):
        service = services[name]
        check_args(f"{where} {name}", service.get("command"))
        if service.get("command") != [command]:
            fail(where, f"{name} must run `{command}`")
        depends = service.get("depends_on", {})
        if not isinstance(depends, dict) or depends.get(after, {}).get("condition") != condition:
            fail(where, f"{name} must depend on {after} with condition {condition}")
        env = service.get("environment", {})
        check_env(f"{where} {name}", env.keys())
        if "DATABASE_URL" not in env or "@postgres:5432/" not in env["DATABASE_URL"]:
            fail(where, f"{name} must reach the postgres service through DATABASE_URL")
        build = service.get("build", {})
        if build.get("dockerfile") != "deploy/Dockerfile":
            fail(where, f"{name} must build deploy/Dockerfile")
    if services["server"].get("environment", {}).get("LEDGER_ADDR") != "0.0.0.0:8080":
        fail(where, "server must listen on 0.0.0.0:8080")


def containers_of(doc):
    spec = doc["spec"]
    if doc["kind"] in ("Deployment", "Job"):
        spec = spec["template"]["spec"]
    return spec, spec.get("containers", [])


def check_pod(where, pod_spec, containers, configmaps, secrets):
    security = pod_spec.get("securityContext", {})
    if security.get("runAsNonRoot") is not True or not security.get("runAsUser"):
        fail(where, "pod must set runAsNonRoot and a non-zero runAsUser")
    for c in containers:
        if c.get("image") != "ledger-server":
            fail(where, f"container {c['name']} must use the image name ledger-server "
                        "(kustomization.yaml sets the tag)")
        check_args(f"{where} {c['name']}", c.get("args"))
        check_env(where, [e["name"] for e in c.get("env", [])])
        for source in c.get("envFrom", []):
            if "configMapRef" in source and source["configMapRef"]["name"] not in configmaps:
                fail(where, f"unknown ConfigMap {source['configMapRef']['name']}")
            if "secretRef" in source and source["secretRef"]["name"] not in secrets:
                fail(where, f"unknown Secret {source['secretRef']['name']}")
        if c.get("securityContext", {}).get("allowPrivilegeEscalation") is not False:
            fail(where, f"container {c['name']} must set allowPrivilegeEscalation: false")


def check_k8s():
    kustomization = load_all(K8S / "kustomization.yaml")
    resources = kustomization[0].get("resources", []) if kustomization else []
    by_kind = {}
    for name in resources:
        path = K8S / name
        if not path.exists():
            fail("kustomization.yaml", f"resource {name} does not exist")
            continue
        for doc in load_all(path):
            by_kind.setdefault(doc["kind"], []).append((name, doc))
    for path in K8S.glob("*.yaml"):
        load_all(path)
    configmaps = {}
    for name, doc in by_kind.get("ConfigMap", []):
        configmaps[doc["metadata"]["name"]] = doc
        check_env(name, doc.get("data", {}).keys())
    secrets = {}
    for doc in load_all(K8S / "secret.example.yaml"):
        secrets[doc["metadata"]["name"]] = doc
        check_env("secret.example.yaml", doc.get("stringData", {}).keys())

    deployments = {doc["metadata"]["name"]: (name, doc) for name, doc in by_kind.get("Deployment", [])}
    server = deployments.get("ledger-server")
    worker = deployments.get("ledger-worker")
    if not server or not worker:
        fail("k8s", "Deployments ledger-server and ledger-worker are required")
        return
    server_labels = server[1]["spec"]["template"]["metadata"]["labels"]
    if server[1]["spec"]["selector"]["matchLabels"].items() - server_labels.items():
        fail(server[0], "selector does not match the pod labels")
    pod, containers = containers_of(server[1])
    check_pod(server[0], pod, containers, configmaps, secrets)
    main = containers[0]
    if main.get("args") != ["serve"]:
        fail(server[0], "the server container must run `serve`")
    port_names = {p.get("name"): p["containerPort"] for p in main.get("ports", [])}
    if port_names.get("http") != 8080:
        fail(server[0], "port http must be 8080 (LEDGER_ADDR)")
    for probe in ("readinessProbe", "livenessProbe"):
        get = main.get(probe, {}).get("httpGet", {})
        if get.get("path") not in PATHS:
            fail(server[0], f"{probe} path {get.get('path')!r} is not a route the server serves")
        if get.get("port") not in ("http", 8080):
            fail(server[0], f"{probe} must probe port http")

    pod, containers = containers_of(worker[1])
    check_pod(worker[0], pod, containers, configmaps, secrets)
    if containers[0].get("args") != ["worker"]:
        fail(worker[0], "the worker container must run `worker`")

    jobs = by_kind.get("Job", [])
    if not any(containers_of(doc)[1][0].get("args") == ["migrate"] for _, doc in jobs):
        fail("k8s", "a Job running `migrate` is required")
    for name, doc in jobs:
        pod, containers = containers_of(doc)
        check_pod(name, pod, containers, configmaps, secrets)

    for name, doc in by_kind.get("Service", []):
        if doc["spec"]["selector"].items() - server_labels.items():
            fail(name, "the Service must select the server pods")
        for port in doc["spec"]["ports"]:
            if port.get("targetPort") not in ("http", 8080):
                fail(name, "the Service must target port http")
    hpas = by_kind.get("HorizontalPodAutoscaler", [])
    if not hpas or any(doc["spec"]["scaleTargetRef"]["name"] != "ledger-server" for _, doc in hpas):
        fail("k8s", "a HorizontalPodAutoscaler of Deployment ledger-server is required")
    pdbs = by_kind.get("PodDisruptionBudget", [])
    if not pdbs or any(
        doc["spec"]["selector"]["matchLabels"].items() - server_labels.items() for _, doc in pdbs
    ):
        fail("k8s", "a PodDisruptionBudget selecting the server pods is required")


def run_optional_linters():
    ran = []
    validate = shutil.which("kubernetes-validate")
    if validate:
        files = [str(p) for p in sorted(K8S.glob("*.yaml")) if p.name != "kustomization.yaml"]
        result = subprocess.run([validate, "--strict", "--quiet", *files], capture_output=True, text=True)
        if result.returncode != 0:
            fail("kubernetes-validate", result.stdout + result.stderr)
        ran.append("kubernetes-validate --strict")
    kubectl = shutil.which("kubectl")
    if kubectl:
        # The kustomization renders (image tag applied) and the release order's selector
        # picks exactly the ConfigMap and the migrate Job.
        result = subprocess.run([kubectl, "kustomize", str(K8S)], capture_output=True, text=True)
        if result.returncode != 0:
            fail("kubectl kustomize", result.stderr)
        else:
            rendered = [d for d in yaml.safe_load_all(result.stdout) if d]
            images = {c["image"] for d in rendered if d["kind"] in ("Deployment", "Job")
                      for c in containers_of(d)[1]}
            if len(images) != 1 or ":" not in next(iter(images)):
                fail("kubectl kustomize", f"expected one tagged image, got {images}")
            first = sorted(d["kind"] for d in rendered
                           if d["metadata"].get("labels", {}).get("app.kubernetes.io/component")
                           in ("config", "migrate"))
            if first != ["ConfigMap", "Job"]:
                fail("kubectl kustomize", f"the migrate step would apply {first}")
            ran.append("kubectl kustomize")
    hadolint = shutil.which("hadolint")
    if hadolint:
        result = subprocess.run([hadolint, str(DEPLOY / "Dockerfile")], capture_output=True, text=True)
        if result.returncode != 0:
            fail("hadolint", result.stdout + result.stderr)
        ran.append("hadolint")
    return ran


def main():
    check_dockerfile()
    check_compose()
    check_k8s()
    ran = run_optional_linters()
    if failures:
        print("deployment files: FAILED")
        for f in failures:
            print(f"  - {f}")
        return 1
    extra = f"; also ran {', '.join(ran)}" if ran else " (kubernetes-validate, hadolint: not installed)"
    print(f"deployment files: ok (env names, subcommands, routes, structure){extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
