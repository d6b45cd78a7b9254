"""The library's own testing helpers (a module named testing, tests, test_utils, ...) are not operators: discovery
leaves them out unless asked for, and `discover` says what it left out (tests/probe/probe_cases/helperproject:
helperlib.scale, and helperlib.testing.assert_scales, which the library's tests call with a tensor).

Through the real `discover` command, on docstrings and on the library's tests.
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
PROBE = REPO / "tests" / "probe"
PROJECT = PROBE / "probe_cases" / "helperproject"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(PROBE), str(PROJECT)]))
LEFT_OUT = ("helperlib.testing: no case: left out: the library's testing helpers, not operators: helperlib.testing, "
            "a module of the library's testing helpers (named test, tests, testing, test_utils, testing_utils): not "
            "recorded as an operator. To survey it, include it (include=['helperlib.testing'], or discover "
            "--include helperlib.testing)")


def discover(*extra: str, cwd: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", "discover", "helperlib", "--no-cases", *extra],
                          cwd=cwd, env=ENV, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout.splitlines()


def test_the_docstring_examples_of_the_testing_helpers_give_no_case_and_are_said(tmp_path):
    out = discover(cwd=tmp_path)
    assert "    scale[doc] -> helperlib.scale [(2,3)]" in out
    assert not any("assert_scales[doc]" in line for line in out), out
    assert LEFT_OUT in out
    assert any(line.startswith("helperlib: 1 objects with examples, 1 cases; objects without a case: 1 left out: "
                               "the library's testing helpers, not operators;") for line in out), out


def test_the_tests_calls_of_the_testing_helpers_give_no_case_and_are_said(tmp_path):
    out = discover("--tests", str(PROJECT / "tests"), "--jobs", "1", cwd=tmp_path)
    assert "    test_scale: scale[test] -> helperlib.scale [(4,5)]" in out
    assert not any("assert_scales[test]" in line for line in out), out
    assert LEFT_OUT.replace(": no case:", ":") in out


def test_an_include_that_names_the_testing_helpers_surveys_them(tmp_path):
    out = discover("--include", "helperlib.testing", cwd=tmp_path)
    assert "    assert_scales[doc] -> helperlib.testing.assert_scales [(2,3)]" in out
    assert not any("left out" in line for line in out), out


def test_which_modules_are_testing_helpers():
    from sphinx_kexport.probe.discover.library import testing_asked, testing_name

    assert all(testing_name(name) for name in ("lib.testing", "lib._testing.asserts", "lib.utils.testing_utils",
                                               "lib.test_utils", "lib.tests.helpers"))
    # a library's own module whose name begins with test (test-time augmentation) is an operator's
    assert not any(testing_name(name) for name in ("lib.test_time_augmentation", "lib.attest", "lib.contest"))
    assert testing_asked("lib.testing", []) and testing_asked("lib", ["lib.testing.assert_*"])
    assert not testing_asked("lib", ["lib.nn", "tests/test_nn.py"])  # a test file selects tests, not helpers
