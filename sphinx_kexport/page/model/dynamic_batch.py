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

# The mark's one-letter code per dynamic status in ``tr[data-y]`` and its element ``<kx-yC>``;
# "-": no mark (no dynamic result, or n/a).
CODE = {"ok": "o", "static": "s", "fail": "f", "timeout": "-", "n/a": "-"}  # a timed-out pass answers nothing
CHECKED = ("ok", "static", "fail")  # the statuses that answer for a cell with a batch dimension
COMPILE_STATIC = "recompiles at a new batch"  # torch.compile's "static" mark
MEANING = {
    "ok": "holds at any batch size: captured with the batch dimension dynamic, run at another batch size "
          "and compared with eager there",
    "static": "works only at the traced batch size N: the capture specialises the batch (the Details column "
              "says how and where), so it rejects or miscomputes any other batch size; under torch.compile "
              f"the mark reads \"{COMPILE_STATIC}\": the compiled function still runs at another batch size, "
              "but only after compiling again for it",
    "fail": "supported at the traced batch size, but the capture with a dynamic batch fails (the Details "
            "column says why), so whether it holds at another batch size is unknown",
}
NO_MARK = ("a supported status alone: whether it holds at another batch size was not checked, or the case "
           "has no batch dimension")
LEGEND_TEXT = {"ok": "any batch", "static": "batch N only", "fail": "dynamic fails"}
STATIC_PREFIX = "works only at the traced batch size: "
FAIL_PREFIX = "the capture with a dynamic batch fails: "


def answer(result: Result) -> Dynamic | None:
    """The dynamic result worth showing: a supported cell's, when it has a batch dimension."""
    dynamic = result.dynamic
    if dynamic is None or not result.supported or dynamic.status not in CHECKED:
        return None
    return dynamic


def mark(result: Result, path: str = "") -> str:
    """"any batch", "batch 2 only" ("recompiles at a new batch" under torch.compile), "dynamic fails", or ""."""
    dynamic = answer(result)
    if dynamic is None:
        return ""
    if dynamic.status == "ok":
        return "any batch"
    if dynamic.status == "static":
        if path == "compile":  # a compiled function still runs at another size: it compiles again
            return COMPILE_STATIC
        return f"batch {dynamic.traced_batch} only" if dynamic.traced_batch else "traced batch only"
    return "dynamic fails"


def title(result: Result) -> str:
    """The mark's tooltip: what it means for this cell, with the batch sizes and the reason."""
    dynamic = answer(result)
    if dynamic is None:
        return ""
    sizes = ""
    if dynamic.traced_batch and dynamic.run_batch:
        sizes = f" (traced at batch {dynamic.traced_batch}, run at batch {dynamic.run_batch})"
    if dynamic.status == "ok":
        return "holds at any batch size" + sizes
    text = reason(result)
    return text + sizes + (f" at {dynamic.where}" if dynamic.where else "")


def reason(result: Result) -> str:
    """The Details column's (and the reason index's) text for a static or failing dynamic result, else ""."""
    dynamic = answer(result)
    if dynamic is None or dynamic.status == "ok":
        return ""
    detail = " ".join(dynamic.detail.split())
    if dynamic.status == "static":
        return STATIC_PREFIX + detail if detail else STATIC_PREFIX.rstrip(": ")
    return FAIL_PREFIX + detail if detail else FAIL_PREFIX.rstrip(": ")


def code(result: Result) -> str:
    dynamic = answer(result)
    return CODE[dynamic.status] if dynamic is not None else "-"
