#!/usr/bin/env python3
"""Tests for environment.json (run by `make run-validate-smoke`, hence by `make test`).

- the committed <repo>/environment.json parses and carries every key;
- a freshly regenerated environment.json passes `--check` against the artifacts just built, and
  `--check` rejects a file whose hashes do not match, or which lacks a key;
- every results folder (bench/results/*/, validation/results*/, and validation/ itself once it
  holds a report) carries an environment.json that parses and has every key.

Python 3.11 standard library only: `python3 scripts/test_environment.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "environment.py"


def environment(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def results_folders() -> list[Path]:
    folders = [p for p in sorted((REPO / "bench" / "results").glob("*")) if p.is_dir()]
    folders += [p for p in sorted((REPO / "validation").glob("results*")) if p.is_dir()]
    # `make validate` writes its report straight into validation/.
    if (REPO / "validation" / "report.json").is_file():
        folders.append(REPO / "validation")
    return folders


class EnvironmentJsonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = tempfile.TemporaryDirectory(prefix="frazil-env-")
        cls.fresh = Path(cls.tmp.name) / "environment.json"
        proc = environment("--out", str(cls.fresh))
        if proc.returncode != 0:
            raise AssertionError(f"regenerating environment.json failed:\n{proc.stderr}")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmp.cleanup()

    def test_committed_file_parses_and_has_every_key(self) -> None:
        committed = REPO / "environment.json"
        self.assertTrue(committed.is_file(), "environment.json missing: run `make environment`")
        json.loads(committed.read_text())
        proc = environment("--check", str(committed), "--no-hashes")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # Informational: the committed hashes describe the build it was generated from.
        stale = environment("--check", str(committed))
        if stale.returncode != 0:
            print(
                "\nnote: environment.json describes another build than the artifacts on disk "
                "(expected after a rebuild; `make environment` refreshes it)",
                file=sys.stderr,
            )

    def test_regenerated_file_checks_against_fresh_artifacts(self) -> None:
        proc = environment("--check", str(self.fresh))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        document = json.loads(self.fresh.read_text())
        self.assertEqual(document["allocator"]["name"], "mimalloc")
        self.assertEqual(document["allocator"]["crate_version"], document["rust"]["crates"]["mimalloc"])
        for crate in ("arrow", "parquet", "jni", "zstd", "zstd-sys", "thiserror"):
            self.assertTrue(document["rust"]["crates"][crate], crate)
        self.assertEqual(len(document["artifacts"]["libfrazil_so"]["sha256"]), 64)
        self.assertEqual(document["build"]["profile_release"]["panic"], "unwind")

    def test_check_rejects_wrong_hash(self) -> None:
        document = json.loads(self.fresh.read_text())
        document["artifacts"]["libfrazil_so"]["sha256"] = "0" * 64
        tampered = Path(self.tmp.name) / "tampered.json"
        tampered.write_text(json.dumps(document))
        proc = environment("--check", str(tampered))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("libfrazil.so", proc.stderr)

    def test_check_rejects_missing_key_and_bad_json(self) -> None:
        document = json.loads(self.fresh.read_text())
        del document["jvm"]["vendor"]
        incomplete = Path(self.tmp.name) / "incomplete.json"
        incomplete.write_text(json.dumps(document))
        proc = environment("--check", str(incomplete))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("jvm.vendor", proc.stderr)
        broken = Path(self.tmp.name) / "broken.json"
        broken.write_text("{not json")
        proc = environment("--check", str(broken))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("does not parse", proc.stderr)

    def test_every_results_folder_carries_environment_json(self) -> None:
        for folder in results_folders():
            with self.subTest(folder=str(folder.relative_to(REPO))):
                env = folder / "environment.json"
                self.assertTrue(env.is_file(), f"{env.relative_to(REPO)} is missing")
                # Results describe the build they ran on: keys only, not today's hashes.
                proc = environment("--check", str(env), "--no-hashes")
                self.assertEqual(proc.returncode, 0, proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
