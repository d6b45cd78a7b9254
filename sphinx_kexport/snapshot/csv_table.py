"""The snapshot handed over as data: CSV with one row per case, device and path.

Spreadsheet programs execute cells that start with ``=``, ``+``, ``-`` or
``@``; snapshot strings are untrusted, so such cells are prefixed with an
apostrophe (the OWASP advice for CSV injection).
"""

from __future__ import annotations

import csv
import io

from .records import Snapshot
from .vocabulary import PATHS

CSV_COLUMNS = ("name", "package", "section", "operator", "variant", "ref", "device", "path", "status", "detail",
               "stage", "where", "graph_breaks", "dynamic", "dynamic_detail", "dynamic_where", "traced_batch",
               "run_batch")
# The dynamic-batch columns are empty where the snapshot has no dynamic result for the cell.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_CHARS = frozenset(_FORMULA_START)


def spreadsheet_safe(value: str) -> str:
    """A cell a spreadsheet program shows as text, never runs as a formula."""
    return "'" + value if value and value[0] in _FORMULA_CHARS else value


def snapshot_csv(snapshot: Snapshot) -> str:
    """CSV text: header row, then cases in snapshot order, devices cpu then cuda, paths in page order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
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
                                    r.graph_breaks if path == "compile" else ""]
                            + ([dyn.status, safe(dyn.detail), safe(dyn.where),
                                "" if dyn.traced_batch is None else dyn.traced_batch,
                                "" if dyn.run_batch is None else dyn.run_batch] if dyn else [""] * 5))
    writer.writerows(rows)
    return out.getvalue()
