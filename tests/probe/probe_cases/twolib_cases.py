"""The survey of tests/probe_cases/twoproject (twolib) from its two test folders, one cases_from_tests call each,
the lists added as the how-to adds two sources: each folder names its scale case scale[test]."""

import sys
from pathlib import Path

from sphinx_kexport.probe import cases_from_tests

PROJECT = Path(__file__).resolve().parent / "twoproject"
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))  # the library is not installed: its folder is on the path, as its tests expect

CASES = (cases_from_tests("twolib", PROJECT / "tests" / "a", time_limit=5)
         + cases_from_tests("twolib", PROJECT / "tests" / "b", time_limit=5))
