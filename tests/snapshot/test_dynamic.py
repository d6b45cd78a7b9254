"""The dynamic-batch result: read into records, compared by diff, written to CSV; older snapshots unchanged."""

from __future__ import annotations

import copy
import csv
import io

from sphinx_kexport.snapshot import SnapshotError, build, normalise, validate
from sphinx_kexport.snapshot.csv_table import CSV_COLUMNS, snapshot_csv
from sphinx_kexport.snapshot.diff import compare, count, regressed

ENV = {"torch": "2.13.0", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.12",
       "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-11-29"}
LOOP = "the batch size is specialised by a Python loop over it"


def ok(dynamic=None, **extra):
    result = {"status": "ok", "detail": "", "stage": "", "where": ""} | extra
    if dynamic is not None:
        result["dynamic"] = dynamic
    return result


def dyn(status, detail="", where="", **extra):
    return {"status": status, "detail": detail, "where": where} | extra


def snapshot(onnx=None, export=None, compile=None):
    results = {"onnx": onnx or ok(), "export": export or ok(), "compile": (compile or ok()) | {"graph_breaks": 0}}
    return {"schema": 2, "generated_at": "2026-11-29", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": ENV},
            "cases": [{"name": "op", "package": "lib", "section": "", "operator": "op", "variant": "",
                       "ref": "", "origin": "hand-written", "note": "", "results": {"cpu": results}}]}


def records(data):
    data, _ = normalise(data)
    return build(data, "t.json")


def test_records_carry_the_dynamic_result_and_leave_it_none_when_absent():
    snap = records(snapshot(onnx=ok(dyn("static", LOOP, "lib/a.py:3", traced_batch=2, run_batch=3)),
                            export=ok(dyn("ok", traced_batch=2, run_batch=3))))
    onnx = snap.cases[0].result("cpu", "onnx").dynamic
    assert (onnx.status, onnx.detail, onnx.where, onnx.traced_batch, onnx.run_batch) == (
        "static", LOOP, "lib/a.py:3", 2, 3)
    assert onnx.static and not snap.cases[0].result("cpu", "export").dynamic.static
    assert snap.cases[0].result("cpu", "compile").dynamic is None


def test_an_invalid_dynamic_result_is_refused_in_words():
    bad = snapshot(onnx=ok(dyn("sometimes")))
    try:
        validate(bad)
    except SnapshotError as error:
        assert "dynamic" in str(error)
    else:
        raise AssertionError("a dynamic status outside the vocabulary was accepted")


def test_dynamic_ok_to_static_or_fail_regresses_and_back_is_fixed():
    before = snapshot(onnx=ok(dyn("ok")), export=ok(dyn("ok")), compile=ok(dyn("static", LOOP)))
    after = snapshot(onnx=ok(dyn("static", LOOP, "lib/a.py:3")), export=ok(dyn("fail", "guard failed")),
                     compile=ok(dyn("ok")))
    changes = compare(before, after)
    kinds = {c.path: c.kind for c in changes}
    assert kinds == {"onnx": "regressed", "export": "regressed", "compile": "fixed"}
    assert regressed(changes) and count(changes) == {"regressed": 2, "fixed": 1, "changed": 0}
    onnx = next(c for c in changes if c.path == "onnx")
    assert onnx.describe() == f"op [cpu] ONNX at another batch size: ok -> static ({LOOP}); at lib/a.py:3"
    assert "(" not in next(c for c in changes if c.path == "compile").describe()


def test_a_dynamic_result_that_appears_or_disappears_is_no_change():
    plain = snapshot()
    with_dynamic = snapshot(onnx=ok(dyn("static", LOOP)), export=ok(dyn("ok")), compile=ok(dyn("n/a")))
    assert compare(plain, with_dynamic) == [] and compare(with_dynamic, plain) == []
    assert compare(with_dynamic, copy.deepcopy(with_dynamic)) == []


def test_other_dynamic_differences_are_changes_and_the_worse_kind_wins():
    before = snapshot(onnx=ok(dyn("ok")), export=ok(dyn("static", LOOP)))
    after = snapshot(onnx={"status": "ok-unverified", "detail": "random", "stage": "", "where": "",
                           "dynamic": dyn("fail", "no kernel")},
                     export=ok(dyn("n/a", "no batch dimension")))
    changes = {c.path: c for c in compare(before, after)}
    assert changes["onnx"].kind == "regressed"  # ok -> ok-unverified is a change, the dynamic one a regression
    assert changes["onnx"].describe() == ("op [cpu] ONNX: ok -> ok-unverified (random), and at another batch "
                                          "size: ok -> fail (no kernel)")
    assert changes["export"].kind == "changed"
    # a supported cell that now fails regresses on its status; its dynamic result is simply gone
    lost = compare(before, snapshot(onnx={"status": "fail", "detail": "x", "stage": "capture", "where": ""}))
    assert [(c.path, c.kind, c.dynamic_changed) for c in lost] == [("onnx", "regressed", False)]


def test_csv_has_the_dynamic_columns_filled_only_where_there_is_a_result():
    injected = "=HYPERLINK(\"http://evil\") " + LOOP
    snap = records(snapshot(onnx=ok(dyn("static", injected, "lib/a.py:3", traced_batch=2, run_batch=3))))
    rows = list(csv.DictReader(io.StringIO(snapshot_csv(snap))))
    assert CSV_COLUMNS[-5:] == ("dynamic", "dynamic_detail", "dynamic_where", "traced_batch", "run_batch")
    assert rows[0]["dynamic"] == "static" and rows[0]["dynamic_detail"] == "'" + injected
    assert (rows[0]["dynamic_where"], rows[0]["traced_batch"], rows[0]["run_batch"]) == ("lib/a.py:3", "2", "3")
    assert [rows[1][k] for k in CSV_COLUMNS[-5:]] == [""] * 5
