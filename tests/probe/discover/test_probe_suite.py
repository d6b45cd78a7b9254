"""cases_from_tests and `discover --tests` on a tiny library with a test suite and no docstring example
(tests/probe/probe_cases/suiteproject: the package suitelib and its tests/ folder).

Each test of suiteproject/tests exercises one thing discovery must handle; the tests here run that real
suite (pytest in-process), the real `discover` command and a real survey of the cases it yields.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
PROBE = REPO / "tests" / "probe"
PROJECT = PROBE / "probe_cases" / "suiteproject"
TESTS = PROJECT / "tests"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(PROJECT)]))
LIMIT = 1.0  # seconds of CPU time per test phase: test_spins spins past it

# what each test of suiteproject/tests yields: its cases' names, or why none
EXPECTED = {
    "tests/test_broken.py": "file failed",
    "tests/test_objects.py::TestGain::test_forward": ["Gain[test]"],
    "tests/test_objects.py::test_gain_twice": ["Gain[test 2]"],  # its second call; the first repeats Gain[test]
    "tests/test_objects.py::test_gains_in_a_loop": ["Gain[test 3]"],
    # a module's methods; squared's only tensor is the module's own gain
    "tests/test_objects.py::test_gain_methods": ["Gain.doubled[test]", "Gain.unit[test]", "Gain.squared[test]"],
    "tests/test_objects.py::test_box_area": ["Box.area[test]"],
    "tests/test_objects.py::test_scale_through_a_helper": ["scale[test]"],
    "tests/test_objects.py::test_spins": "time limit",
    "tests/test_ops.py::test_scale_shapes[shape0]": ["scale[test 2]"],
    "tests/test_ops.py::test_scale_shapes[shape1]": ["scale[test 3]"],
    "tests/test_ops.py::test_scale_shapes[shape2]": "covered",  # per_operator=3: scale has three already
    "tests/test_ops.py::test_scale_shapes[shape3]": "covered",
    "tests/test_ops.py::test_scale_twice_the_same_way": "covered",  # (2,3) with factor=3.0 again
    "tests/test_ops.py::test_smooth": ["smooth[test]"],  # not the scale that smooth calls itself
    "tests/test_ops.py::test_checked_refuses_1d": ["checked[test]"],  # not the calls inside pytest.raises
    "tests/test_ops.py::test_blend[cpu-float16]": "other dtype",
    "tests/test_ops.py::test_blend[cpu-float32]": ["blend[test]"],
    "tests/test_ops.py::test_blend[cpu-float64]": "other dtype",
    "tests/test_ops.py::test_blend[cuda-float16]": "needs CUDA",
    "tests/test_ops.py::test_blend[cuda-float32]": "needs CUDA",
    "tests/test_ops.py::test_blend[cuda-float64]": "needs CUDA",
    "tests/test_ops.py::test_apply_a_lambda": ["apply[test]"],
    "tests/test_ops.py::test_ramp_from_python_values": ["make_ramp[test]"],  # a graph of constants
    "tests/test_ops.py::test_ramp_of_a_numpy_length": "no tensor call",
    "tests/test_ops.py::test_that_fails": "failed",
    "tests/test_ops.py::test_on_cuda": "needs CUDA",
    "tests/test_ops.py::test_downloads_weights": "network",
    "tests/test_ops.py::test_blend_an_indirect_parameter[1]": ["blend[test 2]"],
    "tests/test_ops.py::test_writes_a_file_by_a_relative_name": "covered",
    "tests/test_with_fixture_values.py::test_smooth_on_the_fixtures_place": ["smooth[test 2]"],
    # a call during which the test's unittest.mock stand-in ran is no case; one the stand-in stays out of is
    "tests/test_with_mocks.py::test_a_function_patched_with_autospec": "mocked",
    "tests/test_with_mocks.py::test_a_function_patched_by_a_decorator": "mocked",
    "tests/test_with_mocks.py::test_a_patch_the_call_never_reaches": ["Box.area[test 2]"],
    "tests/test_with_mocks.py::test_a_patch_started_then_stopped": ["blend[test 3]"],  # its call after stop()
    # its call ran while the default dtype it set was float64: the case would be float64
    "tests/test_zz_last.py::test_leaves_float64_as_the_default": "other dtype",
}


def _on_path() -> None:
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))  # suitelib is not installed; its tests import it from here


@pytest.fixture(scope="module")
def found():
    _on_path()
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    hub, environment = torch.hub.get_dir(), dict(os.environ)
    found = discover_suite("suitelib", TESTS, time_limit=LIMIT)
    assert torch.get_default_dtype() == torch.float32  # the suite's last test set float64 and left it
    assert torch.hub.get_dir() == hub and dict(os.environ) == environment  # its conftest changed both
    assert not Path("written-by-a-test.txt").exists()  # a test's relative file lands in a scratch directory
    return found


def _cases(found) -> dict:
    return {spec.name: spec for spec in found.cases}


def _yields(found) -> dict:
    return {r.ref: [c.name for c in r.cases] if r.cases else r.skip for r in found.reports}


def test_each_test_yields_its_cases_or_a_reason(found):
    assert found.cache == "discovery cache off"  # KEXPORT_DISCOVERY_CACHE=off (tests/probe/conftest.py)
    assert _yields(found) == EXPECTED
    reports = {r.ref: r for r in found.reports}
    assert "ImportError: cannot import name 'not_there'" in reports["tests/test_broken.py"].detail
    assert reports["tests/test_ops.py::test_that_fails"].detail == "AssertionError: wrong on purpose"
    assert reports["tests/test_ops.py::test_on_cuda"].detail == "skipped: needs a CUDA device"
    assert reports["tests/test_ops.py::test_blend[cuda-float32]"].detail.startswith("parametrised with device=cuda")
    assert reports["tests/test_ops.py::test_blend[cpu-float64]"].detail == "dtype=torch.float64"
    assert "urlopen" in reports["tests/test_ops.py::test_downloads_weights"].detail
    assert reports["tests/test_objects.py::test_spins"].detail == f"ran past the {LIMIT:g} s limit"
    assert reports["tests/test_ops.py::test_ramp_of_a_numpy_length"].detail == \
        "calls suitelib.make_ramp with neither a tensor nor plain Python values only"
    assert reports["tests/test_ops.py::test_scale_twice_the_same_way"].covered == 2
    assert reports["tests/test_with_mocks.py::test_a_function_patched_with_autospec"].detail == (
        "suitelib.smooth ran the test's unittest.mock stand-in for suitelib.scale")
    assert reports["tests/test_with_mocks.py::test_a_function_patched_by_a_decorator"].detail == (
        "suitelib.smooth ran the test's unittest.mock stand-in for suitelib.scale")
    assert reports["tests/test_with_mocks.py::test_a_patch_started_then_stopped"].dropped == [
        "suitelib.Gain.doubled ran the test's unittest.mock stand-in for suitelib.scale (no mock, so whether it "
        "ran cannot be counted: taken as run)"]
    from unittest import mock
    assert mock._patch.__enter__.__name__ == "__enter__"  # discovery put unittest.mock back as it was


def test_only_the_tests_own_calls_outside_pytest_raises_are_cases(found):
    cases = _cases(found)
    # smooth calls scale itself: one case; the test's pytest.raises block calls scale and checked, and the
    # callable form calls checked: none of them is a case, the plain checked(torch.ones(2, 2)) after them is
    assert {spec.ref for spec in found.cases} == {f"suitelib.{n}" for n in (
        "Gain", "Gain.doubled", "Gain.unit", "Gain.squared", "Box.area", "scale", "smooth", "checked", "blend",
        "apply", "make_ramp")}
    # a method whose only tensor is its module's, and a factory of Python values: cases with no tensor input
    assert cases["Gain.squared[test]"].inputs == [] and cases["make_ramp[test]"].inputs == []
    assert cases["make_ramp[test]"].kwargs == {"n": 4}
    assert "no tensor input (a graph of the held tensors and constants)" in cases["Gain.squared[test]"].note
    assert [tuple(t.shape) for t in cases["checked[test]"].inputs] == [(2, 2)]
    checked = next(r for r in found.reports if r.ref == "tests/test_ops.py::test_checked_refuses_1d")
    assert (checked.dropped, checked.covered) == ([], 0)  # the calls in pytest.raises were never recorded
    scales = sorted(tuple(cases[n].inputs[0].shape) for n in ("scale[test]", "scale[test 2]", "scale[test 3]"))
    assert scales == [(1, 3, 4, 4), (2, 3), (6,)]  # (4,) and (5, 5) came after three were kept
    assert all(cases[n].kwargs == {"factor": 3.0} for n in ("scale[test]", "scale[test 2]", "scale[test 3]"))


def test_per_operator_keeps_configurations_that_differ(found):
    from sphinx_kexport.probe.discover.suite.suite import discover_suite

    # the project's folder holds the library too: its own calls (smooth's call of scale) are still not the tests'
    one = discover_suite("suitelib", PROJECT, include=["suitelib.scale"], per_operator=1, time_limit=LIMIT)
    assert [c.name for c in one.cases] == ["scale[test]"]  # only scale: include; one configuration: per_operator
    assert one.cases[0].note.startswith("from the test `tests/test_objects.py::test_scale_through_a_helper`")
    reports = {r.ref: r for r in one.reports}
    assert reports["tests/test_ops.py::test_scale_shapes[shape0]"].skip == "covered"
    assert reports["tests/test_ops.py::test_smooth"].skip == "no tensor call"  # smooth is not included
    assert reports["tests/test_ops.py::test_smooth"].detail == ("calls only suitelib.smooth, which include/exclude "
                                                                "leave out")
    assert reports["tests/test_ops.py::test_downloads_weights"].skip == "network"


def test_names_notes_and_origin(found):
    cases = _cases(found)
    assert {spec.origin for spec in found.cases} == {"test"}
    assert cases["Gain[test]"].note == ("from the test `tests/test_objects.py::TestGain::test_forward`; "
                                        "nn.Module built in the test; x (2,4) live")
    assert cases["Gain[test]"].target.gain.item() == 0.5
    assert cases["scale[test 2]"].note == ("from the test `tests/test_ops.py::test_scale_shapes[shape0]`; "
                                           "x (2,3) live; factor=3.0 baked")
    assert cases["Box.area[test]"].note == ("from the test `tests/test_objects.py::test_box_area`; the Box built in "
                                            "the test is baked; sides (3,2) live")
    assert cases["blend[test]"].note.endswith("a (2,2), b (2,2) live; alpha=0.25 baked")
    assert cases["blend[test]"].inputs[0].dtype == torch.float32
    assert all(spec.package == "suitelib" and spec.check for spec in found.cases)
    ref = cases["scale[test 2]"].discovery
    assert (ref.node, ref.call_ref, ref.occurrence, Path(ref.rootdir)) == (
        "tests/test_ops.py::test_scale_shapes[shape0]", "suitelib.scale", 0, PROJECT)


def test_the_code_is_the_tests_own_lines_with_fixtures_inlined(found):
    cases = _cases(found)
    smooth = cases["smooth[test]"].code
    assert "def _fixture_image():" in smooth and "image = _fixture_image()" in smooth  # from tests/conftest.py
    assert "def _ramp(n):" in smooth and "import suitelib" in smooth  # what the fixture and the call read
    assert smooth.rstrip().endswith("target, inputs = suitelib.smooth, (image,)")
    blend = cases["blend[test]"].code
    assert "device = torch.device('cpu')" in blend and "dtype = torch.float32" in blend  # the parametrisation
    assert "pytest" not in cases["checked[test]"].code  # the test's checks are left out
    assert cases["scale[test]"].code == ""  # made in a helper of the test file: written from ref and inputs
    assert cases["blend[test 2]"].code == ""  # its fixture reads request.param: `offset = 1` would be wrong
    # a fixture whose source cannot be held (it reads a name set in a loop): the device it gave, written out
    assert "place = torch.device('cpu')" in cases["smooth[test 2]"].code


def test_every_snippet_runs_as_pasted(found):
    """The repro's ``call`` of each case (from its code, or from its ref and inputs) runs in a fresh interpreter
    and gives the shapes the case gives."""
    from sphinx_kexport.probe.cases.call_source import call_source

    snippets = {name: call_source(spec) for name, spec in _cases(found).items()}
    script = textwrap.dedent("""
        import json, sys
        shapes = {}
        for name, code in json.loads(sys.stdin.read()).items():
            namespace = {}
            try:
                exec(code, namespace)
            except NotImplementedError as exc:  # a snippet that says it cannot be written
                shapes[name] = str(exc)
                continue
            out = namespace["fn"](*namespace["inputs"])
            shapes[name] = list(out.shape)
        print(json.dumps(shapes))
        """)
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(snippets), env=ENV, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    expected = {}
    for name, spec in _cases(found).items():
        out = spec.target(*spec.inputs, **spec.kwargs)
        expected[name] = list(out.shape)
    expected["Gain[test 3]"] = ("this snippet cannot rebuild the target and inputs of the test "
                                "`tests/test_objects.py::test_gains_in_a_loop`: the call is inside a for block of "
                                "the test; run that test to see the call")
    assert json.loads(done.stdout) == expected
    assert "_kx_fn = lambda t: t * 2" in snippets["apply[test]"]  # a baked lambda, from the test's own source


def test_a_hand_written_case_wins_then_a_docstring_one(found):
    from sphinx_kexport.probe import case, merge_cases
    from sphinx_kexport.probe.cases.inventory import join
    from suitelib import Gain, scale

    hand = [case("scale[hand]", scale, [torch.rand(2, 3)], {"factor": 5.0}, package="suitelib")]
    doc = case("Gain[doc]", Gain(2.0), [torch.rand(2, 4)], package="suitelib")
    doc.origin = "docstring"
    doc_of_hand = case("scale[doc]", scale, [torch.rand(2, 3)], package="suitelib")
    doc_of_hand.origin = "docstring"
    merged = [c.name for c in merge_cases(hand, [doc, doc_of_hand] + found.cases)]
    assert merged[:2] == ["scale[hand]", "Gain[doc]"]
    assert "scale[test 2]" not in merged and "scale[doc]" not in merged  # (2,3): the hand-written one wins
    assert "Gain[test]" not in merged  # (2,4): the docstring one wins over the test's
    assert {"scale[test]", "scale[test 3]", "Box.area[test]"} <= set(merged)
    # the survey joins its case modules by the same rule, whatever order they come in
    kept, dropped = join([("tests", list(found.cases)), ("docs", [doc]), ("hand", hand)],
                         lambda spec: spec.joinable, lambda spec, name: spec)
    assert sorted((d.name, w.name) for d, w in dropped) == [("Gain[test]", "Gain[doc]"),
                                                             ("scale[test 2]", "scale[hand]")]
    assert len(kept) == len(found.cases) and {"Gain[doc]", "scale[hand]"} <= {spec.name for spec in kept}


def test_names_and_fingerprints_are_identical_in_two_processes(found):
    script = textwrap.dedent(f"""
        import json
        from sphinx_kexport.probe import cases_from_tests
        from sphinx_kexport.probe.cases.fingerprint import case_definition
        from sphinx_kexport.probe.base.reuse.decide import fingerprint
        cases = cases_from_tests("suitelib", {str(TESTS)!r}, time_limit={LIMIT})
        print(json.dumps([[c.name, fingerprint(case_definition(c), "cpu", 18, "1", {{}})] for c in cases]))
        """)
    # this process's discovery (the module's) against a fresh interpreter's
    done = subprocess.run([sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    from sphinx_kexport.probe.cases.fingerprint import case_definition
    from sphinx_kexport.probe.base.reuse.decide import fingerprint

    here = [[c.name, fingerprint(case_definition(c), "cpu", 18, "1", {})] for c in found.cases]
    assert json.loads(done.stdout) == here and len(here) == 19


def test_the_cache_reuses_the_run_and_an_edited_test_runs_them_again(tmp_path, monkeypatch):
    _on_path()
    from sphinx_kexport.probe.cases.fingerprint import case_definition, definition_digest
    from sphinx_kexport.probe.discover.suite.suite import discover_suite, suite_case

    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("__pycache__"))
    tests = project / "tests"
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", str(tmp_path / "cache"))
    first = discover_suite("suitelib", tests, time_limit=LIMIT)
    assert first.cache.startswith("ran the tests and stored them in the discovery cache")
    assert "(1 test(s) will run again: their cases do not pickle)" in first.cache  # apply's baked lambda
    again = discover_suite("suitelib", tests, time_limit=LIMIT)
    assert again.cache.startswith("loaded from the discovery cache")
    assert again.cache.endswith("ran again the 1 test(s) whose cases do not pickle") and again.tests_run == 1
    digests = lambda d: [(c.name, definition_digest(case_definition(c))) for c in d.cases]  # noqa: E731
    assert digests(again) == digests(first)
    assert _yields(again) == _yields(first)
    # a worker builds one case alone: from its entry, or (the lambda's, or any without the cache) by running
    # that one test again and taking the same call of it (Gain[test 2] is its test's second call of Gain)
    for name, cache in (("Gain[test]", "on"), ("apply[test]", "on"), ("Gain[test 2]", "off")):
        if cache == "off":
            monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", "off")
        spec = next(c for c in first.cases if c.name == name)
        alone = suite_case(spec.discovery, name)
        assert alone is not None and definition_digest(case_definition(alone)) == \
            definition_digest(case_definition(spec))
    assert next(c for c in first.cases if c.name == "Gain[test 2]").discovery.occurrence == 1
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", str(tmp_path / "cache"))
    with (tests / "test_objects.py").open("a") as handle:
        handle.write("\n\ndef test_added():\n    assert scale(torch.ones(7), 3.0).shape == (7,)\n")
    edited = discover_suite("suitelib", tests, time_limit=LIMIT)
    # the edited test file runs again (with the one whose cases do not pickle), the others come from the cache
    assert edited.cache.startswith("ran again ") and \
        "tests/test_objects.py (./tests/test_objects.py changed)" in edited.cache
    assert _yields(edited)["tests/test_objects.py::test_added"] == ["scale[test 2]"]  # (7,): a new configuration
    assert _yields(edited)["tests/test_ops.py::test_scale_shapes[shape1]"] == "covered"  # so scale is full sooner
    assert len(list((tmp_path / "cache").glob("suitelib-*.pickle"))) == 1  # the old key's file is replaced
    from sphinx_kexport.probe.discover.cache import discovery_code_files

    # the key covers the tests discovery's own code, read from what suite.py imports
    assert {"suite.py", "suite_run.py", "suite_cases.py", "library.py", "recording.py", "call_replay.py",
            "repro_source.py", "slicer.py"} <= {p.name for p in discovery_code_files("suite/suite.py")}


def test_discover_tests_lists_each_file_and_why(tmp_path):
    hand = tmp_path / "hand_cases.py"
    hand.write_text("import torch\nfrom sphinx_kexport.probe import case, cases_from_tests\nfrom suitelib import Gain\n"
                    "CASES = [case('Gain[hand]', Gain(), [torch.rand(2, 4)], package='suitelib')] + "
                    f"cases_from_tests('suitelib', {str(TESTS)!r}, time_limit={LIMIT})\n")
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "suitelib", "--tests",
                           str(TESTS), "--time-limit", str(LIMIT), "--cases", str(hand)], cwd=tmp_path,
                          env=dict(ENV, KEXPORT_DISCOVERY_CACHE=str(tmp_path / "cache")), capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tests/test_broken.py: no case: its file does not import: ImportError")
    assert "tests/test_objects.py: 7 tests, 8 cases" in lines
    assert "    TestGain::test_forward: Gain[test] -> suitelib.Gain [(2,4)]: repeats the hand-written case " \
           "'Gain[hand]', not kept" in lines
    assert "    test_spins: no case: it ran past its time limit: ran past the 1 s limit" in lines
    assert "    test_that_fails: no case: the test failed: AssertionError: wrong on purpose" in lines
    assert "    test_on_cuda: no case: it needs CUDA: skipped: needs a CUDA device" in lines
    assert "    test_scale_shapes[shape1]: scale[test 3] -> suitelib.scale [(1,3,4,4)]" in lines
    assert lines[-2].startswith(f"suitelib from {TESTS}: 34 tests in 6 files, 18 cases (+1 repeating hand-written "
                                "or docstring cases from ")
    # 4 repeat: test_leaves_float64_as_the_default's call ran in float64, another dtype
    assert "tests without a case: 1 no public tensor call, 4 its calls repeat configurations already kept, " \
           "2 its calls ran the test's unittest.mock stand-ins, 1 the test failed" in lines[-2]
    assert "3 parametrised with, or its calls ran in, another dtype than float32" in lines[-2]
    # loading the configured cases left their cases_from_tests out (else it would have filled the cache)
    assert lines[-1].startswith("ran the tests and stored them in the discovery cache")
    assert done.stderr.startswith(f"discovering suitelib: importing it, then running its tests under {TESTS} (or "
                                  "loading them from the discovery cache)\n")
    # progress, on stderr: a whole line per test, numbered as the tests end (in shards: --jobs, the CPU count)
    progress = [line for line in done.stderr.splitlines() if re.match(r"  \[\d+/29\] tests/", line)]
    assert sorted(int(re.match(r"  \[(\d+)/", line).group(1)) for line in progress) == list(range(1, 30))
    assert any(re.fullmatch(r"  \[\d+/29\] tests/test_objects.py::TestGain::test_forward: 1 case, \d+\.\d s", line)
               for line in progress)


def test_a_missing_tests_path_is_said_without_a_traceback(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "suitelib", "--tests",
                           "no/such/tests", "--no-cases"], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--tests no/such/tests: no such file or folder" in done.stderr
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "suitelib", "--per-operator", "2",
                           "--no-cases"], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--per-operator counts the configurations kept from the tests: give --tests" \
        in done.stderr
    _on_path()
    from sphinx_kexport.probe import cases_from_tests
    from sphinx_kexport.probe.discover.library import DiscoveryError

    with pytest.raises(DiscoveryError, match="the tests path 'nowhere' does not exist .*relative path is read from "
                                             "the current directory"):
        cases_from_tests("suitelib", "nowhere")
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    (stopped / "pytest.ini").write_text("[pytest]\n")
    (stopped / "conftest.py").write_text("import pytest\n\ndef pytest_configure(config):\n"
                                         "    pytest.exit('this suite runs on the GPU farm only')\n")
    with pytest.raises(DiscoveryError, match=r"(?s)pytest could not run the tests of .*stopped \(exit status 2\):.*"
                                             "this suite runs on the GPU farm only"):
        cases_from_tests("suitelib", stopped)


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    """One survey of probe_cases/suitelib_cases.py (its cases come from the tests alone), a few cases measured."""
    from sphinx_kexport.probe import ProbeConfig, run_survey

    out = tmp_path_factory.mktemp("suite-survey") / "export_support.json"
    progress = io.StringIO()
    result = run_survey(ProbeConfig(cases=[str(PROBE / "probe_cases" / "suitelib_cases.py")], out=out, jobs=2,
                                    dynamic=False, only=["Gain[test]", "scale[test 2]", "Box.area[test]", "Gain.squared",
                                                                   "make_ramp"]), stream=progress)
    return result, progress.getvalue()


def test_a_survey_from_the_tests_alone(survey):
    result, progress = survey
    cases = {c["name"]: c for c in result.snapshot["cases"]}
    assert set(cases) == set(name for names in EXPECTED.values() if isinstance(names, list) for name in names)
    assert {c["origin"] for c in cases.values()} == {"test"}
    measured = {name: {path: r["status"] for path, r in c["results"]["cpu"].items()}
                for name, c in cases.items() if c["results"]}
    assert measured == {name: {"onnx": "ok", "export": "ok", "compile": "ok"}
                        for name in ("Gain[test]", "scale[test 2]", "Box.area[test]", "Gain.squared[test]",
                                     "make_ramp[test]")}  # built by the workers alone; the last two: no tensor input
    assert "gain = Gain(0.5)" in cases["Gain[test]"]["call"]
    assert "suitelib_cases.py: 19 cases in" in progress


def test_the_page_renders_the_test_cases(survey, tmp_path):
    from sphinx.testing.util import SphinxTestApp

    result, _ = survey
    src = tmp_path / "src"
    (src / "_data").mkdir(parents=True)
    (src / "_data" / "export_support.json").write_text(json.dumps(result.snapshot))
    (src / "conf.py").write_text('project = "suitelib"\nextensions = ["sphinx_kexport"]\n')
    (src / "index.rst").write_text("suitelib\n========\n\n.. export-support:: _data/export_support.json\n")
    app = SphinxTestApp("html", srcdir=src, freshenv=True, status=io.StringIO(), warning=io.StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    assert app.warning.getvalue() == ""
    from bs4 import BeautifulSoup

    page = BeautifulSoup((app.outdir / "index.html").read_text(), "lxml")
    rows = {row["id"]: row.get_text(" ", strip=True) for row in page.select("table.kx-t tr[id]")}
    assert rows["kx-gain-test"] == ("Gain test from the test `tests/test_objects.py::TestGain::test_forward`; "
                                    "nn.Module built in the test; x (2,4) live yes yes yes")
    assert sorted(rows) == ["kx-box-area-test", "kx-gain-squared-test", "kx-gain-test", "kx-make-ramp-test",
                            "kx-scale-test-2"]  # the cases probed (--only)
