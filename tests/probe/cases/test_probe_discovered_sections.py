"""One operator, one section: a discovered case is listed where the first case of its object of the best origin is
(a hand-written case's package and section, else a docstring case's), whichever discovery call recorded it
(tests/probe/probe_cases/placelib_cases.py: a hand-written case of placelib.nn.blur in placelib.nn, section
"filters"; the tests of the whole library reach blur as placelib.blur, which alone would list it under placelib).

Through a real probe run; the rule between a docstring and a test case through the join of the case modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from probe_cli import fixture_survey

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
PROBE = REPO / "tests" / "probe"
PROJECT = PROBE / "probe_cases" / "placeproject"


def test_a_test_case_goes_where_the_hand_written_case_of_its_object_is(tmp_path):
    pytest.importorskip("onnxruntime")
    snapshot = fixture_survey(PROBE / "probe_cases" / "placelib_cases.py", "placelib", PROJECT, tmp_path)
    placed = {c["name"]: (c["package"], c["section"], c["ref"], c["inputs"][0]["shape"]) for c in snapshot["cases"]}
    assert placed == {"blur": ("placelib.nn", "filters", "placelib.nn.blur", [2, 3]),
                      "blur[test]": ("placelib.nn", "filters", "placelib.nn.blur", [4, 5])}


def test_a_test_case_goes_where_the_docstring_case_of_its_object_is():
    from sphinx_kexport.probe.cases.inventory import Joinable, join
    from sphinx_kexport.snapshot.vocabulary import ORIGIN_DOCSTRING, ORIGIN_HAND, ORIGIN_TEST

    doc = Joinable("warp[doc]", "lib.geometry", "lib.geometry.transform.warp", ((2, 3),), ORIGIN_DOCSTRING,
                   section="transform")
    test = Joinable("warp[test]", "lib.geometry", "lib.geometry.transform.warp", ((4, 5),), ORIGIN_TEST)
    other = Joinable("flip[test]", "lib.geometry", "lib.geometry.flip", ((4, 5),), ORIGIN_TEST)
    hand = Joinable("flip", "lib", "lib.geometry.flip", ((1, 1),), ORIGIN_HAND, section="mine")
    cases, _ = join([("cases_a", [test, doc, other]), ("cases_b", [hand])], lambda j: j,
                    lambda j, name: j, place=lambda j, package, section: Joinable(
                        j.name, package, j.ref, j.shapes, j.origin, j.aliases, section, j.suite))
    assert {j.name: (j.package, j.section) for j in cases} == {
        "warp[doc]": ("lib.geometry", "transform"), "warp[test]": ("lib.geometry", "transform"),
        "flip[test]": ("lib", "mine"), "flip": ("lib", "mine")}
