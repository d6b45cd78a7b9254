"""Workers and inventory children are forks of one process that imported torch and the exporters once
(run/warm_start.py): they start with those modules loaded and no case module, and a killed parent takes them
down (see test_probe_no_orphans.py for the probe itself)."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys

import pytest

from sphinx_kexport.probe.run.warm_start import worker_context

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxscript")


def _report(conn) -> None:
    """In the child, before it imports anything: what it was born with."""
    import threading

    loaded = set(sys.modules)
    threads = threading.active_count()
    from torch._inductor import cpu_vec_isa
    from torch.onnx._internal.exporter import _registration

    conn.send({"torch": "torch" in loaded, "dynamo": "torch._dynamo" in loaded, "onnxscript": "onnxscript" in loaded,
               "inductor": "torch._inductor.compile_fx" in loaded,
               # picked in the server: the pick builds and loads a test library per instruction set (~3 s)
               "instruction set picked": cpu_vec_isa.valid_vec_isa_list.cache_info().currsize == 1,
               "threads": threads,
               "case modules": sorted(m for m in loaded if m.startswith("probe_cases")),
               "registry cached": getattr(_registration.ONNXRegistry.from_torchlib, "_kexport_cached", False)})


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_a_child_starts_with_torch_the_exporters_inductor_and_the_registry_loaded_and_no_case_module():
    context = worker_context(1)
    assert context.get_start_method() == "forkserver"
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_report, args=(sending,))
    child.start()
    sending.close()
    try:
        assert receiving.poll(120), "the child sent nothing"
        assert receiving.recv() == {"torch": True, "dynamo": True, "onnxscript": True, "inductor": True,
                                    "instruction set picked": True, "threads": 1, "case modules": [],
                                    "registry cached": True}
    finally:
        child.join(30)
    assert child.exitcode == 0


def test_starting_the_server_leaves_this_process_environment_as_it_was(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)  # the server gets it; the probe's process must not
    before = dict(os.environ)
    worker_context(3)
    assert dict(os.environ) == before


def test_warm_start_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("KEXPORT_WARM", "off")
    assert worker_context(1).get_start_method() == "spawn"


def test_a_run_on_cuda_spawns_its_workers():
    # the warmed server imports inductor, which asks the CUDA driver for its devices: torch refuses CUDA in
    # every fork made after that, so a worker that measures on CUDA must not be one
    assert worker_context(1, cuda=True).get_start_method() == "spawn"


_WITHOUT_INDUCTOR_WARM_UP = """
import json
import sys
sys.path.insert(0, {tests!r})
from test_probe_warm_start import _report
from sphinx_kexport.probe.run.warm_start import worker_context

if __name__ == "__main__":
    context = worker_context(1)
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_report, args=(sending,))
    child.start()
    sending.close()
    print(json.dumps(receiving.recv() if receiving.poll(120) else "nothing"))
    child.join(30)
"""


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_the_benchmarks_other_side_leaves_inductors_warm_up_to_each_child(tmp_path):
    """``KEXPORT_WARM_INDUCTOR=off`` (benchmarks/bench_warm_start.py): the server still imports torch and the
    exporters, but not inductor's pick of the instruction set. A fresh process, since a process keeps its
    first server."""
    script = tmp_path / "report.py"
    script.write_text(_WITHOUT_INDUCTOR_WARM_UP.format(tests=os.path.dirname(__file__)))
    env = dict(os.environ, KEXPORT_WARM_INDUCTOR="off")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["torch"] and report["onnxscript"] and report["registry cached"]
    assert report["instruction set picked"] is False
