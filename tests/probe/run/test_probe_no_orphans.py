"""kill -9 of the probe while its inventory is being built leaves no child process behind (they can hold
gigabytes of a library's docstring examples): the children die with their parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from polling import wait_until
from processes import alive

pytestmark = pytest.mark.probe
pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
CASE_FILE = REPO / "tests" / "probe" / "probe_cases" / "slow_import_cases.py"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc (Linux)")
def test_killing_the_probe_while_a_case_module_imports_kills_the_child_importing_it(tmp_path):
    marker = tmp_path / "child.pid"
    probe = subprocess.Popen(
        [sys.executable, "-m", "sphinx_kexport.probe", "--cases", str(CASE_FILE), "--library", "probe_cases",
         "--out", str(tmp_path / "support.json"), "--jobs", "1"],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO), KEXPORT_IMPORT_MARKER=str(marker)),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def imported() -> str:
            assert probe.poll() is None, "the probe ended before its child imported the case module"
            return marker.exists() and marker.read_text()

        child = int(wait_until(imported, what="the child to import the case module", timeout=120))
        assert child != probe.pid and alive(child)
        os.kill(probe.pid, signal.SIGKILL)
        probe.wait()
        wait_until(lambda: not alive(child), what="the inventory child to end with the killed probe")
    finally:
        if probe.poll() is None:
            probe.kill()
        if marker.exists() and marker.read_text() and alive(int(marker.read_text())):
            os.kill(int(marker.read_text()), signal.SIGKILL)
