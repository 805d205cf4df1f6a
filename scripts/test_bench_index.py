#!/usr/bin/env python3
"""Tests for scripts/bench_index.py: rows read from results.md, superseded.tsv checked, --check."""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_index  # noqa: E402

FACTS = """| | |
|---|---|
| date (UTC) | {date}T06:00:00Z |
| commit | `{commit}0123456789abcdef0123456789abcdef` + 1 uncommitted paths |
| mode | full, args `--out /tmp/x {args}` |
"""

FILE_WRITE = (
    "# Stock Iceberg Parquet writer vs Frazil — file-write benchmark\n\n"
    + FACTS
    + """
## Cohort `file-write`: Flink RowData in

| schema | rows | arm | wall ms | wall stock/Frazil | CPU stock/Frazil |
|---|--:|---|--:|--:|--:|
| bid | 262,144 | stock | 10 | | |
| bid | 262,144 | frazil | 5 | **2.00×** [1.5–2.5] | **1.50×** [1–2] |
| bid | 2,000,000 | stock | 90 | | |
| bid | 2,000,000 | frazil | 30 | **3.00×** [2–4] | **2.10×** [1–3] |
"""
)

FANOUT = (
    "# Fan-out cohort: one task writer, N open partition files, stock vs Frazil\n\n"
    + FACTS
    + """
## Time (heap 1g)

| N | arm | trials | wall ms | wall stock/Frazil | close-all stock/Frazil |
|--:|---|--:|--:|--:|--:|
| 16 | stock | 2 | 600 | | |
| 16 | frazil | 2 | 200 | **3.00×** [2–4] | **1.50×** [1–2] |
| 1,024 | stock | 0 | – | – | – |
| 1,024 | frazil | 2 | 900 | | |

## Memory (heap 1g)

| N | arm | peak RSS MB | peak RSS Frazil/stock |
|--:|---|--:|--:|
| 16 | stock | 600 | |
| 16 | frazil | 480 | 80% [79–81%] |
| 1,024 | stock | – | – |
| 1,024 | frazil | 1200 | |

## Heap search at N = 1,024

| heap | arm | outcome | peak RSS MB |
|--:|---|---|--:|
| 512m | stock | **OOM** | 500 |
| 512m | frazil | **completed** | 900 |
"""
)

NEXMARK = (
    "# Stock Iceberg vs Frazil — Nexmark SQL queries into Iceberg tables\n\n"
    + FACTS
    + """
## Stock / Frazil per query

| query | v | result | wall stock/Frazil | CPU stock/Frazil |
|---|--:|---|--:|--:|
| q0 | 2 | append | 1.50× [1.40–1.60] | 1.70× [1.60–1.80] |
| q5 | 2 | append | 0.98× [0.90–1.10] | 1.00× [0.90–1.10] |
| q17 | 2 | upsert | 1.20× [1.10–1.30] | 1.30× [1.20–1.40] |
"""
)

JOBS_THREE_ARMS = (
    "# Stock Iceberg vs Frazil (RowData, Arrow end to end) — whole Flink jobs (Dynamic Iceberg"
    " Sink)\n\n"
    + FACTS
    + """
## Cohort `job-dynamic`: whole Flink job, stock vs the Frazil arms

| cell | arm | n | wall s | wall stock/arm | CPU stock/arm |
|---|---|--:|--:|--:|--:|
| bid-v2-forward | stock | 2 | 3.0 | | |
| bid-v2-forward | frazil | 2 | 2.0 | **1.50×** [1.4–1.6] | **1.60×** [1.5–1.7] |
| bid-v2-forward | frazil-arrow | 2 | 1.0 | **3.00×** [2.8–3.2] | **2.90×** [2.7–3.1] |
"""
)

STOCK_OOM = (
    '{"stage":"grid","phase":"measured","heap":"1g","arm":"stock","partitions":1024,"outcome":"oom"}\n'
    '{"stage":"grid","phase":"measured","heap":"1g","arm":"frazil","partitions":1024,"outcome":"ok"}\n'
)


class BenchIndexTest(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.results = Path(self._tmp.name)

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def folder(self, name: str, text: str, iterations: str = "") -> Path:
        path = self.results / name
        path.mkdir()
        (path / "results.md").write_text(text)
        if iterations:
            (path / "iterations.jsonl").write_text(iterations)
        return path

    def test_file_write_row_takes_date_commit_options_and_largest_size_ratios(self) -> None:
        path = self.folder(
            "2026-01-02-abc1234",
            FILE_WRITE.format(date="2026-01-02", commit="abc1234", args="--schemas bid --reps 9"),
        )
        row = bench_index.index_row(path)
        self.assertEqual(row.date, "2026-01-02")
        self.assertEqual(row.commit, "abc1234")
        self.assertEqual(row.kind, "file-write")
        self.assertEqual(row.measured, "file-write; `--schemas bid --reps 9`")
        self.assertEqual(row.headline, "wall file-write (2,000,000 rows): bid 3.00×")

    def test_fanout_row_names_a_stock_arm_that_ran_out_of_memory_and_the_heap_search(self) -> None:
        path = self.folder(
            "2026-01-03-def5678-fanout",
            FANOUT.format(date="2026-01-03", commit="def5678", args="--heap 1g --report-only"),
            STOCK_OOM,
        )
        row = bench_index.index_row(path)
        self.assertEqual(row.kind, "fan-out")
        self.assertEqual(row.measured, "fan-out; `--heap 1g`")
        self.assertEqual(
            row.headline,
            "heap 1g, N = 16 / 1,024: wall 3.00× / stock oom; peak RSS 80% / –; "
            "heap search: stock oom at 512m; frazil completed at 512m",
        )

    def test_nexmark_row_gives_the_median_lowest_and_highest_query(self) -> None:
        path = self.folder(
            "2026-01-04-abc1234-nexmark", NEXMARK.format(date="2026-01-04", commit="abc1234", args="--events 200000")
        )
        row = bench_index.index_row(path)
        self.assertEqual(row.kind, "nexmark")
        self.assertEqual(row.measured, "nexmark; `--events 200000`")
        self.assertEqual(
            row.headline,
            "wall, 3 queries: median 1.20×, lowest q5 v2 0.98×, highest q0 v2 1.50×",
        )

    def test_jobs_row_with_three_arms_gives_both_frazil_arms(self) -> None:
        path = self.folder(
            "2026-01-05-abc1234-jobs",
            JOBS_THREE_ARMS.format(date="2026-01-05", commit="abc1234", args="--rows 500000"),
        )
        row = bench_index.index_row(path)
        self.assertEqual(row.kind, "jobs")
        self.assertEqual(row.headline, "wall v2-forward 1.50× · v2-forward Arrow 3.00×")

    def test_unknown_report_title_is_refused(self) -> None:
        path = self.folder("2026-01-04-x", "# Something else\n")
        with self.assertRaises(ValueError):
            bench_index.index_row(path)

    def test_superseded_rows_link_the_later_folder_and_count_as_not_current(self) -> None:
        fmt = dict(date="2026-01-02", commit="abc1234", args="")
        self.folder("2026-01-02-abc1234", FILE_WRITE.format(**fmt))
        self.folder("2026-01-05-abc9999", FILE_WRITE.format(**{**fmt, "date": "2026-01-05"}))
        (self.results / "superseded.tsv").write_text(
            "# comment\nfolder\tsuperseded_by\twhy\n"
            "2026-01-02-abc1234\t2026-01-05-abc9999\tthe same cohort later\n"
        )
        text = bench_index.render(self.results)
        self.assertIn("2 cohort folders, 1 current.", text)
        self.assertIn(
            "| [2026-01-05-abc9999](2026-01-05-abc9999/results.md): the same cohort later |", text
        )
        self.assertLess(text.index("2026-01-02-abc1234]"), text.index("2026-01-05-abc9999]"))

    def test_superseded_entry_naming_a_missing_folder_fails(self) -> None:
        self.folder("2026-01-02-abc1234", FILE_WRITE.format(date="2026-01-02", commit="abc1234", args=""))
        (self.results / "superseded.tsv").write_text("2026-01-02-abc1234\t2026-09-09-gone\twhy\n")
        with self.assertRaisesRegex(ValueError, "no results folder '2026-09-09-gone'"):
            bench_index.render(self.results)

    def test_check_fails_on_a_stale_index_and_passes_once_regenerated(self) -> None:
        self.folder("2026-01-02-abc1234", FILE_WRITE.format(date="2026-01-02", commit="abc1234", args=""))
        args = ["--results", str(self.results)]
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(bench_index.main(args + ["--check"]), 1)
        self.assertEqual(bench_index.main(args), 0)
        first = (self.results / "README.md").read_text()
        self.assertEqual(bench_index.main(args + ["--check"]), 0)
        self.assertEqual(bench_index.render(self.results), first)
        (self.results / "README.md").write_text(first + "edited by hand\n")
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(bench_index.main(args + ["--check"]), 1)

    def test_committed_index_is_current(self) -> None:
        self.assertEqual(bench_index.main(["--check"]), 0, "run python3 scripts/bench_index.py")


if __name__ == "__main__":
    unittest.main()
