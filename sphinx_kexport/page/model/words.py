"""The words the page says a status with: a cell's text, its CSS class, the legend's meaning.

Each comes from the status's record (``snapshot/vocabulary.py``), so a status the
vocabulary gains is on the page with no table here to update; what the page adds to
a record is said here once (a cell's graph-break count). The dynamic-batch marks'
words are ``dynamic_batch``'s.
"""

from __future__ import annotations

from ...snapshot import Result
from ...snapshot.vocabulary import OK, OK_BREAKS, STATUS, status

# Why a registered entry has no row: the kinds the "Not probed" part names, in the order it lists them.
EAGER_FAILURE = "fails eagerly"  # a problem with the case or the environment, not with a capture path
SKIPPED = "skipped"  # the case module says why (``skip=``)
NOTHING_TO_CAPTURE = "nothing to capture"  # it runs, but returns no tensor, or no path applies
NOT_PROBED_KINDS = (EAGER_FAILURE, SKIPPED, NOTHING_TO_CAPTURE)
# a default torch.compile that compiled no graph at all (the whole function runs eagerly), told apart from breaks
NOTHING_COMPILED = "no graph compiled"


def status_text(result: Result) -> str:
    """A cell's text: the status's label, with the count of graph breaks where it has some ("yes, 2 breaks"), or
    of the functions dynamo skips where that is all ("yes, skips 1 function")."""
    if result.status == OK_BREAKS and result.graphs == 0:  # not a split graph: nothing compiled at all
        return f"{OK.label}, {NOTHING_COMPILED}"
    if result.status == OK_BREAKS and result.graph_breaks:
        n = result.graph_breaks
        return f"{OK.label}, {n} break" + ("" if n == 1 else "s")
    if result.status == OK_BREAKS and result.skipped_functions:
        n = len(result.skipped_functions)
        return f"{OK.label}, skips {n} function" + ("" if n == 1 else "s")
    return status(result.status).label


def default_compile_note(result: Result) -> str:
    """What the default torch.compile does with a call whose status ``fullgraph=True`` decided ("default
    compile: 2 breaks"), for a supported cell that reads "yes"; "" when it neither breaks nor skips."""
    if result.status == OK_BREAKS or not result.fullgraph:
        return ""
    if result.graph_breaks and result.graphs == 0:
        return f"default compile: {NOTHING_COMPILED}"
    if result.graph_breaks:
        n = result.graph_breaks
        return f"default compile: {n} break" + ("" if n == 1 else "s")
    if result.skipped_functions:
        n = len(result.skipped_functions)
        return f"default compile: skips {n} function" + ("" if n == 1 else "s")
    return ""


def status_label(word: str | None) -> str:
    """The cell text a status has on the page ("yes", "no", ...): "absent" for none, a word the vocabulary
    lacks (an older snapshot's) as it is."""
    if word is None:
        return "absent"
    return STATUS[word].label if word in STATUS else word


def status_css(word: str) -> str:
    """The status's CSS class suffix (``kx-status--<css>``)."""
    return status(word).css


def status_meaning(word: str) -> str:
    """The legend's sentence for a status."""
    return status(word).meaning
