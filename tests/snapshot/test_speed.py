"""The speed record (probe --speed): read into records, checked by the validator, compared by diff; older
snapshots unchanged."""

from __future__ import annotations

import copy
import json

import pytest

from sphinx_kexport.snapshot import SnapshotError, build, load_snapshot, normalise, validate
from sphinx_kexport.snapshot.diff import compare, count, regressed
from sphinx_kexport.snapshot.result_records import speed_figure, speed_record

ENV = {"torch": "2.13.0", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.12",
       "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-12-05"}


def ok(**extra):
    return {"status": "ok", "detail": "", "stage": "", "where": ""} | extra


def timed(ratio, low, high, size="inputs", **kw):
    return speed_record(2, [speed_figure(size, "2×3", ratio * 1e-5, 1e-5, low, high, **kw)])


def snapshot(compile_speed=None):
    compiled = ok(graph_breaks=0) | ({"speed": compile_speed} if compile_speed is not None else {})
    return {"schema": 2, "generated_at": "2026-12-05", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": ENV},
            "cases": [{"name": "op", "package": "lib", "section": "", "operator": "op", "variant": "",
                       "ref": "", "origin": "hand-written", "note": "",
                       "results": {"cpu": {"onnx": ok(), "export": ok(), "compile": compiled}}}]}


def test_a_snapshot_with_speed_validates_and_reads_into_records(tmp_path):
    data = snapshot(timed(3.1, 2.9, 3.3))
    data["cases"][0]["results"]["cpu"]["compile"]["speed"]["figures"].append(
        speed_figure("batch", "32×3", 4e-4, 1e-4, 3.5, 4.4, batch=32))
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    snap = load_snapshot(path)
    speed = snap.cases[0].result("cpu", "compile").speed
    assert speed.threads == 2 and [f.verdict for f in speed.figures] == ["faster", "faster"]
    assert (speed.figures[1].size, speed.figures[1].batch, speed.figures[1].ratio) == ("batch", 32, 4.0)
    assert snap.cases[0].result("cpu", "onnx").speed is None


@pytest.mark.parametrize("field, value, expected", [
    ("verdict", "quicker", "one of 'faster', 'slower', 'unclear'"),
    ("ratio", "3.1", "number"),
    ("size", "huge", "one of 'inputs', 'batch', 'bench'"),
])
def test_a_malformed_speed_field_is_refused_naming_file_case_and_field(tmp_path, field, value, expected):
    data = snapshot(timed(3.1, 2.9, 3.3))
    data["cases"][0]["results"]["cpu"]["compile"]["speed"]["figures"][0][field] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SnapshotError) as error:
        load_snapshot(path)
    message = str(error.value)
    assert "bad.json" in message and "'op'" in message
    assert f"results.cpu.compile.speed.figures[0].{field}" in message and expected in message


def test_speed_on_a_failing_result_is_refused():
    data = snapshot()
    data["cases"][0]["results"]["cpu"]["onnx"] = {"status": "fail", "detail": "x", "stage": "capture", "where": "",
                                                  "speed": timed(2.0, 1.5, 2.5)}
    with pytest.raises(SnapshotError, match="speed only on a supported result"):
        validate(data, "t.json")


def test_diff_reports_a_speed_change_beyond_the_spread_as_a_change_never_a_regression():
    old, new = snapshot(timed(3.1, 2.9, 3.3)), snapshot(timed(0.45, 0.4, 0.5))
    changes = compare(old, new)
    assert count(changes) == {"regressed": 0, "fixed": 0, "changed": 1} and not regressed(changes)
    assert changes[0].describe() == ("op [cpu] torch.compile speed at the case's inputs: 3.1× faster -> "
                                     "0.45× — slower than eager")
    # within the spreads, or a figure only one side has: no change
    assert compare(old, snapshot(timed(3.0, 2.7, 3.2))) == []
    assert compare(snapshot(), new) == [] and compare(old, snapshot()) == []


def test_the_gate_reports_figures_that_vanished_as_a_change():
    # issue 61: a case measured again without the speed pass lost its figures and diff said "no differences"
    changes = compare(snapshot(timed(3.1, 2.9, 3.3)), snapshot(), vanished=True)
    assert count(changes) == {"regressed": 0, "fixed": 0, "changed": 1}
    assert changes[0].describe() == ("op [cpu] torch.compile speed figures gone: the new record was measured "
                                     "without the speed pass")


def test_an_old_snapshot_reads_as_before():
    data = snapshot()
    before = copy.deepcopy(data)
    validate(data)
    assert data == before
    normalised, _ = normalise(data)
    assert all(r.speed is None for r in build(normalised, "t.json").cases[0].results["cpu"].values())
