"""Two test folders, one case name: a case module that calls cases_from_tests once per test folder and adds the
lists (tests/probe/probe_cases/twolib_cases.py: twoproject/tests/a and tests/b each name their call of
twolib.scale ``scale[test]``) is surveyed, each folder's case under a name of its own; and include selects test
files as well as callables.

Through a real probe run (each case built by a worker from its own folder's test) and the real `discover` command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from probe_cli import fixture_survey

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
PROBE = REPO / "tests" / "probe"
PROJECT = PROBE / "probe_cases" / "twoproject"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(PROBE), str(PROJECT)]))


def test_two_test_folders_give_two_cases_each_of_its_own_folder(tmp_path):
    pytest.importorskip("onnxruntime")
    # not exit 2, "case 'scale[test]' is registered twice in this module"
    snapshot = fixture_survey(PROBE / "probe_cases" / "twolib_cases.py", "twolib", PROJECT, tmp_path)
    cases = {c["name"]: ([i["shape"] for i in c["inputs"]], {p: r["status"] for p, r in c["results"]["cpu"].items()})
             for c in snapshot["cases"]}
    ok = {"onnx": "ok", "export": "ok", "compile": "ok"}
    # the first folder keeps the name; the second's is qualified by its folder, and its worker built its own call
    assert cases == {"scale[test]": ([[2, 3]], ok), "scale[test][tests/b]": ([[4, 5]], ok)}


def discover(*extra: str, cwd: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "twolib", "--no-cases",
                           "--tests", str(PROJECT / "tests"), "--jobs", "1", *extra],
                          cwd=cwd, env=ENV, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("include", ["tests/b/test_scale_b.py", "test_scale_b.py", "b/", "tests/b/*",
                                     "test_scale_b.py::test_scale_b"])
def test_include_selects_test_files(tmp_path, include):
    out = discover("--include", include, cwd=tmp_path)
    assert "tests/b/test_scale_b.py: 1 test, 1 case" in out, out
    assert "    test_scale_b: scale[test] -> twolib.scale [(4,5)]" in out
    assert not any("test_scale_a" in line for line in out), out


def test_a_test_file_and_a_callable_in_include_select_both(tmp_path):
    out = discover("--include", "test_scale_a.py", "--include", "twolib.shift", cwd=tmp_path)
    assert "tests/a/test_scale_a.py: 1 test, 0 cases" in out, out
    assert ("    test_scale_a: no case: no public tensor call: calls only twolib.scale, which include/exclude leave "
            "out") in out
    assert not any("test_scale_b" in line for line in out), out


def test_exclude_leaves_a_test_file_out(tmp_path):
    out = discover("--exclude", "tests/a/", cwd=tmp_path)
    assert not any("test_scale_a" in line for line in out), out
    assert "    test_scale_b: scale[test] -> twolib.scale [(4,5)]" in out
