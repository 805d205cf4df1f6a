#!/usr/bin/env python3
"""Tests the user docs: README size, relative links that resolve, figures their results state.

- README.md stays at most 15,000 bytes (issue 34: the narratives live in docs/ and bench/).
- Every relative link in the README, ARCHITECTURE.md, docs/*.md and the bench and validation
  READMEs names a file or folder in the repository, and a `#anchor` names a heading there.
- Every figure in the README's "Headline figures" table appears in the committed result that
  row links to, so a figure cannot outlive the run that measured it.
- Every `make <target>` the docs name is a target of the Makefile.
"""

from __future__ import annotations

import re
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
README_LIMIT = 15_000

LINK = re.compile(r"(?<!\\)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?[×%]?|\bMET\b")
MAKE_TARGET = re.compile(r"`make ([a-z][a-z0-9-]*)")


def doc_files() -> list[Path]:
    docs = [README, REPO / "ARCHITECTURE.md", REPO / "bench" / "README.md"]
    docs += [REPO / "bench" / "results" / "README.md", REPO / "validation" / "README.md"]
    docs += sorted((REPO / "docs").glob("*.md"))
    return [d for d in docs if d.exists()]


def prose(path: Path) -> str:
    """The file without fenced code blocks, where brackets are code, not links."""
    return FENCE.sub("", path.read_text())


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for line in prose(path).splitlines():
        if line.startswith("#"):
            base = slug(line.lstrip("#"))
            name, n = base, 1
            while name in found:
                name, n = f"{base}-{n}", n + 1
            found.add(name)
    return found


def relative_links(path: Path) -> list[str]:
    return [t for t in LINK.findall(prose(path)) if not re.match(r"[a-z]+:", t)]


def headline_rows() -> list[tuple[str, str]]:
    """(figure cell, linked path) for each row of the README's headline-figures table."""
    text = README.read_text()
    section = text[text.index("## Headline figures") :]
    section = section[: section.index("\n## ", 1)]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("what", "---"):
            rows.append((cells[1], LINK.search(cells[2]).group(1)))
    return rows


def makefile_targets() -> set[str]:
    text = (REPO / "Makefile").read_text()
    return set(re.findall(r"^([a-z][a-z0-9-]*):", text, re.M))


class DocsTest(unittest.TestCase):
    def test_readme_fits_its_budget(self) -> None:
        size = len(README.read_bytes())
        self.assertLessEqual(size, README_LIMIT, f"README.md is {size} bytes")

    def test_relative_links_resolve(self) -> None:
        broken = []
        for doc in doc_files():
            for target in relative_links(doc):
                file_part, _, anchor = target.partition("#")
                path = (doc.parent / file_part).resolve() if file_part else doc
                if not path.exists():
                    broken.append(f"{doc.relative_to(REPO)}: {target} (no such path)")
                elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                    broken.append(f"{doc.relative_to(REPO)}: {target} (no such heading)")
        self.assertEqual(broken, [])

    def test_every_headline_figure_is_stated_in_the_result_it_links(self) -> None:
        rows = headline_rows()
        self.assertGreaterEqual(len(rows), 5)
        missing = []
        for figures, target in rows:
            stated = (REPO / target).read_text().replace(",", "")
            for figure in FIGURE.findall(figures):
                if figure.replace(",", "") not in stated:
                    missing.append(f"{figure} not in {target}")
        self.assertEqual(missing, [])

    def test_every_named_make_target_exists(self) -> None:
        targets = makefile_targets()
        unknown = sorted(
            f"{doc.relative_to(REPO)}: make {name}"
            for doc in doc_files()
            for name in MAKE_TARGET.findall(doc.read_text())
            if name not in targets
        )
        self.assertEqual(unknown, [])

    def test_slug_follows_github(self) -> None:
        self.assertEqual(slug(" On a real Flink cluster (`make cluster-test`)"), "on-a-real-flink-cluster-make-cluster-test")
        self.assertEqual(slug("Flink 1.20.2 and later with Iceberg 1.11.0's 1.20 module"), "flink-1202-and-later-with-iceberg-1110s-120-module")


if __name__ == "__main__":
    unittest.main()
