"""Issue 61, "name the cause": each change ``compare`` reports carries the code its case ran that changed between
the two snapshots (their ``code`` tables) and the failure's library line; and the gate's ``dynamic`` rule, a
dynamic-batch result that held at any batch and is gone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sphinx_kexport.snapshot import normalise
from sphinx_kexport.snapshot.code_table import pack
from sphinx_kexport.snapshot.diff import DYNAMIC_LOST, GATE_RULES, compare, count
from sphinx_kexport.snapshot.diff_cause import CodeDelta

REPO = Path(__file__).resolve().parents[2]
ENV = {"torch": "2.13.0", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.12",
       "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-12-08"}
GRAY = "lib/color.py::rgb_to_grayscale"
CHECK = "lib/core.py::check_shape"
EPS = "lib/core.py::global EPS torch"
PRINT = "1 graph break: print() runs in Python"


def cell(status="ok", detail="", where="", **extra):
    return {"status": status, "detail": detail, "stage": "", "where": where, **extra}


def snapshot(cases: dict[str, tuple[dict, dict | None]]) -> dict:
    """name -> (compile result, {ref: digest} the case ran or None); ONNX and torch.export ok."""
    sets = {f"set-{name}": code for name, (_, code) in cases.items() if code is not None}
    data = {"schema": 2, "generated_at": "2026-12-08", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": ENV},
            "cases": [{"name": name, "package": "lib", "section": "", "operator": name, "variant": "", "ref": "",
                       "origin": "hand-written", "note": "",
                       "measured": {"cpu": {"fingerprint": "f", "measured_at": "2026-12-08T00:00:00Z",
                                            **({"code": f"set-{name}"} if code is not None else {})}},
                       "results": {"cpu": {"onnx": cell(), "export": cell(), "compile": compiled}}}
                      for name, (compiled, code) in cases.items()]}
    if sets:
        data["code"] = pack(sets)
    return normalise(data)[0]  # what probe diff reads: a valid snapshot


def test_a_regression_names_the_functions_its_case_ran_that_changed_and_the_failures_line():
    before = snapshot({"gray": (cell(), {GRAY: "a1", CHECK: "b1", EPS: "c1"}),
                       "other": (cell(), {"lib/other.py::other": "d1", EPS: "c1"})})
    # a leftover print in rgb_to_grayscale, which now calls a new helper instead of check_shape
    after = snapshot({"gray": (cell("ok-breaks", PRINT, "lib/color.py:42", graph_breaks=1),
                               {GRAY: "a2", "lib/core.py::check_dims": "e1", EPS: "c1"}),
                      "other": (cell(), {"lib/other.py::other": "d1", EPS: "c1"})})
    [change] = compare(before, after, rules=GATE_RULES)
    assert (change.case, change.kind, change.where) == ("gray", "regressed", "lib/color.py:42")
    assert change.code == CodeDelta(changed=(GRAY,), added=("lib/core.py::check_dims",), removed=(CHECK,))
    assert change.describe() == (
        f"gray [cpu] torch.compile: ok -> ok-breaks (torch.compile(fn, fullgraph=True) no longer compiles it: "
        f"{PRINT}); changed: {GRAY}; added: lib/core.py::check_dims; removed: {CHECK}; at lib/color.py:42")


def test_a_fix_names_the_line_that_failed_before():
    broken = cell("fail", "no lowering", "lib/color.py:40", stage="capture")
    [change] = compare(snapshot({"gray": (broken, {GRAY: "a1"})}), snapshot({"gray": (cell(), {GRAY: "a2"})}))
    assert (change.kind, change.where, change.code.changed) == ("fixed", "lib/color.py:40", (GRAY,))
    assert change.describe() == f"gray [cpu] torch.compile: fail -> ok; changed: {GRAY}; at lib/color.py:40"


def test_a_long_list_is_cut_in_words_and_kept_whole_in_the_record():
    refs = [f"lib/m.py::f{i}" for i in range(5)]
    before = snapshot({"op": (cell(), dict.fromkeys(refs, "1"))})
    after = snapshot({"op": (cell("fail", "x", stage="capture"), dict.fromkeys(refs, "2"))})
    [change] = compare(before, after)
    assert change.code.changed == tuple(refs)
    assert change.describe().endswith("changed: lib/m.py::f0, lib/m.py::f1, lib/m.py::f2 and 2 more")


def test_no_code_is_named_where_it_did_not_change_or_a_record_names_none():
    failing = cell("fail", "x", stage="capture")
    same = compare(snapshot({"op": (cell(), {GRAY: "a1"})}), snapshot({"op": (failing, {GRAY: "a1"})}))
    older = compare(snapshot({"op": (cell(), None)}), snapshot({"op": (failing, {GRAY: "a1"})}))
    for [change] in (same, older):
        assert change.kind == "regressed" and not change.code
        assert change.describe() == "op [cpu] torch.compile: ok -> fail (x)"


def dynamic(status):
    return {"status": status, "detail": "", "where": ""}


def test_the_gate_regresses_a_dynamic_result_that_held_and_is_gone():
    before = snapshot({"op": (cell(dynamic=dynamic("ok")), None), "loop": (cell(dynamic=dynamic("static")), None)})
    after = snapshot({"op": (cell(), None), "loop": (cell(), None)})
    [change] = compare(before, after, rules=GATE_RULES, vanished=True)
    assert (change.case, change.kind, change.rule) == ("op", "regressed", DYNAMIC_LOST)
    assert change.describe() == ("op [cpu] torch.compile at another batch size: ok -> absent (the dynamic-batch "
                                 "result is gone: the new record was measured without the dynamic pass)")
    # --allow dynamic: listed as a change; the page (no vanished) sees nothing, as before
    allowed = compare(before, after, rules=[r for r in GATE_RULES if r != DYNAMIC_LOST], vanished=True)
    assert [(c.case, c.kind, c.rule) for c in allowed] == [("op", "changed", "")]
    assert compare(before, after) == [] and compare(before, after, rules=GATE_RULES) == []
    # a cell that now fails regresses on its status, its dynamic result simply gone; ok -> static stays as it was
    failing = snapshot({"op": (cell("fail", "x", stage="capture"), None), "loop": (cell(), None)})
    [change] = compare(before, failing, rules=GATE_RULES, vanished=True)
    assert (change.kind, change.rule, change.dynamic_changed) == ("regressed", "", False)
    static = snapshot({"op": (cell(dynamic=dynamic("static")), None), "loop": (cell(), None)})
    assert count(compare(before, static, rules=GATE_RULES, vanished=True))["regressed"] == 1


@pytest.mark.parametrize("allow, code", [((), 1), (("--allow", "dynamic"), 0)])
def test_probe_diff_fails_on_a_lost_dynamic_result_unless_allowed(tmp_path, allow, code):
    before = snapshot({"op": (cell(dynamic=dynamic("ok")), None)})
    for name, data in (("base.json", before), ("head.json", snapshot({"op": (cell(), None)}))):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "diff", "base.json", "head.json", *allow],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == code, done.stdout + done.stderr
    kind = "changed" if allow else "regressed"
    assert f"{kind} (1):\n  op [cpu] torch.compile at another batch size: ok -> absent" in done.stdout
