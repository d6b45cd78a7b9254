"""A library module that does not import, or whose ``__all__`` lists objects instead of names, is reported and
left out; the rest of the library is surveyed; an excluded module is never imported
(tests/probe/probe_cases/halfproject: halflib.good, halflib.listed, halflib.broken, halflib.excluded).

Through the real `discover` command (docstrings and --tests) and a real probe run of a case module that
calls cases_from_docstrings and cases_from_tests. halflib.excluded ends its process with status 17 when
imported: a walk that imports it before applying --exclude cannot pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
PROBE = REPO / "tests" / "probe"
PROJECT = PROBE / "probe_cases" / "halfproject"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(PROBE), str(PROJECT)]))
BROKEN = ("halflib.broken: no case: the module does not import: RuntimeError: halflib.broken needs the optional "
          "dependency 'fastwidget'. Its objects are not surveyed; the rest of the library is. To leave it out "
          "without this report, exclude it (discover --exclude halflib.broken")
LISTED = ("halflib.listed: no case: the module's __all__ lists something other than names: halflib.listed.__all__ "
          "lists Widen (a class) instead of its name (`from halflib.listed import *` raises TypeError too): write "
          "the names as strings")


def discover(*extra: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "halflib", "--no-cases",
                           "--exclude", "halflib.excluded", *extra], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=120)


def test_discover_reports_the_unreadable_modules_and_surveys_the_rest(tmp_path):
    done = discover(cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # a module left out is data, as a skipped object
    assert "Traceback" not in done.stdout + done.stderr
    out = done.stdout.splitlines()
    assert "halflib.good.double: 1 case" in out and "    double[doc] -> halflib.good.double [(2,3)]" in out
    assert any(line.startswith(BROKEN) for line in out), done.stdout
    assert any(line.startswith(LISTED) for line in out), done.stdout
    assert "Widen" not in done.stderr and "excluded" not in done.stdout  # neither walked nor reported
    assert ("halflib: 1 objects with examples, 1 cases; objects without a case: 1 the module does not import, "
            "1 the module's __all__ lists something other than names;") in done.stdout


def test_discover_tests_reports_them_too(tmp_path):
    done = discover("--tests", str(PROJECT / "tests"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    out = done.stdout.splitlines()
    assert "    test_double: double[test] -> halflib.good.double [(4,5)]" in out
    assert any(line.startswith(BROKEN.replace(": no case:", ":")) for line in out), done.stdout
    assert any(line.startswith(LISTED.replace(": no case:", ":")) for line in out), done.stdout
    assert "excluded" not in done.stdout


def test_the_probe_measures_the_rest_and_lists_the_modules_left_out(tmp_path):
    pytest.importorskip("onnxruntime")
    out = tmp_path / "support.json"
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "--cases",
                           str(PROBE / "probe_cases" / "halflib_cases.py"), "--library", "halflib", "--out", str(out),
                           "--jobs", "1", "--no-dynamic"], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    snapshot = json.loads(out.read_text())
    assert {c["name"]: {p: r["status"] for p, r in c["results"]["cpu"].items()} for c in snapshot["cases"]} == {
        "double[doc]": {"onnx": "ok", "export": "ok", "compile": "ok"},
        "double[test]": {"onnx": "ok", "export": "ok", "compile": "ok"}}
    left_out = {o["ref"]: (o["kind"], o["package"], o["detail"]) for o in snapshot["objects_without_cases"]}
    assert set(left_out) == {"halflib.broken", "halflib.listed"}
    assert left_out["halflib.broken"][:2] == ("import failed", "halflib")
    assert left_out["halflib.listed"][:2] == ("bad __all__", "halflib")
    assert left_out["halflib.listed"][2].startswith("halflib.listed.__all__ lists Widen (a class) instead of its name")


def test_an_all_that_is_not_a_list_of_names_is_said_in_words():
    import types

    from sphinx_kexport.probe.discover.library import misnamed

    module = types.ModuleType("lib.mod")
    assert misnamed(module) == ""
    module.__all__ = ["a", "b"]
    assert misnamed(module) == ""
    module.__all__ = "a"
    assert misnamed(module) == 'lib.mod.__all__ is a str, not a list of names: write __all__ = ["name", ...]'
    module.__all__ = ["a", len, types, 3, int]
    assert misnamed(module) == ("lib.mod.__all__ lists len (a builtin_function_or_method), types (a module), 3 (an int)"
                                " and 1 more instead of their names (`from lib.mod import *` raises TypeError too): "
                                "write the names as strings")
