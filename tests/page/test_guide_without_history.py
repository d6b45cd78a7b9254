"""The guide describes the tool as it is: the history of past runs (dates, borrowed machines, lost work) lives in
the changelog and the benchmark record only (issue 46). Read from the sources, so no build is needed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "example_docs"
HISTORY = {"develop/changelog.rst", "develop/benchmarks.rst"}  # where dated figures belong
MONTH = "(?:January|February|March|April|May|June|July|August|September|October|November|December)"
# a date in prose: "4 December", "December 4", "December 2026"
DATED = re.compile(rf"\b\d{{1,2}} {MONTH}\b|\b{MONTH} \d{{1,2}}(?:st|nd|rd|th)?\b|\b{MONTH} \d{{4}}\b")


def guide_pages() -> list[Path]:
    pages = []
    for page in sorted(DOCS.rglob("*.rst")):
        relative = page.relative_to(DOCS).as_posix()
        if relative.split("/")[0] in {"_build", "_kornia", "api"} or relative in HISTORY:
            continue  # api/ is generated from the library's own docstrings
        pages.append(page)
    return pages


@pytest.mark.parametrize("sentence", [
    "On 4 December this project was lent an NVIDIA H200 with 16 CPUs for 15 minutes",
    "measured on December 4th, before the machine was wiped",
    "the figures of December 2026",
])
def test_the_check_sees_a_date_in_prose(sentence):
    assert DATED.search(sentence)


def test_no_guide_page_outside_the_changelog_and_benchmark_record_carries_a_date():
    pages = guide_pages()
    assert len(pages) > 20 and DOCS / "how-to" / "another-library.rst" in pages
    dated = [f"{page.relative_to(DOCS)}:{number}: {line.strip()}"
             for page in pages for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             if DATED.search(line)]
    assert not dated, "dates belong in the changelog or the benchmark record:\n" + "\n".join(dated)
