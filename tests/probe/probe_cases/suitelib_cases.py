"""The survey of tests/probe_cases/suiteproject (a library with a test suite and no docstring examples) from its
tests alone."""

import sys
from pathlib import Path

from sphinx_kexport.probe import cases_from_tests

PROJECT = Path(__file__).resolve().parent / "suiteproject"
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))  # the library is not installed: its folder is on the path, as its tests expect

CASES = cases_from_tests("suitelib", PROJECT / "tests", time_limit=1)
