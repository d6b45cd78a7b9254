"""The survey of tests/probe_cases/halfproject (halflib: one good module, one whose __all__ lists a class, one that
does not import, one excluded) from its docstrings and its tests."""

import sys
from pathlib import Path

from sphinx_kexport.probe import cases_from_docstrings, cases_from_tests, merge_cases

PROJECT = Path(__file__).resolve().parent / "halfproject"
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))  # the library is not installed: its folder is on the path, as its tests expect

LEFT_OUT = ["halflib.excluded"]
CASES = merge_cases([], cases_from_docstrings("halflib", exclude=LEFT_OUT, time_limit=5)
                    + cases_from_tests("halflib", PROJECT / "tests", exclude=LEFT_OUT, time_limit=5))
