"""Dicts, lists and tuples of tensors as inputs and outputs, on all three paths of a real probe run."""

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
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "containers_cases.py"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests" / "probe")]))


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    where = tmp_path_factory.mktemp("containers")
    done = probe_cli("--cases", str(CASE_FILE), "--out", "c.json", "--library", "probe_cases", "--jobs", "1",
                     "--no-dynamic", cwd=where, env=ENV)
    assert done.returncode == 0, done.stderr
    return where, json.loads((where / "c.json").read_text())["cases"][0]


def test_a_dict_in_dict_out_module_needs_no_wrapper_on_any_path(survey):
    _, case = survey
    results = case["results"]["cpu"]
    for path in ("onnx", "export", "compile"):
        assert results[path]["status"] == "ok", (path, results[path])
    assert results["compile"]["graph_breaks"] == 0
    assert "folded" not in results["onnx"]["detail"]  # every leaf was fed by name


def test_snapshot_inputs_are_the_flattened_leaves(survey):
    _, case = survey
    assert case["inputs"] == [{"shape": [1, 2, 8, 8], "dtype": "float32"}, {"shape": [1, 2, 4, 4], "dtype": "float32"},
                              {"shape": [], "dtype": "float32"}, {"shape": [3], "dtype": "float32"}]
    # the containers keep their shape in the repro; inputs this small are written out value for value
    call = case["call"]
    assert "inputs = ({'p3': torch.tensor([[[[" in call and "'p4': torch.tensor([[[[" in call
    assert "}, (torch.tensor(2.0), torch.tensor([" in call


def test_the_container_repro_runs_every_path(survey, tmp_path):
    where, _ = survey
    for path in ("onnx", "export", "compile"):
        shown = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "repro", "c.json", "pyramid[dict]",
                                "--path", path], cwd=where, env=ENV, capture_output=True, text=True, timeout=60)
        script = tmp_path / f"repro_{path}.py"
        script.write_text(shown.stdout)
        ran = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                             timeout=300)
        assert ran.returncode == 0 and "same as eager" in ran.stdout, (path, ran.stderr[-1500:])


def test_case_checks_every_leaf_and_fingerprints_the_structure():
    import torch

    from sphinx_kexport.probe import CaseError, case
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.base.reuse.decide import fingerprint

    with pytest.raises(CaseError, match=r"inputs\[0\]\['p3'\] is a float"):
        case("bad", torch.sin, [{"p3": 1.0}], package="p")
    t = torch.rand(2)
    as_list = case("c", torch.sin, [[t]], package="p")
    as_tuple = case("c", torch.sin, [(t,)], package="p")
    with_code = case("c", torch.sin, [[t]], package="p", code="target = torch.sin")
    keys = {fingerprint(case_definition(s), "cpu", 18, "1", {}) for s in (as_list, as_tuple, with_code)}
    assert len(keys) == 3
