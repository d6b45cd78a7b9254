"""Compare two snapshots: what regressed, what was fixed, what merely changed.

Pure Python (no torch): the probe's ``diff`` command and the page's
``:compare:`` option share it. Both inputs are format-1 dicts (pass them
through :func:`sphinx_kexport.snapshot.normalise` first, which also converts
Kornia's format).

Ranking: ``ok``, ``ok-breaks`` and ``ok-unverified`` are supported. Supported
-> ``mismatch``/``fail`` is a regression; ``mismatch``/``fail`` -> supported
is a fix. Everything else that differs (n/a transitions, a case or device
that appears or disappears, fail <-> mismatch, ok <-> ok-breaks, a different
number of graph breaks) is a change, reported but not a regression.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from .vocabulary import DEVICES, FAILING, PATH_LABELS, PATHS, SUPPORTED

KINDS = ("regressed", "fixed", "changed")


@dataclass(frozen=True)
class Change:
    case: str
    device: str
    path: str
    old_status: str | None  # None: not in the old snapshot (case or device absent)
    new_status: str | None  # None: not in the new snapshot
    kind: str  # regressed | fixed | changed
    old_detail: str = ""
    new_detail: str = ""
    old_breaks: int = 0
    new_breaks: int = 0

    def describe(self) -> str:
        """One line for a person, e.g. ``filters.x [cpu] ONNX: ok -> fail (no ONNX lowering for ...)``."""
        old = self.old_status or "absent"
        new = self.new_status or "absent"
        if old == new == "ok-breaks":
            old, new = f"{old} ({self.old_breaks})", f"{new} ({self.new_breaks})"
        why = self.new_detail if self.kind != "fixed" else ""
        return (f"{self.case} [{self.device}] {PATH_LABELS.get(self.path, self.path)}: {old} -> {new}"
                + (f" ({why})" if why else ""))


def classify(old: str | None, new: str | None) -> str:
    if old in SUPPORTED and new in FAILING:
        return "regressed"
    if old in FAILING and new in SUPPORTED:
        return "fixed"
    return "changed"


def _results(snapshot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["name"]: case.get("results", {}) for case in snapshot.get("cases", [])}


def _ordered_names(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    names = [c["name"] for c in new.get("cases", [])]
    seen = set(names)
    return names + [c["name"] for c in old.get("cases", []) if c["name"] not in seen]


def compare(old: dict[str, Any], new: dict[str, Any], devices: Iterable[str] | None = None) -> list[Change]:
    """Every difference between ``old`` and ``new``, in the new snapshot's case order.

    ``devices`` limits the comparison (default: every device either snapshot
    probed). A device only one snapshot probed shows up as changes from or to
    ``None``, never as regressions.
    """
    old_results, new_results = _results(old), _results(new)
    if devices is None:
        present = set(old.get("environments", {})) | set(new.get("environments", {}))
        devices = [d for d in DEVICES if d in present]
    changes: list[Change] = []
    for name in _ordered_names(old, new):
        for device in devices:
            before = old_results.get(name, {}).get(device)
            after = new_results.get(name, {}).get(device)
            if before is None and after is None:
                continue
            for path in PATHS:
                a = (before or {}).get(path) or {}
                b = (after or {}).get(path) or {}
                old_status, new_status = a.get("status"), b.get("status")
                old_breaks, new_breaks = int(a.get("graph_breaks", 0)), int(b.get("graph_breaks", 0))
                if old_status == new_status and old_breaks == new_breaks:
                    continue
                changes.append(Change(name, device, path, old_status, new_status,
                                      classify(old_status, new_status), a.get("detail", ""),
                                      b.get("detail", ""), old_breaks, new_breaks))
    return changes


def count(changes: Iterable[Change]) -> dict[str, int]:
    counts = Counter(change.kind for change in changes)
    return {kind: counts.get(kind, 0) for kind in KINDS}


def regressed(changes: Iterable[Change]) -> bool:
    return any(change.kind == "regressed" for change in changes)
