"""A case that calls a module with large weights is measured by a worker that has measured nothing before it
(its peak is then its own, not what earlier cases left in the worker plus its own); cases with small weights
keep sharing one worker."""

from __future__ import annotations

import io
import textwrap

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

# Each target writes the id of the process it runs in (the worker) to a file, once a call: what the test reads.
CASE_MODULE = '''
    import os

    import torch

    from sphinx_kexport.probe import case

    PIDS = {pids!r}


    def note(name):
        with open(PIDS, "a", encoding="utf-8") as fh:
            fh.write(f"{{name}} {{os.getpid()}}\\n")


    class Wide(torch.nn.Module):
        def __init__(self, name, features):
            super().__init__()
            self.name = name
            self.linear = torch.nn.Linear(features, features)

        def forward(self, x):
            if not torch.compiler.is_compiling() and not torch.onnx.is_in_onnx_export():
                note(self.name)
            return self.linear(x)


    torch.manual_seed(0)
    x = torch.rand(2, 8)
    CASES = [
        case("small_before", Wide("small_before", 8), [x], package="wide"),
        # 512 x 512 float32 weights: 1 MiB, over the threshold the test sets
        case("large", torch.nn.Sequential(torch.nn.Linear(8, 512), Wide("large", 512)), [x], package="wide"),
        case("small_after", Wide("small_after", 8), [x], package="wide"),
    ]
'''


def _workers(pids_file) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for line in pids_file.read_text(encoding="utf-8").splitlines():
        name, pid = line.split()
        seen.setdefault(name, set()).add(pid)
    return seen


def test_a_case_with_large_weights_gets_a_worker_that_measured_nothing_before_it(tmp_path, monkeypatch):
    from sphinx_kexport.probe import ProbeConfig, run_survey
    from sphinx_kexport.probe.run import pool

    pids = tmp_path / "pids.txt"
    module = tmp_path / "wide_cases.py"
    module.write_text(textwrap.dedent(CASE_MODULE.format(pids=str(pids))), encoding="utf-8")
    monkeypatch.setattr(pool, "FRESH_WORKER_ABOVE", 1024 * 1024)
    result = run_survey(ProbeConfig(cases=[str(module)], out=tmp_path / "snap.json", jobs=1, dynamic=False),
                        stream=io.StringIO())

    assert all(c["results"]["cpu"]["onnx"]["status"] == "ok" for c in result.snapshot["cases"])
    workers = _workers(pids)
    assert all(len(found) == 1 for found in workers.values()), workers  # each case in one worker
    assert workers["large"] != workers["small_before"]  # a fresh worker for the large weights
    assert workers["small_after"] == workers["large"]  # small weights: no new worker
    assert result.stats["workers_fresh_for_weights"] == 1
    assert len(result.stats["workers"]) == 2  # the first worker's peak is kept when it stops


def test_weight_bytes_counts_each_storage_of_the_called_module_once():
    from sphinx_kexport.probe.cases.describe import weight_bytes

    linear = torch.nn.Linear(256, 256)  # 256 * 256 * 4 + 256 * 4 bytes
    shared = torch.nn.Sequential(linear, linear)  # the same weights twice: counted once
    norm = torch.nn.BatchNorm1d(16)  # buffers count too
    expected = 256 * 256 * 4 + 256 * 4
    assert weight_bytes(linear) == weight_bytes(shared) == expected
    assert weight_bytes(linear.forward) == expected  # a bound method: its module's weights
    assert weight_bytes(norm) == 2 * 16 * 4 + 2 * 16 * 4 + 8  # weight, bias, running mean and var, count
    assert weight_bytes(lambda x: linear(x)) == weight_bytes(torch.sigmoid) == 0
