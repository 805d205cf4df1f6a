#!/usr/bin/env python3
"""Per-class table of an iceberg-suites run (`make iceberg-suites`).

    python3 scripts/suite_report.py [--reports DIR] [--excludes FILE] [--out FILE]
                                    [--wall-seconds S] [--check]

Reads surefire's TEST-<class>.xml and <class>-output.txt (default java-bridge/target/
surefire-reports): tests run, failed, errors, skipped and time per class, plus the line
InstallFrazilForTests prints as each fork (one test class) ends, "Frazil data files written
natively: N, delegated to Iceberg's writer: M", the proof that the class wrote through Frazil;
and the line after it, "Frazil data files read natively: N, read by Iceberg's reader: M", the
proof that the class read through Frazil's native reader; lists the test methods the excludes file
keeps from running, each with the reason written above it. Prints markdown; --out also writes it
to FILE. --check exits 1 on any failure or error, on a class whose fork left output but no report
(killed or crashed), or when no data file was written or read natively.
Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

COUNTS = re.compile(
    r"Frazil data files written natively: (\d+), delegated to Iceberg's writer: (\d+)"
)
READ_COUNTS = re.compile(
    r"Frazil data files read natively: (\d+), read by Iceberg's reader: (\d+)"
)
TESTS_JAR = re.compile(r"[^:/]*iceberg-flink-[^:/]*-tests\.jar")
PREFIX = "org.apache.iceberg.flink."


def frazil_counts(output_txt: Path, pattern: re.Pattern = COUNTS) -> tuple[int, int] | None:
    """(native, stock) from the fork's last line matching pattern, or None when it printed none."""
    if not output_txt.exists():
        return None
    found = pattern.findall(output_txt.read_text(errors="replace"))
    return (int(found[-1][0]), int(found[-1][1])) if found else None


def read_class(xml_path: Path) -> dict:
    suite = ET.parse(xml_path).getroot()
    name = suite.get("name")
    problems = []
    for case in suite.iter("testcase"):
        for node in [*case.findall("failure"), *case.findall("error")]:
            message = " ".join((node.get("message") or "").split())
            first = message[:300] + ("…" if len(message) > 300 else "")
            problems.append((node.tag, case.get("name"), node.get("type"), first))
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    jars = TESTS_JAR.findall(props.get("java.class.path", ""))
    return {
        "name": name,
        "run": int(suite.get("tests", 0)),
        "failed": int(suite.get("failures", 0)),
        "errors": int(suite.get("errors", 0)),
        "skipped": int(suite.get("skipped", 0)),
        "time": float(suite.get("time") or 0),
        "counts": frazil_counts(xml_path.with_name(f"{name}-output.txt")),
        "reads": frazil_counts(xml_path.with_name(f"{name}-output.txt"), READ_COUNTS),
        "problems": problems,
        "tests_jar": jars[0] if jars else None,
    }


def exclusions(path: Path) -> list[tuple[str, str]]:
    """(pattern, reason) per excluded test: the comment lines right above each pattern line."""
    found, comment = [], []
    for line in path.read_text().splitlines() if path.exists() else []:
        line = line.strip()
        if not line:
            comment = []
        elif line.startswith("#"):
            comment.append(line.lstrip("# "))
        else:
            found.append((line, " ".join(comment)))
            comment = []
    return found


def git_head() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def render(
    classes: list[dict], missing: list[str], excluded: list[tuple[str, str]], wall: float | None
) -> str:
    keys = ("run", "failed", "errors", "skipped")
    total = {k: sum(c[k] for c in classes) for k in keys}
    native = sum(c["counts"][0] for c in classes if c["counts"])
    stock = sum(c["counts"][1] for c in classes if c["counts"])
    read_native = sum(c["reads"][0] for c in classes if c["reads"])
    read_stock = sum(c["reads"][1] for c in classes if c["reads"])
    jars = sorted({c["tests_jar"] for c in classes if c["tests_jar"]})
    lines = [
        "# Iceberg's own Flink test classes (writers, sinks, readers, sources), run with Frazil "
        "installed",
        "",
        f"`make iceberg-suites` at commit `{git_head()}`: the classes of "
        f"{', '.join(f'`{j}`' for j in jars) or 'the iceberg-flink tests jar'}, unchanged, one JVM "
        "per class (java-bridge/pom.xml, profile `iceberg-suites`). Written native/stock: data files "
        "Frazil wrote natively / delegated to Iceberg's writer in that class's JVM; read "
        "native/stock: Parquet data files Frazil's reader decoded natively / handed to Iceberg's "
        "reader (a per-file fallback).",
        "",
        "| Class | Run | Failed | Errors | Skipped | Time (s) | Written native | Written stock "
        "| Read native | Read stock |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in classes:
        n, s = c["counts"] if c["counts"] else ("—", "—")
        rn, rs = c["reads"] if c["reads"] else ("—", "—")
        cells = [c["name"].removeprefix(PREFIX), *(c[k] for k in keys), f"{c['time']:.1f}"]
        cells += [n, s, rn, rs]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    total_time = sum(c["time"] for c in classes)
    cells = [f"**Total ({len(classes)} classes)**", *total.values(), f"{total_time:.1f}"]
    lines.append("| " + " | ".join(map(str, [*cells, native, stock, read_native, read_stock])) + " |")
    lines += [
        "",
        f"Frazil data files written natively: {native}, delegated to Iceberg's writer: {stock} "
        "(sum of the per-class lines).",
        f"Frazil data files read natively: {read_native}, read by Iceberg's reader: {read_stock}.",
        "",
        "Time is surefire's per-class time; each class also pays a JVM start-up of a few seconds.",
    ]
    if wall is not None:
        lines.append(
            f"Wall time of the whole Maven run (compile + every fork): {wall / 60:.1f} min "
            f"on {os.cpu_count()} cores."
        )
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    lines.append(
        f"Load average when the report was written (1/5/15 min): {load}; anything else running on "
        "the machine inflates the times."
    )
    silent = [
        c["name"].removeprefix(PREFIX)
        for c in classes
        if c["counts"] == (0, 0) and c["reads"] in (None, (0, 0))
    ]
    if silent:
        lines += [
            "",
            "Classes in which no data file reached Frazil's hooks (their tables are Avro or ORC, "
            "or they write and read no data file), so they pass without exercising Frazil: "
            + ", ".join(silent) + ".",
        ]
    if excluded:
        lines += ["", "## Not run (java-bridge/src/test/iceberg-suites.excludes)", ""]
        lines += [f"- `{pattern}`: {reason}" for pattern, reason in excluded]
    if any(c["problems"] for c in classes) or missing:
        lines += ["", "## Failures and errors", ""]
        for c in classes:
            for kind, case, etype, message in c["problems"]:
                lines.append(f"- {kind}: `{c['name']}.{case}`: {etype}: {message}")
        for name in missing:
            lines.append(f"- no report: `{name}` (its fork wrote output but no TEST-*.xml)")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=Path, default=Path("java-bridge/target/surefire-reports"))
    parser.add_argument(
        "--excludes", type=Path, default=Path("java-bridge/src/test/iceberg-suites.excludes")
    )
    parser.add_argument("--out", type=Path, help="also write the markdown to this file")
    parser.add_argument("--wall-seconds", type=float, help="wall time of the run, for the report")
    parser.add_argument("--check", action="store_true", help="exit 1 unless everything passed")
    args = parser.parse_args()

    classes = sorted(
        (read_class(p) for p in args.reports.glob("TEST-*.xml")), key=lambda c: c["name"]
    )
    reported = {c["name"] for c in classes}
    outputs = (p.name.removesuffix("-output.txt") for p in args.reports.glob("*-output.txt"))
    missing = sorted(name for name in outputs if name not in reported)
    text = render(classes, missing, exclusions(args.excludes), args.wall_seconds)
    print(text, end="")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    if args.check:
        bad = sum(c["failed"] + c["errors"] for c in classes)
        native = sum(c["counts"][0] for c in classes if c["counts"])
        native += sum(c["reads"][0] for c in classes if c["reads"])
        if bad or missing or not classes or native == 0:
            print(
                f"iceberg-suites: {len(classes)} classes, {bad} failed or errors, "
                f"{len(missing)} without a report, {native} data files written or read natively",
                file=sys.stderr,
            )
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
