"""The probe in a real terminal: ``python -m sphinx_kexport.probe`` with a pseudo-terminal as its stdout and
stderr, so it draws the redrawn progress bar, over tests/probe/probe_cases/terminal_cases.py (a case that
times out, one that fails eagerly and one that crashes its worker). The bar counts every status by its short
word; a status it could not say once killed the run at its first timed-out path, before the snapshot was
written (issue 42)."""

from __future__ import annotations

import errno
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sphinx_kexport.probe.cli.common import EXIT_EAGER

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "terminal_cases.py"
TIME_LIMIT = 3  # seconds per step: the hang's eager run is cut after it
WAIT = 180  # seconds for the whole run (a cold interpreter imports torch first)


def run_in_terminal(*args: str, cwd: Path) -> tuple[int, str]:
    """Run the probe command with a pseudo-terminal as stdout and stderr; (exit status, all it wrote)."""
    leader, follower = os.openpty()
    process = subprocess.Popen([sys.executable, "-m", "sphinx_kexport.probe", *args], cwd=cwd,
                               stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, close_fds=True,
                               env=dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="120", LINES="40"))
    os.close(follower)  # the child holds it now: reading the leader ends when the child (and its children) close it
    written = bytearray()
    deadline = time.monotonic() + WAIT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if not ready:
                if process.poll() is not None and not select.select([leader], [], [], 0.5)[0]:
                    break
                continue
            try:
                chunk = os.read(leader, 65536)
            except OSError as error:  # Linux says EIO once every writer has closed the terminal
                if error.errno != errno.EIO:
                    raise
                break
            if not chunk:
                break
            written += chunk
        else:
            process.kill()
            pytest.fail(f"the probe ran past {WAIT} s; it wrote:\n{written.decode(errors='replace')}")
        return process.wait(timeout=30), written.decode(errors="replace")
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_terminal_run_draws_the_bar_through_a_timeout_an_eager_failure_and_a_crash(tmp_path):
    out = tmp_path / "terminal.json"
    code, written = run_in_terminal("--cases", str(CASE_FILE), "--out", str(out), "--library", "probe_cases",
                                    "--timeout", str(TIME_LIMIT), "--jobs", "1", "--no-dynamic", "--device", "cpu",
                                    cwd=tmp_path)
    assert code == EXIT_EAGER, written  # the normal end of a run with a case that fails eagerly
    assert "the snapshot was written" in written, written
    assert "Traceback" not in written, written
    redraws = [part for part in written.split("\r") if "|" in part and "/3" in part]
    assert redraws, f"no progress bar was drawn:\n{written}"
    assert any("timeout 3" in part for part in redraws), written  # the bar counts the timed-out paths by word
    assert out.exists(), f"no snapshot was written:\n{written}"
    results = {c["name"]: c["results"]["cpu"] for c in json.loads(out.read_text())["cases"]}
    for path in ("onnx", "export", "compile"):
        hung, eager, crashed = (results[name][path] for name in ("hangs", "wrong_shapes", "read_null_pointer"))
        assert (hung["status"], hung["stage"], hung["time_limit"]) == ("timeout", "process", TIME_LIMIT)
        assert (eager["status"], eager["stage"]) == ("n/a", "eager")
        assert (crashed["status"], crashed["stage"]) == ("fail", "process") and "SIGSEGV" in crashed["detail"]
