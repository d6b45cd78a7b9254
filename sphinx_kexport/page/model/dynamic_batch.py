"""The dynamic-batch result on the page: does a supported cell hold at any batch size?

Plain Python over the snapshot records, shared by every builder. A supported
cell whose result has a ``dynamic`` object gets a short mark after its status
("any batch", "batch 2 only", "dynamic fails"); one whose capture works only
at the traced batch size, or whose dynamic capture fails, also gets a reason
in the Details column (and so in the failure-reason index). A cell without a
dynamic result (older snapshots, ``--no-dynamic``) or with ``n/a`` (no batch
dimension) gets no mark: such pages render exactly as before.
"""


from __future__ import annotations

from ...snapshot import Dynamic, Result
from ...snapshot.vocabulary import (COMPILE, DYNAMIC_ANSWERS, DYNAMIC_NOT_APPLICABLE, DYNAMIC_OK, DYNAMIC_STATIC,
                                    dynamic_status)

# The mark's one-letter code is its record's (``tr[data-y]``, ``<kx-yC>``); a cell without a mark (no dynamic
# result, or one that answers nothing: n/a, a timed-out pass) carries the statuses-without-a-mark code, "-".
NO_MARK_CODE = DYNAMIC_NOT_APPLICABLE.code
COMPILE_STATIC = "recompiles at a new batch"  # torch.compile's "static" mark
# The legend's sentence per mark: the record's meaning; the page says more of the traced-batch-only mark.
MEANING = {
    **{s: s.meaning for s in DYNAMIC_ANSWERS},
    DYNAMIC_STATIC: DYNAMIC_STATIC.meaning + " (the Details column says how and where), so it rejects or "
                    "miscomputes any other batch size; under torch.compile the mark reads "
                    f"\"{COMPILE_STATIC}\": the compiled function still runs at another batch size, but only "
                    "after compiling again for it",
}
NO_MARK = ("a supported status alone: whether it holds at another batch size was not checked, or the case "
           "has no batch dimension")
STATIC_PREFIX = "works only at the traced batch size: "
FAIL_PREFIX = "the capture with a dynamic batch fails: "


def answer(result: Result) -> Dynamic | None:
    """The dynamic result worth showing: a supported cell's, when it has a batch dimension."""
    dynamic = result.dynamic
    if dynamic is None or not result.supported or dynamic.status not in DYNAMIC_ANSWERS:
        return None
    return dynamic


def holds_only_at_traced_batch(result: Result) -> bool:
    """A supported cell whose capture specialises the batch size (the "batch N only" mark)."""
    dynamic = answer(result)
    return dynamic is not None and dynamic.status == DYNAMIC_STATIC


def legend(status: str) -> str:
    """The legend's mark for a dynamic status that answers ("any batch", "batch N only", "dynamic fails")."""
    return dynamic_status(status).legend


def meaning(status: str) -> str:
    """The legend's sentence for a dynamic status that answers."""
    return MEANING[status]


def mark(result: Result, path: str = "") -> str:
    """"any batch", "batch 2 only" ("recompiles at a new batch" under torch.compile), "dynamic fails", or ""."""
    dynamic = answer(result)
    if dynamic is None:
        return ""
    if dynamic.status == DYNAMIC_STATIC:
        if path == COMPILE:  # a compiled function still runs at another size: it compiles again
            return COMPILE_STATIC
        return f"batch {dynamic.traced_batch} only" if dynamic.traced_batch else "traced batch only"
    return dynamic_status(dynamic.status).legend


def title(result: Result, reason_shown: bool = False) -> str:
    """The mark's tooltip: what it means for this cell, with the batch sizes and the reason; only the sizes
    where ``reason_shown`` (the row's Details say the reason and its library line already)."""
    dynamic = answer(result)
    if dynamic is None:
        return ""
    sizes = ""
    if dynamic.traced_batch and dynamic.run_batch:
        sizes = f" (traced at batch {dynamic.traced_batch}, run at batch {dynamic.run_batch})"
    if dynamic.status == DYNAMIC_OK:
        return "holds at any batch size" + sizes
    if reason_shown:
        return sizes.strip(" ()")
    text = reason(result)
    return text + sizes + (f" at {dynamic.where}" if dynamic.where else "")


def reason(result: Result) -> str:
    """The Details column's (and the reason index's) text for a static or failing dynamic result, else ""."""
    dynamic = answer(result)
    if dynamic is None or dynamic.status == DYNAMIC_OK:
        return ""
    detail = " ".join(dynamic.detail.split())
    if dynamic.status == DYNAMIC_STATIC:
        return STATIC_PREFIX + detail if detail else STATIC_PREFIX.rstrip(": ")
    return FAIL_PREFIX + detail if detail else FAIL_PREFIX.rstrip(": ")


def code(result: Result) -> str:
    dynamic = answer(result)
    return dynamic_status(dynamic.status).code if dynamic is not None else NO_MARK_CODE
