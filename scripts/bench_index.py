#!/usr/bin/env python3
"""Writes bench/results/README.md: one row per committed cohort folder under bench/results/.

Each row is read from the folder's own files, never typed by hand: the date, commit and arguments
from the run-facts table of its `results.md`, the cohort kind from that file's title, the headline
ratios from its result tables (and, for a fan-out arm that did not finish, the outcome recorded in
`iterations.jsonl`). Which folder a later one supersedes is a judgement, so it lives in a small
committed table, `bench/results/superseded.tsv` (folder, superseded-by, why), that this script
reads and checks (both folders must exist).

    python3 scripts/bench_index.py            # rewrite bench/results/README.md
    python3 scripts/bench_index.py --check    # exit 1 if the committed index is not what this writes

The output depends only on the committed files (sorted, no clock), so `--check` can run in
`make test` and every bench target regenerates the index after its run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
INDEX_NAME = "README.md"
SUPERSEDED_NAME = "superseded.tsv"

# The title line of results.md names the harness that wrote it (bench/src/.../Report classes).
KINDS = (
    ("file-write benchmark", "file-write"),
    ("whole Flink jobs", "jobs"),
    ("Partition routing", "routing"),
    ("native Arrow split", "split"),
    ("Fan-out cohort", "fan-out"),
    ("Read cohort", "read"),
    ("Exchange:", "exchange"),
    ("Nexmark SQL queries", "nexmark"),
)

# Arguments that say where a run wrote, not what it measured.
NOT_OPTIONS = {"--out": 1, "--report-only": 0}

CELL_SPLIT = re.compile(r"(?<!\\)\|")
RATIO = re.compile(r"\*\*([0-9.]+×)\*\*")
PERCENT = re.compile(r"^([0-9.]+%)")


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]

    def column(self, name: str) -> int | None:
        return self.header.index(name) if name in self.header else None


@dataclass
class Section:
    heading: str
    tables: list[Table] = field(default_factory=list)


@dataclass
class Report:
    title: str
    facts: dict[str, str]
    sections: list[Section]


@dataclass
class Row:
    folder: str
    date: str
    commit: str
    kind: str
    measured: str
    headline: str


def cells(line: str) -> list[str]:
    return [c.strip() for c in CELL_SPLIT.split(line.strip())[1:-1]]


def parse_report(text: str) -> Report:
    """Splits a results.md into its title, run-facts table and per-section tables."""
    title = ""
    facts: dict[str, str] = {}
    sections = [Section("")]
    table_lines: list[str] = []

    def end_table() -> None:
        if len(table_lines) >= 2:
            table = Table(cells(table_lines[0]), [cells(x) for x in table_lines[2:]])
            sections[-1].tables.append(table)
        table_lines.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            table_lines.append(line)
            continue
        end_table()
        if line.startswith("# ") and not title:
            title = line[2:].strip()
        elif line.startswith("## "):
            sections.append(Section(line[3:].strip()))
    end_table()
    if sections[0].tables:
        for row in sections[0].tables[0].rows:
            if len(row) >= 2:
                facts[row[0]] = row[1]
    return Report(title, facts, sections)


def kind_of(title: str) -> str:
    for marker, kind in KINDS:
        if marker in title:
            return kind
    raise ValueError(f"unknown results.md title: {title!r}")


def run_options(mode: str) -> str:
    """The run's arguments without those that only say where it wrote."""
    match = re.search(r"args `([^`]*)`", mode)
    tokens = match.group(1).split() if match else []
    kept: list[str] = []
    i = 0
    while i < len(tokens):
        skip = NOT_OPTIONS.get(tokens[i])
        if skip is None:
            kept.append(tokens[i])
            i += 1
        else:
            i += 1 + skip
    return " ".join(kept)


def ratio(cell: str) -> str:
    match = RATIO.search(cell)
    return match.group(1) if match else ""


def percent(cell: str) -> str:
    match = PERCENT.match(cell)
    return match.group(1) if match else ""


def cohort_name(heading: str) -> str:
    match = re.match(r"Cohort `([^`]+)`", heading)
    return match.group(1) if match else ""


def cohort_sections(report: Report) -> list[tuple[str, Table]]:
    found = []
    for section in report.sections:
        name = cohort_name(section.heading)
        if name and section.tables:
            found.append((name, section.tables[0]))
    return found


def file_write_headline(report: Report) -> str:
    """Wall stock/Frazil per schema at the largest file size, per cohort (Frazil's own arm)."""
    parts = []
    for name, table in cohort_sections(report):
        schema, rows_col, arm = table.column("schema"), table.column("rows"), table.column("arm")
        wall = table.column("wall stock/Frazil")
        sized = [r for r in table.rows if r[arm] == "frazil" and ratio(r[wall])]
        if not sized:
            continue
        largest = max(sized, key=lambda r: int(r[rows_col].replace(",", "")))[rows_col]
        figures = " · ".join(f"{r[schema]} {ratio(r[wall])}" for r in sized if r[rows_col] == largest)
        parts.append(f"{name} ({largest} rows): {figures}")
    return "wall " + "; ".join(parts) if parts else ""


JOB_ARM_LABELS = {"frazil": "", "frazil-arrow": " Arrow"}


def jobs_headline(report: Report) -> str:
    """Wall stock/Frazil per cell; with three arms also stock/Frazil-Arrow ("… Arrow")."""
    parts = []
    for _, table in cohort_sections(report):
        cell, arm = table.column("cell"), table.column("arm")
        # Two-arm runs head the ratio column "wall stock/Frazil", three-arm runs "wall stock/arm".
        wall = table.column("wall stock/Frazil")
        if wall is None:
            wall = table.column("wall stock/arm")
        parts += [
            f"{r[cell].removeprefix('bid-')}{JOB_ARM_LABELS[r[arm]]} {ratio(r[wall])}"
            for r in table.rows
            if r[arm] in JOB_ARM_LABELS and ratio(r[wall])
        ]
    return "wall " + " · ".join(parts) if parts else ""


def routing_headline(report: Report) -> str:
    parts = []
    for name, table in cohort_sections(report):
        schema, arm, wall = table.column("schema"), table.column("arm"), table.column("wall stock/Frazil")
        figures = " · ".join(
            f"{r[schema].removeprefix('bid ')} {ratio(r[wall])}"
            for r in table.rows
            if r[arm] == "frazil" and ratio(r[wall])
        )
        parts.append(f"{name}: {figures}")
    return "wall " + "; ".join(parts) if parts else ""


def split_headline(report: Report) -> str:
    """Wall stock/Frazil per spec for each Frazil arm (per-row selector, native Arrow split)."""
    parts = []
    for _, table in cohort_sections(report):
        schema, arm, wall = table.column("schema"), table.column("arm"), table.column("wall stock/Frazil")
        for r in table.rows:
            if r[arm] != "stock" and ratio(r[wall]):
                parts.append(f"{r[schema].removeprefix('bid ')} {r[arm]} {ratio(r[wall])}")
    return "wall " + " · ".join(parts) if parts else ""


def exchange_headline(report: Report) -> str:
    """Process-CPU stock/Frazil per cell (serialize + deserialize, RowDataSerializer vs Arrow IPC)."""
    parts = []
    for _, table in cohort_sections(report):
        schema, arm, cpu = table.column("schema"), table.column("arm"), table.column("CPU stock/Frazil")
        parts += [
            f"{r[schema].removeprefix('bid ')} {ratio(r[cpu])}"
            for r in table.rows
            if r[arm] == "frazil" and ratio(r[cpu])
        ]
    return "CPU " + " · ".join(parts) if parts else ""


def stock_outcomes(folder: Path, heap: str) -> dict[str, str]:
    """N → outcome of the stock arm's measured grid trials that did not finish, from iterations.jsonl."""
    outcomes: dict[str, set[str]] = {}
    path = folder / "iterations.jsonl"
    if not path.exists():
        return {}
    for line in path.read_text().splitlines():
        trial = json.loads(line)
        if (
            trial.get("stage") == "grid"
            and trial.get("phase") == "measured"
            and trial.get("arm") == "stock"
            and trial.get("heap") == heap
            and trial.get("outcome") != "ok"
        ):
            outcomes.setdefault(f"{trial['partitions']:,}", set()).add(trial["outcome"])
    return {n: "/".join(sorted(o)) for n, o in outcomes.items()}


def fanout_headline(report: Report, folder: Path) -> str:
    """Wall stock/Frazil and peak RSS Frazil/stock per N at the grid heap; heap search outcomes."""
    parts = []
    for section in report.sections:
        heading = re.match(r"(Time|Memory) \(heap ([^)]+)\)", section.heading)
        if not heading or not section.tables:
            continue
        table, heap = section.tables[0], heading.group(2)
        n_col, arm = table.column("N"), table.column("arm")
        frazil = [r for r in table.rows if r[arm] == "frazil"]
        ns = " / ".join(r[n_col] for r in frazil)
        if heading.group(1) == "Time":
            failed = stock_outcomes(folder, heap)
            wall = table.column("wall stock/Frazil")
            figures = " / ".join(
                ratio(r[wall]) or f"stock {failed.get(r[n_col], 'failed')}" for r in frazil
            )
            parts.append(f"heap {heap}, N = {ns}: wall {figures}")
        else:
            rss = table.column("peak RSS Frazil/stock")
            figures = " / ".join(percent(r[rss]) or "–" for r in frazil)
            parts.append(f"peak RSS {figures}")
    for section in report.sections:
        if section.heading.startswith("Heap search") and section.tables:
            table = section.tables[0]
            heap, arm, outcome = table.column("heap"), table.column("arm"), table.column("outcome")
            heaps: dict[tuple[str, str], list[str]] = {}
            for r in table.rows:
                key = (r[arm], r[outcome].strip("*").lower())
                heaps.setdefault(key, []).append(r[heap])
            found = [f"{a} {o} at {', '.join(h)}" for (a, o), h in heaps.items()]
            parts.append("heap search: " + "; ".join(found))
    return "; ".join(parts)


TIMES = re.compile(r"^([0-9.]+)×")


def nexmark_headline(report: Report) -> str:
    """Median, lowest and highest wall stock/Frazil over the queries (NexmarkReport's table)."""
    figures = []
    for section in report.sections:
        if section.heading.startswith("Stock / Frazil per query") and section.tables:
            table = section.tables[0]
            query, version = table.column("query"), table.column("v")
            wall = table.column("wall stock/Frazil")
            for r in table.rows:
                match = TIMES.match(r[wall])
                if match:
                    figures.append((float(match.group(1)), f"{r[query]} v{r[version]}"))
    if not figures:
        return ""
    figures.sort()
    middle = figures[len(figures) // 2][0] if len(figures) % 2 else (
        figures[len(figures) // 2 - 1][0] + figures[len(figures) // 2][0]) / 2
    low, high = figures[0], figures[-1]
    return (
        f"wall, {len(figures)} queries: median {middle:.2f}×, lowest {low[1]} {low[0]:.2f}×,"
        f" highest {high[1]} {high[0]:.2f}×"
    )


def measured(kind: str, report: Report) -> str:
    cohorts = [name for name, _ in cohort_sections(report)]
    options = run_options(report.facts.get("mode", ""))
    what = kind
    if kind in ("file-write", "routing", "read") and cohorts:
        what = ", ".join(cohorts)
    return f"{what}; `{options}`" if options else what


def index_row(folder: Path) -> Row:
    report = parse_report((folder / "results.md").read_text())
    kind = kind_of(report.title)
    commit = re.search(r"`([0-9a-f]{7,40})`", report.facts.get("commit", ""))
    headline = {
        "file-write": lambda: file_write_headline(report),
        "jobs": lambda: jobs_headline(report),
        "routing": lambda: routing_headline(report),
        "split": lambda: split_headline(report),
        "fan-out": lambda: fanout_headline(report, folder),
        "read": lambda: file_write_headline(report),
        "exchange": lambda: exchange_headline(report),
        "nexmark": lambda: nexmark_headline(report),
    }[kind]()
    return Row(
        folder=folder.name,
        date=report.facts.get("date (UTC)", folder.name)[:10],
        commit=commit.group(1)[:7] if commit else "",
        kind=kind,
        measured=measured(kind, report),
        headline=headline,
    )


def read_superseded(results: Path) -> dict[str, tuple[str, str]]:
    """folder → (superseded-by folder, why); fails on a folder that is not there."""
    path = results / SUPERSEDED_NAME
    table: dict[str, tuple[str, str]] = {}
    if not path.exists():
        return table
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("folder\t"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"{path.name}:{number}: want folder<TAB>superseded-by<TAB>why")
        old, new, why = (f.strip() for f in fields)
        for name in (old, new):
            if not (results / name / "results.md").is_file():
                raise ValueError(f"{path.name}:{number}: no results folder {name!r}")
        if old in table:
            raise ValueError(f"{path.name}:{number}: {old!r} listed twice")
        table[old] = (new, why)
    return table


def escape(text: str) -> str:
    """Table-cell text: pipes would end the cell, and `bucket[4](auction)` would render as a link."""
    return text.replace("|", "\\|").replace("[", "\\[").replace("]", "\\]")


def render(results: Path) -> str:
    folders = sorted(p for p in results.iterdir() if (p / "results.md").is_file())
    rows = sorted((index_row(p) for p in folders), key=lambda r: (r.date, r.folder))
    superseded = read_superseded(results)
    loose = sorted(p.name for p in results.glob("*.md") if p.name != INDEX_NAME)
    out = [
        "# Benchmark results index",
        "",
        "Generated by `scripts/bench_index.py` from each folder's `results.md` (and `iterations.jsonl`)",
        f"and from [`{SUPERSEDED_NAME}`]({SUPERSEDED_NAME}); do not edit by hand. Every `make bench*` target",
        "rewrites it after its run, and `make test` fails when it is out of date. Ratios are stock / Frazil",
        "of the medians (> 1: Frazil faster), peak RSS is Frazil / stock; the folder's `results.md` has the",
        "brackets, the other columns and the run facts. How each cohort is measured: [`../README.md`](../README.md).",
        "",
        f"{len(rows)} cohort folders, {len(rows) - len(superseded)} current.",
        "",
        "| date | folder | commit | what it measured | headline | superseded by |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        later = ""
        if row.folder in superseded:
            new, why = superseded[row.folder]
            later = f"[{new}]({new}/results.md): {escape(why)}"
        out.append(
            f"| {row.date} | [{row.folder}]({row.folder}/results.md) | `{row.commit}` | "
            f"{escape(row.measured)} | {escape(row.headline)} | {later} |"
        )
    if loose:
        out += ["", "Comparisons written by hand from the folders above:", ""]
        out += [f"- [{name}]({name})" for name in loose]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="bench/results directory")
    parser.add_argument("--check", action="store_true", help="fail if the committed index is stale")
    args = parser.parse_args(argv)
    index = args.results / INDEX_NAME
    text = render(args.results)
    if args.check:
        if not index.exists() or index.read_text() != text:
            print(f"{index} is out of date: run python3 scripts/bench_index.py", file=sys.stderr)
            return 1
        return 0
    index.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
