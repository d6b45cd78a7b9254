"""The snapshot handed over as data: CSV with one row per case, device and path.

Spreadsheet programs execute cells that start with ``=``, ``+``, ``-`` or
``@``; snapshot strings are untrusted, so such cells are prefixed with an
apostrophe (the OWASP advice for CSV injection).
"""

from __future__ import annotations

import csv
import io

from .snapshot import PATHS, Snapshot

CSV_COLUMNS = ("name", "package", "section", "operator", "variant", "ref", "device", "path", "status", "detail",
               "stage", "where", "graph_breaks")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def snapshot_csv(snapshot: Snapshot) -> str:
    """CSV text: header row, then cases in snapshot order, devices cpu then cuda, paths in page order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for case in snapshot.cases:
        for device in snapshot.devices:
            if device not in case.results:
                continue
            for path in PATHS:
                r = case.result(device, path)
                writer.writerow([_cell(v) for v in (
                    case.name, case.package, case.section, case.operator, case.variant, case.ref, device, path,
                    r.status, r.detail, r.stage, r.where, r.graph_breaks if path == "compile" else "")])
    return out.getvalue()
