"""The compile-first gate (issue 61's first part): ``probe diff`` counts torch.compile's ok -> ok-breaks (fullgraph=True
lost) and a rise in the default compile's graph breaks as regressions, each let through with ``--allow``; the page's
``:compare:`` (no rules) keeps them as changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sphinx_kexport.snapshot.diff import COMPILE_FIRST_RULES, FULLGRAPH_LOST, MORE_BREAKS, compare

REPO = Path(__file__).resolve().parents[2]
BRANCH = "a Python branch (if / while) tests tensor values at run time"


def _cell(status="ok", detail="", where="", **extra):
    return {"status": status, "detail": detail, "stage": "", "where": where, **extra}


def _snapshot(compiles: dict[str, dict]) -> dict:
    env = {"torch": "2.13.0+cpu", "onnx": "1", "onnxruntime": "1", "onnxscript": "0", "python": "3.11",
           "platform": "Linux", "device_name": "x", "opset": 18, "probed_at": "2026-12-07"}
    cases = [{"name": name, "package": "lib", "section": "", "operator": name, "variant": "", "ref": "", "note": "",
              "results": {"cpu": {"onnx": _cell(), "export": _cell(), "compile": compiled}}}
             for name, compiled in compiles.items()]
    return {"schema": 1, "generated_at": "2026-12-07", "complete": True,
            "library": {"name": "lib", "version": "1", "revision": "abc"}, "environments": {"cpu": env},
            "cases": cases}


BASE = _snapshot({
    "printed": _cell(fullgraph=True, graphs=1, graph_breaks=0),
    "layer": _cell("ok-breaks", f"2 graph breaks: {BRANCH}", "lib/layer.py:3", fullgraph=False, graphs=3,
                   graph_breaks=2),
    "pool": _cell("ok-breaks", f"1 graph break: {BRANCH}", "lib/pool.py:8", fullgraph=False, graphs=2, graph_breaks=1),
})
# a leftover print in `printed` (fullgraph=True fails at it), a new branch in `layer` (2 -> 9 breaks), `pool` fixed
HEAD = _snapshot({
    "printed": _cell("ok-breaks", "1 graph break: print() runs in Python", "lib/printed.py:2", fullgraph=False,
                     graphs=2, graph_breaks=1),
    "layer": _cell("ok-breaks", f"9 graph breaks: {BRANCH}", "lib/layer.py:3", fullgraph=False, graphs=10,
                   graph_breaks=9),
    "pool": _cell(fullgraph=True, graphs=1, graph_breaks=0),
})


def _kinds(changes):
    return {(c.case, c.kind, c.rule) for c in changes}


def test_the_gate_counts_fullgraph_lost_and_more_breaks_as_regressions():
    changes = compare(BASE, HEAD, rules=COMPILE_FIRST_RULES)
    assert _kinds(changes) == {("printed", "regressed", FULLGRAPH_LOST), ("layer", "regressed", MORE_BREAKS),
                               ("pool", "fixed", FULLGRAPH_LOST)}
    printed = next(c for c in changes if c.case == "printed")
    assert printed.describe() == ("printed [cpu] torch.compile: ok -> ok-breaks (torch.compile(fn, fullgraph=True) "
                                  "no longer compiles it: 1 graph break: print() runs in Python); at lib/printed.py:2")


def test_without_rules_they_stay_changes_as_the_page_compares():
    assert _kinds(compare(BASE, HEAD)) == {("printed", "changed", ""), ("layer", "changed", ""),
                                           ("pool", "changed", "")}


def test_each_rule_is_allowed_on_its_own():
    assert _kinds(compare(BASE, HEAD, rules=[MORE_BREAKS])) == {
        ("printed", "regressed", MORE_BREAKS), ("layer", "regressed", MORE_BREAKS), ("pool", "changed", "")}
    assert ("layer", "changed", "") in _kinds(compare(BASE, HEAD, rules=[FULLGRAPH_LOST]))


@pytest.mark.parametrize("allow, code", [((), 1), (("--allow", "fullgraph"), 1),
                                          (("--allow", "fullgraph", "--allow", "breaks"), 0)])
def test_probe_diff_exits_1_unless_every_rule_that_fired_is_allowed(tmp_path, allow, code):
    for name, data in (("base.json", BASE), ("head.json", HEAD)):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "diff", "base.json", "head.json", *allow],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == code, done.stdout + done.stderr
    if code:
        assert "printed [cpu] torch.compile: ok -> ok-breaks" in done.stdout or "layer [cpu]" in done.stdout
    else:
        assert "0 regressed" in done.stdout and "Traceback" not in done.stderr
