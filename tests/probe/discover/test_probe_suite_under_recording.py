"""Discovery from a library's tests that script and compile its functions, set the dtype through an autouse
fixture and switch a global mode (tests/probe/probe_cases/modeproject: the package modelib and its tests).

Every test there passes under plain pytest. Under recording, TorchScript and dynamo must see the library as it
is (its tests pass and yield their cases); a test that still fails only under recording is the probe's
limitation, said so; an object that loads on its first unknown attribute is not loaded by the recorder's
look-ups (kornia's LazyLoader); a float64 run is not kept however the test set the dtype (one its fixtures set
is not even run); and a call that works only in a mode its test set is listed as not running outside its test,
not kept as a case that fails eagerly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
PROJECT = REPO / "tests" / "probe" / "probe_cases" / "modeproject"
TESTS = PROJECT / "tests"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(PROJECT)]))
LIMIT = 30.0  # seconds of CPU time per test phase: dynamo and TorchScript compile inside the tests

EXPECTED = {
    "tests/test_compilers.py::test_scripted_function[float32]": ["double[test]"],
    "tests/test_compilers.py::test_scripted_function[float64]": "other dtype",
    "tests/test_compilers.py::test_scripted_module[float32]": ["Gain[test]"],
    "tests/test_compilers.py::test_scripted_module[float64]": "other dtype",
    "tests/test_compilers.py::test_compiled_fullgraph[float32]": ["double[test 2]"],
    "tests/test_compilers.py::test_compiled_fullgraph[float64]": "other dtype",
    "tests/test_compilers.py::test_reads_the_functions_own_code[float32]": "recorder",
    "tests/test_compilers.py::test_reads_the_functions_own_code[float64]": "other dtype",
    "tests/test_compilers.py::test_scripts_the_public_function_it_holds[float32]": ["double[test 3]"],
    "tests/test_compilers.py::test_scripts_the_public_function_it_holds[float64]": "other dtype",
    "tests/test_lazy.py::test_built_lazy_object_is_not_loaded[float32]": "no tensor call",
    "tests/test_lazy.py::test_built_lazy_object_is_not_loaded[float64]": "other dtype",
    "tests/test_modes.py::test_scaled_in_a_unit[float32]": "outside its test",
    "tests/test_modes.py::test_scaled_in_a_unit[float64]": "other dtype",
}


@pytest.fixture(scope="module")
def found():
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))  # modelib is not installed; its tests import it from here
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    return discover_suite("modelib", TESTS, time_limit=LIMIT)


def test_every_test_passes_under_plain_pytest():
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                           str(TESTS)], cwd=PROJECT, env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "14 passed" in done.stdout


def test_each_test_yields_its_cases_or_a_reason(found):
    assert {r.ref: [c.name for c in r.cases] if r.cases else r.skip for r in found.reports} == EXPECTED


def test_scripting_and_compiling_see_the_library_and_its_calls_are_cases(found):
    cases = {spec.name: spec for spec in found.cases}
    assert [tuple(t.shape) for t in cases["double[test]"].inputs] == [(4, 3)]  # the eager call beside the script
    assert [tuple(t.shape) for t in cases["double[test 2]"].inputs] == [(3, 3)]
    assert [tuple(t.shape) for t in cases["double[test 3]"].inputs] == [(5, 2)]  # it scripted the proxy it held
    assert all(t.dtype == torch.float32 for spec in cases.values() for t in spec.inputs)
    import modelib

    assert modelib.double.__code__.co_name == "double"  # the originals are back after discovery


def test_a_test_failing_only_under_recording_says_so(found):
    report = {r.ref: r for r in found.reports}["tests/test_compilers.py::test_reads_the_functions_own_code[float32]"]
    assert report.skip == "recorder"
    assert report.detail.startswith("AssertionError")  # the error under recording; the kind's words say the rest


def test_a_fixture_set_dtype_is_recognised(found):
    report = {r.ref: r for r in found.reports}["tests/test_compilers.py::test_scripted_function[float64]"]
    assert report.detail == ("its fixtures set the default dtype to torch.float64, so its calls would run in it: "
                             "not run")
    assert report.dropped == []  # said once, as the reason


def test_a_call_that_needs_its_tests_mode_is_listed_not_kept(found):
    report = {r.ref: r for r in found.reports}["tests/test_modes.py::test_scaled_in_a_unit[float32]"]
    assert report.detail == ("modelib.scaled does not run outside its test: RuntimeError: no unit set: set "
                             "modelib.settings['unit'] first")
    assert not any(spec.name.startswith("scaled") for spec in found.cases)


def test_discover_tests_says_each_reason(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "modelib", "--tests",
                           str(TESTS), "--time-limit", str(LIMIT), "--no-cases"], cwd=tmp_path,
                          env=dict(ENV, KEXPORT_DISCOVERY_CACHE="off"), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert ("test_reads_the_functions_own_code[float32]: no case: it fails only under the probe's recorder (the "
            "probe's limitation, not the test's): AssertionError") in out
    assert ("test_scaled_in_a_unit[float32]: no case: its calls do not run outside the test (a mode or state the "
            "test set): modelib.scaled does not run outside its test: RuntimeError") in out
    assert "1 it fails only under the probe's recorder" in out
    assert "1 its calls do not run outside the test" in out
