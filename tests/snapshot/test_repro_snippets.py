"""The repro snippet a failing cell offers is real Python that runs the probed path."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sphinx_kexport.snapshot.repro import repro_code

torch = pytest.importorskip("torch")

CALL = "fn = torch.nn.functional.relu\ninputs = (torch.rand(2, 3),)"


def test_no_call_no_repro():
    assert repro_code("", "onnx", "cpu") == ""


def test_cuda_repro_moves_model_and_inputs():
    code = repro_code(CALL, "export", "cuda")
    assert 'model = model.to("cuda")' in code and "CUDAExecutionProvider" not in code
    assert "CUDAExecutionProvider" in repro_code(CALL, "onnx", "cuda")


@pytest.mark.probe
def test_each_path_snippet_runs(tmp_path):
    # One interpreter for the three snippets keeps torch's import cost single.
    script = "\n".join(repro_code(CALL, path, "cpu", opset=18, title=path) for path in ("onnx", "export", "compile"))
    compile(script, "repro", "exec")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []  # the ONNX file goes to a temporary directory, not the cwd
    assert proc.stdout.count("same as eager") == 3 and "fullgraph=True: one graph" in proc.stdout
