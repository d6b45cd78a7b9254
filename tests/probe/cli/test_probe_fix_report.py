"""``fix-report`` over real probe output: tests/probe/probe_cases/fixproject (two operators, a graph break each:
a ``.item()`` and a branch on a tensor value) surveyed with --speed, both breaks removed without changing the
numbers, surveyed again; the report reads the two snapshots as a pull request's author would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "fixproject"
# (before, after) in fixlib/__init__.py: the max kept as a tensor, the branch as torch.where
FIXES = (("x / x.abs().max().item()", "x / x.abs().max()"),
         ("    if x.sum() > 0:\n        return x * 2\n    return x - 1",
          "    return torch.where(x.sum() > 0, x * 2, x - 1)"))


def survey(where: Path, out: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(where), str(REPO)]))
    done = probe_cli("--speed", "--out", out, cwd=where, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((where / out).read_text())


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    where = tmp_path_factory.mktemp("fix") / "project"
    shutil.copytree(PROJECT, where)
    before = survey(where, "before.json")
    library = where / "fixlib" / "__init__.py"
    source = library.read_text()
    for old, new in FIXES:
        assert old in source
        source = source.replace(old, new)
    library.write_text(source)
    after = survey(where, "after.json")
    return where, before, after


def report(where: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "fix-report", "before.json", "after.json",
                           *args], cwd=where, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_the_probe_measured_the_breaks_the_fix_removes(fixed):
    _, before, after = fixed
    compiled = {snapshot_name: {c["name"]: c["results"]["cpu"]["compile"] for c in snapshot["cases"]}
                for snapshot_name, snapshot in (("before", before), ("after", after))}
    assert {name: (r["status"], r["graph_breaks"]) for name, r in compiled["before"].items()} == {
        "normalise": ("ok", 1), "double_if_positive": ("ok-breaks", 1)}
    assert {name: (r["status"], r["graph_breaks"]) for name, r in compiled["after"].items()} == {
        "normalise": ("ok", 0), "double_if_positive": ("ok", 0)}


def test_the_report_of_the_real_fix(fixed):
    where, _, _ = fixed
    done = report(where, "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    # the branch failed torch.export and ONNX too: torch.where fixes all three
    assert [(c["case"], c["path"], c["old_status"], c["new_status"]) for c in data["fixed"]] == [
        ("double_if_positive", "onnx", "fail", "ok"), ("double_if_positive", "export", "fail", "ok"),
        ("double_if_positive", "compile", "ok-breaks", "ok")]
    assert data["regressed"] == []
    assert (data["graph_breaks"]["before"], data["graph_breaks"]["after"], data["graph_breaks"]["removed"]) == (2, 0, 2)
    assert {c["case"] for c in data["graph_breaks"]["cells"]} == {"normalise", "double_if_positive"}
    # both runs timed every path that worked: each figure matched with its counterpart, with both spreads
    both = {(cell["case"], cell["path"]) for cell in data["speed"]
            if cell["pairs"] and all(p["before"] and p["after"] and p["overlap"] is not None for p in cell["pairs"])}
    assert both == {("normalise", "onnx"), ("normalise", "export"), ("normalise", "compile"),
                    ("double_if_positive", "compile")}
    failed_before = {(cell["case"], cell["path"]) for cell in data["speed"] if cell["not_working"] == ["before"]}
    assert failed_before == {("double_if_positive", "onnx"), ("double_if_positive", "export")}
    assert all(cell["untimed"] == [] for cell in data["speed"])
    # the same numbers: where the probe records eager digests, the fix kept them (this branch's probe records none)
    assert [e["case"] for e in data["eager_output"]] == ["normalise", "double_if_positive"]
    assert [e["verdict"] for e in data["eager_output"] if not e["missing"]] in ([], ["identical", "identical"])
    text = report(where)
    assert "double_if_positive [cpu] torch.compile: ok-breaks -> ok" in text.stdout
    assert "normalise [cpu]: 1 -> 0" in text.stdout
    assert "double_if_positive [cpu] ONNX at batch 32 (32×3): nothing to time before: the path did not work -> " \
        in text.stdout
    assert text.stdout.splitlines()[-1] == ("passed: 3 cells fixed, 2 graph breaks removed, nothing regressed, "
                                            "no eager output changed")
