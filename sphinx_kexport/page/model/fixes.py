"""The class and fix of a red detail (``snapshot.fix_classes``), for a row's Details and the reason index.

A detail of a row is red when one of its cells fails with that text, breaks torch.compile's graph with it,
or it is the cell's dynamic-batch reason (``dynamic_batch.reason``); the other details (an n/a cell's why,
a note on a supported cell) get no class. Plain data from the row payload, so the doctree is unchanged.
"""

from __future__ import annotations

from typing import Any

from ...snapshot.fix_classes import FixClass, classify
from ...snapshot.vocabulary import status
from .dynamic_batch import FAIL_PREFIX, STATIC_PREFIX

ANCHOR_PREFIX = "kexport-fix-"  # a class's anchor on the reference page (parts.fix_reference)


def fix_payload(fix: FixClass) -> dict[str, str]:
    """What a display needs of a class: its id, its anchor on the reference page, title, fix and code shape."""
    return {"id": str(fix), "anchor": ANCHOR_PREFIX + fix, "title": fix.title, "fix": fix.fix, "before": fix.before, "after": fix.after}


def _red(cell: dict[str, Any], text: str) -> bool:
    if text.startswith((STATIC_PREFIX, FAIL_PREFIX)):
        return True
    same = " ".join(str(cell.get("detail", "")).split()) == text
    return same and (status(cell["status"]).failing or bool(cell.get("graph_breaks")))


def detail_fixes(detail: dict[str, Any], cells: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    """The distinct classes of one detail (``{"text", "columns"}``) over its red cells, in path order."""
    text = " ".join(detail["text"].split())
    found: list[FixClass] = []
    for key in detail["columns"]:
        cell = cells.get(key)
        if cell is not None and _red(cell, text):
            own = " ".join(str(cell.get("detail", "")).split()) == text  # else the dynamic result's reason
            fix = classify(cell["path"], text, cell.get("where_code", "") if own else "")
            if fix not in found:
                found.append(fix)
    return [fix_payload(f) for f in found]
