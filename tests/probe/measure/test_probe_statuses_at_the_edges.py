"""Statuses at the edges of what the exporters accept (found wrong by the MONAI survey), through a real probe run of
tests/probe/probe_cases/edge_status_cases.py (each case's behaviour was first checked with a plain script on
torch 2.13, see the case module's docstring)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "edge_status_cases.py"
SOURCE = CASE_FILE.read_text().splitlines()
LONG = "noisy_sample_with_a_name_longer_than_the_progress_column[random]"


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    where = tmp_path_factory.mktemp("edge_statuses")
    out = where / "edge_statuses.json"
    done = probe_cli("--cases", str(CASE_FILE), "--out", str(out), "--library", "probe_cases", "--jobs", "1",
                     cwd=where, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr[-3000:]
    return done, {c["name"]: c["results"]["cpu"] for c in json.loads(out.read_text())["cases"]}, where


def line_of(where: str) -> str:
    file, line = where.split(":")
    assert file == "probe_cases/edge_status_cases.py"
    return SOURCE[int(line) - 1]


def test_a_dict_as_the_only_input_exports_to_onnx_static_and_dynamic(survey):
    # torch.onnx.export reads a trailing dict in args as keyword arguments ("missing a required argument")
    onnx = survey[1]["dict_only"]["onnx"]
    assert onnx["status"] == "ok", onnx
    assert onnx["dynamic"]["status"] == "ok", onnx["dynamic"]


def test_fullgraph_is_not_claimed_when_inductor_rejects_the_graph(survey):
    result = survey[1]["sigma_kernel"]["compile"]
    assert result["status"] == "ok-breaks" and result["graph_breaks"] == 1
    assert "fullgraph=True captures it as one graph" not in result["detail"]
    assert "compiles it as one graph" not in result["detail"]
    assert result["detail"].endswith(
        "; with fullgraph=True dynamo captures it as one graph, but inductor (the default backend) rejects that "
        "graph: a Python integer (an index, loop count or size) is computed from tensor values at run time")
    assert "float(sigma)" in line_of(result["where"])


def test_export_of_an_item_read_is_worded(survey):
    # torch.export raises "get value out of a tracing tensor with aten.item.default" here
    result = survey[1]["sigma_kernel"]["export"]
    assert (result["status"], result["stage"]) == ("fail", "capture")
    assert result["detail"] == "a tensor value is read back into Python (.item() / bool()) during the forward"
    assert "float(sigma)" in line_of(result["where"])


def test_complex_valued_input_is_the_reason_not_the_operator_alone(survey):
    results = survey[1]["complex_unsqueeze"]
    assert results["onnx"]["status"] == "fail" and results["export"]["status"] == "ok"
    assert results["onnx"]["detail"].startswith("no ONNX lowering for torch.unsqueeze of a complex-valued tensor")


def test_a_tensor_built_from_zero_d_tensors_is_worded_truthfully_on_every_path(survey):
    for path, result in survey[1]["as_tensor_of_scalars"].items():
        assert result["status"] == "fail", (path, result)
        assert result["detail"].startswith("builds a tensor from the values of other tensors (e.g. "
                                           "torch.as_tensor of a sequence of 0-d tensors)"), (path, result)
        assert ".item()" not in result["detail"]
        assert "torch.as_tensor((x.amax(), x.amin()))" in line_of(result["where"])


def test_a_tensor_subclass_is_worded(survey):
    result = survey[1]["tagged_subclass"]["export"]
    assert result["status"] == "fail"
    assert result["detail"].startswith("wraps the traced tensor in the library's Tensor subclass Tagged")
    assert "as_subclass" in line_of(result["where"])


def test_a_mismatch_the_library_warned_about_while_exported_quotes_the_warning(survey):
    onnx = survey[1]["resized_unless_onnx"]["onnx"]
    assert onnx["status"] == "mismatch", onnx
    assert onnx["detail"].endswith("; while it was exported, the library warned: not supported in ONNX export: the "
                                   "output is not resized"), onnx["detail"]
    assert "warnings.warn" in line_of(onnx["where"])
    assert survey[1]["resized_unless_onnx"]["export"]["status"] == "ok"  # torch.export is not an ONNX export


def test_a_library_that_rejects_a_symbolic_batch_is_static_with_its_line(survey):
    export = survey[1][LONG]["export"]
    assert export["status"] == "ok-unverified"
    dynamic = export["dynamic"]
    assert dynamic["status"] == "static", dynamic
    assert dynamic["detail"].startswith("works only at a fixed batch: the library raises when the batch size is "
                                        "symbolic (AssertionError: `batch_size` shall be a positive integer. Got s")
    assert "raise AssertionError" in line_of(dynamic["where"])


def test_progress_columns_stay_aligned(survey):
    lines = [line for line in survey[0].stdout.splitlines() if re.match(r"\[\d/7\] cpu ", line)]
    assert len(lines) == 7
    # every line puts "onnx", "export", "compile" and the seconds at the same columns
    for word in (" onnx ", " export ", " compile "):
        assert len({line.index(word) for line in lines}) == 1, (word, lines)
    assert len({len(line) for line in lines}) == 1, lines
    long_line = next(line for line in lines if "noisy_sample" in line)
    assert "noisy_sample_with_a_name_longer_than_th…" in long_line and LONG not in long_line
    assert "export ok-unverified/static " in long_line


def test_the_onnx_repro_of_a_dict_only_input_runs_as_pasted(survey, tmp_path):
    # the page's snippet must pass the trailing dict the way the probe did, or it fails where the probe did not
    where = Path(survey[2])
    shown = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "repro", str(where / "edge_statuses.json"),
                            "dict_only", "--path", "onnx"], cwd=where, env=dict(os.environ, PYTHONPATH=str(REPO)),
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    script = tmp_path / "pasted_dict_only.py"
    script.write_text(shown.stdout)
    ran = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=f"{REPO}{os.pathsep}{REPO / 'tests' / 'probe'}"))
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "same as eager" in ran.stdout
