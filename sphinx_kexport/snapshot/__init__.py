"""The contract between the probe and the page: the snapshot format. Standard library only.

* ``vocabulary``: paths, devices, statuses, stages and their labels;
* ``errors``: ``SnapshotError`` and how a problem is put into words;
* ``validation``: the one validator, compiled from ``snapshot-2.schema.json``;
* ``kornia_format``: Kornia's committed flat format, converted to format 1;
* ``files``: reading (``read_snapshot``, ``load_snapshot``) and atomic writing;
* ``records``: the typed records the page renders;
* ``diff``: comparing two snapshots (``probe diff`` and ``:compare:``);
* ``diff_cause``: what caused a change (the code that changed, the failure's line);
* ``diff_formats``: ``probe diff``'s report as text, Markdown or JSON;
* ``repro``: the Python that reproduces one cell;
* ``csv_table``: the snapshot as CSV rows.

Nothing here imports sphinx, docutils, jinja2 or torch (a test checks it), so
both halves can depend on it.
"""

from __future__ import annotations

from .errors import FIX_HINT, SnapshotError
from .files import (
                    KORNIA_FORMAT,
                    NATIVE_FORMAT,
                    dump_snapshot,
                    dumps,
                    load_snapshot,
                    normalise,
                    read_json,
                    read_snapshot,
                    write_atomic,
)
from .kornia_format import from_kornia, is_kornia_format
from .records import NOT_PROBED, Case, Dynamic, ObjectWithoutCase, Result, Snapshot, Speed, SpeedFigure, build
from .validation import SCHEMA_PATH, load_schema, validate
from .vocabulary import DEVICE_LABELS, DEVICES, DYNAMIC_STATUSES, FAILING, PATH_LABELS, PATHS, SCHEMA_VERSION, STAGES, STATUSES, SUPPORTED

__all__ = [
    "Case", "DEVICES", "DEVICE_LABELS", "DYNAMIC_STATUSES", "Dynamic", "FAILING", "FIX_HINT", "KORNIA_FORMAT", "NATIVE_FORMAT", "NOT_PROBED",
    "ObjectWithoutCase", "PATHS", "PATH_LABELS", "Result", "SCHEMA_PATH", "SCHEMA_VERSION", "STAGES", "STATUSES", "SUPPORTED",
    "Snapshot", "SnapshotError", "Speed", "SpeedFigure", "build", "dump_snapshot", "dumps", "from_kornia", "is_kornia_format",
    "load_schema", "load_snapshot", "normalise", "read_json", "read_snapshot", "validate", "write_atomic",
]
