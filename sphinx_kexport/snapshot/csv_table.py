"""The snapshot handed over as data: CSV with one row per case, device and path.

Spreadsheet programs execute cells that start with ``=``, ``+``, ``-`` or
``@``; snapshot strings are untrusted, so such cells are prefixed with an
apostrophe (the OWASP advice for CSV injection).
"""

from __future__ import annotations

import csv
import io

from .records import Result, Snapshot
from .vocabulary import COMPILE, PATHS, SPEED_AT_INPUTS, speed_size

CSV_COLUMNS = ("name", "package", "section", "operator", "variant", "ref", "device", "path", "status", "detail",
               "stage", "where", "graph_breaks", "dynamic", "dynamic_detail", "dynamic_where", "traced_batch",
               "run_batch")
# The dynamic-batch columns are empty where the snapshot has no dynamic result for the cell.
# A snapshot with speed figures (probe --speed) adds these, empty where the cell has none: the ratio eager/path
# and its verdict at the case's inputs, and at the larger size (its size: "batch 32", "the bench= inputs").
SPEED_COLUMNS = ("speed_inputs_ratio", "speed_inputs_verdict", "speed_larger_size", "speed_larger_ratio",
                 "speed_larger_verdict")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_CHARS = frozenset(_FORMULA_START)


def spreadsheet_safe(value: str) -> str:
    """A cell a spreadsheet program shows as text, never runs as a formula."""
    return "'" + value if value and value[0] in _FORMULA_CHARS else value


def _speed_cells(result: Result) -> list:
    """The SPEED_COLUMNS of one result (numbers and vocabulary words: nothing a spreadsheet could run)."""
    figures = result.speed.figures if result.speed is not None else ()
    inputs = next((f for f in figures if f.size == SPEED_AT_INPUTS), None)
    larger = next((f for f in figures if f.size != SPEED_AT_INPUTS), None)
    return ([inputs.ratio, inputs.verdict] if inputs else ["", ""]) + (
        [speed_size(larger.size, larger.batch), larger.ratio, larger.verdict] if larger else ["", "", ""])


def snapshot_csv(snapshot: Snapshot) -> str:
    """CSV text: header row, then cases in snapshot order, devices cpu then cuda, paths in page order; the
    speed columns only where a result has speed figures (a snapshot without them reads as before)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    with_speed = any(r.speed is not None and r.speed.figures for case in snapshot.cases
                     for paths in case.results.values() for r in paths.values())
    writer.writerow(CSV_COLUMNS + (SPEED_COLUMNS if with_speed else ()))
    devices = snapshot.devices
    safe = spreadsheet_safe
    rows = []
    for case in snapshot.cases:
        head = [safe(case.name), safe(case.package), safe(case.section), safe(case.operator), safe(case.variant),
                safe(case.ref)]
        for device in devices:
            if device not in case.results:
                continue
            for path in PATHS:
                r = case.result(device, path)
                dyn = r.dynamic
                rows.append(head + [device, path, r.status, safe(r.detail), safe(r.stage), safe(r.where),
                                    r.graph_breaks if path == COMPILE else ""]
                            + ([dyn.status, safe(dyn.detail), safe(dyn.where),
                                "" if dyn.traced_batch is None else dyn.traced_batch,
                                "" if dyn.run_batch is None else dyn.run_batch] if dyn else [""] * 5)
                            + (_speed_cells(r) if with_speed else []))
    writer.writerows(rows)
    return out.getvalue()
