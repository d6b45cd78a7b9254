"""`probe repro`: the snippet of every failing cell of a real survey runs as pasted and fails as recorded."""

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

REPO = Path(__file__).resolve().parents[2]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "repro_cases.py"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests" / "probe")]))


def probe(*args: str, cwd: Path, **_) -> subprocess.CompletedProcess:
    """The probe command, run by this process (probe_cli.py); the snippets below run in fresh interpreters."""
    return probe_cli(*args, cwd=cwd, env=ENV)


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    where = tmp_path_factory.mktemp("repro")
    done = probe("--cases", str(CASE_FILE), "--out", "repro.json", "--library", "probe_cases", "--jobs", "1",
                 "--no-dynamic", cwd=where)
    assert done.returncode == 0, done.stderr
    return where, json.loads((where / "repro.json").read_text())


def failing_cells(snapshot):
    return [(c["name"], path, r) for c in snapshot["cases"] for path, r in c["results"]["cpu"].items()
            if r["status"] in ("fail", "mismatch")]


def test_every_failing_cell_reproduces_its_recorded_failure(survey, tmp_path):
    from sphinx_kexport.probe.measure.explain import known_cause

    where, snapshot = survey
    cells = failing_cells(snapshot)
    assert {status for *_, status in [(n, p, r["status"]) for n, p, r in cells]} == {"fail", "mismatch"}
    assert len(cells) >= 6
    for name, path, recorded in cells:
        shown = probe("repro", "repro.json", name, "--path", path, cwd=where, timeout=60)
        assert shown.returncode == 0, shown.stderr
        script = tmp_path / f"repro_{path}.py"  # not onnx.py: it would shadow the onnx package
        script.write_text(shown.stdout)
        ran = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                             timeout=300)
        assert ran.returncode != 0, (name, path, ran.stdout[-1000:])
        if recorded["status"] == "mismatch":
            assert "AssertionError" in ran.stderr and "not close" in ran.stderr, (name, path, ran.stderr[-1500:])
        else:
            reason = known_cause(ran.stderr)
            assert reason and reason in recorded["detail"], (name, path, recorded["detail"], ran.stderr[-1500:])


def test_snippets_import_the_defining_module_and_build_the_probed_module(survey):
    where, snapshot = survey
    cases = {c["name"]: c for c in snapshot["cases"]}
    assert "import probe_cases.repro_cases\n" in cases["singular_values"]["call"]  # not just `import probe_cases`
    gain = probe("repro", "repro.json", "gain[module]", "--path", "export", cwd=where, timeout=60).stdout
    assert "target = Gain(2.5)" in gain and "Gain()" not in gain  # the case's code, not a bare constructor
    assert gain.startswith("# gain[module]: torch.export on cpu, recorded fail (a Python branch")
    small = cases["branch_on_values"]["call"]
    assert "torch.tensor([[" in small and "torch.rand" not in small  # small inputs: the real values


def test_a_passing_cell_snippet_runs_clean(survey, tmp_path):
    where, _ = survey
    shown = probe("repro", "repro.json", "singular_values", "--path", "export", cwd=where, timeout=60)
    script = tmp_path / "ok.py"
    script.write_text(shown.stdout)
    ran = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0 and "same as eager" in ran.stdout, ran.stderr[-1500:]


@pytest.mark.parametrize("args, message", [
    (["no_such_case", "--path", "onnx"], "has no case 'no_such_case'"),
    (["singular_value", "--path", "onnx"], "Did you mean 'singular_values'"),
    (["singular_values", "--path", "tensorrt"], "invalid choice: 'tensorrt'"),
    (["singular_values", "--path", "onnx", "--device", "cuda"], "holds no cuda results"),
])
def test_unknown_case_path_or_device_is_a_clear_error(survey, args, message):
    where, _ = survey
    done = probe("repro", "repro.json", *args, cwd=where, timeout=60)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
