"""Cause records (snapshot/causes.py): readers look a red result's class up by its cause id and read nothing of
its words; a record without a cause (an older probe's) gets one from the legacy reader when a snapshot is read
or written, the class its words always had."""

from __future__ import annotations

import copy
import json

import pytest

from sphinx_kexport.snapshot import SnapshotError, build, dump_snapshot, normalise, read_snapshot
from sphinx_kexport.snapshot.causes import Cause, kind, settle
from sphinx_kexport.snapshot.fix_classes import (CONSTANT_MUTATION, EARLY_EXIT, FIX_CLASSES, GUARD, SPARSE_TENSOR,
                                                 TENSOR_BRANCH, UNCLASSIFIED, class_of)
from sphinx_kexport.snapshot.validation import load_schema
from sphinx_kexport.snapshot.vocabulary import COMPILE, EXPORT, ONNX, ORIGIN_HAND
from sphinx_kexport.snapshot.worklist import blocked_cells

BRANCH = "a Python branch (if / while) tests tensor values at run time"  # a data-dependent guard by its words


def _result(status="ok", detail="", where="", stage="", **extra):
    return {"status": status, "detail": detail, "stage": stage, "where": where, **extra}


def _snapshot(export, compile=None, onnx=None) -> dict:
    env = {"torch": "2.13.0+cpu", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-11-29"}
    case = {"name": "op", "package": "lib", "section": "", "operator": "op", "variant": "", "ref": "", "note": "",
            "origin": ORIGIN_HAND, "results": {"cpu": {"onnx": onnx or _result(), "export": export,
                                                  "compile": compile or _result(graph_breaks=0)}}}
    return {"schema": 2, "generated_at": "2026-11-29", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": env},
            "cases": [case]}


def _classes(data: dict) -> dict[str, str]:
    normalised, _ = normalise(copy.deepcopy(data))
    return {cell.path: str(cell.fix_class) for cell in blocked_cells(build(normalised, "<test>"))}


def test_the_class_is_looked_up_by_id():
    assert class_of(Cause("constant-mutation")) is CONSTANT_MUTATION
    assert class_of(None) is UNCLASSIFIED
    # a branch on tensor values under torch.compile is still split by its library statement
    assert class_of(Cause("tensor-branch"), "if not mask.any():\n    break") is EARLY_EXIT
    assert class_of(Cause("data-dependent-guard"), "if not mask.any():\n    break") is GUARD


def test_the_worklist_takes_the_cause_id_not_the_words():
    data = _snapshot(_result("fail", BRANCH, "lib/op.py:1", "capture", cause={"id": "constant-mutation"}),
                     onnx=_result("ok", dynamic={"status": "fail", "detail": BRANCH, "where": "lib/op.py:2",
                                                 "cause": {"id": "sparse-tensor"}}))
    assert _classes(data) == {EXPORT: CONSTANT_MUTATION, ONNX: SPARSE_TENSOR}


def test_records_without_a_cause_get_the_class_their_words_had():
    data = _snapshot(_result("fail", BRANCH, "lib/op.py:1", "capture"),
                     compile=_result("ok-breaks", f"1 graph break: {BRANCH}", "lib/op.py:1", graph_breaks=1))
    assert _classes(data) == {EXPORT: GUARD, COMPILE: TENSOR_BRANCH}
    normalised, _ = normalise(copy.deepcopy(data))
    results = normalised["cases"][0]["results"]["cpu"]
    assert results[EXPORT]["cause"] == {"id": "data-dependent-guard"}
    assert "cause" not in results[ONNX]  # an ok record has no cause


def test_a_reused_record_without_a_cause_is_written_with_the_one_its_words_match(tmp_path):
    data = _snapshot(_result("fail", BRANCH, "lib/op.py:1", "capture"),
                     onnx=_result("fail", BRANCH, "lib/op.py:1", "capture", cause={"id": "constant-mutation"}))
    dump_snapshot(data, tmp_path / "out.json")
    written = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["cases"][0]["results"]["cpu"]
    assert written[EXPORT]["cause"] == {"id": "data-dependent-guard"}
    assert written[ONNX]["cause"] == {"id": "constant-mutation"}  # a record's own cause is never re-read


def test_the_schema_lists_every_fix_class_and_rejects_another(tmp_path):
    assert load_schema()["$defs"]["cause"]["properties"]["id"]["enum"] == [str(c) for c in FIX_CLASSES]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_snapshot(_result("fail", BRANCH, "", "capture", cause={"id": "nope"}))),
                    encoding="utf-8")
    with pytest.raises(SnapshotError, match="cause.id"):
        read_snapshot(path)


def test_settle_fixes_a_kind_to_its_path_and_keeps_it_only_on_red_records():
    branch = kind(TENSOR_BRANCH, GUARD).naming("Tensor.item()")
    compiled = settle(_result("fail", BRANCH, cause=branch), COMPILE)
    exported = settle(_result("fail", BRANCH, cause=branch, dynamic={"status": "ok", "detail": "", "where": "",
                                                                      "cause": branch}), EXPORT)
    assert compiled["cause"] == {"id": "tensor-branch", "operator": "Tensor.item()"}
    assert exported["cause"] == {"id": "data-dependent-guard", "operator": "Tensor.item()"}
    assert "cause" not in exported["dynamic"]  # the dynamic-batch pass held
    assert "cause" not in settle(_result("n/a", "does not run eagerly", cause=branch), EXPORT)
