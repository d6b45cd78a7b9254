"""``:repro-check: FILE``: which failing cells' repro snippets reproduce them, from ``probe repro --check
--write FILE`` (snapshot/repro_checks.py).

A sentence under "How this was measured" gives the counts; each checked row says, beside its details, for
each checked cell whether its snippet reproduced the failure and, where it did not, what happened instead
(the HTML writer, ``templates/table.html.jinja``, class ``kx-rpc``). Read and checked against the snapshot when the
page is
built: a check of another torch, device or snapshot is an error, not a silent mark.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes

from ...snapshot.files import read_json
from ...snapshot.repro_checks import (COULD_NOT_RUN, ENDED_OTHERWISE, REPRODUCED, ReproChecks, check_matches,
                                      parse_checks)
from ...snapshot.vocabulary import PATH_LABELS

VERDICT_WORDS = {REPRODUCED: "reproduces", ENDED_OTHERWISE: "does not reproduce", COULD_NOT_RUN: "could not run"}


def load_checks(absolute: str, relative: str, snapshot: Any) -> ReproChecks:
    """The checks in the file, matched against the snapshot the page shows (its newest, across versions)."""
    checks = parse_checks(read_json(absolute, relative), relative)
    check_matches(checks, snapshot)
    return checks


def checks_sentence(checks: ReproChecks) -> nodes.paragraph:
    counts, total = checks.counts(), len(checks.cells)
    text = (f"Repro snippets checked: each failing cell's snippet on {checks.device} was run as pasted in a "
            f"fresh interpreter under torch {checks.torch} (python -m sphinx_kexport.probe repro --check): "
            f"{counts[REPRODUCED]} of {total} reproduce their cell"
            + (f" ({100 * counts[REPRODUCED] / total:.0f} %)" if total else "")
            + f"; {counts[ENDED_OTHERWISE]} ended otherwise and {counts[COULD_NOT_RUN]} could not run, each "
              "marked in its row with what happened.")
    return nodes.paragraph(text, text, classes=["kexport-repro-checks"])


def row_checks(checks: ReproChecks | None, case_name: str) -> list[dict[str, str]]:
    """The row's checked cells, for its payload: {"key", "label", "verdict", "words", "what"}."""
    if checks is None:
        return []
    return [{"key": f"{cell.path}-{checks.device}", "label": f"{PATH_LABELS[cell.path]} ({checks.device})",
             "verdict": cell.verdict, "words": VERDICT_WORDS[cell.verdict],
             "what": "" if cell.verdict == REPRODUCED else cell.what}
            for cell in checks.by_case().get(case_name, [])]
