"""Issue 13, "the repro a user pastes": a real probe run of cases whose failures need the probed objects and
values (a callable object built with an argument, small boxes, a NaN at one place in 384 values) and of a
docstring survey whose examples name a tensor ``target`` and a module ``model``. Each snippet is pasted
into a fresh python and must give the recorded outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASES = REPO / "tests" / "probe" / "probe_cases"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests" / "probe")]))


def probe(*args: str, cwd: Path, **_) -> subprocess.CompletedProcess:
    """The probe command, run by this process (probe_cli.py); the snippets below run in fresh interpreters."""
    return probe_cli(*args, cwd=cwd, env=ENV)


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    where = tmp_path_factory.mktemp("pasted")
    done = probe("--cases", str(CASES / "repro_inputs_cases.py"), "--cases", str(CASES / "metriclib_cases.py"),
                 "--out", "s.json", "--library", "probe_cases", "--jobs", "1", "--no-dynamic", cwd=where)
    assert done.returncode == 0, done.stderr[-3000:]
    snapshot = json.loads((where / "s.json").read_text())
    return where, {c["name"]: c for c in snapshot["cases"]}


def paste(where: Path, name: str, path: str, tmp_path: Path) -> subprocess.CompletedProcess:
    shown = probe("repro", "s.json", name, "--path", path, cwd=where, timeout=60)
    assert shown.returncode == 0, shown.stderr
    script = tmp_path / f"pasted_{path}.py"  # not onnx.py: it would shadow the onnx package
    script.write_text(shown.stdout)
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=300)


def assert_reproduces(ran: subprocess.CompletedProcess, recorded: dict) -> None:
    from sphinx_kexport.probe.measure.explain import known_cause

    assert ran.returncode != 0, ran.stdout[-1000:]
    if recorded["status"] == "mismatch":
        assert "AssertionError" in ran.stderr and "not close" in ran.stderr, ran.stderr[-1500:]
    else:
        reason = known_cause(ran.stderr)
        assert reason and reason in recorded["detail"], (recorded["detail"], ran.stderr[-1500:])


@pytest.mark.parametrize("name, path", [
    ("Threshold", "export"),  # a callable object: built as the case built it, not the bare class
    ("validated_boxes", "export"),  # 16 box values written out: random boxes fail eagerly
    ("argmax_with_nan", "onnx"),  # 384 values rebuilt from the case module's own lines, NaN included
])
def test_a_failing_cell_reproduces_as_pasted(survey, tmp_path, name, path):
    where, cases = survey
    recorded = cases[name]["results"]["cpu"][path]
    assert recorded["status"] in ("fail", "mismatch"), recorded
    assert "# random values" not in cases[name]["call"]
    assert_reproduces(paste(where, name, path, tmp_path), recorded)


def test_the_object_is_the_probed_instance_and_small_values_are_exact(survey):
    _, cases = survey
    assert "target = Threshold(0.3)" in cases["Threshold"]["call"]
    assert "fn = probe_cases.repro_inputs_cases.Threshold\n" not in cases["Threshold"]["call"]
    assert "[2.0, 0.5, 12.0, 9.0]" in cases["validated_boxes"]["call"]
    assert "nan_image = image_with_nan(seed=5)" in cases["argmax_with_nan"]["call"]


def test_an_object_that_cannot_be_rebuilt_stops_the_snippet_and_says_why(survey, tmp_path):
    where, cases = survey
    assert "fn = " not in cases["Threshold[looped]"]["call"]
    ran = paste(where, "Threshold[looped]", "export", tmp_path)
    assert ran.returncode != 0 and "NotImplementedError: this snippet cannot rebuild the probed" in ran.stderr
    assert "case 'Threshold[looped]'" in ran.stderr and "code=" in ran.stderr
    assert "expected = " not in ran.stderr  # stopped before running anything


@pytest.mark.parametrize("name, path, outcome", [
    ("squared_error[doc]", "export", "same as eager"),  # the example's `target` tensor stays an input
    ("checked_error[doc]", "export", None),  # fails as recorded, not on `preds - <function>`
    ("Doubler[doc]", "onnx", "same as eager"),  # the example's `model`: no recursion into the snippet's own
    ("Weighted[doc]", "export", "same as eager"),  # forward(*tensors): built by the example, not refused
])
def test_a_docstring_case_repro_keeps_the_examples_names_apart(survey, tmp_path, name, path, outcome):
    where, cases = survey
    recorded = cases[name]["results"]["cpu"][path]
    ran = paste(where, name, path, tmp_path)
    if outcome:
        assert recorded["status"] == "ok", recorded
        assert ran.returncode == 0 and outcome in ran.stdout, ran.stderr[-1500:]
    else:
        assert recorded["status"] == "fail", recorded
        assert_reproduces(ran, recorded)


def test_a_docstring_case_rebuilds_the_probed_values_bit_for_bit(tmp_path):
    """The example's random tensors come back from the same seed the probe ran it under."""
    from sphinx_kexport.probe import cases_from_docstrings

    sys.path.insert(0, str(REPO / "tests" / "probe"))
    try:
        specs = cases_from_docstrings("probe_cases.metriclib", time_limit=5)
    finally:
        sys.path.remove(str(REPO / "tests" / "probe"))
    assert {s.name for s in specs} == {"squared_error[doc]", "checked_error[doc]", "Doubler[doc]", "Weighted[doc]",
                                       "Weighted[doc 2]"}
    weighted = next(s for s in specs if s.name == "Weighted[doc]").code
    assert "model = Weighted(0.5)" in weighted and "target, inputs = model, (a, b)" in weighted
    # model(*pair): each tensor the call received, by its place in what was spread
    spread = next(s for s in specs if s.name == "Weighted[doc 2]").code
    assert "target, inputs = model, ([*pair][0], [*pair][1])" in spread, spread
    for spec in specs:
        saved = tmp_path / "inputs.pt"
        script = f"import torch\n{spec.code}torch.save(list(inputs), {str(saved)!r})\n"
        done = subprocess.run([sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, spec.code + done.stderr
        rebuilt = torch.load(saved)
        assert len(rebuilt) == len(spec.inputs)
        assert all(torch.equal(a, b) for a, b in zip(rebuilt, spec.inputs)), spec.name
