"""The file ``probe repro --check SNAPSHOT --write FILE`` writes, and the page reads (``:repro-check:``).

It says, for each failing cell of one device, whether its repro snippet, run as pasted in a fresh interpreter,
ended as the cell says (``reproduced``), ended otherwise, or could not run, and how::

    {"snapshot": "export_support.json", "torch": "2.13.0", "device": "cpu",
     "cells": [{"case": "fit_line", "path": "onnx", "verdict": "reproduced", "what": "..."}]}

Standard library only: the docs build reads it without torch. Every string in it is data to escape.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from .errors import SnapshotError, kind_of
from .vocabulary import PATHS

REPRODUCED = "reproduced"
ENDED_OTHERWISE = "ended otherwise"
COULD_NOT_RUN = "could not run"
VERDICTS = (REPRODUCED, ENDED_OTHERWISE, COULD_NOT_RUN)
HOW_TO_REGENERATE = ("Run `python -m sphinx_kexport.probe repro --check SNAPSHOT --write FILE` again on the snapshot "
                     "the page shows.")


@dataclass(frozen=True)
class CheckedCell:
    case: str
    path: str
    verdict: str  # one of VERDICTS
    what: str  # how its snippet ended, in words


@dataclass(frozen=True)
class ReproChecks:
    source: str  # the file, as the directive names it
    snapshot: str  # the file name of the snapshot that was checked
    torch: str  # the torch the snippets ran under
    device: str
    cells: tuple[CheckedCell, ...]

    def by_case(self) -> dict[str, list[CheckedCell]]:
        found: dict[str, list[CheckedCell]] = {}
        for cell in self.cells:
            found.setdefault(cell.case, []).append(cell)
        return found

    def counts(self) -> Counter:
        return Counter(cell.verdict for cell in self.cells)


def checks_document(snapshot: str, torch: str, device: str, cells: Iterable[CheckedCell]) -> dict[str, Any]:
    """What ``--write`` puts in the file (the cells in a stable order)."""
    rows = [{"case": c.case, "path": c.path, "verdict": c.verdict, "what": c.what}
            for c in sorted(cells, key=lambda c: (c.case, c.path))]
    return {"snapshot": os.path.basename(snapshot), "torch": torch, "device": device, "cells": rows}


def parse_checks(data: Any, source: str) -> ReproChecks:
    """The checks in ``data`` (the file's JSON); SnapshotError naming the field and what was expected."""
    def wrong(where: str, expected: str, found: Any) -> SnapshotError:
        return SnapshotError(f"{source}: {where}: expected {expected}, found {kind_of(found)} {found!r:.80}. "
                             f"This file is what `probe repro --check --write` writes. {HOW_TO_REGENERATE}")

    if not isinstance(data, dict):
        raise wrong("the file", "an object with snapshot, torch, device and cells", data)
    for key in ("snapshot", "torch", "device"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise wrong(f"field {key!r}", "a non-empty string", data.get(key))
    if not isinstance(data.get("cells"), list):
        raise wrong("field 'cells'", "a list of checked cells", data.get("cells"))
    cells = []
    for index, cell in enumerate(data["cells"]):
        where = f"cells[{index}]"
        if not isinstance(cell, dict):
            raise wrong(where, "an object with case, path, verdict and what", cell)
        if not isinstance(cell.get("case"), str) or not cell["case"]:
            raise wrong(f"{where}.case", "the name of a case of the snapshot", cell.get("case"))
        if cell.get("path") not in PATHS:
            raise wrong(f"{where}.path ({cell['case']})", "one of " + ", ".join(PATHS), cell.get("path"))
        if cell.get("verdict") not in VERDICTS:
            raise wrong(f"{where}.verdict ({cell['case']})", "one of " + ", ".join(VERDICTS), cell.get("verdict"))
        if not isinstance(cell.get("what", ""), str):
            raise wrong(f"{where}.what ({cell['case']})", "a string", cell.get("what"))
        cells.append(CheckedCell(cell["case"], cell["path"], cell["verdict"], cell.get("what", "")))
    return ReproChecks(source, data["snapshot"], data["torch"], data["device"], tuple(cells))


def check_matches(checks: ReproChecks, snapshot: Any) -> None:
    """SnapshotError unless ``checks`` were made on ``snapshot`` (a ``records.Snapshot``) as it is: its device,
    its torch, and each checked cell a failing cell of it."""
    from .vocabulary import FAIL, MISMATCH, TIMEOUT

    source = f"{checks.source} (checks of {checks.snapshot})"
    environment = snapshot.environments.get(checks.device)
    if environment is None:
        raise SnapshotError(f"{source}: device {checks.device!r}: the snapshot {snapshot.source} has no results on "
                            f"it (devices: {', '.join(snapshot.environments) or 'none'}). {HOW_TO_REGENERATE}")
    measured = str(environment.get("torch", "")).split("+")[0]
    if measured != checks.torch.split("+")[0]:
        raise SnapshotError(f"{source}: the snippets ran under torch {checks.torch}, but {snapshot.source} was "
                            f"measured under torch {measured or '(unknown)'}: a check says whether a cell reproduces "
                            f"under the snapshot's own torch. {HOW_TO_REGENERATE}")
    cases = {case.name: case for case in snapshot.cases}
    for cell in checks.cells:
        case = cases.get(cell.case)
        result = case.results.get(checks.device, {}).get(cell.path) if case is not None else None
        if result is None or result.status not in (FAIL, MISMATCH, TIMEOUT):
            found = "no such case" if case is None else (f"its {cell.path} cell is {result.status}" if result
                                                         else f"it has no {cell.path} cell")
            raise SnapshotError(f"{source}: case {cell.case!r}, path {cell.path}: expected a failing cell of "
                                f"{snapshot.source}, found {found}; the snapshot changed since the check. "
                                f"{HOW_TO_REGENERATE}")
