"""Building a case in a worker has its own limit and its own outcome, and never runs a test suite (issue 43).

e3nn's case module discovered cases from its docstrings and from its o3 tests; two docstring cases did not
pickle, so the worker imported the whole case module to build them, ran the o3 test suite again, passed the
300 s limit "during start-up" and recorded ``timeout`` on all three paths (plain torch fails them in 12.5 s);
the next run reused those timeouts. Here a tiny library (buildlib_kx) plays that part: a docstring example
whose case bakes a lambda (it does not pickle) and sleeps when a worker runs it again (in the first two
runs), and a test suite that writes a line to a counter file each time it runs. Real probe runs, with a small
--timeout.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[3]
TIMEOUT = 15  # each step's limit: the worker's build of apply[doc] (REBUILD_SLEEP) takes longer
REBUILD_SLEEP = 20  # seconds the example sleeps when a worker runs it again to build its case

LIBRARY = '''
    import torch


    def apply(x, fn):
        """Applies ``fn`` to ``x``.

        >>> import buildhelp
        >>> buildhelp.example_ran()
        >>> apply(torch.ones(2), lambda t: t * 2)
        tensor([2., 2.])
        """
        return fn(x)


    def scale(x, k):
        return x * k
    '''

# the example's helper, outside the library (not recorded): counts its runs and, while the project holds the
# file SLOW_BUILD, sleeps in a worker
SLOW_BUILD = "slow-build"
HELPER = '''
    import multiprocessing
    import os
    import time

    def example_ran():
        with open({runs!r}, "a") as counter:
            counter.write(multiprocessing.current_process().name + "\\n")
        if multiprocessing.current_process().name.startswith("kexport-worker") and os.path.exists({slow!r}):
            time.sleep({sleep})
    '''

SUITE = '''
    import torch

    import buildlib_kx


    def test_scale():
        with open({runs!r}, "a") as counter:
            counter.write("suite\\n")
        assert buildlib_kx.scale(torch.ones(3), 2.0).sum() == 6
    '''

CASES = '''
    from sphinx_kexport.probe import cases_from_docstrings, cases_from_tests

    CASES = cases_from_docstrings("buildlib_kx") + cases_from_tests("buildlib_kx", {tests!r})
    '''


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "buildlib_kx").mkdir()
    (tmp_path / "buildlib_kx" / "__init__.py").write_text(textwrap.dedent(LIBRARY))
    (tmp_path / "buildhelp.py").write_text(textwrap.dedent(HELPER.format(runs=str(tmp_path / "examples.txt"),
                                                                         slow=str(tmp_path / SLOW_BUILD),
                                                                         sleep=REBUILD_SLEEP)))
    (tmp_path / SLOW_BUILD).write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_scale.py").write_text(textwrap.dedent(SUITE.format(runs=str(tmp_path / "suite.txt"))))
    (tmp_path / "build_cases.py").write_text(textwrap.dedent(CASES.format(tests=str(tmp_path / "tests"))))
    return tmp_path


def probe(project: Path, *args: str):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(project)]),
               KEXPORT_DISCOVERY_CACHE=str(project / "cache"))
    return probe_cli("--cases", str(project / "build_cases.py"), "--out", str(project / "snap.json"),
                     "--library", "buildlib_kx", "--jobs", "1", "--no-dynamic", "--timeout", str(TIMEOUT),
                     "--stats", str(project / "stats.json"), *args, cwd=project, env=env)


def results(project: Path) -> dict:
    snapshot = json.loads((project / "snap.json").read_text())
    return {case["name"]: case["results"].get("cpu", {}) for case in snapshot["cases"]}


def suite_runs(project: Path) -> int:
    return (project / "suite.txt").read_text().split().count("suite")


def test_a_slow_build_is_not_the_operators_time_and_a_build_past_its_limit_is_measured_next_run(project):
    first = probe(project)
    assert first.returncode == 0, first.stdout + first.stderr
    measured = results(project)
    # built in a worker in REBUILD_SLEEP s, more than the step limit: the case's real result, no timeout
    assert {path: record["status"] for path, record in measured["apply[doc]"].items()} == {
        "onnx": "ok", "export": "ok", "compile": "ok"}, measured["apply[doc]"]
    assert measured["scale[test]"]["onnx"]["status"] == "ok"
    assert any(name.startswith("kexport-worker") for name in (project / "examples.txt").read_text().split())
    assert suite_runs(project) == 1  # the inventory ran the tests once; no worker ran them again

    # a build limit under the build's time: not built in time, said so, no status, no record
    second = probe(project, "--fresh", "--build-timeout", "5")
    assert second.returncode != 0
    said = second.stdout + second.stderr
    assert "apply[doc] [cpu]: could not be built in time" in said and "build limit of 5 s" in said
    snapshot = json.loads((project / "snap.json").read_text())
    entry = next(case for case in snapshot["cases"] if case["name"] == "apply[doc]")
    assert entry["results"] == {} and "apply[doc]" in snapshot["missing"]
    assert json.loads((project / "stats.json").read_text())["cases_not_built_in_time"] == 1

    # the next run measures it (nothing of it to reuse), and reuses the rest; the suite never ran again. Its build
    # is quick now: the two runs above proved what a slow one does, this one need not wait REBUILD_SLEEP again
    (project / SLOW_BUILD).unlink()
    third = probe(project)
    assert third.returncode == 0, third.stdout + third.stderr
    assert "measured 1, reused 1" in third.stdout
    assert results(project)["apply[doc]"]["onnx"]["status"] == "ok"
    assert suite_runs(project) == 1
    cache = json.loads((project / "stats.json").read_text())["discovery_cache"]
    assert cache["files"] == 2 and cache["bytes"] > 0  # the docstrings' entry and the tests'

    fourth = probe(project)  # nothing changed: nothing measured, the discovery cache reused, the suite not run
    assert fourth.returncode == 0, fourth.stdout + fourth.stderr
    assert "measured 0, reused 2" in fourth.stdout and suite_runs(project) == 1


def test_an_old_timeout_during_start_up_is_measured_again_not_reused():
    from sphinx_kexport.snapshot.result_records import timed_out, to_measure_again

    old = {path: timed_out("ran past the time limit of 300 s during start-up", "", 300.0)
           for path in ("onnx", "export", "compile")}
    assert to_measure_again(old, 300.0)  # its build's time, not the operator's
    eager = {path: timed_out("ran past the time limit of 300 s during the eager reference", "", 300.0)
             for path in ("onnx", "export", "compile")}
    assert not to_measure_again(eager, 300.0)  # the operator's own timeout is the answer under that limit
