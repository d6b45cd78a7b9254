"""The survey of tests/probe_cases/placeproject (placelib): a hand-written case of placelib.nn.blur listed where its
author chose (placelib.nn, section filters), and the tests of the whole library, which reach blur as placelib.blur."""

import sys
from pathlib import Path

import torch

from sphinx_kexport.probe import case, cases_from_tests

PROJECT = Path(__file__).resolve().parent / "placeproject"
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))  # the library is not installed: its folder is on the path, as its tests expect

import placelib  # noqa: E402

HAND = [case("blur", placelib.nn.blur, [torch.ones(2, 3)], package="placelib.nn", section="filters")]
CASES = HAND + cases_from_tests("placelib", PROJECT / "tests", time_limit=5)
