"""The probe's errors: one base, :class:`ProbeError`, so a caller can catch every error the probe raises on purpose.

Each stage defines its own errors next to the code that raises them, derived from :class:`ProbeError` (and
from ``ValueError`` or ``RuntimeError`` where they were one before, so ``except ValueError`` keeps working).
:class:`ToolError` lives here because several stages raise it (the inventory's children, the worker pool,
the survey).
"""

from __future__ import annotations

import difflib
from typing import Iterable


class ProbeError(Exception):
    """Any error the probe raises on purpose; the message says what happened and, where it can, what to do."""


class ToolError(ProbeError):
    """The probe itself could not run (a worker or an inventory child died or did not start, the snapshot it
    assembled does not validate): not a fact about a case. Finished cases are kept; run again to resume (the
    command exits 3)."""


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` Did you mean 'a', 'b'?`` naming the (at most three) ``known`` words closest to a mistyped ``word``;
    "" when none is close. Appended to the error that names the mistake."""
    close = difflib.get_close_matches(word, list(dict.fromkeys(known)), n=3)
    return f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
