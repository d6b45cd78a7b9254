"""What test discovery costs in memory (tests/probe/probe_cases/memproject: the package memlib and its tests,
each run in float32 and float64 by an autouse fixture, as e3nn's are).

A test whose fixtures set float64 is set up but not run: none of its calls could be kept, and e3nn's largest
test needs 4 GB in float64. A test that fails while its frame holds a large tensor gives that memory back before
the next test (pytest keeps the failure's frames for post-mortem debugging until the next test's call). Each
test's peak is measured, and ``discover --tests`` names the test that needed most.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")
if not Path("/proc/self/clear_refs").exists():
    pytest.skip("a test's own peak memory is read from Linux's /proc", allow_module_level=True)

REPO = Path(__file__).resolve().parents[3]
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "memproject"
TESTS = PROJECT / "tests"
LARGE_MB = 320  # what test_fails_holding_a_large_tensor holds in float32
FAILS = "tests/test_memory.py::test_fails_holding_a_large_tensor"


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))  # memlib is not installed; its tests import it from here
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    ran = tmp_path_factory.mktemp("memlib") / "ran.txt"
    os.environ["MEMLIB_RAN"] = str(ran)
    try:
        found = discover_suite("memlib", TESTS, time_limit=30.0, jobs=1)
    finally:
        del os.environ["MEMLIB_RAN"]
    return found, ran.read_text(encoding="utf-8").split()


def test_a_test_whose_fixtures_set_float64_is_not_run(found):
    found, ran = found
    assert ran == ["torch.float32"]
    reports = {r.ref: r for r in found.reports}
    for name in ("test_fails_holding_a_large_tensor", "test_small_after_it", "test_says_its_dtype"):
        report = reports[f"tests/test_memory.py::{name}[float64]"]
        assert (report.skip, report.detail) == ("other dtype", "its fixtures set the default dtype to "
                                                "torch.float64, so its calls would run in it: not run")
    assert reports["tests/test_memory.py::test_says_its_dtype[float32]"].cases
    assert reports[f"{FAILS}[float32]"].skip == "failed"


def test_a_failed_tests_memory_is_given_back_before_the_next_test(found):
    found, _ = found
    peaks = {r.ref: r.peak_kb / 1024 for r in found.reports}
    failed, after = peaks[f"{FAILS}[float32]"], peaks[f"{FAILS}[float64]"]
    assert failed > LARGE_MB  # the process held the large tensor meanwhile
    assert after < failed - LARGE_MB * 0.8, peaks  # and no longer while the next test ran
    assert peaks["tests/test_memory.py::test_small_after_it[float32]"] < failed - LARGE_MB * 0.8, peaks


def test_discover_names_the_test_that_needed_most_memory(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(PROJECT)]), KEXPORT_DISCOVERY_CACHE="off",
               MEMLIB_RAN=str(tmp_path / "ran.txt"))
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "memlib", "--tests", str(TESTS),
                           "--jobs", "2", "--no-cases"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)  # two shards, each a child that imports torch
    assert done.returncode == 0, done.stderr[-2000:]
    said = next(line for line in done.stdout.splitlines() if line.startswith("most memory: "))
    assert said.startswith(f"most memory: {FAILS}[float32] (")
    assert float(said.split("(")[1].split(" GB")[0]) >= LARGE_MB / 1024
    assert "3 parametrised with, or its calls ran in, another dtype" in done.stdout
