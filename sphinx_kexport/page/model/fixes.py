"""The class and fix of a red detail (``snapshot.fix_classes``), for a row's Details and the reason index.

A page says each class's fix once, in its legend of fixes (``parts.fix_legend``: the entry ``kx-fix-<class>``);
a red detail and a reason index entry name their class and link there (:func:`classes_used` lists them).

A detail of a row is red when one of its cells fails with that text, breaks torch.compile's graph with it,
or it is the cell's dynamic-batch reason (``dynamic_batch.reason``); the other details (an n/a cell's why,
a note on a supported cell) get no class. The class is the cell's cause's (or its dynamic result's), looked up
by the payload (``payloads.row_payload``), never read from the text. Plain data from the row payload, so the
doctree is unchanged.
"""

from __future__ import annotations

from typing import Any, Iterable

from ...snapshot.fix_classes import FIX_CLASS, FIX_CLASSES, FixClass
from ...snapshot.vocabulary import status
from .dynamic_batch import FAIL_PREFIX, STATIC_PREFIX

ANCHOR_PREFIX = "kexport-fix-"  # a class's anchor on the reference page (parts.fix_reference)
LEGEND_PREFIX = "kx-fix-"  # a class's entry in the page's own legend of fixes (parts.fix_legend)


def fix_payload(fix: FixClass) -> dict[str, str]:
    """What a display needs of a class: its id, its anchor on the reference page, title, fix and code shape."""
    return {"id": str(fix), "anchor": ANCHOR_PREFIX + fix, "title": fix.title, "fix": fix.fix, "before": fix.before, "after": fix.after}


def _own_detail(cell: dict[str, Any], text: str) -> bool:
    """Whether ``text`` is the cell's own detail (not its dynamic result's reason)."""
    return " ".join(str(cell.get("detail", "")).split()) == text


def _red(cell: dict[str, Any], text: str) -> bool:
    if text.startswith((STATIC_PREFIX, FAIL_PREFIX)):
        return True
    # red: a failure, or torch.compile where fullgraph=True fails (a break the default compile shows on a cell
    # that fullgraph=True compiles is a fact, not a fix)
    return _own_detail(cell, text) and (status(cell["status"]).failing or bool(cell.get("fullgraph_fails")))


def detail_fixes(detail: dict[str, Any], cells: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    """The distinct classes of one detail (``{"text", "columns"}``) over its red cells, in path order."""
    text = " ".join(detail["text"].split())
    found: list[FixClass] = []
    for key in detail["columns"]:
        cell = cells.get(key)
        if cell is not None and _red(cell, text):
            fix = FIX_CLASS[cell["fix_class"] if _own_detail(cell, text) else cell["dynamic_fix_class"]]
            if fix not in found:
                found.append(fix)
    return [fix_payload(f) for f in found]


def classes_used(rows: Iterable[dict[str, Any]], reason_entries: Iterable[dict[str, Any]] = ()) -> list[FixClass]:
    """The classes the red details of ``rows`` (row payloads) and the ``reason_entries`` (``kexport_reasons``
    entries, whose ``fixes`` are :func:`fix_payload` dicts) name, in the reference's order."""
    ids = {f["id"] for entry in reason_entries for f in entry["fixes"]}
    for row in rows:
        cells = {c["key"]: c for c in row["cells"]}
        for detail in row["details"]:
            ids.update(f["id"] for f in detail_fixes(detail, cells))
    return [fix for fix in FIX_CLASSES if str(fix) in ids]
