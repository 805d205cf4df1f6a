#!/usr/bin/env python3
"""Record (or check) the build and machine facts behind Frazil's results: environment.json.

    python3 scripts/environment.py                 # writes <repo>/environment.json
    python3 scripts/environment.py --out FILE      # writes FILE instead
    python3 scripts/environment.py --check [FILE]  # FILE parses, has every key, hashes match

`make environment` runs the first form after building the release library and the jar.
Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEMA_VERSION = 1

# Crates whose linked versions every result must name (docs/versions.md, "Components").
REQUIRED_CRATES = (
    "arrow",
    "parquet",
    "jni",
    "mimalloc",
    "libmimalloc-sys",
    "zstd",
    "zstd-sys",
    "thiserror",
)

# Artifacts whose SHA-256 identifies the build; paths relative to the repository root.
ARTIFACTS = {
    "libfrazil_so": "target/release/libfrazil.so",
    "java_bridge_jar": "java-bridge/target/frazil-java-bridge-0.1.0.jar",
}

# Every key --check insists on (dotted paths into the JSON object).
REQUIRED_KEYS = (
    "schema_version",
    "generated_at_utc",
    "git.commit",
    "git.dirty",
    "git.dirty_paths",
    "rust.rustc.version",
    "rust.rustc.host",
    "rust.rustc.commit_hash",
    "rust.rustc.llvm_version",
    "rust.rustc.verbose",
    "rust.cargo.version",
    "rust.crates",
    *(f"rust.crates.{name}" for name in REQUIRED_CRATES),
    "build.profile",
    "build.command",
    "build.profile_release.lto",
    "build.profile_release.codegen-units",
    "build.profile_release.panic",
    "build.profile_release.debug",
    "build.rustflags",
    "allocator.name",
    "allocator.crate_version",
    "allocator.sys_crate_version",
    "jvm.vendor",
    "jvm.version",
    "jvm.runtime_version",
    "jvm.vm_name",
    "maven.version",
    "java_dependencies.flink",
    "java_dependencies.iceberg",
    "java_dependencies.arrow_java",
    *(f"artifacts.{key}.sha256" for key in ARTIFACTS),
    *(f"artifacts.{key}.path" for key in ARTIFACTS),
    *(f"artifacts.{key}.bytes" for key in ARTIFACTS),
    "machine.cpu_model",
    "machine.cpu_count",
    "machine.cpu_affinity",
    "machine.memory_total_bytes",
    "machine.os.system",
    "machine.os.release",
    "machine.os.version",
    "machine.os.machine",
)


def run(*cmd: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, check=False, timeout=120
    )


def run_ok(*cmd: str, cwd: Path = REPO) -> str:
    """stdout of a command that must succeed (stderr for the JVM's -version output)."""
    try:
        proc = run(*cmd, cwd=cwd)
    except FileNotFoundError as error:
        raise SystemExit(f"environment: cannot run {cmd[0]}: {error}")
    if proc.returncode != 0:
        raise SystemExit(
            f"environment: `{' '.join(cmd)}` failed ({proc.returncode}): {proc.stderr.strip()}"
        )
    return proc.stdout


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def key_values(text: str, separator: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        if separator in line:
            key, value = line.split(separator, 1)
            out[key.strip()] = value.strip()
    return out


def rust() -> dict:
    verbose = run_ok("rustc", "-vV")
    facts = key_values(verbose, ":")
    cargo = run_ok("cargo", "-V").strip()
    return {
        "rustc": {
            "version": facts.get("release"),
            "host": facts.get("host"),
            "commit_hash": facts.get("commit-hash"),
            "commit_date": facts.get("commit-date"),
            "llvm_version": facts.get("LLVM version"),
            "verbose": verbose.strip(),
        },
        "cargo": {"version": cargo.split()[1] if len(cargo.split()) > 1 else cargo, "verbose": cargo},
        "crates": crates(),
    }


def crates() -> dict:
    """Versions from Cargo.lock of the crates linked into libfrazil.so.

    `cargo tree -e normal` (offline, locked) tells which lock entries are really linked (not
    dev-dependencies such as criterion, not build scripts); proc-macros are listed separately.
    """
    lock = tomllib.loads((REPO / "Cargo.lock").read_text())
    by_name: dict[str, list[str]] = {}
    for package in lock.get("package", []):
        by_name.setdefault(package["name"], []).append(package["version"])

    linked: dict[str, set[str]] = {}
    proc_macros: dict[str, set[str]] = {}
    source = "Cargo.lock"

    def tree(edges: str) -> dict[str, set[str]] | None:
        try:
            proc = run(
                "cargo", "tree", "--offline", "--locked", "-p", "frazil-native",
                "-e", edges, "--prefix", "none", "-f", "{p}",
            )
        except (FileNotFoundError, subprocess.TimeoutExpired):
            return None
        if proc.returncode != 0:
            return None
        found: dict[str, set[str]] = {}
        for line in proc.stdout.splitlines():
            match = re.match(r"(\S+) v(\S+)(.*)", line.strip())
            if match and match.group(1) != "frazil-native":
                found.setdefault(match.group(1), set()).add(match.group(2))
        return found

    # Linked into the cdylib: normal dependencies, minus proc-macros and what only they use.
    linked_tree = tree("normal,no-proc-macro")
    if linked_tree is not None:
        source = "Cargo.lock + cargo tree -e normal,no-proc-macro"
        linked = linked_tree
        everything = tree("normal") or {}
        proc_macros = {name: v for name, v in everything.items() if name not in linked}

    def versions(name: str) -> str | list[str] | None:
        found = sorted(linked.get(name) or by_name.get(name) or [])
        if not found:
            return None
        return found[0] if len(found) == 1 else found

    out: dict = {name: versions(name) for name in REQUIRED_CRATES}
    out["_source"] = source
    if linked:
        out["_linked"] = {name: versions(name) for name in sorted(linked)}
        out["_compile_time_only"] = {
            name: sorted(found) if len(found) > 1 else next(iter(found))
            for name, found in sorted(proc_macros.items())
        }
    return out


def build() -> dict:
    cargo_toml = tomllib.loads((REPO / "Cargo.toml").read_text())
    release = cargo_toml.get("profile", {}).get("release", {})
    return {
        "profile": "release",
        "command": "cargo build --release -p frazil-native",
        "profile_release": {
            "lto": release.get("lto", False),
            "codegen-units": release.get("codegen-units", 16),
            "panic": release.get("panic", "unwind"),
            "debug": release.get("debug", False),
            "opt-level": release.get("opt-level", 3),
        },
        "rustflags": os.environ.get("RUSTFLAGS"),
        "cargo_encoded_rustflags": os.environ.get("CARGO_ENCODED_RUSTFLAGS"),
        "cargo_build_target": os.environ.get("CARGO_BUILD_TARGET"),
    }


def allocator() -> dict:
    lock = tomllib.loads((REPO / "Cargo.lock").read_text())
    versions = {p["name"]: p["version"] for p in lock.get("package", [])}
    cargo_toml = tomllib.loads((REPO / "Cargo.toml").read_text())
    spec = cargo_toml.get("workspace", {}).get("dependencies", {}).get("mimalloc", {})
    return {
        "name": "mimalloc",
        "crate_version": versions.get("mimalloc"),
        "sys_crate": "libmimalloc-sys",
        "sys_crate_version": versions.get("libmimalloc-sys"),
        "features": spec.get("features", []) if isinstance(spec, dict) else [],
        "default_features": spec.get("default-features", True) if isinstance(spec, dict) else True,
    }


def jvm() -> dict:
    try:
        proc = run("java", "-XshowSettings:properties", "-version")
    except FileNotFoundError as error:
        raise SystemExit(f"environment: cannot run java: {error}")
    props = key_values(proc.stderr, " = ")
    version_line = next(
        (line for line in proc.stderr.splitlines() if " version " in line and not line.startswith(" ")),
        None,
    )
    return {
        "vendor": props.get("java.vendor"),
        "vendor_version": props.get("java.vendor.version"),
        "version": props.get("java.version"),
        "runtime_version": props.get("java.runtime.version"),
        "runtime_name": props.get("java.runtime.name"),
        "vm_name": props.get("java.vm.name"),
        "vm_version": props.get("java.vm.version"),
        "home": props.get("java.home"),
        "version_line": version_line,
    }


def maven() -> dict:
    mvn = os.environ.get("MVN_BIN", "mvn")
    text = re.sub(r"\x1b\[[0-9;]*m", "", run_ok(mvn, "-B", "-v"))
    match = re.search(r"Apache Maven (\S+)", text)
    return {"version": match.group(1) if match else None, "first_line": text.splitlines()[0] if text else None}


def java_dependencies() -> dict:
    root = ET.parse(REPO / "pom.xml").getroot()
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    props = root.find("m:properties", ns)

    def prop(name: str) -> str | None:
        element = props.find(f"m:{name}", ns) if props is not None else None
        return element.text.strip() if element is not None and element.text else None

    return {
        "flink": prop("flink.version"),
        "flink_minor": prop("flink.minor"),
        "iceberg": prop("iceberg.version"),
        "arrow_java": prop("arrow.version"),
        "hadoop": prop("hadoop.version"),
        "log4j": prop("log4j.version"),
        "source": "pom.xml <properties>",
    }


def artifacts() -> dict:
    out = {}
    for key, relative in ARTIFACTS.items():
        path = REPO / relative
        if not path.is_file():
            raise SystemExit(
                f"environment: {relative} is missing; build it first (`make native jvm`)"
            )
        stat = path.stat()
        out[key] = {
            "path": relative,
            "sha256": sha256(path),
            "bytes": stat.st_size,
            "modified_utc": _dt.datetime.fromtimestamp(stat.st_mtime, _dt.timezone.utc)
            .isoformat(timespec="seconds")
            .replace("+00:00", "Z"),
        }
    return out


def git() -> dict:
    commit = run_ok("git", "rev-parse", "HEAD").strip()
    status = run_ok("git", "status", "--porcelain")
    paths = [line[3:] for line in status.splitlines() if line.strip()]
    branch = run("git", "rev-parse", "--abbrev-ref", "HEAD").stdout.strip() or None
    return {
        "commit": commit,
        "short": commit[:7],
        "branch": branch,
        "dirty": bool(paths),
        "dirty_paths": paths,
    }


def machine() -> dict:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    models = [
        line.split(":", 1)[1].strip()
        for line in cpuinfo.splitlines()
        if line.startswith("model name")
    ]
    physical = {
        (block.get("physical id"), block.get("core id"))
        for block in (key_values(chunk, ":") for chunk in cpuinfo.split("\n\n"))
        if "core id" in block
    }
    meminfo = key_values(Path("/proc/meminfo").read_text(), ":") if Path("/proc/meminfo").exists() else {}

    def kib(name: str) -> int | None:
        value = meminfo.get(name)
        return int(value.split()[0]) * 1024 if value else None

    uname = platform.uname()
    os_release = {}
    if Path("/etc/os-release").exists():
        os_release = {
            k: v.strip('"') for k, v in key_values(Path("/etc/os-release").read_text(), "=").items()
        }
    return {
        "cpu_model": models[0] if models else platform.processor() or None,
        "cpu_count": os.cpu_count(),
        "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_physical_cores": len(physical) or None,
        "memory_total_bytes": kib("MemTotal"),
        "memory_available_bytes": kib("MemAvailable"),
        "os": {
            "system": uname.system,
            "node": uname.node,
            "release": uname.release,
            "version": uname.version,
            "machine": uname.machine,
            "pretty_name": os_release.get("PRETTY_NAME"),
        },
    }


def collect() -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_at_utc": _dt.datetime.now(_dt.timezone.utc)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z"),
        "generated_by": "scripts/environment.py",
        "git": git(),
        "rust": rust(),
        "build": build(),
        "allocator": allocator(),
        "jvm": jvm(),
        "maven": maven(),
        "java_dependencies": java_dependencies(),
        "artifacts": artifacts(),
        "machine": machine(),
    }


_MISSING = object()


def lookup(document: dict, dotted: str):
    node = document
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return _MISSING
        node = node[part]
    return node


def check(path: Path, hashes: bool = True) -> list[str]:
    """Problems with an existing environment.json (empty when it is sound)."""
    if not path.is_file():
        return [f"{path} does not exist (run `make environment`)"]
    try:
        document = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        return [f"{path} does not parse as JSON: {error}"]
    if not isinstance(document, dict):
        return [f"{path} is not a JSON object"]
    problems = [f"missing key {key}" for key in REQUIRED_KEYS if lookup(document, key) is _MISSING]
    for key in ("rust.rustc.version", "rust.rustc.host", "jvm.version", "git.commit",
                *(f"rust.crates.{name}" for name in REQUIRED_CRATES)):
        value = lookup(document, key)
        if value is not _MISSING and not value:
            problems.append(f"empty value for {key}")
    if "schema_version" in document and document["schema_version"] != SCHEMA_VERSION:
        problems.append(f"schema_version {document.get('schema_version')} != {SCHEMA_VERSION}")
    if hashes:
        for key, relative in ARTIFACTS.items():
            recorded = lookup(document, f"artifacts.{key}.sha256")
            if recorded is _MISSING:
                continue
            artifact = REPO / relative
            if not artifact.is_file():
                problems.append(f"{relative} is missing, cannot verify its sha256")
                continue
            actual = sha256(artifact)
            if actual != recorded:
                problems.append(
                    f"sha256 of {relative} is {actual}, {path.name} records {recorded} "
                    "(rebuilt since; run `make environment`)"
                )
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "environment.json", help="file to write")
    parser.add_argument(
        "--check", nargs="?", const=REPO / "environment.json", type=Path, metavar="FILE",
        help="verify FILE (default: <repo>/environment.json) instead of writing",
    )
    parser.add_argument(
        "--no-hashes", action="store_true", help="with --check: only parse and check keys"
    )
    args = parser.parse_args(argv)

    if args.check is not None:
        problems = check(args.check, hashes=not args.no_hashes)
        if problems:
            print(f"environment.json check failed for {args.check}:", file=sys.stderr)
            for problem in problems:
                print(f"  - {problem}", file=sys.stderr)
            return 1
        print(f"{args.check}: ok ({len(REQUIRED_KEYS)} keys"
              + ("" if args.no_hashes else ", artifact hashes match") + ")")
        return 0

    document = collect()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n")
    tmp.replace(args.out)
    print(
        f"wrote {args.out} (commit {document['git']['short']}"
        + (" dirty" if document["git"]["dirty"] else "")
        + f", libfrazil.so {document['artifacts']['libfrazil_so']['sha256'][:12]}…)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
