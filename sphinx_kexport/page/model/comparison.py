"""What changed since an older snapshot (the directive's ``:compare:`` option).

The comparison itself is :func:`sphinx_kexport.snapshot.diff.compare`, the code
the probe's ``diff`` command uses, so the page and the command line always
agree on what regressed. This module keeps what the page needs from it:

* per row (by case name), the cells that changed, as plain data for the row
  payload: ``{"key": "onnx-cpu", "kind": "regressed", "old": "ok", "new":
  "fail"}``;
* per column (``onnx-cpu``, ...), how many cells regressed, were fixed or
  changed otherwise;
* the counts the card lines and the sentence under "How this was measured"
  are made of (those nodes: ``parts.changes``).

Only the rows and devices the page shows are counted: a case dropped from
the newer snapshot, or a device the page leaves out, is not on the page.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...snapshot import read_snapshot
from ...snapshot.diff import compare
from ...snapshot.vocabulary import DYNAMIC_FAIL, DYNAMIC_NOT_APPLICABLE, DYNAMIC_OK, DYNAMIC_STATIC
from .page_model import PageModel
from .words import status_label

# Shown next to a changed cell: a word as well as a sign, never colour alone.
MARKER_TEXT = {"regressed": "▼ regressed", "fixed": "▲ fixed"}


def load_comparison(absolute: str, relative: str) -> dict[str, Any]:
    """The older snapshot as a format-1 dict, read and validated like every other snapshot."""
    return read_snapshot(absolute, relative)[0]


@dataclass
class Comparison:
    source: str  # the older snapshot's path, as written in the directive
    generated_at: str
    library: str  # "mylib 1.2.0", or ""
    by_case: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    per_column: dict[str, Counter] = field(default_factory=dict)
    dynamic: int = 0  # cells whose dynamic-batch result changed
    label: str = ""  # how the page names the older snapshot ("torch 2.13.0"); default its date
    # the older snapshot's cases with no row of the same name here (another survey names them otherwise,
    # or this page leaves them out): not compared, and said so rather than dropped in silence
    not_compared: list[str] = field(default_factory=list)
    old_cases: int = 0

    @classmethod
    def of(cls, old: tuple[dict[str, Any], str], new: dict[str, Any], model: PageModel,
           label: str = "") -> "Comparison":
        old_data, source = old
        library = old_data.get("library", {})
        subject = " ".join(str(library.get(k, "")).strip() for k in ("name", "version")).strip()
        result = cls(source=source, generated_at=str(old_data.get("generated_at", "")), library=subject,
                     per_column={f"{p}-{d}": Counter() for d, p in model.columns}, label=label)
        shown = {row.case.name for row in model.rows}
        names = [str(case.get("name", "")) for case in old_data.get("cases", [])]
        result.old_cases = len(names)
        result.not_compared = sorted(set(names) - shown)
        for change in compare(old_data, new, devices=model.devices):
            if change.case not in shown or not (change.status_changed or change.dynamic_changed):
                continue  # a speed figure that moved is probe diff's news, not a change of support
            key = f"{change.path}-{change.device}"
            entry = {"key": key, "kind": change.kind, "old": change.old_status, "new": change.new_status}
            if change.dynamic_changed:  # the dynamic-batch statuses, when that result changed
                entry.update(old_dynamic=change.old_dynamic, new_dynamic=change.new_dynamic)
                result.dynamic += 1
            result.by_case.setdefault(change.case, []).append(entry)
            result.per_column[key][change.kind] += 1
        return result

    # ------------------------------------------------------------------ counts

    def count(self, kind: str, keys: list[str] | None = None) -> int:
        return sum(counter[kind] for key, counter in self.per_column.items() if keys is None or key in keys)

    def rows_with(self, kinds: tuple[str, ...] = ("regressed", "fixed")) -> int:
        return sum(1 for changes in self.by_case.values() if any(c["kind"] in kinds for c in changes))

    @property
    def since(self) -> str:
        return self.label or self.generated_at or self.source

    def figures(self, keys: list[str] | None) -> str:
        """"1 regressed, 2 fixed", over the columns ``keys`` (None: every column)."""
        return f"{self.count('regressed', keys)} regressed, {self.count('fixed', keys)} fixed"

    @property
    def new_cells(self) -> int:
        """Cells the older snapshot did not have (a case or device it lacks): new, not a change of status."""
        return sum(1 for changes in self.by_case.values() for c in changes
                   if c["kind"] == "changed" and c["old"] is None)


def cell_marker(row: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The regressed/fixed change of one cell of a row payload, or None."""
    for change in row.get("changes", ()):
        if change["key"] == key and change["kind"] in MARKER_TEXT:
            return change
    return None


# How a dynamic-batch status reads in a change marker's title.
DYNAMIC_WORDS = {DYNAMIC_OK: "held at any batch size", DYNAMIC_STATIC: "only at the traced batch size",
                 DYNAMIC_FAIL: "the capture with a dynamic batch failed", DYNAMIC_NOT_APPLICABLE: "no batch dimension"}


def marker_title(change: dict[str, Any], since: str = "") -> str:
    """"was yes, now no" or "was yes at any batch size, now yes only at the traced batch size" —
    for a tooltip and for screen readers."""
    if "old_dynamic" in change:
        old, new = (DYNAMIC_WORDS.get(change[k], change[k]) for k in ("old_dynamic", "new_dynamic"))
        text = f"was {status_label(change['old'])}, {old}; now {status_label(change['new'])}, {new}"
    else:
        text = f"was {status_label(change['old'])}, now {status_label(change['new'])}"
    return text + (f" (compared with {since})" if since else "")
