"""torch.compile's truth and loud eager failures, through a real probe run of
tests/probe/probe_cases/graph_break_cases.py.

Each expectation was first checked with a plain script on torch 2.13 (see the case module's docstring).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "graph_break_cases.py"
SOURCE = CASE_FILE.read_text().splitlines()


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    where = tmp_path_factory.mktemp("truth")
    out = where / "truth.json"
    done = probe_cli("--cases", str(CASE_FILE), "--out", str(out), "--library", "probe_cases", "--jobs", "1",
                     "--no-dynamic", cwd=where, env=dict(os.environ, PYTHONPATH=str(REPO)))
    snapshot = json.loads(out.read_text()) if out.exists() else None
    return done, snapshot


def compiled(survey, name):
    return {c["name"]: c for c in survey[1]["cases"]}[name]["results"]["cpu"]["compile"]


def line_of(where: str) -> str:
    file, line = where.split(":")
    assert file == "probe_cases/graph_break_cases.py"
    return SOURCE[int(line) - 1]


def test_clean_function_compiles_in_one_graph(survey):
    result = compiled(survey, "clean")
    assert (result["status"], result["graph_breaks"], result["detail"]) == ("ok", 0, "")
    assert (result["fullgraph"], result["graphs"]) == (True, 1)


def test_tensor_dependent_if_is_a_break_located_at_the_branch(survey):
    result = compiled(survey, "tensor_if")
    assert result["status"] == "ok-breaks" and result["graph_breaks"] == 1
    assert result["break_reasons"] == ["a Python branch (if / while) tests tensor values at run time"]
    assert "if x.sum() > 0" in line_of(result["where"])


def test_item_in_try_is_ok_by_fullgraph_and_says_the_default_compile_compiles_no_graph(survey):
    # explain() reports 0 graphs and -1 breaks here; the probe once said "ok, 0 graph breaks", then "ok-breaks"
    # though fullgraph=True compiles it (issue 60): the status follows fullgraph=True, the default compile's
    # graphs stay as a fact, told apart from breaks
    result = compiled(survey, "item_in_try")
    assert result["status"] == "ok" and result["fullgraph"] is True
    assert result["graphs"] == 0 and result["graph_breaks"] >= 1
    assert result["detail"].startswith("torch.compile(fn, fullgraph=True) compiles it as one graph; the default "
                                       "torch.compile compiles no graph: the whole function runs eagerly (a "
                                       "tensor value is read back into Python (.item()")
    assert result["breaks_removed_by"] == ["capture_scalar_outputs"]
    assert "torch._dynamo.config.capture_scalar_outputs = True removes it there too" in result["detail"]
    assert result["where"] == ""  # nothing to fix: no worklist row


def test_a_scalar_read_back_is_ok_by_fullgraph_with_the_default_compiles_break_as_a_fact(survey):
    result = compiled(survey, "scale_by_max")
    assert (result["status"], result["fullgraph"], result["graphs"], result["graph_breaks"]) == ("ok", True, 2, 1)
    assert result["break_reasons"][0].startswith("a tensor value is read back into Python (.item()")
    assert result["breaks_removed_by"] == ["capture_scalar_outputs"]
    assert result["detail"].startswith("torch.compile(fn, fullgraph=True) compiles it as one graph; the default "
                                       "torch.compile breaks it at 1 graph break")


def test_a_cell_fullgraph_fails_on_says_so_and_what_the_default_compile_did(survey):
    result = compiled(survey, "tensor_if")
    assert (result["fullgraph"], result["graphs"]) == (False, 2)
    assert "breaks_removed_by" not in result


def test_a_builtin_dynamo_hands_to_python_is_a_skipped_function_not_a_break(survey):
    # explain() reports 1 graph and 0 breaks: the builtin runs before any traced code, so nothing is split; yet
    # fullgraph=True fails at it, so it is not "ok" (issue 43)
    result = compiled(survey, "calls_a_builtin")
    assert result["status"] == "ok-breaks" and result["graph_breaks"] == 0
    assert result["skipped_functions"] == ["time.perf_counter (a builtin dynamo does not trace)"]
    assert result["detail"].startswith("dynamo skips 1 function: time.perf_counter")
    assert "time.perf_counter()" in line_of(result["where"])


@pytest.mark.parametrize("name, reason, code", [
    ("deepcopy_then_scale", "calls copy.deepcopy, which dynamo cannot trace", "copy.deepcopy(x)"),
])
def test_a_call_dynamo_refuses_is_named_with_its_library_line(survey, name, reason, code):
    result = compiled(survey, name)
    assert result["status"] == "ok-breaks" and result["graph_breaks"] == 1
    assert result["break_reasons"][0].startswith(reason)
    assert result["detail"].startswith(f"1 graph break: {reason}")
    assert code in line_of(result["where"])


def test_eager_failure_is_loud_in_progress_summary_and_exit_status(survey):
    done, snapshot = survey
    assert done.returncode == 4, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    progress = [line for line in done.stdout.splitlines() if "needs_a_missing_module" in line]
    assert progress and "EAGER FAILED: does not run eagerly with the probed inputs: ModuleNotFoundError" in \
        progress[0]
    assert "onnx n/a" not in progress[0]
    summary = done.stdout[done.stdout.index("1 case failed eagerly"):]
    assert "needs_a_missing_module [cpu]: does not run eagerly" in summary
    assert "(at probe_cases/graph_break_cases.py:" in summary
    assert "1 case failed eagerly" in done.stderr and "snapshot was written" in done.stderr
    # the snapshot format is unchanged: n/a at stage eager on every path
    results = {c["name"]: c for c in snapshot["cases"]}["needs_a_missing_module"]["results"]["cpu"]
    assert {(r["status"], r["stage"]) for r in results.values()} == {("n/a", "eager")}


def test_help_documents_the_exit_statuses():
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "--help"], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    text = " ".join(done.stdout.split())
    assert done.returncode == 0 and "4 the survey ran and wrote the snapshot, but some cases failed eagerly" in text


def test_an_eager_failure_the_snapshot_already_holds_is_listed_but_no_news(survey, tmp_path):
    # issue 61: a gate's rerun reuses a documented eager failure; exit 4 only for one that is new
    done, snapshot = survey
    (tmp_path / "truth.json").write_text(json.dumps(snapshot), encoding="utf-8")
    again = probe_cli("--cases", str(CASE_FILE), "--out", str(tmp_path / "truth.json"), "--library", "probe_cases",
                      "--jobs", "1", "--no-dynamic", cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "1 case failed eagerly" in again.stdout and "needs_a_missing_module [cpu]" in again.stdout
    assert "already" in again.stdout and "no news" in again.stdout
