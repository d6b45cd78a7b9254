"""The CSV hand-over: one row per case, device and path; formula injection defused."""

from __future__ import annotations

import csv
import io

from sphinx_kexport.snapshot.csv_table import CSV_COLUMNS, snapshot_csv
from sphinx_kexport.snapshot import build, normalise


def _snapshot():
    env = {"torch": "2.13.0", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-11-29"}
    res = {"status": "fail", "detail": "=HYPERLINK(\"http://evil\")", "stage": "capture", "where": "lib/a.py:3"}
    ok = {"status": "ok", "detail": "", "stage": "", "where": ""}
    data = {"schema": 1, "generated_at": "2026-11-29", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"},
            "environments": {"cpu": env, "cuda": env | {"device_name": "H200"}},
            "cases": [{"name": "@op[v]", "package": "lib", "section": "", "operator": "@op", "variant": "v",
                       "ref": "", "note": "", "results": {
                           "cpu": {"onnx": res, "export": ok, "compile": ok | {"graph_breaks": 2}},
                           "cuda": {"onnx": ok, "export": ok, "compile": ok | {"graph_breaks": 0}}}}]}
    data, _ = normalise(data)
    return build(data, "t.json")


def test_one_row_per_case_device_and_path():
    rows = list(csv.DictReader(io.StringIO(snapshot_csv(_snapshot()))))
    assert tuple(rows[0].keys()) == CSV_COLUMNS
    assert [(r["device"], r["path"]) for r in rows] == [
        ("cpu", "onnx"), ("cpu", "export"), ("cpu", "compile"),
        ("cuda", "onnx"), ("cuda", "export"), ("cuda", "compile")]
    assert rows[2]["graph_breaks"] == "2" and rows[0]["graph_breaks"] == ""
    assert rows[0]["stage"] == "capture" and rows[0]["where"] == "lib/a.py:3"


def test_cells_that_a_spreadsheet_would_execute_are_defused():
    rows = list(csv.DictReader(io.StringIO(snapshot_csv(_snapshot()))))
    assert rows[0]["detail"] == "'=HYPERLINK(\"http://evil\")"
    assert rows[0]["name"] == "'@op[v]"
    assert rows[0]["status"] == "fail"
