"""What caused a change :func:`~sphinx_kexport.snapshot.diff.compare` reports: the code its case ran that changed
between the two snapshots, and the library line of the failure. Standard library only.

A case's record names the code it ran on a device (``measured[device].code``, a set in the snapshot's ``code``
table: ``{ref: digest}``, a ref being ``file::function`` or a file's top level; :mod:`.code_table`). The code of a
cell that changed is the refs both records name with different digests, plus those only one names (a helper
the edited function now calls, one it no longer does). Nothing is said where either record names no code (an
older snapshot, a new case): no record, no comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .code_table import unpack

SHOWN = 3  # refs named per list in a line or a table cell ("and N more" after them); the JSON has them all


@dataclass(frozen=True)
class CodeDelta:
    """The refs a case ran whose code differs between two snapshots, each sorted."""

    changed: tuple[str, ...] = ()  # named by both records, with another digest
    added: tuple[str, ...] = ()  # named by the new record only
    removed: tuple[str, ...] = ()  # named by the old record only

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.removed)

    def lists(self) -> list[tuple[str, tuple[str, ...]]]:
        """(label, refs) of each non-empty list, in the order a line says them."""
        return [(label, refs) for label, refs in (("changed", self.changed), ("added", self.added),
                                                  ("removed", self.removed)) if refs]


NO_CODE_DELTA = CodeDelta()


def shortened(refs: tuple[str, ...], shown: int = SHOWN) -> tuple[list[str], int]:
    """The first ``shown`` refs and how many more there are."""
    return list(refs[:shown]), max(0, len(refs) - shown)


def code_by_case(snapshot: dict[str, Any]) -> dict[str, dict[str, dict[str, str]]]:
    """case name -> device -> {ref: digest} of the code its record ran, for each record that names its code."""
    table = unpack(snapshot.get("code"))
    found: dict[str, dict[str, dict[str, str]]] = {}
    for case in snapshot.get("cases", []):
        for device, stamp in (case.get("measured") or {}).items():
            code = table.get(stamp.get("code", "")) if isinstance(stamp, dict) else None
            if code is not None:
                found.setdefault(case["name"], {})[device] = code
    return found


def code_delta(old: dict[str, str] | None, new: dict[str, str] | None) -> CodeDelta:
    """What differs between the code two records of one case ran (:class:`CodeDelta`); none without both."""
    if old is None or new is None or old == new:
        return NO_CODE_DELTA
    return CodeDelta(changed=tuple(sorted(ref for ref in new.keys() & old.keys() if new[ref] != old[ref])),
                     added=tuple(sorted(new.keys() - old.keys())), removed=tuple(sorted(old.keys() - new.keys())))


def failure_where(kind: str, old: dict[str, Any], new: dict[str, Any], status_moved: bool,
                  dynamic_moved: bool) -> str:
    """The library line (``path:line``, the result's ``where``) of the failure a change reports: the new result's,
    or for a fix the old one's (what was fixed); else, when the dynamic-batch result moved, its where."""
    side = old if kind == "fixed" else new
    if status_moved and side.get("where"):
        return str(side["where"])
    dynamic = side.get("dynamic")
    if dynamic_moved and isinstance(dynamic, dict):
        return str(dynamic.get("where", ""))
    return ""
