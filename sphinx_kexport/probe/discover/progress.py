"""One line per docstring example as discovery runs it, for people watching a long discovery.

``discover`` prints them on stderr; a probe's inventory child (run/inventory.py) does
too, while a case module's ``cases_from_docstrings`` runs the examples (none run when
they come from the discovery cache). Standard library only.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

from ...snapshot.vocabulary import NO_CASE_WORDS

SLOW_EXAMPLE = 10.0  # seconds past which a progress line calls an example slow
# a module (or object) of the library's own testing helpers, left out unless asked for (discover/library.py): said
# by ``discover`` only, not listed in the snapshot (a testing helper is not an operator the page owes a row)
TESTING_HELPERS = "testing helpers"
WORDS = dict(NO_CASE_WORDS, duplicate="repeats hand-written cases",
             **{TESTING_HELPERS: "left out: the library's testing helpers, not operators"})
# why a test of the library's own suite yields no case (``discover --tests``, discover/suite/suite.py)
TEST_WORDS = {
    "no tensor call": "no public tensor call",
    "covered": "its calls repeat configurations already kept",
    "mocked": "its calls ran the test's unittest.mock stand-ins",
    "failed": "the test failed",
    "recorder": "it fails only under the probe's recorder (the probe's limitation, not the test's)",
    "network": "it needs the network",
    "needs CUDA": "it needs CUDA",
    "time limit": "it ran past its time limit",
    "skipped": "pytest skipped it",
    "other dtype": "parametrised with, or its calls ran in, another dtype than float32 (discovery keeps float32)",
    "file failed": "its file does not import",
    "outside its test": "its calls do not run outside the test (a mode or state the test set)",
    "too large": "its calls' tensors are too large to keep (the recorder's copy budget)",
    "not described": "the probe cannot describe its calls' cases (a limit of sphinx-kexport)",
    "duplicate": "repeats hand-written or docstring cases",
}

# (examples done, examples in all, the object's report, its seconds)
OnExample = Callable[[int, int, Any, float], None]
_REPORTER: dict[str, OnExample | None] = {"on_example": None}


def line(done: int, total: int, report: Any, seconds: float) -> str:
    """``[12/673] kornia.filters.blur: 2 cases, 0.4 s`` (slow examples named)."""
    words = TEST_WORDS if getattr(report, "from_tests", False) else WORDS
    what = (f"{len(report.cases)} case{'s' if len(report.cases) != 1 else ''}" if not report.skip
            else f"no case ({words.get(report.skip, report.skip)})")
    slow = f" - a slow example (over {SLOW_EXAMPLE:g} s)" if seconds > SLOW_EXAMPLE else ""
    return f"[{done}/{total}] {report.ref}: {what}, {seconds:.1f} s{slow}"


def to_stderr(indent: str = "  ") -> OnExample:
    def say(done: int, total: int, report: Any, seconds: float) -> None:
        whole_line(sys.stderr, indent + line(done, total, report, seconds))

    return say


def whole_line(stream: TextIO, text: str) -> None:
    """Write ``text`` and its newline in one write, then flush. ``print`` writes them apart, and on an
    unbuffered stream (stderr; stdout under PYTHONUNBUFFERED) each is a write of its own: a line another
    process wrote to the same log between the two (the probe's "resuming: ..." beside an inventory child's
    example lines) was glued to this one."""
    stream.write(text + "\n")
    stream.flush()


def report_examples(on_example: OnExample | None) -> None:
    """What ``cases_from_docstrings`` calls after each example it runs in this process (None: nothing)."""
    _REPORTER["on_example"] = on_example


def reporter() -> OnExample | None:
    return _REPORTER["on_example"]
