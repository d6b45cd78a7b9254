"""One page across torch versions: the cases matched by name, and what each cell was in each version.

The page shows one row per case name that any version has. A row's cells show the newest version that
has the case (the newest torch first); :class:`History` adds, per row, the versions that have it and,
for each cell whose status differs between them, its mark (``version_marks``) and its status in each
version (the strip). Rows and cells that read the same in every version carry nothing extra, so a page
across versions costs bytes only where the versions differ.

A version whose snapshot is incomplete (``complete: false``: a survey still being run shard by shard)
has a case only where it measured it. The counts of the page (cards, summary, package leads) are the
newest version's: a case that version
lacks is shown, with the versions it has, but not counted (the browser recounts for another version).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ...snapshot import Case, Snapshot
from ...snapshot.diff import Change, compare
from .page_model import PageModel, Row
from .version_marks import SAME, version_mark
from .versions import Version
from .words import status_text


@dataclass
class History:
    versions: list[Version]  # oldest first
    display: Snapshot  # every case at the newest version that has it, under the newest version's header
    cases: dict[str, list[Case | None]]  # per case name, per version (None: that version lacks it)

    @classmethod
    def of(cls, versions: list[Version]) -> "History":
        newest = versions[-1].snapshot
        cases: dict[str, list[Case | None]] = {}
        for i, version in enumerate(versions):
            for case in version.snapshot.cases:
                # an incomplete snapshot (a survey still under way) lists cases it has not measured: that
                # version has no word on them yet, as if it lacked them, rather than "not probed" everywhere
                measured = case.results or version.snapshot.complete
                cases.setdefault(case.name, [None] * len(versions))[i] = case if measured else None
        # the newest's cases in its order, then those only older versions have (newest first)
        order = [c.name for c in newest.cases]
        seen = set(order)
        for version in reversed(versions[:-1]):
            order += [c.name for c in version.snapshot.cases if c.name not in seen and not seen.add(c.name)]
        shown = [dataclasses.replace(next(c for c in reversed(cases[name]) if c is not None), index=i)
                 for i, name in enumerate(order)]
        display = dataclasses.replace(newest, cases=shown)
        return cls(versions=versions, display=display, cases=cases)

    @property
    def labels(self) -> list[str]:
        return [v.label for v in self.versions]

    @property
    def newest(self) -> Version:
        return self.versions[-1]

    def snapshot_of(self, label: str) -> Snapshot:
        """One version's snapshot with the page's case indices (its model keeps the page's row ids)."""
        at = self.labels.index(label)
        index = {case.name: case.index for case in self.display.cases}
        version = self.versions[at].snapshot
        return dataclasses.replace(version, cases=[dataclasses.replace(c, index=index[c.name])
                                                   for c in version.cases])

    def in_newest(self, case: Case) -> bool:
        """Whether the newest version has the case (what the page's figures count)."""
        return self.cases[case.name][-1] is not None

    def present(self, name: str) -> list[str]:
        """The versions that have the case, oldest first."""
        return [v.label for v, c in zip(self.versions, self.cases[name]) if c is not None]

    def row_payload(self, row: Row) -> dict[str, Any] | None:
        """The row's ``versions`` payload, or None when every version has the case and agrees on every
        cell: ``{"present": [labels] (every version that has the case), "absent": bool, "cells": {key:
        {"kind", "words", "strip": [{"version", "status", "text", "detail", "stage", "where"}]}}}``."""
        had = [(v.label, c) for v, c in zip(self.versions, self.cases[row.case.name]) if c is not None]
        labels = [label for label, _ in had]
        cells: dict[str, Any] = {}
        for cell in row.cells:
            results = [case.result(cell.device, cell.path) for _, case in had]
            mark = version_mark([r.status for r in results], labels)
            if mark.kind == SAME:
                continue
            cells[cell.key] = {"kind": mark.kind, "words": mark.words, "strip": [
                {"version": label, "status": r.status, "text": status_text(r), "detail": r.detail.strip(),
                 "stage": r.stage, "where": r.where} for label, r in zip(labels, results)]}
        if not cells and len(had) == len(self.versions):
            return None
        return {"present": labels, "absent": len(had) < len(self.versions), "cells": cells}

    def regressions(self, model: PageModel) -> list[Change]:
        """The cells that regressed between the two newest versions, on the rows and devices the page
        shows: what ``probe diff OLDER NEWER`` reports as regressed (it exits 1 on them)."""
        if len(self.versions) < 2:
            return []
        shown = {row.case.name for row in model.rows}
        older, newer = self.versions[-2], self.versions[-1]
        return [change for change in compare(older.data, newer.data, devices=model.devices)
                if change.kind == "regressed" and change.case in shown]
