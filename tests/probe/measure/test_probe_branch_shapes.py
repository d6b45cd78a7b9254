"""The statement at a failure's library line, through a real probe run of probe_cases/branch_shape_cases.py:
the worker records it (``where_code``), the fix classes split a branch on tensor values by it, and ``probe
worklist`` prints it beside the line."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from probe_cli import probe_cli
from sphinx_kexport.snapshot.causes import cause_of
from sphinx_kexport.snapshot.fix_classes import class_of

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "branch_shape_cases.py"
SOURCE = CASE_FILE.read_text().splitlines()

SHAPES = {"value_check": "value-check", "early_exit": "early-exit", "early_return": "early-return",
          "gate": "gate", "plain_branch": "tensor-branch"}


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    where = tmp_path_factory.mktemp("shapes")
    out = where / "shapes.json"
    done = probe_cli("--cases", str(CASE_FILE), "--out", str(out), "--library", "probe_cases", "--jobs", "1",
                     "--no-dynamic", cwd=where, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr
    return out, json.loads(out.read_text())


def _results(survey, name):
    return {c["name"]: c for c in survey[1]["cases"]}[name]["results"]["cpu"]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_red_cell_keeps_the_statement_at_its_library_line(survey, name):
    for path, result in _results(survey, name).items():
        file, line = result["where"].split(":")
        assert file == "probe_cases/branch_shape_cases.py", (path, result)
        header = SOURCE[int(line) - 1].strip()
        assert header.startswith("if ")
        body = SOURCE[int(line)].strip()  # the body's first statement follows the header
        assert result["where_code"] == f"{header}\n    {body}", (path, result["where_code"])


@pytest.mark.parametrize("name, shape", sorted(SHAPES.items()))
def test_the_compile_cell_gets_the_class_of_its_shape(survey, name, shape):
    result = _results(survey, name)["compile"]
    assert result["status"] == "ok-breaks"  # it runs, but fullgraph=True fails at the branch
    # the probe names the cause (a branch on tensor values) as a record; its statement splits it into shapes
    assert result["cause"] == {"id": "tensor-branch"}
    assert class_of(cause_of(result["cause"]), result["where_code"]) == shape
    # torch.export's words are the same; its fix stays the guard's
    exported = _results(survey, name)["export"]
    assert exported["cause"] == {"id": "data-dependent-guard"}
    assert class_of(cause_of(exported["cause"]), exported["where_code"]) == "data-dependent-guard"


def test_the_worklist_prints_the_statement_beside_the_line(survey):
    done = probe_cli("worklist", str(survey[0]), "--format", "csv", cwd=survey[0].parent)
    assert done.returncode == 0, done.stderr
    rows = [r for r in csv.DictReader(io.StringIO(done.stdout)) if r["path"] == "compile"]
    by_code = {r["code"]: r["class"] for r in rows}
    assert by_code["if not (x > 1).any():\n    break"] == "early-exit"
    assert by_code["if keep.sum() < 1:\n    return x"] == "gate"
